//! # pliant-cable
//!
//! Cables and tendons embedded in soft bodies (Bern et al. 2019, §II-B and
//! appendix A), SI units throughout.
//!
//! A cable is a polyline whose vertices are bound to the mesh with constant
//! barycentric weights ([`vertex`]: [`CableVertex`], and the helpers
//! [`bind_points_in_tets`] / [`bind_points_on_triangles`] that compute them
//! from rest-state points; in a scene, a [`CableRoute`] gives the points in
//! space, or as the centroid of a named region, and binds them to a body's
//! tetrahedra when the model is built). Its length `L(x)` (m) drives one [`Cable`] energy
//! (scene type `"cable"`, bound into a [`CableEnergy`]):
//!
//! - length control (eqs. 2–3): `E = k Q(Γ)`, `Γ = L(x) − (α0 − u)`, with the
//!   contracted length `u` (m) read from a channel, the assembly length `α0`
//!   (m, default the initial length) and `Q` the smooth one-sided quadratic,
//!   so a slack cable exerts no force;
//! - tension control (appendix A): `E = τ L(x)`, with `τ` (N) from a channel.
//!
//! A robot adds one energy per cable; two cables reading the same channel are
//! a tendon pair sharing a motor. Gradients, Hessians and parameter blocks are
//! analytic, checked against the dual-number fallback and finite differences
//! in the tests with [`pliant_core::derivcheck`]. [`CableEnergy::length`] and
//! [`CableEnergy::deformation`] expose `L` and `Γ` (with gradients) to objectives
//! such as the slack-eating regularizer (appendix B) and to post-processing;
//! observables record `{name}.tension` (N), `{name}.slack` (m) and
//! `{name}.length` (m) every step.

#![warn(missing_docs)]

mod energy;
mod route;
mod spec;
pub mod vertex;

pub use energy::{CableEnergy, Deformation};
pub use route::{CableRoute, RoutePoint};
pub use spec::{Cable, CableControl, DEFAULT_SMOOTHING};
pub use vertex::{
    CableError, CableVertex, VertexError, bind_points_in_tets, bind_points_on_triangles,
};

/// Call once from a binary so the linker keeps this crate's energy
/// registrations even if nothing else from it is referenced.
pub fn link() {}
