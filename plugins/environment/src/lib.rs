//! # pliant-environment
//!
//! Environment energies (SI units): gravity and buoyancy (MAT-DiSMech §5.1),
//! ground contact against an arbitrary plane with the cable paper's smooth
//! one-sided quadratic, MAT-DiSMech's log-exp penalty (eq. 25) or the snake
//! paper's spring–damper ground (eq. 3); friction lagged on the previous
//! step's normal force (cable paper §II-C) or smooth Coulomb friction
//! (MAT-DiSMech eq. 23), optionally anisotropic along a body axis (snake paper
//! eq. 4); viscous damping (MAT-DiSMech eq. 27); a plain stretch spring; and
//! for rods: implicit rod–rod contact with friction (IMC, eqs. 21–23) over a
//! hash-grid broad phase, contact with a rigid sphere, and resistive-force
//! drag (eqs. 29–30).
//!
//! Every energy has analytic gradients and Hessians, checked in its tests
//! against the dual-number fallback and finite differences with
//! [`pliant_core::derivcheck`].
#![warn(missing_docs)]

mod broad_phase;
mod damping;
mod gravity;
mod ground;
mod log_exp;
mod point_force;
mod rft;
mod rod_contact;
pub mod segment_distance;
mod shear_panel;
mod sphere;
mod spring;

pub use damping::ViscousDamping;
pub use gravity::Gravity;
pub use ground::{Friction, Ground, NormalLaw};
pub use log_exp::LogExpPenalty;
pub use point_force::{NodeForce, PointForces};
pub use rft::ResistiveForce;
pub use rod_contact::{ContactFriction, RodContact, RodContactEnergy};
pub use shear_panel::ShearPanels;
pub use sphere::SphereContact;
pub use spring::{Spring, Springs};

/// Call once from a binary so the linker keeps this crate's energy
/// registrations even if nothing else from it is referenced.
pub fn link() {}
