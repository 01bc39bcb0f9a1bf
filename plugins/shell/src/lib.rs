//! # pliant-shell
//!
//! Discrete elastic shells as MAT-DiSMech (Lahoti & Jawed) §2, §3.1, §3.3
//! and §5.5 describe them, SI units throughout (m, kg, s, Pa, J).
//!
//! - [`mesh`]: triangle meshes, their edges, hinges and boundary, with
//!   validation (degenerate triangles, non-manifold edges, inconsistent
//!   orientation, out-of-range nodes).
//! - [`generate`]: rectangles with the five mesh types of Fig. 12,
//!   hexagons and discs, reproducible from a seed.
//! - [`subdivide`]: 1 : 4 refinement with Loop (or linear) prolongation
//!   weights, for nested mesh hierarchies; [`transfer`]: barycentric
//!   transfers between meshes of one surface that are not nested.
//! - [`obj`]: Wavefront OBJ surfaces; Gmsh `.msh` surfaces through
//!   [`TriMesh::read_gmsh`] (optionally one named physical group).
//! - Energies (scene types): [`Shell`] (`"shell"`: stretching, bending and
//!   mass in one entry), [`ShellStretching`] (eqs. 9–10 with
//!   `k_s = √3/2 E h |ē|`) or [`ShellMembrane`] (constant-strain
//!   triangles, St. Venant–Kirchhoff, for ν in the plane), [`ShellHinges`] (eq. 17, natural hinge angles
//!   as control channels), [`ShellMidEdge`] (eqs. 18–20 with one `ξ` DOF
//!   per edge, exact derivatives through the lagged frames) and
//!   [`ShellDrag`] (§5.5). Buoyancy is `pliant_environment::Gravity` with
//!   a body and a medium density.
//! - [`vtk`]: ParaView output of triangles (and rods) over time.
//!
//! Every energy's gradient and Hessian are checked against the dual-number
//! fallback and finite differences in `tests/derivatives.rs`.

#![warn(missing_docs)]

mod drag;
mod error;
pub mod generate;
mod gmsh;
mod hinge;
mod membrane;
pub mod mesh;
mod mid_edge;
pub mod obj;
mod spec;
mod stretch;
pub mod subdivide;
pub mod transfer;
pub mod vtk;
mod youngs;

pub use error::ShellError;
pub use mesh::{Hinge, Topology, TriMesh};
pub use spec::{
    Bending, HingeActuation, Membrane, Shell, ShellDrag, ShellHinges, ShellMembrane, ShellMidEdge,
    ShellStretching, XI_KIND,
};
pub use youngs::Modulus;

/// Call once from a binary so the linker keeps this crate's energy
/// registrations even if nothing else from it is referenced.
pub fn link() {}
