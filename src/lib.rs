//! # pliant
//!
//! Differentiable soft-robot physics. This facade re-exports the engine
//! ([`core`]), the differentiable-trajectory crate ([`optim`]), the plugins
//! ([`environment`], [`fem`], [`cable`], [`rod`], [`shell`], [`pneumatic`],
//! [`cells`], [`magnetic`], [`hardware`]), the output writers ([`viz`]) and
//! the papers' scenarios
//! ([`scenarios`], whose modules are also re-exported at the top level),
//! and holds what the `pliant` command line needs to simulate a scene
//! ([`simulate`]), differentiate a rollout given as JSON ([`rollout`]), mesh a
//! body ([`mesh_file`]) and record how a run was made ([`provenance`]). SI
//! units throughout.
#![warn(missing_docs)]

pub mod mesh_file;
pub mod provenance;
pub mod rollout;
pub mod simulate;
pub mod sweep;

pub use pliant_cable as cable;
pub use pliant_cells as cells;
pub use pliant_core as core;
pub use pliant_environment as environment;
pub use pliant_fem as fem;
pub use pliant_hardware as hardware;
pub use pliant_magnetic as magnetic;
pub use pliant_mesh as mesh;
pub use pliant_optim as optim;
pub use pliant_pneumatic as pneumatic;
pub use pliant_rod as rod;
pub use pliant_scenarios as scenarios;
pub use pliant_scenarios::{
    cantilever, gait, lattice, pneunet_fem, pressurized_sphere, robots, rod_cantilever, rod_scenes,
    shell_cantilever, shell_scenes, soft_cells, soft_snake,
};
pub use pliant_shell as shell;
pub use pliant_viz as viz;

/// Makes sure every plugin crate's energy registrations are linked in.
pub fn init() {
    pliant_scenarios::link();
}
