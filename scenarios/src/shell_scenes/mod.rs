//! The shell scenes of MAT-DiSMech §7.1: the manta ray ([`Manta`], Fig. 6)
//! and the parachute ([`Parachute`], Fig. 8). Each builds a model and says
//! how to step it and what to measure; `examples/shells.rs` runs them and
//! writes CSV, SVG plots and ParaView series. SI units.

mod manta;
mod parachute;

pub use manta::{COARSEST_CELLS, Manta, MantaRun};
pub use parachute::{Parachute, ParachuteRun};

use pliant_core::NewtonSettings;

/// Newton settings of the shell scenes: default tolerances, more
/// iterations, and up to four step halvings when a step fails.
pub fn newton() -> NewtonSettings {
    NewtonSettings {
        max_iterations: 100,
        max_step_halvings: 4,
        ..NewtonSettings::default()
    }
}

/// Position of node `n` in `q`, m.
pub fn node(q: &[f64], n: usize) -> [f64; 3] {
    [q[3 * n], q[3 * n + 1], q[3 * n + 2]]
}
