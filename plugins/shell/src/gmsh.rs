//! Shell meshes from Gmsh `.msh` files (MSH 4.1 or 2.2, read by
//! `pliant-mesh`): the linear triangles of the whole file or of one named
//! physical group, with the nodes they use, validated like any shell mesh.
//! Coordinates are taken as metres.

use crate::error::ShellError;
use crate::mesh::TriMesh;
use pliant_mesh::GmshMesh;
use std::path::Path;

impl TriMesh {
    /// The triangles of `g` (of its physical group named `group`, if
    /// given) and the nodes they use, renumbered in file order.
    pub fn from_gmsh(g: &GmshMesh, group: Option<&str>) -> Result<Self, ShellError> {
        let bad = |message: String| ShellError::File {
            path: "<gmsh mesh>".into(),
            message,
        };
        let triangles: Vec<[usize; 3]> = match group {
            None => g.triangles.clone(),
            Some(name) => {
                let grp = g.group(name).ok_or_else(|| {
                    let names: Vec<&str> = g.groups.iter().map(|p| p.name.as_str()).collect();
                    bad(format!(
                        "no physical group named `{name}` (groups: {names:?})"
                    ))
                })?;
                grp.triangles.iter().map(|&t| g.triangles[t]).collect()
            }
        };
        if triangles.is_empty() {
            return Err(bad(
                "no 3-node triangles (Gmsh element type 2): a shell needs a surface mesh".into(),
            ));
        }
        let mut index = vec![usize::MAX; g.nodes.len()];
        let mut nodes = Vec::new();
        for &n in triangles.iter().flatten() {
            if index[n] == usize::MAX {
                index[n] = nodes.len();
                nodes.push(g.nodes[n]);
            }
        }
        let triangles = triangles.iter().map(|t| t.map(|n| index[n])).collect();
        TriMesh::new(nodes, triangles)
    }

    /// Reads the triangles of a Gmsh `.msh` file (of its physical group
    /// `group`, if given) as a shell mesh.
    pub fn read_gmsh(path: &Path, group: Option<&str>) -> Result<Self, ShellError> {
        let file = |message: String| ShellError::File {
            path: path.display().to_string(),
            message,
        };
        let g = GmshMesh::read(path).map_err(|e| file(e.to_string()))?;
        Self::from_gmsh(&g, group).map_err(|e| match e {
            ShellError::File { message, .. } => file(message),
            other => file(other.to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit square of two triangles (physical surface `sheet`) and a
    /// stray line, in MSH 2.2.
    const SQUARE: &str = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n2 7 \"sheet\"\n$EndPhysicalNames\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 2 2 0\n$EndNodes\n$Elements\n3\n1 2 2 7 1 1 2 3\n2 2 2 7 1 1 3 4\n3 1 2 0 2 4 5\n$EndElements\n";

    #[test]
    fn reads_the_triangles_of_a_msh_file_and_of_a_group() {
        let g = GmshMesh::parse(SQUARE.as_bytes(), Path::new("square.msh")).unwrap();
        let m = TriMesh::from_gmsh(&g, None).unwrap();
        assert_eq!(m.nodes.len(), 4, "the line's extra node is dropped");
        assert_eq!(m.triangles.len(), 2);
        assert!((m.area() - 1.0).abs() < 1e-12);
        assert_eq!(TriMesh::from_gmsh(&g, Some("sheet")).unwrap(), m);
        let e = TriMesh::from_gmsh(&g, Some("wing")).unwrap_err();
        assert!(
            e.to_string().contains("no physical group named `wing`"),
            "{e}"
        );
        let e = TriMesh::read_gmsh(Path::new("/no/such/sheet.msh"), None).unwrap_err();
        assert!(e.to_string().contains("/no/such/sheet.msh"), "{e}");
    }

    #[test]
    fn a_volume_mesh_without_triangles_is_refused() {
        let tet = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n1\n1 4 0 1 2 3 4\n$EndElements\n";
        let g = GmshMesh::parse(tet.as_bytes(), Path::new("tet.msh")).unwrap();
        let e = TriMesh::from_gmsh(&g, None).unwrap_err();
        assert!(e.to_string().contains("no 3-node triangles"), "{e}");
    }
}
