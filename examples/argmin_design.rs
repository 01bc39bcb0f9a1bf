//! A design parameter instead of controls: which Young's modulus makes the
//! cable-driven finger's tip sink to a target height under a fixed pull?
//! The gradient of the whole rollout w.r.t. the modulus is checked against
//! central finite differences of whole rollouts, then argmin's L-BFGS finds
//! the modulus.
//!
//! **The problem** (`examples/common/finger.rs`, `design_problem`): the 60 mm soft finger,
//! clamped, under gravity, its flexor cable pulled with a constant tension
//! τ = 0.3 N from `t = 0` (tension control, `E_cable = τ L(x)`), the
//! abductor slack (0 N). Its neo-Hookean body reads Young's modulus `E` (Pa)
//! and Poisson's ratio ν = 0.45 from *design* channels
//! (`ParamChannel::design`, `Material::Channels`): constant over a rollout,
//! differentiable like controls. A `ControlMap` holds the channel `E` at
//! `E = z · 100 kPa` over all 60 steps (10 ms, BDF1), so the optimization
//! vector is the single number `z` (bounded to [0.5, 10], i.e. 50 kPa – 1
//! MPa, by the shooting problem's `z = m + r tanh(w)`). The objective is the
//! user-written `TipReach` on the tip height alone,
//!
//! `O(E) = ½ Σ_{k=31}^{60} ((tip_z(x_k) − (−5 mm)) / 1 mm)² / 30`
//!
//! (a softer finger bends further; `√(2O)` is the RMS height error in mm
//! over 0.31–0.6 s, where the pulled finger has nearly settled).
//!
//! **Gradient check.** At `E` = 80, 150 and 300 kPa: `dO/dE` (1/Pa) by the
//! adjoint (`Shooting::gradient`) and by forward sensitivity
//! (`Shooting::jacobian`, `Jᵀr`), against the central difference
//! `(O(E + δ) − O(E − δ)) / 2δ` of whole rollouts, `δ = 1e-6 E`.
//!
//! **Outputs** in `out/argmin_design/`: `gradient_check.csv`,
//! `iterations.csv` (iteration, E, cost, tip height at the end), and
//! `tip.csv` (t, tip position of the fitted finger, m).
//!
//! `cargo run --release --example argmin_design [-- --out DIR]`

#[path = "common/finger.rs"]
mod finger;

use anyhow::Context;
use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{Error, Executor, KV, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use finger::{E_UNIT, Finger, H, Shared, TARGET_Z, TENSION, Z_BOUNDS, Z0, design_problem};
use nalgebra::DVector;
use pliant::optim::Shooting;
use std::path::PathBuf;
use std::sync::Arc;

/// Steps (0.6 s) and the first step of the objective (t = 0.31 s).
const STEPS: usize = 60;
const FROM_STEP: usize = 31;

/// `dz/dw` of the bound transform `z = m + r tanh(w)`.
fn dz_dw(w: f64) -> f64 {
    0.5 * (Z_BOUNDS.1 - Z_BOUNDS.0) * (1.0 - w.tanh().powi(2))
}

/// One gradient check: `(O, adjoint, forward, FD)`, derivatives in 1/Pa.
fn check(problem: &Shooting, e: f64) -> anyhow::Result<(f64, f64, f64, f64)> {
    let w = problem.w_of(&[e / E_UNIT]);
    // Chain rule to dO/dE: dO/dw / (dz/dw · E_UNIT).
    let per_pa = 1.0 / (dz_dw(w[0]) * E_UNIT);
    let (cost, g) = problem.gradient(&w)?;
    let (r, jac) = problem.jacobian(&w)?;
    let forward: f64 = r.iter().zip(&jac).map(|(r, j)| r * j).sum();
    // Central difference of whole rollouts in E itself.
    let delta = 1e-6 * e;
    let cost_at = |e: f64| -> anyhow::Result<f64> {
        let r = problem.residuals(&problem.w_of(&[e / E_UNIT]))?;
        Ok(0.5 * r.iter().map(|r| r * r).sum::<f64>())
    };
    let fd = (cost_at(e + delta)? - cost_at(e - delta)?) / (2.0 * delta);
    Ok((cost, g[0] * per_pa, forward * per_pa, fd))
}

/// Prints `E` and the cost every iteration and writes them to a CSV.
struct Report {
    problem: Arc<Shooting>,
    /// Rollouts before the optimization (the gradient check's).
    rollouts0: usize,
    csv: csv::Writer<std::fs::File>,
}

impl<I: State<Param = DVector<f64>, Float = f64>> Observe<I> for Report {
    fn observe_iter(&mut self, state: &I, _kv: &KV) -> Result<(), Error> {
        let w = state.get_param().map(|w| w.as_slice().to_vec());
        let e = E_UNIT * self.problem.z_of(&w.unwrap_or_default())[0];
        let iter = state.get_iter() + 1;
        println!(
            "iter {iter:>2}  E = {:.3} kPa  cost {:.6e}  RMS height error {:.4} mm  {} rollouts",
            1e-3 * e,
            state.get_cost(),
            (2.0 * state.get_cost()).sqrt(),
            self.problem.stats().rollouts - self.rollouts0
        );
        self.csv.write_record([
            iter.to_string(),
            e.to_string(),
            state.get_cost().to_string(),
        ])?;
        self.csv.flush()?;
        Ok(())
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
    let dir = out.join("argmin_design");
    std::fs::create_dir_all(&dir)?;
    let finger = Finger::new()?;
    let problem = Arc::new(design_problem(&finger, STEPS, FROM_STEP)?);
    println!(
        "finger: flexor pulled at {TENSION} N; find E so that the tip sits at z = {} mm over {:.2}–{:.2} s",
        1e3 * TARGET_Z,
        FROM_STEP as f64 * H,
        STEPS as f64 * H
    );

    // The gradient of whole rollouts against finite differences.
    println!("gradient check, dO/dE (1/Pa):");
    let mut csv = csv::Writer::from_path(dir.join("gradient_check.csv"))?;
    csv.write_record([
        "E_Pa",
        "cost",
        "adjoint",
        "forward",
        "central_fd",
        "rel_diff",
    ])?;
    for e in [0.8e5, 1.5e5, 3e5] {
        let (cost, adjoint, forward, fd) = check(&problem, e)?;
        let rel = (adjoint - fd).abs().max((forward - fd).abs()) / fd.abs();
        println!(
            "  E = {:>5.1} kPa  O = {cost:.6e}  adjoint {adjoint:.9e}  forward {forward:.9e}  FD {fd:.9e}  max rel. diff {rel:.2e}",
            1e-3 * e
        );
        csv.write_record([e, cost, adjoint, forward, fd, rel].map(|v| v.to_string()))?;
    }
    csv.flush()?;

    // L-BFGS on the one design variable.
    let mut csv = csv::Writer::from_path(dir.join("iterations.csv"))?;
    csv.write_record(["iter", "E_Pa", "cost"])?;
    let report = Report {
        problem: problem.clone(),
        rollouts0: problem.stats().rollouts,
        csv,
    };
    let w0 = DVector::from_vec(problem.w_of(&[Z0]));
    let solver: LBFGS<_, DVector<f64>, DVector<f64>, f64> =
        LBFGS::new(MoreThuenteLineSearch::new(), 3)
            .with_tolerance_grad(1e-9)?
            .with_tolerance_cost(1e-14)?;
    let rollouts_before = problem.stats().rollouts;
    let start = std::time::Instant::now();
    let res = Executor::new(Shared(problem.clone()), solver)
        .configure(|s| s.param(w0).max_iters(20))
        .add_observer(report, ObserverMode::Always)
        .run()?;
    let seconds = start.elapsed().as_secs_f64();
    let state = res.state();
    let w = state.get_best_param().context("no parameters")?;
    let e = E_UNIT * problem.z_of(w.as_slice())[0];
    println!(
        "L-BFGS: E = {:.3} kPa, cost {:.6e} (RMS height error {:.4} mm) after {} iterations ({}), {} rollouts, {seconds:.2} s",
        1e-3 * e,
        state.get_best_cost(),
        (2.0 * state.get_best_cost()).sqrt(),
        state.get_iter(),
        state.get_termination_status(),
        problem.stats().rollouts - rollouts_before,
    );

    // The fitted finger's tip path.
    let tr = problem.rollout_z(&[e / E_UNIT])?;
    let mut csv = csv::Writer::from_path(dir.join("tip.csv"))?;
    csv.write_record(["t_s", "tip_x_m", "tip_y_m", "tip_z_m"])?;
    for k in 0..=tr.steps() {
        let c = finger.tip_of(&tr.x[k]);
        csv.write_record([tr.t[k], c[0], c[1], c[2]].map(|v| v.to_string()))?;
    }
    csv.flush()?;
    let end = finger.tip_of(tr.x.last().context("empty rollout")?);
    println!(
        "  tip height at {:.2} s: {:.3} mm; outputs in {}",
        STEPS as f64 * H,
        1e3 * end[2],
        dir.display()
    );
    Ok(())
}
