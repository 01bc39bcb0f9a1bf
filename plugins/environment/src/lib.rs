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

pub mod broad_phase;
pub mod damping;
pub mod gravity;
pub mod ground;
/// The penalty functions, shared with other plugins through core.
pub use pliant_core::penalty;
pub mod point_force;
pub mod rft;
pub mod rod_contact;
pub mod segment_distance;
pub mod sphere;
pub mod spring;
mod vec3;

pub use damping::ViscousDamping;
pub use gravity::Gravity;
pub use ground::{Friction, Ground, NormalLaw};
pub use point_force::{NodeForce, PointForces};
pub use rft::ResistiveForce;
pub use rod_contact::{ContactFriction, RodContact};
pub use sphere::SphereContact;
pub use spring::{Spring, Springs};

/// Call once from a binary so the linker keeps this crate's energy
/// registrations (typetag and the energy list) even if nothing else from it
/// is referenced.
pub fn link() {}
