//! # pliant-cells
//!
//! Soft multi-cellular robots in the plane (Germann et al., *Soft Cell
//! Simulator*), SI units throughout (m, kg, s, N, J; areas in m²). Models
//! are 2-D (`dim: 2`): a cell is a flat body, its masses in kg and its
//! forces in N as written (the paper's own model is 2-D too).
//!
//! - [`Cells`] (scene type `"cells"`): membrane rings with stretching and
//!   bending stiffness enclosing an ideal gas, the paper's reactive force
//!   `F = C (V₀/V − 1)` per membrane segment as the gradient of an energy;
//!   the pressure constant `C` may be a control channel.
//! - [`Actuators`] (`"cell_actuator"`): contractile actuators between two
//!   membrane nodes whose length is a control.
//! - [`CellContact`] (`"cell_contact"`): membrane–membrane contact between
//!   cells with friction (node–segment penalty, grid broad phase).
//! - [`CellLinks`] (`"cell_link"`): free joints — stiff bonds between
//!   the centroids of two membranes, about which the cells turn freely.
//! - [`circle`], [`check_ring`], [`polygon_area`]: ring geometry and its
//!   validation (at least three nodes, no self-intersection, positive
//!   counter-clockwise area).
//!
//! Every energy's gradient and Hessian (and parameter derivatives) are
//! checked against the dual-number fallback and finite differences in
//! `tests/derivatives.rs`.

#![warn(missing_docs)]

mod actuator;
mod approach;
mod cell;
mod contact;
mod error;
mod grid;
mod link;
mod pair;
mod ring;

pub use actuator::{Actuator, Actuators};
pub use cell::{Cell, CellSet, Cells};
pub use contact::{CellContact, CellContactEnergy, MembraneFriction};
pub use error::CellError;
pub use link::{CellLink, CellLinks};
pub use ring::{add_ring, check_ring, circle, polygon_area};

/// Call once from a binary so the linker keeps this crate's energy
/// registrations even if nothing else from it is referenced.
pub fn link() {}
