//! Wavefront OBJ surfaces (read with `tobj`) as shell meshes: vertices and
//! triangular faces of every object in the file, validated like any shell
//! mesh. Faces are read as written (not triangulated), so a quad or
//! polygon is reported with its object and face number instead of being
//! split silently; lines and points are ignored. Coordinates are taken as
//! metres.

use crate::error::ShellError;
use crate::mesh::TriMesh;
use std::path::Path;

/// Reads an OBJ file into a validated [`TriMesh`].
pub fn read(path: &Path) -> Result<TriMesh, ShellError> {
    let file = |message: String| ShellError::File {
        path: path.display().to_string(),
        message,
    };
    let text = std::fs::read(path).map_err(|e| file(format!("cannot be read: {e}")))?;
    parse(&text).map_err(|m| match m {
        ShellError::File { message, .. } => file(message),
        other => file(other.to_string()),
    })
}

/// Parses OBJ text (see [`read`]); errors carry `<memory>` as the path.
pub fn parse(text: &[u8]) -> Result<TriMesh, ShellError> {
    let file = |message: String| ShellError::File {
        path: "<memory>".into(),
        message,
    };
    let opts = tobj::LoadOptions {
        single_index: false,
        triangulate: false,
        ignore_points: true,
        ignore_lines: true,
    };
    let mut reader = std::io::BufReader::new(text);
    let (models, _) =
        tobj::load_obj_buf(&mut reader, &opts, |_| Err(tobj::LoadError::OpenFileFailed))
            .map_err(|e| file(format!("is not a readable OBJ file: {e}")))?;
    let mut nodes: Vec<[f64; 3]> = Vec::new();
    let mut triangles = Vec::new();
    for m in &models {
        let mesh = &m.mesh;
        if let Some((f, &k)) = mesh.face_arities.iter().enumerate().find(|(_, k)| **k != 3) {
            return Err(file(format!(
                "object `{}` face {} has {k} vertices; shells need triangles (triangulate the surface first)",
                m.name,
                f + 1
            )));
        }
        let base = nodes.len();
        for p in mesh.positions.chunks(3) {
            let x = [p[0] as f64, p[1] as f64, p[2] as f64];
            if x.iter().any(|v| !v.is_finite()) {
                return Err(file(format!(
                    "object `{}` has a non-finite vertex {x:?}",
                    m.name
                )));
            }
            nodes.push(x);
        }
        for t in mesh.indices.chunks(3) {
            triangles.push([
                base + t[0] as usize,
                base + t[1] as usize,
                base + t[2] as usize,
            ]);
        }
    }
    if triangles.is_empty() {
        return Err(file("has no faces: a shell needs triangles".into()));
    }
    TriMesh::new(nodes, triangles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_square_of_two_triangles() {
        let m = parse(b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n").unwrap();
        assert_eq!(m.nodes.len(), 4);
        assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3]]);
        assert!((m.area() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn quads_missing_faces_and_bad_meshes_are_errors() {
        let e = parse(b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n").unwrap_err();
        assert!(e.to_string().contains("face 1 has 4 vertices"), "{e}");
        let e = parse(b"v 0 0 0\nv 1 0 0\nv 1 1 0\n").unwrap_err();
        assert!(e.to_string().contains("no faces"), "{e}");
        let e = parse(b"v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n").unwrap_err();
        assert!(e.to_string().contains("degenerate"), "{e}");
        let e = parse(b"v 0 0 0\nv 1 0 0\nf 1 2 9\n").unwrap_err();
        assert!(!e.to_string().is_empty());
        let e = read(Path::new("/nonexistent/surface.obj")).unwrap_err();
        assert!(e.to_string().contains("cannot be read"), "{e}");
    }
}
