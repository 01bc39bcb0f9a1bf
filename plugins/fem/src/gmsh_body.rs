//! Tetrahedral bodies from Gmsh files (read by `pliant-mesh`).

use crate::mesh::{MeshError, TetMesh};
use pliant_mesh::{GmshMesh, MeshFileError};
use std::path::Path;

impl From<MeshFileError> for MeshError {
    fn from(e: MeshFileError) -> Self {
        match e {
            MeshFileError::Io { path, source } => MeshError::Io { path, source },
            MeshFileError::Parse {
                path,
                line,
                message,
            } => MeshError::Parse {
                path,
                line,
                message,
            },
        }
    }
}

impl TetMesh {
    /// The tetrahedral body of a Gmsh mesh: its tetrahedra and the nodes
    /// they use, in file order (see [`GmshMesh::body_node_map`]), validated.
    pub fn from_gmsh(g: &GmshMesh) -> Result<Self, MeshError> {
        let map = g.body_node_map();
        let nodes = g
            .nodes
            .iter()
            .zip(&map)
            .filter_map(|(p, m)| m.map(|_| *p))
            .collect();
        let tets = g
            .tets
            .iter()
            .map(|t| t.map(|n| map[n].expect("a tetrahedron's node is in the body")))
            .collect();
        let mesh = TetMesh { nodes, tets };
        mesh.validate()?;
        Ok(mesh)
    }

    /// Reads the tetrahedral body of a Gmsh `.msh` file (MSH 4.1 or 2.2,
    /// ASCII or binary; see [`GmshMesh`] for groups and surfaces).
    pub fn read_gmsh(path: &Path) -> Result<Self, MeshError> {
        let mesh = GmshMesh::read(path)?;
        if mesh.tets.is_empty() {
            return Err(MeshError::Parse {
                path: path.to_path_buf(),
                line: None,
                message: "no 4-node tetrahedra (Gmsh element type 4) in the file".into(),
            });
        }
        Self::from_gmsh(&mesh)
    }
}
