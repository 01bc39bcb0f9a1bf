//! ParaView output of any scene: per frame, one legacy binary `.vtk`
//! unstructured grid per drawn part (tetrahedra, lines, triangles,
//! vertices) with the per-point velocity (m/s), the forces of the shapeless
//! energies (N) and every field the energies offer; fixed planes and
//! spheres as their own pieces, written once; all indexed by one `.pvd`
//! collection whose parts ParaView shows as blocks of one time series.

use crate::error::VizError;
use crate::snapshot::{Part, Snapshot};
use pliant_core::geometry::{CellKind, FieldAt, Shape};
use pliant_core::pvd::PvdSeries;
use std::path::{Path, PathBuf};
use vtkio::model::{
    Attribute, Attributes, ByteOrder, CellType, Cells, DataSet, UnstructuredGridPiece, Version,
    VertexNumbers, Vtk,
};

/// A ParaView time series of snapshots: `<dir>/<name>.pvd` and its files.
#[derive(Debug)]
pub struct VtkWriter {
    series: PvdSeries,
    /// Fixed pieces written so far: `(part name, file)`.
    fixed: Option<Vec<(String, String)>>,
}

fn cell_type(k: CellKind) -> CellType {
    match k {
        CellKind::Vertex => CellType::Vertex,
        CellKind::Line => CellType::Line,
        CellKind::Triangle => CellType::Triangle,
        CellKind::Tetra => CellType::Tetra,
    }
}

/// A legacy unstructured grid of `points` (m) and `cells` of one kind.
fn grid(
    title: String,
    points: &[[f64; 3]],
    kind: CellKind,
    connectivity: &[usize],
    data: Attributes,
) -> Vtk {
    let a = kind.arity();
    let n = connectivity.len() / a;
    Vtk {
        version: Version::new_legacy(4, 2),
        title,
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
                    num_cells: n as u32,
                    vertices: connectivity
                        .chunks_exact(a)
                        .flat_map(|c| std::iter::once(a as u32).chain(c.iter().map(|&i| i as u32)))
                        .collect(),
                },
                types: vec![cell_type(kind); n],
            },
            data,
        }),
    }
}

fn export(vtk: Vtk, path: &Path) -> Result<(), VizError> {
    vtk.export_be(path).map_err(|e| VizError::Format {
        path: path.to_path_buf(),
        message: format!("{e:?}"),
    })
}

fn flat(v: &[[f64; 3]]) -> Vec<f64> {
    v.iter().flatten().copied().collect()
}

fn attributes(p: &Part) -> Attributes {
    let mut a = Attributes::new();
    a.point
        .push(Attribute::vectors("velocity").with_data(flat(&p.velocity)));
    for (name, f) in &p.forces {
        a.point
            .push(Attribute::vectors(name.as_str()).with_data(flat(f)));
    }
    for f in &p.fields {
        let attr = Attribute::scalars(f.name.as_str(), 1).with_data(f.values.clone());
        match f.at {
            FieldAt::Points => a.point.push(attr),
            FieldAt::Cells => a.cell.push(attr),
        }
    }
    a
}

/// A square of side `2 half` (m) in the plane through `point` with unit
/// normal `n`, centred at the projection of `centre`: 4 points, 2
/// triangles.
fn plane_patch(point: [f64; 3], n: [f64; 3], centre: [f64; 3], half: f64) -> Vec<[f64; 3]> {
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let d = dot(n, std::array::from_fn(|i| centre[i] - point[i]));
    let c: [f64; 3] = std::array::from_fn(|i| centre[i] - d * n[i]);
    // Two tangents.
    let t0 = if n[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let k = dot(t0, n);
    let mut u: [f64; 3] = std::array::from_fn(|i| t0[i] - k * n[i]);
    let l = dot(u, u).sqrt();
    u.iter_mut().for_each(|x| *x /= l);
    let w = [
        n[1] * u[2] - n[2] * u[1],
        n[2] * u[0] - n[0] * u[2],
        n[0] * u[1] - n[1] * u[0],
    ];
    [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .map(|&(a, b)| std::array::from_fn(|i| c[i] + half * (a * u[i] + b * w[i])))
        .collect()
}

/// A UV sphere: points and triangles.
fn sphere_mesh(centre: [f64; 3], r: f64) -> (Vec<[f64; 3]>, Vec<usize>) {
    let (nu, nv) = (24usize, 12usize);
    let mut pts = vec![[centre[0], centre[1], centre[2] + r]];
    for j in 1..nv {
        let th = std::f64::consts::PI * j as f64 / nv as f64;
        for i in 0..nu {
            let ph = 2.0 * std::f64::consts::PI * i as f64 / nu as f64;
            pts.push([
                centre[0] + r * th.sin() * ph.cos(),
                centre[1] + r * th.sin() * ph.sin(),
                centre[2] + r * th.cos(),
            ]);
        }
    }
    pts.push([centre[0], centre[1], centre[2] - r]);
    let ring = |j: usize, i: usize| 1 + (j - 1) * nu + i % nu;
    let south = pts.len() - 1;
    let mut tri = Vec::new();
    for i in 0..nu {
        tri.extend([0, ring(1, i), ring(1, i + 1)]);
        tri.extend([south, ring(nv - 1, i + 1), ring(nv - 1, i)]);
    }
    for j in 1..nv - 1 {
        for i in 0..nu {
            tri.extend([ring(j, i), ring(j + 1, i), ring(j + 1, i + 1)]);
            tri.extend([ring(j, i), ring(j + 1, i + 1), ring(j, i + 1)]);
        }
    }
    (pts, tri)
}

impl VtkWriter {
    /// A series `name` in `dir` (created if needed).
    pub fn new(dir: &Path, name: &str) -> Result<Self, VizError> {
        Ok(Self {
            series: PvdSeries::new(dir, name)?,
            fixed: None,
        })
    }

    /// The `.pvd` index.
    pub fn index_path(&self) -> PathBuf {
        self.series
            .dir()
            .join(format!("{}.pvd", self.series.name()))
    }

    /// Frames written.
    pub fn len(&self) -> usize {
        self.series.len()
    }
    /// Whether no frame was written.
    pub fn is_empty(&self) -> bool {
        self.series.is_empty()
    }

    /// Writes the fixed pieces, sized from the first snapshot's bounds
    /// (a ground patch 3× the scene's extent, at least 0.5 m).
    fn write_fixed(&mut self, s: &Snapshot) -> Result<Vec<(String, String)>, VizError> {
        let (lo, hi) = s.bounds().unwrap_or(([0.0; 3], [0.0; 3]));
        let centre: [f64; 3] = std::array::from_fn(|a| 0.5 * (lo[a] + hi[a]));
        let extent = (0..3).map(|a| hi[a] - lo[a]).fold(0.0f64, f64::max);
        let half = (1.5 * extent).max(0.25);
        let mut out = Vec::new();
        for f in &s.fixed {
            let (name, points, conn) = match f {
                Shape::Plane {
                    name,
                    point,
                    normal,
                } => (
                    name,
                    plane_patch(*point, *normal, centre, half),
                    vec![0, 1, 2, 0, 2, 3],
                ),
                Shape::Sphere {
                    name,
                    centre,
                    radius,
                } => {
                    let (p, t) = sphere_mesh(*centre, *radius);
                    (name, p, t)
                }
                Shape::Cells(_) => continue,
            };
            let file = format!("{}_{name}.vtk", self.series.name());
            let path = self.series.dir().join(&file);
            export(
                grid(
                    name.clone(),
                    &points,
                    CellKind::Triangle,
                    &conn,
                    Attributes::new(),
                ),
                &path,
            )?;
            out.push((name.clone(), file));
        }
        Ok(out)
    }

    /// Writes one frame: a file per part, the fixed pieces (once), and the
    /// index entry.
    pub fn write(&mut self, s: &Snapshot) -> Result<(), VizError> {
        if self.fixed.is_none() {
            self.fixed = Some(self.write_fixed(s)?);
        }
        let frame = self.series.len();
        let mut parts = Vec::with_capacity(s.parts.len() + 1);
        for p in &s.parts {
            let file = format!("{}_{}_{frame:05}.vtk", self.series.name(), p.name);
            let path = self.series.dir().join(&file);
            let title = format!("{} t = {} s", p.name, s.time);
            export(
                grid(title, &p.points, p.kind, &p.connectivity, attributes(p)),
                &path,
            )?;
            parts.push((p.name.clone(), file));
        }
        parts.extend(self.fixed.iter().flatten().cloned());
        self.series.push_parts(s.time, &parts)?;
        Ok(())
    }
}
