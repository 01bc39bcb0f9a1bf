//! What exact gradients buy: the reaching task of `argmin_reach` solved by
//! L-BFGS on the adjoint gradient, then by argmin's derivative-free
//! Nelder–Mead until it reaches L-BFGS's final cost or its budget runs out,
//! with the iterations, rollouts and wall time of both.
//!
//! **The problem** (`examples/common/finger.rs`, as in `argmin_reach`): a
//! cable-driven soft finger's tip should sit at `y = 12 mm`, `z = −6 mm`
//! from 0.2 s to 0.5 s; 10 keyframes (mm, in [0, 15] through the shooting
//! problem's `z = 7.5 + 7.5 tanh(w)`) of two cables; the dimensionless cost
//! `O = ½ mean_k Σ_a ((tip_a − target_a)/1 mm)²` (`√(2O)` is the RMS tip
//! error in mm). Both solvers start from 5 mm everywhere and work on `w`.
//!
//! - **L-BFGS** (memory 5, Moré–Thuente line search), 30 iterations: each
//!   iteration costs rollouts (one per line-search trial) plus adjoint
//!   sweeps (backward passes over the stored rollout, each about the cost of
//!   a rollout).
//! - **Nelder–Mead** on the same `CostFunction` (no gradient), initial
//!   simplex: the start and the start with one keyframe raised by 1 mm;
//!   stops at L-BFGS's final cost, or after 400 iterations (or 45 s, a
//!   guard for slow machines).
//!
//! Then the table: iterations, rollouts, gradients, wall time and final cost
//! of each, and how far L-BFGS had to go to match Nelder–Mead's best cost.
//!
//! **Outputs** in `out/argmin_reach_gradient_free/`: `iterations.csv`
//! (solver, iteration, best cost, rollouts, gradients, wall time) and
//! `comparison.csv` (the table).
//!
//! `cargo run --release --example argmin_reach_gradient_free [-- --out DIR]`

#[path = "common/finger.rs"]
mod finger;

use anyhow::Context;
use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{Error, Executor, KV, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::neldermead::NelderMead;
use argmin::solver::quasinewton::LBFGS;
use finger::{Finger, REACH_STEPS, Shared};
use nalgebra::DVector;
use pliant::optim::Shooting;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// L-BFGS iterations.
const LBFGS_ITERS: u64 = 30;
/// Nelder–Mead's budget: iterations and wall time.
const NM_ITERS: u64 = 400;
/// A guard that keeps the example under a minute on a slow machine.
const NM_SECONDS: u64 = 45;
/// Start: every keyframe at 5 mm.
const Z0_MM: f64 = 5.0;

/// One observed iteration.
#[derive(Debug, Clone, Copy)]
struct Row {
    iter: u64,
    best: f64,
    rollouts: usize,
    gradients: usize,
    seconds: f64,
}

/// Records every iteration; prints every `print_every`-th.
struct Recorder {
    problem: Arc<Shooting>,
    start: Instant,
    rows: Arc<Mutex<Vec<Row>>>,
    label: &'static str,
    print_every: u64,
}

impl Recorder {
    fn record(&mut self, iter: u64, best: f64) {
        let st = self.problem.stats();
        let row = Row {
            iter,
            best,
            rollouts: st.rollouts,
            gradients: st.gradients,
            seconds: self.start.elapsed().as_secs_f64(),
        };
        if iter.is_multiple_of(self.print_every) {
            println!(
                "  {} iter {:>4}  best cost {:.6e}  {:>4} rollouts  {:>3} gradients  {:.2} s",
                self.label, row.iter, row.best, row.rollouts, row.gradients, row.seconds
            );
        }
        self.rows.lock().expect("recorder lock").push(row);
    }
}

impl<I: State<Param = DVector<f64>, Float = f64>> Observe<I> for Recorder {
    fn observe_init(&mut self, _name: &str, state: &I, _kv: &KV) -> Result<(), Error> {
        self.record(0, state.get_best_cost());
        Ok(())
    }
    fn observe_iter(&mut self, state: &I, _kv: &KV) -> Result<(), Error> {
        self.record(state.get_iter() + 1, state.get_best_cost());
        Ok(())
    }
}

/// What a run did.
struct Outcome {
    rows: Vec<Row>,
    iterations: u64,
    best: f64,
    seconds: f64,
    termination: String,
}

fn recorder(problem: &Arc<Shooting>, label: &'static str, print_every: u64) -> Recorder {
    Recorder {
        problem: problem.clone(),
        start: Instant::now(),
        rows: Arc::new(Mutex::new(Vec::new())),
        label,
        print_every,
    }
}

fn main() -> anyhow::Result<()> {
    let mut out = PathBuf::from("out");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next().context("--out DIR")?.into(),
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    let dir = out.join("argmin_reach_gradient_free");
    std::fs::create_dir_all(&dir)?;
    let finger = Finger::new()?;

    // L-BFGS on the adjoint gradient.
    let problem = Arc::new(finger::reach_problem(&finger, REACH_STEPS)?);
    let nz = problem.map().nz();
    let z0 = vec![Z0_MM; nz];
    let w0 = DVector::from_vec(problem.w_of(&z0));
    println!("L-BFGS, {LBFGS_ITERS} iterations, {nz} keyframes:");
    let obs = recorder(&problem, "L-BFGS", 5);
    let rows = obs.rows.clone();
    let solver: LBFGS<_, DVector<f64>, DVector<f64>, f64> =
        LBFGS::new(MoreThuenteLineSearch::new(), 5)
            .with_tolerance_grad(1e-8)?
            .with_tolerance_cost(1e-12)?;
    let start = Instant::now();
    let res = Executor::new(Shared(problem.clone()), solver)
        .configure(|s| s.param(w0.clone()).max_iters(LBFGS_ITERS))
        .add_observer(obs, ObserverMode::Always)
        .run()?;
    let lbfgs = Outcome {
        seconds: start.elapsed().as_secs_f64(),
        rows: rows.lock().expect("rows").clone(),
        iterations: res.state().get_iter(),
        best: res.state().get_best_cost(),
        termination: res.state().get_termination_status().to_string(),
    };
    let lbfgs_stats = problem.stats();

    // Nelder–Mead on the cost alone, stopping at L-BFGS's final cost.
    let problem = Arc::new(finger::reach_problem(&finger, REACH_STEPS)?);
    let mut simplex = vec![w0.clone()];
    for j in 0..nz {
        let mut z = z0.clone();
        z[j] += 1.0;
        simplex.push(DVector::from_vec(problem.w_of(&z)));
    }
    println!(
        "Nelder–Mead until cost ≤ {:.6e} (L-BFGS's), at most {NM_ITERS} iterations or {NM_SECONDS} s:",
        lbfgs.best
    );
    let obs = recorder(&problem, "Nelder–Mead", 50);
    let rows = obs.rows.clone();
    let solver = NelderMead::new(simplex).with_sd_tolerance(1e-12)?;
    let start = Instant::now();
    let res = Executor::new(Shared(problem.clone()), solver)
        .configure(|s| s.max_iters(NM_ITERS).target_cost(lbfgs.best))
        .add_observer(obs, ObserverMode::Always)
        .timeout(Duration::from_secs(NM_SECONDS))
        .run()?;
    let nm = Outcome {
        seconds: start.elapsed().as_secs_f64(),
        rows: rows.lock().expect("rows").clone(),
        iterations: res.state().get_iter(),
        best: res.state().get_best_cost(),
        termination: res.state().get_termination_status().to_string(),
    };
    let nm_stats = problem.stats();

    // The table.
    println!();
    println!(
        "{:<30} {:>6} {:>9} {:>10} {:>9} {:>13} {:>8}  stopped by",
        "run", "iters", "rollouts", "gradients", "wall s", "best cost", "RMS mm"
    );
    let mut table: Vec<(String, Row, String)> = vec![
        (
            "L-BFGS".into(),
            Row {
                iter: lbfgs.iterations,
                best: lbfgs.best,
                rollouts: lbfgs_stats.rollouts,
                gradients: lbfgs_stats.gradients,
                seconds: lbfgs.seconds,
            },
            lbfgs.termination.clone(),
        ),
        (
            "Nelder–Mead".into(),
            Row {
                iter: nm.iterations,
                best: nm.best,
                rollouts: nm_stats.rollouts,
                gradients: nm_stats.gradients,
                seconds: nm.seconds,
            },
            nm.termination.clone(),
        ),
    ];
    // Where L-BFGS first matched Nelder–Mead's best (if NM fell short).
    if let Some(r) = lbfgs.rows.iter().find(|r| r.best <= nm.best)
        && nm.best > lbfgs.best
    {
        table.push((
            "L-BFGS to Nelder–Mead's best".into(),
            *r,
            "(its iteration history)".into(),
        ));
    }
    let mut csv = csv::Writer::from_path(dir.join("comparison.csv"))?;
    csv.write_record([
        "run",
        "iterations",
        "rollouts",
        "gradients",
        "seconds",
        "best_cost",
        "stopped_by",
    ])?;
    for (name, r, stop) in &table {
        println!(
            "{:<30} {:>6} {:>9} {:>10} {:>9.2} {:>13.6e} {:>8.4}  {stop}",
            name,
            r.iter,
            r.rollouts,
            r.gradients,
            r.seconds,
            r.best,
            (2.0 * r.best).sqrt()
        );
        csv.write_record([
            name.clone(),
            r.iter.to_string(),
            r.rollouts.to_string(),
            r.gradients.to_string(),
            r.seconds.to_string(),
            r.best.to_string(),
            stop.clone(),
        ])?;
    }
    csv.flush()?;
    let mut csv = csv::Writer::from_path(dir.join("iterations.csv"))?;
    csv.write_record([
        "solver",
        "iter",
        "best_cost",
        "rollouts",
        "gradients",
        "seconds",
    ])?;
    for (name, o) in [("lbfgs", &lbfgs), ("nelder_mead", &nm)] {
        for r in &o.rows {
            csv.write_record([
                name.to_string(),
                r.iter.to_string(),
                r.best.to_string(),
                r.rollouts.to_string(),
                r.gradients.to_string(),
                r.seconds.to_string(),
            ])?;
        }
    }
    csv.flush()?;
    println!("outputs in {}", dir.display());
    Ok(())
}
