//! Gait optimization of the cable paper's robots (§IV), end to end:
//!
//! - `tripod`  — the Tripod walking straight;
//! - `puppy`   — the Puppy walking straight with bilateral symmetry;
//! - `turn`    — the Puppy turning along a quarter circle, symmetry off,
//!   warm-started from the straight gait (run `puppy` first);
//! - `incline` — the Puppy on a 15° incline (`--degrees D` for another;
//!   the paper gives no angle): the flat-ground gait (run `puppy` first) is
//!   replayed there (it slides down), then re-optimized (30 iterations
//!   unless `--iters` says otherwise).
//!
//! Each writes controls (raw and slack-free), the COM path (CSV + SVG),
//! optimizer progress, a VTK series and a summary with the speed in body
//! lengths per minute (the paper's Table I: Tripod 6.1, Puppy 8.6 in
//! simulation) into `out/<name>/`.
//!
//! `cargo run --release --example gait -- tripod [--iters N] [--out out] [--refine R] [--mu MU] [--leg-height CM] [--degrees D]`
//! (N = 10, or 30 for `incline`). `--refine R` (`tripod` and `puppy`)
//! splits each 1 cm voxel of the robot into R³ cubes instead of the
//! default (2 for the Tripod, 1 for the Puppy) — the mesh convergence of
//! the gait (`docs/results.md`); the output then goes to
//! `out/<name>_refinedR/`. `--mu MU` (`tripod` and `puppy`) puts the robot
//! on a table of Coulomb friction MU instead of 0.4 (`out/<name>_muMU/`);
//! `--leg-height CM` (`tripod`) builds its legs CM cm high instead of 4.

use anyhow::Context;
use pliant::gait::GaitSetup;
use pliant::gait::{Checkpoints, optimize_gait};
use pliant::optim::{Damping, Method};
use std::path::{Path, PathBuf};

/// The incline's slope, degrees: steep enough that the flat-ground gait
/// slides down, shallow enough that the table's friction (μ = 0.4,
/// tan 15° = 0.27) can hold the Puppy on it.
const INCLINE_DEGREES: f64 = 15.0;

struct Args {
    which: String,
    iters: Option<u64>,
    out: PathBuf,
    refine: Option<usize>,
    mu: Option<f64>,
    leg_height: Option<usize>,
    degrees: Option<f64>,
}

fn args() -> anyhow::Result<Args> {
    let mut a = Args {
        which: "tripod".into(),
        iters: None,
        out: "out".into(),
        refine: None,
        mu: None,
        leg_height: None,
        degrees: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--iters" => a.iters = Some(it.next().context("--iters N")?.parse()?),
            "--out" => a.out = it.next().context("--out DIR")?.into(),
            "--refine" => a.refine = Some(it.next().context("--refine R")?.parse()?),
            "--mu" => a.mu = Some(it.next().context("--mu MU")?.parse()?),
            "--degrees" => a.degrees = Some(it.next().context("--degrees D")?.parse()?),
            "--leg-height" => a.leg_height = Some(it.next().context("--leg-height CM")?.parse()?),
            w => a.which = w.to_string(),
        }
    }
    Ok(a)
}

fn run(setup: &GaitSetup, z0: &[f64], iters: u64, out: &Path) -> anyhow::Result<Vec<f64>> {
    println!(
        "{}: {} nodes, {} motors, {} parameters, {} steps of {} s",
        setup.name,
        setup.robot.n_nodes(),
        setup.gait.motors.len(),
        setup.gait.nz(),
        setup.steps(),
        setup.h
    );
    let progress: pliant::optim::ProgressFn = Box::new(|h| println!("  {h}"));
    let run = optimize_gait(
        setup,
        z0,
        Method::LevenbergMarquardt {
            tol: 1e-4,
            damping: Damping::Nielsen,
        },
        iters,
        out,
        Checkpoints::Resume,
        Some(progress),
    )?;
    let (res, summary) = (&run.result, &run.summary);
    let st = &res.stats;
    println!(
        "{}: objective {:.4e} -> {:.4e} in {} iterations ({}); {} rollouts, {:.2} Newton iterations per step; {:.1} s in rollouts, {:.1} s in sensitivities",
        setup.name,
        res.initial_objective,
        res.objective,
        res.iterations,
        res.termination,
        st.rollouts,
        summary.newton_per_step,
        st.rollout_seconds,
        st.derivative_seconds
    );
    println!("{}: {summary}", setup.name);
    for f in &run.files {
        println!("  wrote {}", f.display());
    }
    Ok(res.z.clone())
}

fn load_z(out: &Path, name: &str) -> anyhow::Result<Vec<f64>> {
    let path = out.join(name).join("summary.json");
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .with_context(|| format!("{} (run the `puppy` example first)", path.display()))?,
    )?;
    Ok(serde_json::from_value(v["z"].clone())?)
}

/// `setup` with its robot replaced by `robot` (the same robot, on voxels
/// split `a.refine` times, with legs `a.leg_height` cm high) on a table of
/// Coulomb friction `a.mu` (default [`pliant::gait::table_friction`]),
/// writing to `<name>_refinedR`, `_muMU`, `_legsHcm` as they apply.
fn on_variant(
    setup: &mut GaitSetup,
    robot: &pliant::robots::Robot,
    a: &Args,
) -> anyhow::Result<()> {
    let friction = a.mu.map_or_else(
        pliant::gait::table_friction,
        pliant::gait::table_friction_with,
    );
    setup.robot = pliant::gait::GaitRobot::from_robot(robot, [0.0, 0.0, -9.81], friction)?;
    if let Some(r) = a.refine {
        setup.name = format!("{}_refined{r}", setup.name);
    }
    if let Some(mu) = a.mu {
        setup.name = format!("{}_mu{mu}", setup.name);
    }
    if let Some(h) = a.leg_height {
        setup.name = format!("{}_legs{h}cm", setup.name);
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    pliant::init();
    env_logger::init();
    let a = args()?;
    if a.degrees.is_some() && a.which != "incline" {
        anyhow::bail!("--degrees applies to `incline` only, not `{}`", a.which);
    }
    if a.leg_height.is_some() && a.which != "tripod" {
        anyhow::bail!("--leg-height applies to `tripod` only, not `{}`", a.which);
    }
    if (a.refine.is_some() || a.mu.is_some()) && !matches!(a.which.as_str(), "tripod" | "puppy") {
        anyhow::bail!(
            "--refine and --mu apply to `tripod` and `puppy` only, not `{}`",
            a.which
        );
    }
    match a.which.as_str() {
        "tripod" => {
            let mut s = GaitSetup::tripod_walk()?;
            if a.refine.is_some() || a.mu.is_some() || a.leg_height.is_some() {
                let default = pliant::robots::TripodGeometry::default();
                let robot = pliant::robots::Robot::tripod_with(&pliant::robots::TripodGeometry {
                    refinement: a.refine.unwrap_or(default.refinement),
                    leg_height: a.leg_height.unwrap_or(default.leg_height),
                    ..default
                })?;
                on_variant(&mut s, &robot, &a)?;
            }
            run(&s, &s.default_z0()?, a.iters.unwrap_or(10), &a.out)?;
        }
        "puppy" => {
            let mut s = GaitSetup::puppy_walk(true)?;
            if a.refine.is_some() || a.mu.is_some() {
                let robot = pliant::robots::Robot::puppy_refined(a.refine.unwrap_or(1))?;
                on_variant(&mut s, &robot, &a)?;
            }
            run(&s, &s.default_z0()?, a.iters.unwrap_or(10), &a.out)?;
        }
        "turn" => {
            let sym = GaitSetup::puppy_walk(true)?;
            let keys = sym.gait.keys_from_z(&load_z(&a.out, &sym.name)?)?;
            let s = GaitSetup::puppy_turn()?;
            let z0 = s.gait.z_from_keys(&keys)?;
            run(&s, &z0, a.iters.unwrap_or(10), &a.out)?;
        }
        "incline" => {
            let flat = load_z(&a.out, "puppy_walk")?;
            // Another slope writes beside the default's, not over it.
            let suffix = a.degrees.map_or(String::new(), |d| format!("_{d}deg"));
            let degrees = a.degrees.unwrap_or(INCLINE_DEGREES);
            let mut replay = GaitSetup::puppy_incline(degrees)?;
            replay.name = format!("puppy_incline_flat_gait{suffix}");
            run(&replay, &flat, 0, &a.out)?;
            let mut s = GaitSetup::puppy_incline(degrees)?;
            s.name = format!("{}{suffix}", s.name);
            run(&s, &flat, a.iters.unwrap_or(30), &a.out)?;
        }
        other => anyhow::bail!("unknown example `{other}` (tripod, puppy, turn, incline)"),
    }
    Ok(())
}
