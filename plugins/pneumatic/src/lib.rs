//! # pliant-pneumatic
//!
//! Pneumatic actuation, SI units throughout (m, kg, s, Pa, J):
//!
//! - [`Cavity`] (scene type `"cavity"`): a pressurized cavity on a closed,
//!   consistently oriented triangle surface — a chamber inside a FEM body
//!   ([`cavity_surface`] selects it from the body's boundary) or a closed
//!   shell — with the enclosed volume computed exactly by the divergence
//!   theorem ([`enclosed_volume`]); a constant gauge pressure or an
//!   enclosed ideal gas, the pressure or the amount of gas a control
//!   channel.
//! - [`PneumaticMuscles`] (`"pneumatic_muscle"`): McKibben muscles (PMAs)
//!   through chains of anchors — nodes, material points of a body, or
//!   points on a rod's surface that turn with its cross-sections
//!   ([`Anchor`]) — with the paper's force input `p A` or the braid law,
//!   axial stiffness and damping, length guards; the §IV-D
//!   length-to-pressure map both ways ([`MuscleModel`]).
//!
//! Every energy's gradient and Hessian (and parameter derivatives) are
//! checked against the dual-number fallback and finite differences in
//! `tests/derivatives.rs`; muscles on rods, which need a rod, in the
//! workspace's `tests/rod_muscles.rs`.

#![warn(missing_docs)]

mod cavity;
mod error;
mod muscle;
mod muscle_model;
mod surface;

pub use cavity::{ATMOSPHERE, Cavity, GAS_CONSTANT, Gas};
pub use error::PneumaticError;
pub use muscle::{Anchor, Muscle, PneumaticMuscles};
pub use muscle_model::MuscleModel;
pub use pliant_core::Quantity;
pub use surface::{cavity_surface, check_closed, enclosed_volume};

/// Call once from a binary so the linker keeps this crate's energy
/// registrations even if nothing else from it is referenced.
pub fn link() {}
