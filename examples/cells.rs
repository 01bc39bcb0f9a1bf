//! Soft multi-cellular robots (Germann et al., *Soft Cell Simulator*;
//! [`pliant::soft_cells`]).
//!
//! - `force`  — the force–deflection test of Fig. 3 for several pressure
//!   constants: `force.csv`, `force.svg`; prints the stiffness per C.
//! - `bounce` — a cell dropped at high and low pressure (Fig. 2a):
//!   `bounce.csv`, `bounce.svg` (snapshots).
//! - `attach` — two cells attaching, then detaching under a growing pull
//!   (Fig. 2b): `attach.svg`.
//! - `chain`  — a chain bent by actuators (Fig. 2c): `chain.svg`, `chain.csv`.
//! - `fold`   — chains folding into E, P, F, L (Fig. 5; `--letters EPFL`,
//!   `--seconds 30`): `fold_E.svg` … with snapshots, and `fold_E/` … with
//!   a ParaView series, `replay.html` and plots.
//! - `optimize` — a folding schedule for P from exact rollout gradients
//!   (`--iterations 10`): `fold_schedule.csv`.
//! - `bench`  — the stacked-cells benchmark: ms per cell-step at 10, 100,
//!   1000 cells (`--ns`), dt = 1/50 s, implicit Euler; Newton iterations
//!   per step and the broad phase's share.
//! - `all`    — force, bounce, attach, chain and fold.
//!
//! Each writes into `DIR` (default `out/cells`); bounce, attach, chain and
//! fold also write pictures of every run (ParaView series, `replay.html`,
//! plots) into `DIR/bounce_stiff/`, `DIR/attach/`, `DIR/chain/`,
//! `DIR/fold_E/`, ….
//!
//! `cargo run --release --example cells -- bench [--ns 10 100 1000] [--settle S] [--steps K] [--no-carry-shift] [--floor]`
//! (`--settle`: simulated seconds before the timed steps, default 2 as
//! in `shared/peers/pymunk_softcells.py`)
//! (`--no-carry-shift`: without `NewtonSettings::carry_shift`, the
//! diagonal-shift search then starting afresh at every step)
//! (`--floor`: after the timed steps, the single passes every implicit
//! step is built from, timed at the final state — the potential's value,
//! its gradient, the Hessian's assembly, one factorization and solve —
//! per cell, beside the goal of 0.03 ms per cell-step).

use anyhow::Context;
use pliant::cells::CellContactEnergy;
use pliant::core::{Energy, Integrator, NewtonSettings, Simulator};
use pliant::soft_cells::force_deflection::{force_deflection, stiffness};
use pliant::soft_cells::scenes::bounce;
use pliant::soft_cells::stack::{grid, stack};
use pliant::soft_cells::{CellDesign, newton};
use pliant::viz::{Recorder, RecorderOptions};
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "common/output.rs"]
mod output;
use output::{bounds, csv, plot_lines, square};

fn main() -> anyhow::Result<()> {
    pliant::init();
    let mut which = "all".to_string();
    let mut out = PathBuf::from("out/cells");
    let mut ns: Vec<usize> = vec![10, 100, 1000];
    // Settle as long as the pymunk peer does (100 steps of 1/50 s): the
    // stack is still collapsing after 1 s, and timing its steps then costs
    // 3-4x the settled ones.
    let (mut settle, mut steps) = (2.0f64, 50usize);
    let mut letters = String::from("EPFL");
    let mut carry_shift = newton().carry_shift;
    let mut floor = false;
    let mut seconds = 30.0f64;
    let mut iterations = 10u64;
    let mut args = std::env::args().skip(1).peekable();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next().context("--out DIR")?.into(),
            "--no-carry-shift" => carry_shift = false,
            "--floor" => floor = true,
            "--settle" => settle = args.next().context("--settle S")?.parse()?,
            "--steps" => steps = args.next().context("--steps K")?.parse()?,
            "--letters" => letters = args.next().context("--letters EPFL")?,
            "--seconds" => seconds = args.next().context("--seconds S")?.parse()?,
            "--iterations" => iterations = args.next().context("--iterations N")?.parse()?,
            "--ns" => {
                ns.clear();
                while let Some(v) = args.peek().and_then(|v| v.parse().ok()) {
                    ns.push(v);
                    args.next();
                }
            }
            w if !w.starts_with("--") => which = w.to_string(),
            other => anyhow::bail!("unknown option {other}"),
        }
    }
    std::fs::create_dir_all(&out)?;
    match which.as_str() {
        "force" => force(&out),
        "bounce" => bounce_run(&out),
        "bench" => bench(&ns, settle, steps, carry_shift, floor),
        "fold" => fold_run(&out, &letters, seconds),
        "optimize" => optimize_fold(&out, iterations),
        "attach" => attach(&out),
        "chain" => chain_run(&out),
        "all" => {
            force(&out)?;
            bounce_run(&out)?;
            attach(&out)?;
            chain_run(&out)?;
            fold_run(&out, &letters, seconds)
        }
        other => anyhow::bail!(
            "unknown run `{other}` (force, bounce, attach, chain, fold, optimize, bench, all)"
        ),
    }
}

/// Fig. 3: force against deflection for several C.
fn force(out: &Path) -> anyhow::Result<()> {
    let design = CellDesign {
        stretch_stiffness: 1e4,
        bending_stiffness: 1e-5,
        ..CellDesign::paper()
    };
    let max = 0.3 * design.radius;
    let colors = [BLUE, GREEN, RED, MAGENTA, BLACK];
    let (mut lines, mut rows) = (Vec::new(), Vec::new());
    println!(
        "force–deflection (Fig. 3), cell radius {} m:",
        design.radius
    );
    for (c, color) in [0.05, 0.2, 1.0, 5.0, 20.0].into_iter().zip(colors) {
        let curve = force_deflection(design, c, max, 10)?;
        let k = stiffness(&curve, 5).context("a curve of 10 steps")?;
        println!(
            "  C = {c:5} N: stiffness at half travel {k:.4} N/m, force at full travel {:.4} N",
            curve.last().unwrap().force
        );
        for p in &curve {
            rows.push(vec![c, p.deflection, p.force]);
        }
        lines.push((
            format!("C = {c} N"),
            curve
                .iter()
                .map(|p| (p.deflection * 1e3, p.force))
                .collect(),
            color,
        ));
    }
    csv(
        &out.join("force.csv"),
        &["C_N", "deflection_m", "force_N"],
        &rows,
    )?;
    plot_lines(
        &out.join("force.svg"),
        "Force–deflection of one cell (Germann et al. Fig. 3)",
        "bar travel (mm)",
        "bar force (N)",
        &lines,
    )?;
    println!("wrote {}", out.join("force.svg").display());
    Ok(())
}

/// Draws cell outlines: one panel per frame, equal scales.
fn draw_cells(path: &Path, frames: &[(String, Vec<Vec<[f64; 2]>>)]) -> anyhow::Result<()> {
    let pts: Vec<(f64, f64)> = frames
        .iter()
        .flat_map(|f| f.1.iter().flatten().map(|p| (p[0], p[1])))
        .collect();
    let (x0, x1, y0, y1) = square(bounds(pts.iter()));
    let side = 360;
    let root = SVGBackend::new(path, (side * frames.len() as u32, side + 40)).into_drawing_area();
    root.fill(&WHITE)?;
    for (area, (title, cells)) in root.split_evenly((1, frames.len())).iter().zip(frames) {
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(40)
            .build_cartesian_2d(x0..x1, y0.min(-0.02)..y1)?;
        chart
            .configure_mesh()
            .x_desc("x (m)")
            .y_desc("y (m)")
            .draw()?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x0, 0.0), (x1, 0.0)],
            BLACK.stroke_width(2),
        )))?;
        for ring in cells {
            let mut poly: Vec<(f64, f64)> = ring.iter().map(|p| (p[0], p[1])).collect();
            poly.push(poly[0]);
            chart.draw_series(std::iter::once(Polygon::new(
                poly.clone(),
                BLUE.mix(0.15).filled(),
            )))?;
            chart.draw_series(std::iter::once(PathElement::new(poly, BLUE)))?;
        }
    }
    root.present()?;
    Ok(())
}

/// Fig. 2a: a stiff and a soft cell dropped from 1 m.
fn bounce_run(out: &Path) -> anyhow::Result<()> {
    let design = CellDesign::paper();
    let (dt, seconds) = (0.002, 1.5);
    let mut rows = Vec::new();
    let mut panels = Vec::new();
    for (label, c) in [("stiff", 20.0), ("soft", 0.5)] {
        let title = format!("{label} cell (C = {c} N) dropped");
        let mut pictures = Pictures::new(out.join(format!("bounce_{label}")), &title, 8);
        let (samples, frames) = bounce(
            design,
            c,
            1.0,
            Integrator::ImplicitEuler,
            dt,
            seconds,
            |s| pictures.see(s),
        )?;
        pictures.close()?;
        let flat = samples.iter().map(|s| s.aspect).fold(f64::MAX, f64::min);
        let impact = samples
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.aspect.total_cmp(&b.1.aspect))
            .map(|(i, _)| i)
            .unwrap_or(0);
        println!(
            "{label} cell (C = {c} N): flattest height/width {flat:.3} at t = {:.3} s",
            samples[impact].t
        );
        for s in &samples {
            rows.push(vec![c, s.t, s.center, s.aspect, s.area_ratio]);
        }
        for &t in &[0.0, samples[impact].t, seconds] {
            let i = samples
                .iter()
                .position(|s| s.t >= t - 1e-9)
                .unwrap_or(samples.len() - 1);
            panels.push((
                format!("{label}, C = {c} N, t = {:.2} s", samples[i].t),
                vec![frames[i].clone()],
            ));
        }
    }
    csv(
        &out.join("bounce.csv"),
        &["C_N", "t_s", "center_m", "aspect", "area_ratio"],
        &rows,
    )?;
    draw_cells(&out.join("bounce.svg"), &panels)?;
    println!("wrote {}", out.join("bounce.svg").display());
    Ok(())
}

/// Pictures (ParaView, replay.html, plots) of a scene run inside a
/// scenario function: every `every`-th state it shows.
struct Pictures {
    dir: PathBuf,
    title: String,
    every: usize,
    seen: usize,
    rec: Option<Recorder>,
    error: Option<anyhow::Error>,
}

impl Pictures {
    fn new(dir: PathBuf, title: &str, every: usize) -> Self {
        Self {
            dir,
            title: title.into(),
            every: every.max(1),
            seen: 0,
            rec: None,
            error: None,
        }
    }
    fn see(&mut self, sim: &Simulator) {
        if self.error.is_some() || !self.seen.is_multiple_of(self.every) {
            self.seen += 1;
            return;
        }
        self.seen += 1;
        if self.rec.is_none() {
            let name = self
                .dir
                .file_name()
                .map_or("run".into(), |n| n.to_string_lossy().into_owned());
            match Recorder::new(
                &self.dir,
                &name,
                &self.title,
                sim.model(),
                Default::default(),
            ) {
                Ok(r) => self.rec = Some(r),
                Err(e) => return self.error = Some(e.into()),
            }
        }
        if let Some(r) = &mut self.rec
            && let Err(e) = r.record(sim)
        {
            self.error = Some(e.into());
        }
    }
    fn close(self) -> anyhow::Result<()> {
        if let Some(e) = self.error {
            return Err(e.context(format!("pictures in {}", self.dir.display())));
        }
        if let Some(r) = self.rec {
            r.close()?;
        }
        Ok(())
    }
}

/// The soft cell design of the attach, chain and fold scenes.
fn light_cells() -> CellDesign {
    CellDesign {
        nodes: 40,
        node_mass: 0.1 / 40.0,
        pressure: 10.0,
        ..CellDesign::paper()
    }
}

/// Fig. 2b: attaching, then detaching under a growing pull.
fn attach(out: &Path) -> anyhow::Result<()> {
    use pliant::soft_cells::scenes::attach_and_pull;
    // The pull starts at PULL_FROM s and grows at PULL_RATE N/s.
    const PULL_FROM: f64 = 4.0;
    const PULL_RATE: f64 = 1.0;
    let mut pictures = Pictures::new(
        out.join("attach"),
        "two cells attaching, then pulled apart",
        8,
    );
    let run = attach_and_pull(
        light_cells(),
        300.0,
        0.2,
        0.05,
        PULL_FROM,
        PULL_RATE,
        12.0,
        20,
        |s| pictures.see(s),
    )?;
    pictures.close()?;
    println!(
        "attach (Fig. 2b): connectors within the 0.2 m radius at t = {} s; detached at a pull of {} (the pole law's peak force {:.3} N)",
        run.attached_at
            .map_or("never".into(), |t| format!("{t:.2}")),
        run.detach_force
            .map_or("— (held)".into(), |f| format!("{f:.3} N")),
        run.peak_force
    );
    let pick = |t: f64| {
        run.frames
            .iter()
            .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
            .unwrap()
    };
    let (ta, td) = (
        run.attached_at.unwrap_or(0.0),
        run.detach_force.map_or(12.0, |f| PULL_FROM + f / PULL_RATE),
    );
    let panels: Vec<_> = [0.0, ta + 1.0, td - 0.2, td + 0.15]
        .iter()
        .map(|&t| {
            let f = pick(t);
            (format!("t = {:.1} s", f.0), f.1.clone())
        })
        .collect();
    draw_cells(&out.join("attach.svg"), &panels)?;
    println!("wrote {}", out.join("attach.svg").display());
    Ok(())
}

/// Fig. 2c: a chain bent by actuators in its four inner cells.
fn chain_run(out: &Path) -> anyhow::Result<()> {
    use pliant::soft_cells::scenes::bending_chain;
    let mut pictures = Pictures::new(out.join("chain"), "a chain bent by actuators", 2);
    let run = bending_chain(light_cells(), 6, 0.5, 6.0, 25, |s| pictures.see(s))?;
    pictures.close()?;
    let last = run.last().context("empty run")?;
    println!(
        "chain (Fig. 2c): bend {:.1}° after contracting the inner cells' tops to half",
        last.1.to_degrees()
    );
    let panels: Vec<_> = [0, run.len() / 3, 2 * run.len() / 3, run.len() - 1]
        .iter()
        .map(|&i| {
            (
                format!("t = {:.1} s, bend {:.0}°", run[i].0, run[i].1.to_degrees()),
                run[i].2.clone(),
            )
        })
        .collect();
    draw_cells(&out.join("chain.svg"), &panels)?;
    csv(
        &out.join("chain.csv"),
        &["t_s", "bend_rad"],
        &run.iter().map(|r| vec![r.0, r.1]).collect::<Vec<_>>(),
    )?;
    println!("wrote {}", out.join("chain.svg").display());
    Ok(())
}

/// Fig. 5: chains folding into letters.
fn fold_run(out: &Path, letters: &str, seconds: f64) -> anyhow::Result<()> {
    use pliant::soft_cells::folding::{
        FoldingDesign, Letter, centroids, contact_graph, shape_error,
    };
    let d = FoldingDesign::default();
    for ch in letters.chars() {
        let letter = Letter::ALL
            .into_iter()
            .find(|l| l.name() == ch.to_ascii_uppercase())
            .with_context(|| format!("no letter {ch}"))?;
        let t0 = Instant::now();
        let steps = (seconds / d.dt).round() as usize;
        let (model, f) = pliant::soft_cells::folding::chain(letter, &d)?;
        let mut sim = Simulator::new(model, Integrator::ImplicitEuler, d.dt, newton())?;
        let rings = f.rings.clone();
        let frame = |sim: &Simulator| -> Vec<Vec<[f64; 2]>> {
            rings
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|&i| [sim.q()[2 * i], sim.q()[2 * i + 1]])
                        .collect()
                })
                .collect()
        };
        let mut panels = vec![(format!("{ch}: t = 0 s"), frame(&sim))];
        let shots = [0.1, 0.25, 0.5, 1.0];
        let mut next = 0;
        let mut pictures = Recorder::new(
            &out.join(format!("fold_{ch}")),
            &format!("fold_{ch}"),
            &format!("chain folding into {ch}"),
            sim.model(),
            RecorderOptions::default(),
        )?;
        pictures.record(&sim)?;
        let every = (1.0 / 30.0 / d.dt).round().max(1.0) as usize;
        for s in 1..=steps {
            sim.step()?;
            if s % every == 0 {
                pictures.record(&sim)?;
            }
            if next < shots.len() && s == (shots[next] * steps as f64).round() as usize {
                panels.push((format!("{ch}: t = {:.1} s", s as f64 * d.dt), frame(&sim)));
                next += 1;
            }
        }
        pictures.finish_at(&sim)?;
        let c = centroids(&rings, sim.q());
        let err = shape_error(letter, &c, f.pitch);
        let ok = contact_graph(&c, f.pitch) == letter.contacts();
        println!(
            "{ch}: {} cells, shape error {:.3} pitches, contact graph {}, {:.1} s wall",
            rings.len(),
            err / f.pitch,
            if ok { "matches the letter" } else { "DIFFERS" },
            t0.elapsed().as_secs_f64()
        );
        draw_cells(&out.join(format!("fold_{ch}.svg")), &panels)?;
    }
    Ok(())
}

/// Gradient-based folding schedule: fold P faster — its shape at 10 s,
/// activations up to 2× the design's, with a small effort penalty
/// (Levenberg–Marquardt on exact rollout Jacobians).
fn optimize_fold(out: &Path, iterations: u64) -> anyhow::Result<()> {
    use pliant::optim::{Damping, Method, OptimizeSettings, optimize};
    use pliant::soft_cells::fold_optimize::fold_problem;
    use pliant::soft_cells::folding::{FoldingDesign, Letter, centroids, shape_error};
    let d = FoldingDesign::default();
    let (seconds, blocks) = (10.0, 4);
    let p = fold_problem(Letter::P, &d, seconds, blocks, 2.0, 1.0, 0.01)?;
    let channels: Vec<String> = p.chain.channels.iter().map(|c| c.1.clone()).collect();
    let chain = p.chain.clone();
    // The design's schedule: every activation 1.
    let z0 = p.z0.clone();
    let shape = |z: &[f64], shooting: &pliant::optim::Shooting| -> anyhow::Result<f64> {
        let traj = shooting.rollout_z(z)?;
        let x = traj.x.last().context("an empty rollout")?;
        Ok(shape_error(Letter::P, &centroids(&chain.rings, x), chain.pitch) / chain.pitch)
    };
    let before = shape(&z0, &p.shooting)?;
    let t0 = Instant::now();
    let settings = OptimizeSettings {
        method: Method::LevenbergMarquardt {
            tol: 1e-4,
            damping: Damping::Nielsen,
        },
        max_iters: iterations,
        checkpoint: None,
    };
    let (res, shooting) = optimize(p.shooting, &z0, &settings, None)?;
    let after = shape(&res.z, &shooting)?;
    println!(
        "P in {seconds} s: objective {:.4} -> {:.4} in {} iterations ({:.0} s wall); shape error {before:.3} -> {after:.3} pitches",
        res.initial_objective,
        res.objective,
        res.iterations,
        t0.elapsed().as_secs_f64()
    );
    let mut rows = Vec::new();
    for (c, name) in channels.iter().enumerate() {
        let z = &res.z[c * blocks..(c + 1) * blocks];
        println!(
            "  {name}: {}",
            z.iter()
                .map(|v| format!("{v:.2}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        for (b, v) in z.iter().enumerate() {
            rows.push(vec![c as f64, b as f64 * seconds / blocks as f64, *v]);
        }
    }
    csv(
        &out.join("fold_schedule.csv"),
        &["channel", "t_s", "activation"],
        &rows,
    )?;
    Ok(())
}

/// The stacked-cells benchmark.
fn bench(
    ns: &[usize],
    settle: f64,
    steps: usize,
    carry_shift: bool,
    floor: bool,
) -> anyhow::Result<()> {
    let dt = 1.0 / 50.0;
    println!(
        "stacked cells (radius 0.5 m, 100 membrane nodes, C = 2 N), implicit Euler, dt = 1/50 s, {} threads, carry_shift {carry_shift}",
        rayon::current_num_threads()
    );
    println!(
        "{:>6} {:>7} {:>8} {:>9} {:>12} {:>10} {:>9} {:>9} {:>9} {:>10} {:>8}",
        "cells",
        "grid",
        "build_s",
        "ms/step",
        "ms/cell-step",
        "newton/st",
        "factor/st",
        "tries/st",
        "backtr/st",
        "search%",
        "pairs"
    );
    for &n in ns {
        let t0 = Instant::now();
        let (model, _) = stack(n, 3)?;
        let settings = NewtonSettings {
            carry_shift,
            ..newton()
        };
        let mut sim = Simulator::new(model, Integrator::ImplicitEuler, dt, settings)?;
        let build = t0.elapsed().as_secs_f64();
        for _ in 0..(settle / dt).round() as usize {
            sim.step()?;
        }
        let search0 = sim
            .model()
            .energies_of::<CellContactEnergy>()
            .first()
            .map_or(0.0, |c| c.search_time());
        let t1 = Instant::now();
        let (mut iters, mut facts, mut shifted, mut backtracks) = (0, 0, 0, 0);
        for _ in 0..steps {
            let st = sim.step()?.newton;
            iters += st.iterations;
            facts += st.factorizations;
            shifted += st.shift_tries;
            backtracks += st.backtracks;
        }
        let wall = t1.elapsed().as_secs_f64();
        let search = sim
            .model()
            .energies_of::<CellContactEnergy>()
            .first()
            .map_or(0.0, |c| c.search_time())
            - search0;
        let (rows, cols) = grid(n, 3);
        let pairs = sim
            .model()
            .energies_of::<CellContactEnergy>()
            .first()
            .map_or(0, |c| c.elements().len());
        println!(
            "{n:>6} {:>7} {build:>8.2} {:>9.2} {:>12.4} {:>10.2} {:>9.2} {:>9.2} {:>9.2} {:>9.1}% {pairs:>8}",
            format!("{rows}x{cols}"),
            1e3 * wall / steps as f64,
            1e3 * wall / (steps * n) as f64,
            iters as f64 / steps as f64,
            facts as f64 / steps as f64,
            shifted as f64 / steps as f64,
            backtracks as f64 / steps as f64,
            100.0 * search / wall,
        );
        if floor {
            passes(&sim, n)?;
        }
    }
    Ok(())
}

/// The single passes an implicit step of `sim`'s model is built from, timed
/// at its current state (medians of 5, on the threads the bench has): the
/// incremental potential's value, its gradient, the Hessian's assembly and
/// one factorization with a solve — each per cell, to set beside a step's
/// budget. Any Newton-type step takes at least one gradient, one Hessian
/// and one factorization (a line search adds values).
fn passes(sim: &Simulator, n: usize) -> anyhow::Result<()> {
    use pliant::core::EvalState;
    use pliant::core::assembly::Assembler;
    use pliant::core::linsolve::LinearSolver;
    let model = sim.model();
    let (q, dt) = (sim.q().to_vec(), sim.dt());
    let p = model.params_at(sim.time());
    let s = EvalState {
        q: &q,
        q_prev: &q,
        p: &p,
        h: dt,
        dt,
        t: sim.time(),
    };
    let mut asm = Assembler::new(model)?;
    let solver = LinearSolver::new_augmented(asm.symbolic(), asm.n_aux())?;
    let diag: Vec<f64> = asm.free_dofs().iter().map(|&i| model.mass()[i]).collect();
    let nf = asm.n_free();
    let mut g = vec![0.0; q.len()];
    let mut t = vec![Vec::new(); 4];
    for _ in 0..5 {
        let t0 = Instant::now();
        std::hint::black_box(asm.energy(model, &s));
        let t1 = Instant::now();
        g.fill(0.0);
        asm.add_gradient(model, &s, dt * dt, &mut g);
        let t2 = Instant::now();
        let m = asm.hessian(model, &s, dt * dt, &diag, false)?;
        let t3 = Instant::now();
        let f = solver.factor(m)?;
        std::hint::black_box(f.solve(&g[..nf]));
        let t4 = Instant::now();
        for (k, (a, b)) in [(t0, t1), (t1, t2), (t2, t3), (t3, t4)].iter().enumerate() {
            t[k].push((*b - *a).as_secs_f64());
        }
    }
    let ms = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        1e3 * v[v.len() / 2] / n as f64
    };
    let [e, gr, h, fs] = [0, 1, 2, 3].map(|k| ms(&mut t[k]));
    println!(
        "  passes at the final state, ms per cell (medians of 5; {} free DOFs, {} factor entries): value {e:.4}, gradient {gr:.4}, Hessian assembly {h:.4}, factorization and solve {fs:.4}; one Newton iteration without line search {:.4} against the goal's 0.03 for a whole step",
        nf,
        solver.factor_entries(),
        gr + h + fs,
    );
    Ok(())
}
