//! # pliant-fem
//!
//! Soft bodies as linear tetrahedra with the compressible neo-Hookean
//! material of the cable-driven robots paper (Bern et al. 2019, eq. 1):
//!
//! `Ψ(F) = μ/2 (tr(FᵀF) − 3) − μ ln J + κ/2 (ln J)²`, `J = det F`,
//!
//! with `μ = E/(2(1 + ν))` and `κ = λ = E ν/((1 + ν)(1 − 2ν))` (Pa) from
//! Young's modulus `E` (Pa) and Poisson's ratio `ν`, so that small strains
//! recover linear elasticity. Element energy `V₀ Ψ(F)` (J), `F = D_s D_m⁻¹`.
//!
//! - [`material`]: the energy density, its first Piola–Kirchhoff stress and
//!   its derivative.
//! - [`tet`]: the tetrahedron element (analytic gradient and Hessian; its
//!   dual-number fallback differentiates `Ψ` over the 9 entries of `F`) and
//!   the `neo_hookean_tets` energy, with `E`, `ν` optionally read from design
//!   channels so material fitting is differentiable.
//! - [`mesh`]: tetrahedral meshes from unions of voxel boxes, validation,
//!   boundary surface, node sets, lumped mass; Gmsh `.msh` 4.1 and 2.2
//!   import with physical groups ([`GmshMesh`], read by `pliant-mesh`;
//!   [`TetMesh::read_gmsh`]); TetGen `.node`/`.ele` import
//!   ([`TetMesh::read_tetgen`]); bodies filling closed STL/OBJ surfaces
//!   with voxels ([`TetMesh::read_surface`], [`SurfaceBody`]). Bound tetrahedra report their shape
//!   ([`pliant_core::Energy::geometry`]: cells with energy density Ψ, Pa),
//!   which `pliant-viz` draws.

#![warn(missing_docs)]

mod body;
mod gmsh_body;
pub mod material;
pub mod mesh;
mod surface_body;
pub mod tet;
mod tetgen;

pub use body::TetBody;
pub use mesh::{MeshError, TetMesh};
pub use pliant_mesh::{GmshMesh, PhysicalGroup};
pub use surface_body::SurfaceBody;
pub use tet::{Material, NeoHookeanTets};

/// Call once from a binary so the linker keeps this crate's registrations.
pub fn link() {}
