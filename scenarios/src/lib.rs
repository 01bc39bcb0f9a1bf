//! # pliant-scenarios
//!
//! The papers' robots and scenes, ready to run, and the closed-form
//! references they are checked against. SI units throughout.
//!
//! - [`robots`]: the cable-driven Tripod and Puppy of Bern et al. 2019
//!   (voxel foam bodies, motor platform, cables), and [`gait`]: their gait
//!   optimization pipeline (§III–IV: settling, keyframe gaits, objectives,
//!   the slack regularizer, slack removal, outputs).
//! - [`rod_scenes`]: the rod examples of MAT-DiSMech §7.1 (PneuNet,
//!   earthworm, snake, dropped rod, gripper) and crossing rods.
//! - [`cantilever`] (FEM, against Euler–Bernoulli) and [`rod_cantilever`]
//!   (rod, against the elastica): the validation cases.
//! - [`lattice`]: a soft spring lattice block (the lattice demo).
//! - [`soft_snake`]: the pneumatic soft robotic snake of Arachchige et al.
//!   2023 (McKibben muscles, spring–damper ground, planar and spatial
//!   rolling against Table I).
//! - [`pneunet_fem`]: a PneuNet bending actuator in FEM (chambers as
//!   pressurized cavities), tip angle against pressure.
//! - [`soft_cells`]: the soft multi-cellular robots of Germann et al.
//!   (pressure cells, magnetic connectors, actuators; force–deflection,
//!   bouncing, attaching, bending chains, self-folding letters, the
//!   stacked-cells benchmark).
//! - [`pressurized_sphere`]: a thick-walled sphere under internal
//!   pressure, against Lamé's solution (the cavity's validation).
#![warn(missing_docs)]

pub mod cantilever;
mod error;
pub mod gait;
pub mod lattice;
pub mod pneunet_fem;
pub mod pressurized_sphere;
pub mod robots;
pub mod rod_cantilever;
pub mod rod_scenes;
pub mod shell_cantilever;
pub mod shell_scenes;
pub mod soft_cells;
pub mod soft_snake;

pub use error::{Result, ScenarioError};

/// Makes sure every plugin crate's energy registrations are linked in.
pub fn link() {
    pliant_cable::link();
    pliant_environment::link();
    pliant_fem::link();
    pliant_rod::link();
    pliant_shell::link();
    pliant_pneumatic::link();
    pliant_cells::link();
    pliant_magnetic::link();
}
