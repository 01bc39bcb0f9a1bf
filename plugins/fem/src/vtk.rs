//! VTK output for ParaView: one legacy `.vtk` unstructured grid of
//! tetrahedra per frame (written with vtkio) with per-node velocity (m/s) and
//! per-element neo-Hookean energy density Ψ (Pa = J/m³), and a `.pvd`
//! collection that ParaView opens as a time series.

use crate::material::{lame, psi};
use crate::mesh::TetMesh;
use pliant_core::pvd::PvdSeries;
use std::path::Path;
use vtkio::model::{
    Attribute, Attributes, ByteOrder, CellType, Cells, DataSet, UnstructuredGridPiece, Version,
    VertexNumbers, Vtk,
};

/// Writing VTK output failed (the shared series error of pliant-core).
pub type VtkError = pliant_core::pvd::SeriesError;

/// Neo-Hookean energy density Ψ (Pa) of every tetrahedron of `mesh` in the
/// deformed positions `x` (m), for Young's modulus `e` (Pa) and Poisson's ratio `nu`.
pub fn energy_density(mesh: &TetMesh, x: &[[f64; 3]], e: f64, nu: f64) -> Vec<f64> {
    let (mu, la) = lame(e, nu);
    mesh.tets
        .iter()
        .map(|t| {
            let d = |p: &[[f64; 3]], c: usize, i: usize| p[t[c + 1]][i] - p[t[0]][i];
            let dm: [f64; 9] = std::array::from_fn(|k| d(&mesh.nodes, k % 3, k / 3));
            let ds: [f64; 9] = std::array::from_fn(|k| d(x, k % 3, k / 3));
            let dmi = pliant_core::mat3::inv3(&dm, pliant_core::mat3::det3(&dm));
            let f: [f64; 9] = std::array::from_fn(|k| {
                (0..3)
                    .map(|c| ds[3 * (k / 3) + c] * dmi[3 * c + k % 3])
                    .sum()
            });
            psi(&f, mu, la)
        })
        .collect()
}

/// A time series of VTK frames plus its `.pvd` index.
#[derive(Debug)]
pub struct VtkSeries {
    series: PvdSeries,
}

impl VtkSeries {
    /// A series `name` in directory `dir` (created if needed).
    pub fn new(dir: &Path, name: &str) -> Result<Self, VtkError> {
        Ok(Self {
            series: PvdSeries::new(dir, name)?,
        })
    }

    /// Writes one frame at time `t` (s): tetrahedra `tets` over `points` (m),
    /// node velocities (m/s) and element energy densities (Pa).
    pub fn write_frame(
        &mut self,
        t: f64,
        points: &[[f64; 3]],
        tets: &[[usize; 4]],
        velocity: &[[f64; 3]],
        energy_density: &[f64],
    ) -> Result<(), VtkError> {
        let (path, file) = self.series.next_frame("vtk");
        let mut attributes = Attributes::new();
        attributes.point.push(
            Attribute::vectors("velocity")
                .with_data(velocity.iter().flatten().copied().collect::<Vec<f64>>()),
        );
        attributes
            .cell
            .push(Attribute::scalars("energy_density", 1).with_data(energy_density.to_vec()));
        let vtk = Vtk {
            version: Version::new_legacy(4, 2),
            title: format!("{} t = {t} s", self.series.name()),
            byte_order: ByteOrder::BigEndian,
            file_path: None,
            data: DataSet::inline(UnstructuredGridPiece {
                points: points
                    .iter()
                    .flatten()
                    .copied()
                    .collect::<Vec<f64>>()
                    .into(),
                cells: Cells {
                    cell_verts: VertexNumbers::Legacy {
                        num_cells: tets.len() as u32,
                        vertices: tets
                            .iter()
                            .flat_map(|t| std::iter::once(4u32).chain(t.iter().map(|&n| n as u32)))
                            .collect(),
                    },
                    types: vec![CellType::Tetra; tets.len()],
                },
                data: attributes,
            }),
        };
        vtk.export_be(&path).map_err(|e| VtkError::Format {
            path: path.clone(),
            message: format!("{e:?}"),
        })?;
        self.series.push(t, file)
    }

    /// Number of frames written.
    pub fn len(&self) -> usize {
        self.series.len()
    }
    /// Whether no frame was written.
    pub fn is_empty(&self) -> bool {
        self.series.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_frames_and_a_collection_that_vtkio_reads_back() {
        let mesh = TetMesh::from_voxel_boxes(&[([0, 0, 0], [2, 1, 1])], 0.01, [0.0; 3]).unwrap();
        let dir = std::env::temp_dir().join(format!("pliant-vtk-{}", std::process::id()));
        let mut s = VtkSeries::new(&dir, "block").unwrap();
        let stretched: Vec<[f64; 3]> = mesh
            .nodes
            .iter()
            .map(|p| [1.1 * p[0], p[1], p[2]])
            .collect();
        let psi = energy_density(&mesh, &stretched, 1e5, 0.3);
        assert!(psi.iter().all(|&v| v > 0.0));
        assert!(
            energy_density(&mesh, &mesh.nodes, 1e5, 0.3)
                .iter()
                .all(|v| v.abs() < 1e-9)
        );
        let vel = vec![[0.0, 0.0, -1.0]; mesh.nodes.len()];
        s.write_frame(0.0, &mesh.nodes, &mesh.tets, &vel, &psi)
            .unwrap();
        s.write_frame(0.1, &stretched, &mesh.tets, &vel, &psi)
            .unwrap();
        let back = Vtk::import(dir.join("block_00001.vtk")).unwrap();
        match back.data {
            DataSet::UnstructuredGrid { pieces, .. } => {
                let vtkio::model::Piece::Inline(p) = &pieces[0] else {
                    panic!("inline piece")
                };
                assert_eq!(p.num_points(), mesh.nodes.len());
                assert_eq!(p.cells.types.len(), mesh.tets.len());
            }
            other => panic!("unexpected {other:?}"),
        }
        let pvd = std::fs::read_to_string(dir.join("block.pvd")).unwrap();
        assert!(pvd.contains("block_00000.vtk") && pvd.contains("timestep=\"0.1\""));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
