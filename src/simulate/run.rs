//! Running a simulator for a number of steps with a progress bar, writing
//! every `every`-th frame as it goes (trajectory CSV/JSON and, with a
//! [`Recorder`], a ParaView frame; the replay and plots are kept bounded in
//! memory and written at the end). A failed step or an interruption
//! (SIGINT, SIGTERM: see [`stop_on_signals`]) ends the run with the frames
//! finished so far written, the last one included.

use super::output::{Frame, TrajectoryWriter};
use indicatif::{ProgressBar, ProgressStyle};
use pliant_core::{CoreError, Simulator};
use pliant_scenarios::Result;
use pliant_viz::{Recorder, StateView};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// How a run ended and what it did.
pub struct RunResult {
    /// The last state reached (also the last frame written).
    pub last: Frame,
    /// Frames written (initial state included).
    pub frames_written: usize,
    /// Total Newton iterations.
    pub newton_iterations: usize,
    /// Error that ended the run before the last step.
    pub error: Option<CoreError>,
    /// The run was stopped by a signal before its last step.
    pub interrupted: bool,
    /// Pictures written (ParaView index, replay, plots).
    pub pictures: Vec<std::path::PathBuf>,
    /// Why the pictures stopped, if they did (the trajectory went on).
    pub pictures_error: Option<String>,
}

/// Records `sim`'s current state in `pictures`; a failure (a plugin's
/// malformed shape, a full disk) stops the pictures, not the run, and is
/// kept in `error`.
fn record(
    pictures: &mut Option<Recorder>,
    error: &mut Option<String>,
    sim: &Simulator,
    observables: &[(String, f64)],
) {
    if let Some(rec) = pictures {
        let p = sim.model().params_at(sim.time());
        if let Err(e) = rec.frame(sim.model(), view(sim, &p), observables) {
            log::warn!(
                "pictures stopped at t = {} s (the trajectory goes on): {e}",
                sim.time()
            );
            *error = Some(e.to_string());
            *pictures = None;
        }
    }
}

fn view<'a>(sim: &'a Simulator, p: &'a [f64]) -> StateView<'a> {
    StateView {
        q: sim.q(),
        v: sim.v(),
        p,
        t: sim.time(),
        dt: sim.dt(),
    }
}

/// A flag set by SIGINT or SIGTERM (installed once per process; later calls
/// return the same flag). A second signal exits at once (status 130), for a
/// step that does not end.
pub fn stop_on_signals() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        let handler = move || {
            if f.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        };
        if let Err(e) = ctrlc::set_handler(handler) {
            log::warn!(
                "cannot catch SIGINT/SIGTERM ({e}); an interrupted run keeps only what was flushed"
            );
        }
        flag
    })
    .clone()
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

/// Steps `sim` `steps` times with the model's parameter schedule, writing
/// the initial state, every `every`-th step and the last step reached into
/// `dir` ([`TrajectoryWriter`]; `every` ≥ 1) and into `pictures` if given.
/// Stops early, keeping what was written, when a step fails or `stop` is
/// set.
pub fn run(
    sim: &mut Simulator,
    steps: usize,
    every: usize,
    dir: &Path,
    stop: &AtomicBool,
    progress: bool,
    mut pictures: Option<Recorder>,
) -> Result<RunResult> {
    let every = every.max(1);
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
    let mut last = frame(sim, 0, 0.0);
    let mut out = TrajectoryWriter::create(dir, sim.model().dim(), sim.dt(), &last)?;
    if let Err(e) = out.push(&last) {
        out.finish().ok();
        return Err(e);
    }
    let mut pictures_error = None;
    record(&mut pictures, &mut pictures_error, sim, &last.observables);
    let mut last_written = true;
    let (mut total, mut error, mut interrupted) = (0, None, false);
    for k in 1..=steps {
        if stop.load(Ordering::SeqCst) {
            interrupted = true;
            break;
        }
        match sim.step() {
            Ok(r) => {
                total += r.newton.iterations;
                last = frame(sim, r.newton.iterations, r.newton.residual);
                last_written = k % every == 0;
                if last_written {
                    if let Err(e) = out.push(&last) {
                        // Keep what was written a complete document.
                        out.finish().ok();
                        return Err(e);
                    }
                    record(&mut pictures, &mut pictures_error, sim, &last.observables);
                }
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
    if !last_written && let Err(e) = out.push(&last) {
        out.finish().ok();
        return Err(e);
    }
    bar.finish_and_clear();
    let frames_written = out.frames();
    out.finish()?;
    // The last state is in the replay and plots even when it was not a
    // recorded frame (a failed step, an interruption).
    let pictures = match pictures {
        Some(rec) => {
            let p = sim.model().params_at(sim.time());
            rec.finish(sim.model(), view(sim, &p), &last.observables)
                .unwrap_or_else(|e| {
                    pictures_error = Some(e.to_string());
                    Vec::new()
                })
        }
        None => Vec::new(),
    };
    Ok(RunResult {
        last,
        frames_written,
        newton_iterations: total,
        error,
        interrupted,
        pictures,
        pictures_error,
    })
}
