//! Running a simulator for a number of steps, recording frames, with a
//! progress bar. On a failed step, the frames computed so far are kept.

use super::output::{Frame, Recording};
use indicatif::{ProgressBar, ProgressStyle};
use pliant_core::{CoreError, Simulator};

/// Result of a run: the frames, and the error that stopped it early, if any.
pub struct RunResult {
    /// Recorded frames (initial state first).
    pub recording: Recording,
    /// Total Newton iterations.
    pub newton_iterations: usize,
    /// Error that ended the run before the last step.
    pub error: Option<CoreError>,
}

fn frame(sim: &Simulator, iters: usize, residual: f64) -> Frame {
    Frame {
        step: sim.steps_done(),
        time: sim.time(),
        com: sim.model().center_of_mass(sim.q()),
        kinetic: sim.kinetic_energy(),
        newton_iterations: iters,
        residual,
        observables: sim.observables(&sim.model().params_at(sim.time())),
        q: sim.q().to_vec(),
    }
}

/// Steps `sim` `steps` times with the model's parameter schedule.
pub fn run(sim: &mut Simulator, steps: usize, progress: bool) -> RunResult {
    let bar = if progress {
        ProgressBar::new(steps as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} steps {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut frames = vec![frame(sim, 0, 0.0)];
    let mut total = 0;
    let mut error = None;
    for _ in 0..steps {
        match sim.step() {
            Ok(r) => {
                total += r.newton.iterations;
                frames.push(frame(sim, r.newton.iterations, r.newton.residual));
                bar.set_message(format!(
                    "t = {:.3} s, {} Newton it.",
                    r.time, r.newton.iterations
                ));
                bar.inc(1);
            }
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    bar.finish_and_clear();
    RunResult {
        recording: Recording {
            dim: sim.model().dim(),
            dt: sim.dt(),
            frames,
        },
        newton_iterations: total,
        error,
    }
}
