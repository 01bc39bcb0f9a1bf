//! # pliant
//!
//! Differentiable soft-robot physics. This facade re-exports the engine
//! ([`pliant_core`]), the differentiable-trajectory crate ([`pliant_optim`])
//! and the plugins, and holds what the `pliant` command line uses: model
//! builders ([`lattice`]), the built-in [`demo`], and rollout output
//! ([`runner`], [`output`]). SI units throughout.

pub mod cantilever;
pub mod demo;
pub mod gait;
pub mod gait_output;
pub mod gait_run;
pub mod lattice;
pub mod output;
pub mod robots;
pub mod rod_cantilever;
pub mod rod_scenes;
pub mod runner;
pub mod scene_export;

pub use pliant_cable as cable;
pub use pliant_core as core;
pub use pliant_environment as environment;
pub use pliant_fem as fem;
pub use pliant_optim as optim;
pub use pliant_rod as rod;

/// Makes sure every plugin crate's energy registrations are linked in.
pub fn init() {
    pliant_cable::link();
    pliant_environment::link();
    pliant_fem::link();
    pliant_rod::link();
}
