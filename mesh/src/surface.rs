//! Closed triangle surfaces (STL, Wavefront OBJ): the outside of a body
//! drawn in CAD, to be filled with tetrahedra ([`crate::voxelize`]).
//!
//! STL files repeat every corner per triangle; corners at the same
//! position (exactly, as STL writers emit them) are welded into one vertex.
//! A surface that bounds a solid is closed and manifold: every edge
//! belongs to exactly two triangles, which run along it in opposite
//! directions (consistent orientation). [`SurfaceMesh::check_closed`] says
//! which edge breaks that, and where. Coordinates are taken as metres
//! (scale CAD millimetres with [`SurfaceMesh::scaled`]).

use crate::MeshFileError;
use std::collections::HashMap;
use std::path::Path;

/// A triangle surface.
#[derive(Debug, Clone, PartialEq)]
pub struct SurfaceMesh {
    /// Vertex positions, m.
    pub vertices: Vec<[f64; 3]>,
    /// Triangles (indices into `vertices`).
    pub triangles: Vec<[usize; 3]>,
}

fn parse_error(path: &Path, message: String) -> MeshFileError {
    MeshFileError::Parse {
        path: path.to_path_buf(),
        line: None,
        message,
    }
}

impl SurfaceMesh {
    /// Reads an `.stl` (ASCII or binary) or `.obj` file, by extension.
    pub fn read(path: &Path) -> Result<Self, MeshFileError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let parse: fn(&[u8], &Path) -> Result<Self, MeshFileError> = match ext.as_deref() {
            Some("stl") => Self::parse_stl,
            Some("obj") => Self::parse_obj,
            _ => {
                return Err(parse_error(
                    path,
                    "not a surface mesh: the extension must be .stl or .obj".into(),
                ));
            }
        };
        let bytes = std::fs::read(path).map_err(|source| MeshFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        parse(&bytes, path)
    }

    /// Parses STL bytes (ASCII or binary); `path` is named in errors.
    pub fn parse_stl(bytes: &[u8], path: &Path) -> Result<Self, MeshFileError> {
        let mut cursor = std::io::Cursor::new(bytes);
        let mesh = stl_io::read_stl(&mut cursor)
            .map_err(|e| parse_error(path, format!("not a readable STL file: {e}")))?;
        let vertices = mesh
            .vertices
            .iter()
            .map(|v| [v[0] as f64, v[1] as f64, v[2] as f64])
            .collect();
        let triangles = mesh.faces.iter().map(|f| f.vertices).collect();
        // stl_io merges bit-identical corners; −0 and 0 are merged here.
        Self::checked(
            Self {
                vertices,
                triangles,
            }
            .welded(),
            path,
        )
    }

    /// Parses Wavefront OBJ bytes (faces triangulated, all objects
    /// merged); `path` is named in errors.
    pub fn parse_obj(bytes: &[u8], path: &Path) -> Result<Self, MeshFileError> {
        let opts = tobj::LoadOptions {
            triangulate: true,
            single_index: true,
            ..Default::default()
        };
        let mut reader = std::io::BufReader::new(bytes);
        let (models, _) =
            tobj::load_obj_buf(&mut reader, &opts, |_| Err(tobj::LoadError::OpenFileFailed))
                .map_err(|e| parse_error(path, format!("not a readable OBJ file: {e}")))?;
        let mut s = Self {
            vertices: Vec::new(),
            triangles: Vec::new(),
        };
        for m in models {
            let base = s.vertices.len();
            s.vertices.extend(
                m.mesh
                    .positions
                    .chunks_exact(3)
                    .map(|p| [p[0] as f64, p[1] as f64, p[2] as f64]),
            );
            s.triangles.extend(
                m.mesh
                    .indices
                    .chunks_exact(3)
                    .map(|t| [0, 1, 2].map(|k| base + t[k] as usize)),
            );
        }
        Self::checked(s.welded(), path)
    }

    /// Refuses an empty surface, non-finite coordinates, indices beyond the
    /// vertices.
    fn checked(self, path: &Path) -> Result<Self, MeshFileError> {
        if self.triangles.is_empty() {
            return Err(parse_error(path, "no triangles".into()));
        }
        if let Some(v) = self
            .vertices
            .iter()
            .find(|v| v.iter().any(|x| !x.is_finite()))
        {
            return Err(parse_error(
                path,
                format!("a vertex at {v:?} is not finite"),
            ));
        }
        let n = self.vertices.len();
        if let Some((k, t)) = self
            .triangles
            .iter()
            .enumerate()
            .find(|(_, t)| t.iter().any(|&i| i >= n))
        {
            return Err(parse_error(
                path,
                format!("triangle {k} {t:?} refers to a vertex beyond the {n} given"),
            ));
        }
        Ok(self)
    }

    /// Corners at exactly the same position merged into one vertex (first
    /// occurrence kept), unused vertices dropped.
    pub fn welded(self) -> Self {
        let mut index: HashMap<[u64; 3], usize> = HashMap::new();
        let mut vertices = Vec::new();
        let mut map = vec![0; self.vertices.len()];
        for (i, v) in self.vertices.iter().enumerate() {
            // −0.0 and 0.0 are the same position.
            let key = v.map(|x| (x + 0.0).to_bits());
            map[i] = *index.entry(key).or_insert_with(|| {
                vertices.push(*v);
                vertices.len() - 1
            });
        }
        // An index beyond the vertices stays beyond them (reported by the
        // readers' checks).
        let triangles = self
            .triangles
            .iter()
            .map(|t| t.map(|i| map.get(i).copied().unwrap_or(usize::MAX)))
            .collect();
        Self {
            vertices,
            triangles,
        }
    }

    /// An icosphere of radius `r` (m) centred at `c`: the icosahedron with
    /// each triangle split into four `levels` times (20·4^levels
    /// triangles), projected on the sphere; outward triangles.
    pub fn icosphere(r: f64, c: [f64; 3], levels: usize) -> SurfaceMesh {
        let t = (1.0 + 5f64.sqrt()) / 2.0;
        let mut v: Vec<[f64; 3]> = vec![
            [-1.0, t, 0.0],
            [1.0, t, 0.0],
            [-1.0, -t, 0.0],
            [1.0, -t, 0.0],
            [0.0, -1.0, t],
            [0.0, 1.0, t],
            [0.0, -1.0, -t],
            [0.0, 1.0, -t],
            [t, 0.0, -1.0],
            [t, 0.0, 1.0],
            [-t, 0.0, -1.0],
            [-t, 0.0, 1.0],
        ];
        let mut f: Vec<[usize; 3]> = vec![
            [0, 11, 5],
            [0, 5, 1],
            [0, 1, 7],
            [0, 7, 10],
            [0, 10, 11],
            [1, 5, 9],
            [5, 11, 4],
            [11, 10, 2],
            [10, 7, 6],
            [7, 1, 8],
            [3, 9, 4],
            [3, 4, 2],
            [3, 2, 6],
            [3, 6, 8],
            [3, 8, 9],
            [4, 9, 5],
            [2, 4, 11],
            [6, 2, 10],
            [8, 6, 7],
            [9, 8, 1],
        ];
        let unit = |p: [f64; 3]| {
            let l = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            p.map(|x| x / l)
        };
        v = v.into_iter().map(unit).collect();
        for _ in 0..levels {
            let mut mid = std::collections::HashMap::new();
            let mut next = Vec::with_capacity(4 * f.len());
            for tri in &f {
                let mut m = [0; 3];
                for k in 0..3 {
                    let (a, b) = (tri[k], tri[(k + 1) % 3]);
                    m[k] = *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                        v.push(unit(std::array::from_fn(|i| 0.5 * (v[a][i] + v[b][i]))));
                        v.len() - 1
                    });
                }
                next.extend([
                    [tri[0], m[0], m[2]],
                    [tri[1], m[1], m[0]],
                    [tri[2], m[2], m[1]],
                    m,
                ]);
            }
            f = next;
        }
        SurfaceMesh {
            vertices: v
                .into_iter()
                .map(|p| std::array::from_fn(|i| c[i] + r * p[i]))
                .collect(),
            triangles: f,
        }
    }

    /// Writes the surface as a binary STL file.
    pub fn write_stl(&self, path: &Path) -> Result<(), MeshFileError> {
        let io = |source| MeshFileError::Io {
            path: path.to_path_buf(),
            source,
        };
        let tris: Vec<stl_io::Triangle> = self
            .triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| self.vertices[i]);
                let u: [f64; 3] = std::array::from_fn(|k| b[k] - a[k]);
                let v: [f64; 3] = std::array::from_fn(|k| c[k] - a[k]);
                let n = [
                    u[1] * v[2] - u[2] * v[1],
                    u[2] * v[0] - u[0] * v[2],
                    u[0] * v[1] - u[1] * v[0],
                ];
                let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
                    .sqrt()
                    .max(f64::MIN_POSITIVE);
                let f = |p: [f64; 3]| stl_io::Vector::new(p.map(|x| x as f32));
                stl_io::Triangle {
                    normal: f(n.map(|x| x / l)),
                    vertices: [f(a), f(b), f(c)],
                }
            })
            .collect();
        let mut file = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
        stl_io::write_stl(&mut file, tris.iter()).map_err(io)
    }

    /// The surface scaled by `factor` (0.001 for a CAD file in mm).
    pub fn scaled(mut self, factor: f64) -> Self {
        for v in &mut self.vertices {
            *v = v.map(|x| x * factor);
        }
        self
    }

    /// Axis-aligned bounds `(min, max)`, m.
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for t in &self.triangles {
            for &i in t {
                for a in 0..3 {
                    lo[a] = lo[a].min(self.vertices[i][a]);
                    hi[a] = hi[a].max(self.vertices[i][a]);
                }
            }
        }
        (lo, hi)
    }

    /// Enclosed volume (m³) by the divergence theorem,
    /// `V = Σ x₀ · (x₁ × x₂) / 6`: positive for outward-oriented closed
    /// surfaces.
    pub fn volume(&self) -> f64 {
        self.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| self.vertices[i]);
                a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                    + a[2] * (b[0] * c[1] - b[1] * c[0])
            })
            .sum::<f64>()
            / 6.0
    }

    /// Checks that the surface bounds a solid: no degenerate triangle,
    /// every edge in exactly two triangles that traverse it in opposite
    /// directions. `path` is named in the error, with the first offending
    /// edge's position and how many edges are affected.
    pub fn check_closed(&self, path: &Path) -> Result<(), MeshFileError> {
        if let Some((k, t)) = self
            .triangles
            .iter()
            .enumerate()
            .find(|(_, t)| t[0] == t[1] || t[1] == t[2] || t[0] == t[2])
        {
            return Err(parse_error(
                path,
                format!("triangle {k} {t:?} repeats a vertex (degenerate)"),
            ));
        }
        // Directed edge → count; the undirected edge's uses.
        let mut directed: HashMap<(usize, usize), u32> = HashMap::new();
        for t in &self.triangles {
            for k in 0..3 {
                *directed.entry((t[k], t[(k + 1) % 3])).or_default() += 1;
            }
        }
        let (mut open, mut non_manifold, mut flipped) = (Vec::new(), Vec::new(), Vec::new());
        for (&(a, b), &n) in &directed {
            let back = directed.get(&(b, a)).copied().unwrap_or(0);
            if a < b || back == 0 {
                let e = (a.min(b), a.max(b));
                match (n, back) {
                    (1, 1) => {}
                    (_, 0) if n == 1 => open.push(e),
                    (n, m) if n + m > 2 => non_manifold.push(e),
                    _ => flipped.push(e),
                }
            }
        }
        let at = |e: &(usize, usize)| {
            let (p, q) = (self.vertices[e.0], self.vertices[e.1]);
            format!(
                "the edge from ({:.6}, {:.6}, {:.6}) to ({:.6}, {:.6}, {:.6}) m",
                p[0], p[1], p[2], q[0], q[1], q[2]
            )
        };
        for list in [&mut open, &mut non_manifold, &mut flipped] {
            list.sort_unstable();
        }
        if let Some(e) = non_manifold.first() {
            return Err(parse_error(
                path,
                format!(
                    "not manifold: {} belongs to more than two triangles ({} such edges)",
                    at(e),
                    non_manifold.len()
                ),
            ));
        }
        if let Some(e) = open.first() {
            return Err(parse_error(
                path,
                format!(
                    "not closed: {} belongs to one triangle only ({} open edges); close the surface in your CAD tool",
                    at(e),
                    open.len()
                ),
            ));
        }
        if let Some(e) = flipped.first() {
            return Err(parse_error(
                path,
                format!(
                    "inconsistently oriented: the two triangles at {} run along it in the same direction ({} such edges)",
                    at(e),
                    flipped.len()
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests_support {
    /// The unit cube as an ASCII STL, outward triangles.
    pub fn cube_stl() -> String {
        let v = |i: usize| [(i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64];
        // Faces as quads (outward, counter-clockwise seen from outside).
        let quads = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let mut s = String::from("solid cube\n");
        for q in quads {
            for t in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
                s.push_str(" facet normal 0 0 0\n  outer loop\n");
                for i in t {
                    let p = v(i);
                    s.push_str(&format!("   vertex {} {} {}\n", p[0], p[1], p[2]));
                }
                s.push_str("  endloop\n endfacet\n");
            }
        }
        s.push_str("endsolid cube\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::cube_stl;
    use super::*;

    #[test]
    fn cube_stl_is_welded_closed_and_has_unit_volume() {
        let p = Path::new("cube.stl");
        let s = SurfaceMesh::parse_stl(cube_stl().as_bytes(), p).unwrap();
        assert_eq!((s.vertices.len(), s.triangles.len()), (8, 12));
        s.check_closed(p).unwrap();
        assert!((s.volume() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn open_non_manifold_and_flipped_surfaces_are_named() {
        let p = Path::new("bad.stl");
        let s = SurfaceMesh::parse_stl(cube_stl().as_bytes(), p).unwrap();
        let mut open = s.clone();
        open.triangles.pop();
        let e = open.check_closed(p).unwrap_err().to_string();
        assert!(
            e.contains("bad.stl") && e.contains("not closed") && e.contains("3 open edges"),
            "{e}"
        );
        let mut flipped = s.clone();
        flipped.triangles[0].swap(1, 2);
        let e = flipped.check_closed(p).unwrap_err().to_string();
        assert!(e.contains("inconsistently oriented"), "{e}");
        let mut extra = s.clone();
        extra.triangles.push(s.triangles[0]);
        let e = extra.check_closed(p).unwrap_err().to_string();
        assert!(e.contains("not manifold"), "{e}");
        let e = SurfaceMesh::parse_stl(b"solid x\nendsolid x\n", p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.stl"), "{e}");
        // −0 and 0 are one vertex: a cube written with a −0 still closes.
        let text = cube_stl().replacen("vertex 0 0 0", "vertex -0 0 -0", 1);
        let s = SurfaceMesh::parse_stl(text.as_bytes(), p).unwrap();
        assert_eq!(s.vertices.len(), 8);
        s.check_closed(p).unwrap();
        let e = SurfaceMesh::read(Path::new("body.ply"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("extension must be .stl or .obj"), "{e}");
    }

    #[test]
    fn icosphere_is_closed_and_binary_stl_round_trips() {
        let s = SurfaceMesh::icosphere(0.05, [0.0; 3], 2);
        assert_eq!(s.triangles.len(), 320);
        let p = std::env::temp_dir().join(format!("pliant-ico-{}.stl", std::process::id()));
        s.write_stl(&p).unwrap();
        let back = SurfaceMesh::read(&p).unwrap();
        back.check_closed(&p).unwrap();
        assert_eq!(back.triangles.len(), 320);
        assert_eq!(back.vertices.len(), s.vertices.len());
        assert!((back.volume() / s.volume() - 1.0).abs() < 1e-6);
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn obj_cube_reads_the_same() {
        let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1\n\
                   f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n";
        let p = Path::new("cube.obj");
        let s = SurfaceMesh::parse_obj(obj.as_bytes(), p).unwrap();
        assert_eq!(s.triangles.len(), 12);
        s.check_closed(p).unwrap();
        assert!((s.volume() - 1.0).abs() < 1e-12);
    }
}
