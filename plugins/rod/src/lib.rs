//! # pliant-rod
//!
//! Discrete elastic rods (DER) exactly as MAT-DiSMech (Lahoti & Jawed) §2–3.2
//! and §6.1 describe them, SI units throughout.
//!
//! - [`network`]: nodes, edges and bend–twist springs of a rod or rod
//!   network, with the junction orientation signs of Fig. 2g.
//! - `frames`: reference and material frames, space- and time-parallel
//!   transport, the reference twist (eq. 15) and its holonomy form.
//! - `stretch`: stretching springs (eqs. 9–10).
//! - `bend_twist`: bending–twisting springs (eqs. 11–16) with exact
//!   analytic derivatives under lagged frames.
//! - `element`: the element (one spring plus the stretching of the edges
//!   it owns) and its dual-number fallback over 8 reduced variables.
//! - `rod`: the [`Rod`] energy (scene type `"rod"`): twist DOFs, masses,
//!   stiffness defaults and overrides, actuation channels; bound into a
//!   [`RodEnergy`] that carries the frames and reports observables.
//!
//! A bound rod reports its shape ([`pliant_core::Energy::geometry`]:
//! centreline edges with radius, strain and twist), which `pliant-viz`
//! draws (ParaView, replay).
//!
//! Derivatives are analytic (gradient, Hessian, parameter blocks), checked
//! against the dual-number fallback and finite differences with
//! [`pliant_core::derivcheck`] in the tests.
//!
//! Differentiating rollouts: the lagged reference frames are carried state,
//! transported each step along the tangents of the previous state, so a
//! step's energy depends on the whole path of tangents (out of the plane, a
//! holonomy). The rod reports the Jacobians of that transport and the mixed
//! block `∂²E/∂x∂c` ([`pliant_core::Energy::carried_transition`],
//! [`pliant_core::Energy::carried_block`]), and the engine threads them
//! through the sensitivity and adjoint recurrences: rollout gradients of
//! twisted, non-planar rods are exact (checked against central differences
//! of whole rollouts in `tests/rod_gradients.rs` of the workspace root).

#![warn(missing_docs)]

mod bend_twist;
mod element;
mod error;
mod frames;
pub mod network;
mod rod;
mod stretch;

pub use error::RodError;
pub use network::{BendSpring, RodNetwork};
pub use rod::{
    Actuation, EdgeOverride, RestLengths, Rod, RodEnergies, RodEnergy, RodStrains, ShellJoints,
    SpringOverride, TWIST_KIND, twist_dofs,
};

/// Call once from a binary so the linker keeps this crate's energy
/// registrations even if nothing else from it is referenced.
pub fn link() {}
