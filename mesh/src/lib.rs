//! # pliant-mesh
//!
//! Mesh files, independent of any physics: [`gmsh`] reads Gmsh `.msh`
//! files (MSH 4.1 and 2.2, ASCII and binary) into nodes, linear
//! tetrahedra, linear triangles and named physical groups. The plugins
//! build their elements from what it returns (`pliant-fem`'s `TetMesh`,
//! `pliant-shell`'s `TriMesh`). Coordinates are taken as metres.
//!
//! It also holds mesh topology and generators that several plugins share:
//! [`boundary_faces`] (the outward boundary of a tetrahedral mesh, from
//! which a pressurized cavity is selected) and [`hollow_sphere`] (the
//! thick-walled sphere of Lamé's solution), and closed surfaces from STL
//! and OBJ files ([`SurfaceMesh`]) with the voxels inside them
//! ([`voxelize`]), from which `pliant-fem` builds a tetrahedral body.

#![warn(missing_docs)]

mod boundary;
pub mod gmsh;
mod sphere;
mod surface;
mod voxelize;

pub use boundary::boundary_faces;
pub use sphere::{TetMeshData, hollow_sphere};

pub use gmsh::{GmshMesh, PhysicalGroup};
pub use surface::SurfaceMesh;
pub use voxelize::{VoxelError, VoxelGrid, voxelize};

/// A mesh file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum MeshFileError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The file is malformed (or holds what cannot be used).
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Parse {
        /// The file.
        path: std::path::PathBuf,
        /// The 1-based line, for text.
        line: Option<usize>,
        /// What is wrong (and, in binary data, at which byte).
        message: String,
    },
}

/// Signed volume of the tetrahedron `p` (m³): positive when
/// `(p₁ − p₀, p₂ − p₀, p₃ − p₀)` is right-handed.
pub fn tet_volume(p: [[f64; 3]; 4]) -> f64 {
    let e = |a: usize| [p[a][0] - p[0][0], p[a][1] - p[0][1], p[a][2] - p[0][2]];
    let (a, b, c) = (e(1), e(2), e(3));
    (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
        + a[2] * (b[0] * c[1] - b[1] * c[0]))
        / 6.0
}
