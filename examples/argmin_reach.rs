//! An argmin script a user would write: your own objective over a rollout,
//! handed to argmin's `Executor` with L-BFGS, an observer that prints every
//! iteration and writes it to a CSV, and a file checkpoint.
//!
//! **The problem** (`examples/common/finger.rs`): a 60 mm cable-driven soft
//! finger, clamped at its base, hangs under gravity; two cables (flexor,
//! abductor) contract by `u_c(t)` (m), piecewise linear through 5 keyframes
//! per cable at 0.1, 0.2, …, 0.5 s. The user-written objective `TipReach`
//! (an implementation of `pliant_optim::Objective`) asks the mean of the
//! tip face to sit at `y = 10 mm`, `z = −8 mm` from 0.2 s to 0.5 s:
//!
//! `O(z) = ½ Σ_{k=20}^{50} Σ_{a∈{y,z}} ((tip_a(x_k) − target_a) / 1 mm)² / 31`
//!
//! (dimensionless; `√(2 O)` is the RMS tip error in mm), over 50 implicit
//! (BDF1) steps of 10 ms of a 288-tetrahedron neo-Hookean body
//! (E = 300 kPa, ν = 0.45, 1100 kg/m³).
//!
//! **The optimization.** `pliant_optim::Shooting` rolls the finger out for
//! a keyframe vector and implements argmin's `CostFunction` and `Gradient`
//! (the exact adjoint of the whole rollout). The 10 keyframes (mm) are
//! bounded to [0, 15] mm by the shooting problem's `z = 7.5 + 7.5 tanh(w)`:
//! argmin works on `w`, `Shooting::z_of` / `w_of` convert. L-BFGS (memory 5)
//! with the Moré–Thuente line search runs from 2 mm everywhere.
//!
//! **Outputs** in `out/argmin_reach/`: `iterations.csv` (one row per
//! iteration: cost, best cost, rollouts, gradients, wall time, keyframes),
//! `checkpoints/lbfgs.arg` (argmin's checkpoint, every iteration),
//! `controls.csv` (t, u per cable, mm) and `tip.csv` (t, tip position, m) of
//! the best keyframes.
//!
//! `cargo run --release --example argmin_reach [-- --iters N] [--resume] [--out DIR]`
//!
//! `--resume` continues from the checkpoint of a run that was killed (a
//! finished run's checkpoint just reports its result; the printed rollout
//! and time counters restart at the resume); without it, an old checkpoint
//! is removed first.

#[path = "common/finger.rs"]
mod finger;

use anyhow::Context;
use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{Error, Executor, KV, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use argmin_checkpointing_file::{CheckpointingFrequency, FileCheckpoint};
use finger::{CABLES, Finger, H, KEYFRAMES, REACH_STEPS, REACH_TARGET, Shared};
use nalgebra::DVector;
use pliant::optim::Shooting;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Prints every iteration and appends it to a CSV.
struct Report {
    problem: Arc<Shooting>,
    start: Instant,
    csv: csv::Writer<std::fs::File>,
}

impl Report {
    fn row(&mut self, iter: u64, cost: f64, best: f64, w: &[f64]) -> Result<(), Error> {
        let st = self.problem.stats();
        let z = self.problem.z_of(w);
        let seconds = self.start.elapsed().as_secs_f64();
        println!(
            "iter {iter:>3}  cost {cost:.6e}  best {best:.6e}  RMS tip error {:.3} mm  {:>3} rollouts  {:>2} gradients  {seconds:.2} s",
            (2.0 * best).sqrt(),
            st.rollouts,
            st.gradients,
        );
        let mut rec = vec![
            iter.to_string(),
            cost.to_string(),
            best.to_string(),
            st.rollouts.to_string(),
            st.gradients.to_string(),
            seconds.to_string(),
        ];
        rec.extend(z.iter().map(|v| v.to_string()));
        self.csv.write_record(&rec)?;
        self.csv.flush()?;
        Ok(())
    }
}

impl<I: State<Param = DVector<f64>, Float = f64>> Observe<I> for Report {
    fn observe_init(&mut self, name: &str, state: &I, _kv: &KV) -> Result<(), Error> {
        println!("{name}: start");
        let w = state.get_param().map(|w| w.as_slice().to_vec());
        self.row(
            0,
            state.get_cost(),
            state.get_best_cost(),
            &w.unwrap_or_default(),
        )
    }
    fn observe_iter(&mut self, state: &I, _kv: &KV) -> Result<(), Error> {
        // argmin counts iterations from 0 and increments after observing.
        let w = state.get_param().map(|w| w.as_slice().to_vec());
        self.row(
            state.get_iter() + 1,
            state.get_cost(),
            state.get_best_cost(),
            &w.unwrap_or_default(),
        )
    }
}

fn main() -> anyhow::Result<()> {
    let (mut iters, mut resume, mut out) = (30u64, false, PathBuf::from("out"));
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--iters" => iters = args.next().context("--iters N")?.parse()?,
            "--resume" => resume = true,
            "--out" => out = args.next().context("--out DIR")?.into(),
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    let dir = out.join("argmin_reach");
    let checkpoints = dir.join("checkpoints");
    std::fs::create_dir_all(&checkpoints)?;
    if !resume {
        let _ = std::fs::remove_file(checkpoints.join("lbfgs.arg"));
    }

    // The problem: finger, keyframe controls and the user's objective.
    let finger = Finger::new()?;
    let problem = Arc::new(finger::reach_problem(&finger, REACH_STEPS)?);
    let nz = problem.map().nz();
    println!(
        "finger: {} tets, {} keyframes ({} per cable, mm), {} steps of {} s; tip target y = {} mm, z = {} mm",
        finger.mesh.tets.len(),
        nz,
        KEYFRAMES,
        REACH_STEPS,
        H,
        1e3 * REACH_TARGET[0],
        1e3 * REACH_TARGET[1]
    );
    let z0 = vec![5.0; nz];
    let w0 = DVector::from_vec(problem.w_of(&z0));

    // The CSV of iterations (appended to when resuming).
    let csv_path = dir.join("iterations.csv");
    let append = resume && csv_path.exists();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(append)
        .write(true)
        .truncate(!append)
        .open(&csv_path)
        .with_context(|| csv_path.display().to_string())?;
    let mut csv = csv::Writer::from_writer(file);
    if !append {
        let mut header: Vec<String> = [
            "iter",
            "cost",
            "best_cost",
            "rollouts",
            "gradients",
            "seconds",
        ]
        .map(String::from)
        .to_vec();
        for c in CABLES {
            header.extend((1..=KEYFRAMES).map(|j| format!("{c}_{j}_mm")));
        }
        csv.write_record(&header)?;
    }
    let report = Report {
        problem: problem.clone(),
        start: Instant::now(),
        csv,
    };

    // argmin: L-BFGS with the Moré–Thuente line search, our observer, a
    // checkpoint every iteration.
    let linesearch = MoreThuenteLineSearch::new();
    let solver: LBFGS<_, DVector<f64>, DVector<f64>, f64> = LBFGS::new(linesearch, 5)
        .with_tolerance_grad(1e-8)?
        .with_tolerance_cost(1e-12)?;
    let checkpoint = FileCheckpoint::new(
        checkpoints.to_string_lossy().as_ref(),
        "lbfgs",
        CheckpointingFrequency::Always,
    );
    let start = Instant::now();
    let res = Executor::new(Shared(problem.clone()), solver)
        .configure(|s| s.param(w0).max_iters(iters))
        .add_observer(report, ObserverMode::Always)
        .checkpointing(checkpoint)
        .run()?;
    let seconds = start.elapsed().as_secs_f64();

    // Results.
    let state = res.state();
    let w = state
        .get_best_param()
        .context("argmin returned no parameters")?
        .as_slice()
        .to_vec();
    let z = problem.z_of(&w);
    let st = problem.stats();
    println!(
        "L-BFGS: cost {:.6e} (RMS tip error {:.3} mm) after {} iterations ({}), {:.2} s: {} rollouts ({:.2} s), {} adjoint gradients ({:.2} s)",
        state.get_best_cost(),
        (2.0 * state.get_best_cost()).sqrt(),
        state.get_iter(),
        state.get_termination_status(),
        seconds,
        st.rollouts,
        st.rollout_seconds,
        st.gradients,
        st.derivative_seconds
    );
    for (c, name) in CABLES.iter().enumerate() {
        let keys: Vec<String> = z[c * KEYFRAMES..(c + 1) * KEYFRAMES]
            .iter()
            .map(|v| format!("{v:.3}"))
            .collect();
        println!("  {name:>8} keyframes (mm): {}", keys.join(", "));
    }

    // The best rollout: controls and tip path.
    let tr = problem.rollout_z(&z)?;
    let channels = problem.map().channels().to_vec();
    let mut controls = csv::Writer::from_path(dir.join("controls.csv"))?;
    controls.write_record(["t_s", "flexor_mm", "abductor_mm"])?;
    let mut tip = csv::Writer::from_path(dir.join("tip.csv"))?;
    tip.write_record(["t_s", "tip_x_m", "tip_y_m", "tip_z_m"])?;
    for k in 1..=tr.steps() {
        let (t, p) = (tr.t[k], &tr.p[k - 1]);
        controls
            .write_record([t, 1e3 * p[channels[0]], 1e3 * p[channels[1]]].map(|v| v.to_string()))?;
        let c = finger.tip_of(&tr.x[k]);
        tip.write_record([t, c[0], c[1], c[2]].map(|v| v.to_string()))?;
    }
    controls.flush()?;
    tip.flush()?;
    let end = finger.tip_of(tr.x.last().context("empty rollout")?);
    println!(
        "  tip at 0.5 s: y = {:.3} mm, z = {:.3} mm; outputs in {}",
        1e3 * end[1],
        1e3 * end[2],
        dir.display()
    );
    Ok(())
}
