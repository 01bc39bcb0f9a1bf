//! VTK output for ParaView: one legacy `.vtk` poly-data file per frame
//! with shell triangles as polygons and any rod edges as lines in the same
//! file (a parachute's canopy and ropes together), per-point velocity, and a
//! `.pvd` collection that ParaView opens as a time series.

use pliant_core::pvd::PvdSeries;
use std::path::Path;
use vtkio::model::{
    Attribute, Attributes, ByteOrder, DataSet, PolyDataPiece, Version, VertexNumbers, Vtk,
};

/// Writing VTK output failed (the shared series error of pliant-core).
pub type VtkError = pliant_core::pvd::SeriesError;

/// A time series of triangle (and line) frames plus its `.pvd` index.
#[derive(Debug)]
pub struct ShellVtkSeries {
    series: PvdSeries,
}

impl ShellVtkSeries {
    /// A series `name` in directory `dir` (created if needed).
    pub fn new(dir: &Path, name: &str) -> Result<Self, VtkError> {
        Ok(Self {
            series: PvdSeries::new(dir, name)?,
        })
    }

    /// Writes one frame at time `t` (s): `points` (m), `triangles`, `lines`
    /// (two point indices each) and a per-point `velocity` (m/s) if given.
    pub fn write_frame(
        &mut self,
        t: f64,
        points: &[[f64; 3]],
        triangles: &[[usize; 3]],
        lines: &[[usize; 2]],
        velocity: Option<&[[f64; 3]]>,
    ) -> Result<(), VtkError> {
        let (path, file) = self.series.next_frame("vtk");
        let bad = |message: String| VtkError::Format {
            path: path.clone(),
            message,
        };
        let n = points.len();
        if triangles
            .iter()
            .flatten()
            .chain(lines.iter().flatten())
            .any(|&i| i >= n)
        {
            return Err(bad(format!(
                "a cell refers to a point beyond the {n} given"
            )));
        }
        let mut attributes = Attributes::new();
        if let Some(v) = velocity {
            if v.len() != n {
                return Err(bad(format!("{} velocities for {n} points", v.len())));
            }
            attributes.point.push(
                Attribute::vectors("velocity")
                    .with_data(v.iter().flatten().copied().collect::<Vec<f64>>()),
            );
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
                lines: (!lines.is_empty()).then(|| VertexNumbers::Legacy {
                    num_cells: lines.len() as u32,
                    vertices: lines
                        .iter()
                        .flat_map(|e| [2, e[0] as u32, e[1] as u32])
                        .collect(),
                }),
                polys: (!triangles.is_empty()).then(|| VertexNumbers::Legacy {
                    num_cells: triangles.len() as u32,
                    vertices: triangles
                        .iter()
                        .flat_map(|t| [3, t[0] as u32, t[1] as u32, t[2] as u32])
                        .collect(),
                }),
                strips: None,
                data: attributes,
            }),
        };
        vtk.export_be(&path).map_err(|e| bad(format!("{e:?}")))?;
        self.series.push(t, file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_triangles_and_lines_that_vtkio_reads_back() {
        let dir = std::env::temp_dir().join(format!("pliant-shell-vtk-{}", std::process::id()));
        let mut s = ShellVtkSeries::new(&dir, "sheet").unwrap();
        let pts = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, -1.0],
        ];
        s.write_frame(0.0, &pts, &[[0, 1, 2]], &[[0, 3]], Some(&[[0.0; 3]; 4]))
            .unwrap();
        let back = Vtk::import(dir.join("sheet_00000.vtk")).unwrap();
        let DataSet::PolyData { pieces, .. } = back.data else {
            panic!("not poly data")
        };
        let vtkio::model::Piece::Inline(p) = &pieces[0] else {
            panic!("not inline")
        };
        assert_eq!(p.num_points(), 4);
        assert!(p.polys.is_some() && p.lines.is_some());
        assert!(s.write_frame(0.1, &pts, &[[0, 1, 7]], &[], None).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
