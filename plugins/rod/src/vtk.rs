//! VTK output for ParaView: one legacy `.vtk` poly-data file per frame
//! (written with vtkio) with the rod edges as two-point lines, and a `.pvd`
//! collection that ParaView opens as a time series.
//!
//! [`RodVtkSeries::write_rod`] writes a bound [`RodEnergy`] with per-edge cell
//! data `strain` (ε, eq. 9), `theta` (twist angle θ, rad) and the material
//! directors `m1`, `m2` (unit vectors; use a Glyph filter to see the twist).
//! [`RodVtkSeries::write_frame`] writes any polylines with named cell data.

use crate::rod::RodEnergy;
use pliant_core::pvd::PvdSeries;
use std::path::Path;
use vtkio::model::{
    Attribute, Attributes, ByteOrder, DataSet, PolyDataPiece, Version, VertexNumbers, Vtk,
};

/// Writing VTK output failed (the shared series error of pliant-core).
pub type VtkError = pliant_core::pvd::SeriesError;

/// A time series of VTK poly-data frames plus its `.pvd` index.
#[derive(Debug)]
pub struct RodVtkSeries {
    series: PvdSeries,
}

/// Per-edge data of one frame.
#[derive(Debug, Clone, Copy)]
pub enum CellData<'a> {
    /// One scalar per edge.
    Scalars(&'a str, &'a [f64]),
    /// One 3-vector per edge.
    Vectors(&'a str, &'a [[f64; 3]]),
}

impl RodVtkSeries {
    /// A series `name` in directory `dir` (created if needed).
    pub fn new(dir: &Path, name: &str) -> Result<Self, VtkError> {
        Ok(Self {
            series: PvdSeries::new(dir, name)?,
        })
    }

    /// Writes one frame at time `t` (s): `points` (m), `edges` as lines
    /// between point indices, and per-edge `cells` data.
    pub fn write_frame(
        &mut self,
        t: f64,
        points: &[[f64; 3]],
        edges: &[[usize; 2]],
        cells: &[CellData],
    ) -> Result<(), VtkError> {
        let (path, file) = self.series.next_frame("vtk");
        let bad = |message: String| VtkError::Format {
            path: path.clone(),
            message,
        };
        if let Some(e) = edges.iter().find(|e| e.iter().any(|&i| i >= points.len())) {
            return Err(bad(format!(
                "edge {e:?} refers to a point beyond the {} given",
                points.len()
            )));
        }
        let mut attributes = Attributes::new();
        for c in cells {
            let (name, len) = match c {
                CellData::Scalars(n, v) => (n, v.len()),
                CellData::Vectors(n, v) => (n, v.len()),
            };
            if len != edges.len() {
                return Err(bad(format!(
                    "cell data `{name}` has {len} values for {} edges",
                    edges.len()
                )));
            }
            attributes.cell.push(match c {
                CellData::Scalars(n, v) => Attribute::scalars(*n, 1).with_data(v.to_vec()),
                CellData::Vectors(n, v) => Attribute::vectors(*n)
                    .with_data(v.iter().flatten().copied().collect::<Vec<f64>>()),
            });
        }
        let vtk = Vtk {
            version: Version::new_legacy(4, 2),
            title: format!("{} t = {t} s", self.series.name()),
            byte_order: ByteOrder::BigEndian,
            file_path: None,
            data: DataSet::inline(PolyDataPiece {
                points: points
                    .iter()
                    .flatten()
                    .copied()
                    .collect::<Vec<f64>>()
                    .into(),
                verts: None,
                lines: Some(VertexNumbers::Legacy {
                    num_cells: edges.len() as u32,
                    vertices: edges
                        .iter()
                        .flat_map(|e| [2, e[0] as u32, e[1] as u32])
                        .collect(),
                }),
                polys: None,
                strips: None,
                data: attributes,
            }),
        };
        vtk.export_be(&path).map_err(|e| bad(format!("{e:?}")))?;
        self.series.push(t, file)
    }

    /// Writes a bound rod at `(q, p)` (frames as currently lagged): its
    /// nodes, edges, and per-edge `strain`, `theta` (rad), `m1`, `m2`.
    ///
    /// # Panics
    /// If the rod is not bound, or `q`/`p` are shorter than the model's.
    pub fn write_rod(
        &mut self,
        t: f64,
        rod: &RodEnergy,
        q: &[f64],
        p: &[f64],
    ) -> Result<(), VtkError> {
        let nd = rod.edge_node_dofs();
        let edges = rod.network().edges();
        let mut nodes: Vec<usize> = edges.iter().flatten().copied().collect();
        nodes.sort_unstable();
        nodes.dedup();
        let mut points = vec![[0.0; 3]; nodes.len()];
        let local: Vec<[usize; 2]> = edges
            .iter()
            .zip(nd)
            .map(|(e, dofs)| {
                let ix = e.map(|n| nodes.binary_search(&n).expect("collected above"));
                for k in 0..2 {
                    points[ix[k]] = dofs[k].map(|d| q[d]);
                }
                ix
            })
            .collect();
        let strain = rod.strains(q, p).stretch;
        let theta: Vec<f64> = rod.twist_dofs().iter().map(|&d| q[d]).collect();
        let frames = rod.material_frames(q);
        let m1: Vec<[f64; 3]> = frames.iter().map(|f| f[0]).collect();
        let m2: Vec<[f64; 3]> = frames.iter().map(|f| f[1]).collect();
        self.write_frame(
            t,
            &points,
            &local,
            &[
                CellData::Scalars("strain", &strain),
                CellData::Scalars("theta", &theta),
                CellData::Vectors("m1", &m1),
                CellData::Vectors("m2", &m2),
            ],
        )
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
    use crate::Rod;
    use pliant_core::ModelBuilder;

    #[test]
    fn writes_rod_frames_and_a_collection_that_vtkio_reads_back() {
        // A junction: nodes 10..14 of a model with other nodes before them.
        let pos: Vec<[f64; 3]> = (0..14)
            .map(|k| [0.01 * k as f64, 0.002 * (k % 3) as f64, 0.0])
            .collect();
        let rod = Rod::network(vec![[10, 11], [11, 12], [13, 11]], 0.001, 1e6, 0.4, 1000.0)
            .with_rest_lengths_from(&pos)
            .unwrap();
        let mut b = ModelBuilder::new(3).unwrap();
        for p in &pos {
            b.add_node(p, 0.0).unwrap();
        }
        b.add(rod);
        let model = b.build().unwrap();
        let rod = model.energies_of::<RodEnergy>()[0];
        let dir = std::env::temp_dir().join(format!("pliant-rod-vtk-{}", std::process::id()));
        let mut s = RodVtkSeries::new(&dir, "rod").unwrap();
        let mut q = model.q0().to_vec();
        s.write_rod(0.0, rod, &q, &[]).unwrap();
        q[rod.twist_dofs()[1]] = 0.7;
        s.write_rod(0.5, rod, &q, &[]).unwrap();
        assert_eq!(s.len(), 2);
        let back = Vtk::import(dir.join("rod_00001.vtk")).unwrap();
        match back.data {
            DataSet::PolyData { pieces, .. } => {
                let vtkio::model::Piece::Inline(p) = &pieces[0] else {
                    panic!("inline piece")
                };
                assert_eq!(p.num_points(), 4);
                let Some(VertexNumbers::Legacy {
                    num_cells,
                    vertices,
                }) = &p.lines
                else {
                    panic!("legacy lines")
                };
                assert_eq!(
                    (*num_cells, vertices.as_slice()),
                    (3, &[2, 0, 1, 2, 1, 2, 2, 3, 1][..])
                );
                let names: Vec<&str> = p.data.cell.iter().map(|a| a.name()).collect();
                assert_eq!(names, ["strain", "theta", "m1", "m2"]);
            }
            other => panic!("unexpected {other:?}"),
        }
        let pvd = std::fs::read_to_string(dir.join("rod.pvd")).unwrap();
        assert!(pvd.contains("rod_00000.vtk") && pvd.contains("timestep=\"0.5\""));
        let e = s
            .write_frame(1.0, &[[0.0; 3]], &[[0, 1]], &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("refers to a point beyond the 1 given"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
