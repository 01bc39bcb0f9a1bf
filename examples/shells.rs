//! The shell examples of MAT-DiSMech §7.1 ([`pliant::shell_scenes`]) and a
//! differentiable gripper finger:
//!
//! - `manta`     — the manta ray flapping by natural hinge angles (Fig. 6):
//!   x, y, z of the leading edge's mid-point against time;
//! - `parachute` — canopy (shell) and ropes (rods) falling with drag
//!   (Fig. 8): payload height and speed against time, terminal velocity
//!   against the drag balance, canopy bowl depth (`--weld`: ropes welded to
//!   the canopy by rod–shell joints instead of pinned);
//! - `finger`    — a plate finger curled by natural hinge angles, and the
//!   gradient of its tip height with respect to the curl control, exact
//!   (adjoint over the whole rollout) against central finite differences;
//! - `all`       — all of them.
//!
//! Each writes into `DIR/<scene>/` (default `out/shells`): CSV, an SVG plot,
//! a ParaView series (`.pvd` of legacy `.vtk` frames: shell triangles, rope
//! lines, node velocities and forces), `replay.html` and plots; and prints
//! a summary with wall times.
//!
//! `cargo run --release --example shells -- manta [--out out/shells] [--seconds S] [--weld]`

use anyhow::Context;
use pliant::core::{Integrator, ModelBuilder, ParamChannel, Simulator};
use pliant::environment::Gravity;
use pliant::optim::{Gait, Motor, Objective, Residuals, Shooting, StepView};
use pliant::shell::generate::{MeshKind, rectangle};
use pliant::shell::{Bending, Shell};
use pliant::shell_scenes::{Manta, Parachute, newton, node};
use pliant::viz::{Recorder, RecorderOptions, StateView};
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "common/output.rs"]
mod output;
use output::{csv, plot_lines, plot_snapshots};

const SCENES: [&str; 3] = ["manta", "parachute", "finger"];

fn main() -> anyhow::Result<()> {
    pliant::init();
    let mut which = "all".to_string();
    let mut out = PathBuf::from("out/shells");
    let mut seconds: Option<f64> = None;
    let mut weld = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = it.next().context("--out DIR")?.into(),
            "--weld" => weld = true,
            "--seconds" => {
                seconds = Some(
                    it.next()
                        .context("--seconds S")?
                        .parse()
                        .context("--seconds S")?,
                )
            }
            w => which = w.to_string(),
        }
    }
    let list: Vec<&str> = match which.as_str() {
        "all" => SCENES.to_vec(),
        w if SCENES.contains(&w) => vec![w],
        w => anyhow::bail!("unknown scene `{w}` (manta, parachute, finger or all)"),
    };
    for s in list {
        let dir = out.join(s);
        std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
        let t = Instant::now();
        match s {
            "manta" => manta(&dir, seconds)?,
            "parachute" => parachute(&dir, seconds, weld)?,
            _ => finger(&dir)?,
        }
        println!(
            "{s}: done in {:.1} s → {}",
            t.elapsed().as_secs_f64(),
            dir.display()
        );
    }
    Ok(())
}

fn positions(q: &[f64], n: usize) -> Vec<[f64; 3]> {
    (0..n).map(|i| node(q, i)).collect()
}

// ------------------------------------------------------------------ manta

fn manta(dir: &Path, seconds: Option<f64>) -> anyhow::Result<()> {
    let scene = Manta {
        duration: seconds.unwrap_or(Manta::default().duration),
        ..Manta::default()
    };
    let mut run = scene.build()?;
    let n = run.mesh.nodes.len();
    let every = ((1.0 / 30.0) / scene.dt).round().max(1.0) as usize;
    let mut pictures = Recorder::new(
        dir,
        "manta",
        "manta ray flapping",
        run.sim.model(),
        RecorderOptions::default(),
    )?;
    let lead0 = node(run.sim.q(), run.leading);
    let mut rows = vec![vec![0.0, lead0[0], lead0[1], lead0[2]]];
    pictures.record(&run.sim)?;
    let t0 = Instant::now();
    let mut iterations = 0;
    let shots: Vec<usize> = (0..4).map(|i| run.steps * (i + 1) / 4).collect();
    let mut frames = Vec::new();
    for k in 1..=run.steps {
        iterations += run.sim.step()?.newton.iterations;
        let p = node(run.sim.q(), run.leading);
        rows.push(vec![run.sim.time(), p[0], p[1], p[2]]);
        if shots.contains(&k) {
            frames.push((
                format!("t = {:.2} s", run.sim.time()),
                positions(run.sim.q(), n),
            ));
        }
        if k % every == 0 {
            pictures.record(&run.sim)?;
        }
    }
    pictures.finish_at(&run.sim)?;
    let wall = t0.elapsed().as_secs_f64();
    plot_snapshots(
        &dir.join("snapshots.svg"),
        &frames,
        &run.mesh.triangles,
        &[],
    )?;
    csv(
        &dir.join("leading_edge.csv"),
        &["t_s", "x_m", "y_m", "z_m"],
        &rows,
    )?;
    let series = |c: usize, color: RGBColor, label: &str| {
        (
            label.to_string(),
            rows.iter().map(|r| (r[0], r[c] - rows[0][c])).collect(),
            color,
        )
    };
    plot_lines(
        &dir.join("leading_edge.svg"),
        "Manta ray: mid-point of the leading edge (displacement from rest)",
        "time (s)",
        "displacement (m)",
        &[
            series(1, RED, "x"),
            series(2, BLUE, "y"),
            series(3, GREEN, "z"),
        ],
    )?;
    let last = rows.last().expect("at least one row");
    let max_x = rows.iter().fold(0.0f64, |m, r| m.max(r[1].abs()));
    let (zmin, zmax) = rows
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), r| (a.min(r[3]), b.max(r[3])));
    println!(
        "manta: {} nodes, {} triangles, {} centre-line hinges; dt = {} s, {} steps ({} Newton iterations)",
        n,
        run.mesh.triangles.len(),
        run.centre_line.len(),
        scene.dt,
        run.steps,
        iterations
    );
    println!(
        "manta: leading edge advanced Δy = {:+.4} m in {:.2} s ({:+.4} m/s); max |x| = {:.2e} m; z in [{:+.4}, {:+.4}] m",
        last[2] - rows[0][2],
        last[0],
        (last[2] - rows[0][2]) / last[0],
        max_x,
        zmin,
        zmax
    );
    println!(
        "manta: wall {:.2} s for {:.2} s simulated ({:.2} s per simulated second)",
        wall,
        last[0],
        wall / last[0]
    );
    Ok(())
}

// -------------------------------------------------------------- parachute

fn parachute(dir: &Path, seconds: Option<f64>, weld_ropes: bool) -> anyhow::Result<()> {
    let scene = Parachute {
        duration: seconds.unwrap_or(Parachute::default().duration),
        weld_ropes,
        ..Parachute::default()
    };
    let mut run = scene.build()?;
    let n = run.sim.model().layout().n_nodes();
    let mut pictures = Recorder::new(
        dir,
        "parachute",
        "parachute falling with drag",
        run.sim.model(),
        RecorderOptions::default(),
    )?;
    let every = ((1.0 / 30.0) / scene.dt).round().max(1.0) as usize;
    let (payload, centre, corners) = (run.payload, run.centre, run.corners.clone());
    let bowl = move |q: &[f64]| {
        let c = node(q, centre)[2];
        c - corners.iter().map(|&k| node(q, k)[2]).sum::<f64>() / corners.len() as f64
    };
    let mut rows = Vec::new();
    let record = |run: &pliant::shell_scenes::ParachuteRun, rows: &mut Vec<Vec<f64>>| {
        let (sim, q) = (&run.sim, run.sim.q());
        rows.push(vec![
            sim.time(),
            node(q, payload)[2],
            -sim.v()[3 * payload + 2],
            bowl(q),
            run.projected_area(q),
            run.drag_area(q),
        ]);
    };
    record(&run, &mut rows);
    pictures.record(&run.sim)?;
    let t0 = Instant::now();
    let shots: Vec<usize> = (0..4).map(|i| run.steps * i / 3).collect();
    let mut frames = Vec::new();
    let snap = |run: &pliant::shell_scenes::ParachuteRun,
                frames: &mut Vec<(String, Vec<[f64; 3]>)>| {
        frames.push((
            format!("t = {:.2} s", run.sim.time()),
            positions(run.sim.q(), n),
        ));
    };
    snap(&run, &mut frames);
    for k in 1..=run.steps {
        run.sim.step()?;
        record(&run, &mut rows);
        if shots.contains(&k) {
            snap(&run, &mut frames);
        }
        if k % every == 0 {
            pictures.record(&run.sim)?;
        }
    }
    pictures.finish_at(&run.sim)?;
    let wall = t0.elapsed().as_secs_f64();
    // Each snapshot relative to its payload height, so the shapes compare.
    let frames: Vec<_> = frames
        .into_iter()
        .map(|(t, x)| {
            let zp = x[payload][2];
            (t, x.into_iter().map(|p| [p[0], p[1], p[2] - zp]).collect())
        })
        .collect();
    plot_snapshots(
        &dir.join("snapshots.svg"),
        &frames,
        &run.canopy.triangles,
        &run.ropes,
    )?;
    csv(
        &dir.join("descent.csv"),
        &[
            "t_s",
            "payload_z_m",
            "payload_descent_speed_m_per_s",
            "bowl_depth_m",
            "projected_area_m2",
            "drag_area_m2",
        ],
        &rows,
    )?;
    plot_lines(
        &dir.join("descent.svg"),
        "Parachute: payload descent speed and canopy bowl depth",
        "time (s)",
        "speed (m/s) / depth (m)",
        &[
            (
                "payload descent speed (m/s)".into(),
                rows.iter().map(|r| (r[0], r[2])).collect(),
                BLUE,
            ),
            (
                "bowl depth: centre − corners (m)".into(),
                rows.iter().map(|r| (r[0], r[3])).collect(),
                RED,
            ),
        ],
    )?;
    // Terminal velocity: the mean descent speed over the last 0.5 s.
    let tail: Vec<&Vec<f64>> = rows
        .iter()
        .filter(|r| r[0] >= rows.last().unwrap()[0] - 0.5)
        .collect();
    let v_end = tail.iter().map(|r| r[2]).sum::<f64>() / tail.len() as f64;
    let a_end = tail.iter().map(|r| r[4]).sum::<f64>() / tail.len() as f64;
    let a_drag = tail.iter().map(|r| r[5]).sum::<f64>() / tail.len() as f64;
    let last = rows.last().expect("rows");
    println!(
        "parachute: {} canopy triangles, {} rope edges, total mass {:.3} kg; dt = {} s, {} steps",
        run.canopy.triangles.len(),
        run.ropes.len(),
        run.mass,
        scene.dt,
        run.steps
    );
    println!(
        "parachute: descent speed over the last 0.5 s {:.3} m/s; drag balance √(2mg/(ρ C_D A)) with the projected area A = {:.3} m² (flat {:.3} m²): {:.3} m/s; with the drag law's own area Σ A_k |n_z|³ = {:.3} m²: {:.3} m/s",
        v_end,
        a_end,
        run.canopy.area(),
        Parachute::drag_balance(run.mass, a_end),
        a_drag,
        Parachute::drag_balance(run.mass, a_drag)
    );
    println!(
        "parachute: bowl depth (centre above corners) {:+.3} m at t = {:.2} s; wall {:.2} s",
        last[3], last[0], wall
    );
    Ok(())
}

// ----------------------------------------------------------------- finger

/// `r = √w (z_tip(x_K) − ẑ)` at the last step only.
struct TipHeight {
    dof: usize,
    target: f64,
    weight: f64,
}

impl Objective for TipHeight {
    fn name(&self) -> String {
        "tip height".into()
    }
    fn eval(&self, s: &StepView, out: &mut Residuals) {
        if s.k == s.steps {
            let w = self.weight.sqrt();
            out.r.push(w * (s.x[self.dof] - self.target));
            out.dx.push((0, self.dof, w));
        }
    }
}

fn finger(dir: &Path) -> anyhow::Result<()> {
    // An 8 × 2 cm rubber-like plate (E = 10 MPa, h = 2 mm, ρ = 1100 kg/m³)
    // clamped at x ≤ 5 mm, every hinge's natural angle driven by `curl`
    // (rad per hinge), under gravity.
    let mesh = rectangle(0.085, 0.02, 0.005, MeshKind::Equilateral, 0)?;
    let topo = mesh.topology()?;
    let across: Vec<[usize; 2]> = topo
        .hinges
        .iter()
        .map(|h| topo.edges[h.edge])
        .filter(|&[a, c]| (mesh.nodes[a][0] - mesh.nodes[c][0]).abs() < 1e-9)
        .collect();
    // Built twice: once for the optimization, once for the pictures.
    let build = || -> anyhow::Result<pliant::core::Model> {
        let mut b = ModelBuilder::new(3)?;
        for x in &mesh.nodes {
            let id = b.add_node(x, 0.0)?;
            if x[0] <= 0.005 + 1e-9 {
                b.fix_node(id)?;
            }
        }
        b.add_param(ParamChannel::control("curl", 0.0))?;
        b.add(
            Shell::new(mesh.triangles.clone(), 2e-3, 10e6, 0.45, 1100.0)
                .bending(Bending::Hinge)
                .actuate("curl", across.clone(), 1.0),
        );
        b.add(Gravity::new(&[0.0, 0.0, -9.81]));
        Ok(b.build()?)
    };
    let dt = 0.01;
    let sim = Simulator::new(build()?, Integrator::ImplicitEuler, dt, newton())?;
    let tip = mesh.nearest([0.085, 0.01, 0.0]);
    let gait = Gait {
        motors: vec![Motor {
            name: "curl".into(),
            channels: vec!["curl".into()],
            mirror_of: None,
        }],
        keyframes: 4,
        prep_steps: 10,
        cycle_steps: 40,
        cycles: 1,
        bounds: None,
    };
    let map = gait.control_map(sim.model())?;
    let obj: Vec<Box<dyn Objective>> = vec![Box::new(TipHeight {
        dof: 3 * tip + 2,
        target: 0.03,
        weight: 1e4,
    })];
    let problem = Shooting::new(sim, map, obj)?;
    let z = [-0.02, -0.04, -0.06, -0.04];
    let t0 = Instant::now();
    let (cost, grad) = problem.gradient(&z)?;
    let t_grad = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let check = problem.check_gradient(&z, 1e-6)?;
    let t_check = t0.elapsed().as_secs_f64();
    let traj = problem.rollout_z(&z)?;
    let mut rows = Vec::new();
    let model = build()?;
    let opts = RecorderOptions {
        vtk_every: 5,
        ..Default::default()
    };
    let mut pictures = Recorder::new(dir, "finger", "plate finger curling", &model, opts)?;
    for (k, x) in traj.x.iter().enumerate() {
        let p = node(x, tip);
        rows.push(vec![k as f64 * dt, p[0], p[2]]);
        let view = StateView {
            q: x,
            v: &traj.v[k],
            p: &traj.p[k.saturating_sub(1).min(traj.p.len() - 1)],
            t: traj.t[k],
            dt,
        };
        pictures.frame(&model, view, &[])?;
    }
    pictures.close()?;
    csv(&dir.join("tip.csv"), &["t_s", "tip_x_m", "tip_z_m"], &rows)?;
    plot_lines(
        &dir.join("tip.svg"),
        "Plate finger curled by natural hinge angles: tip",
        "time (s)",
        "position (m)",
        &[
            (
                "tip x".into(),
                rows.iter().map(|r| (r[0], r[1])).collect(),
                BLUE,
            ),
            (
                "tip z".into(),
                rows.iter().map(|r| (r[0], r[2])).collect(),
                RED,
            ),
        ],
    )?;
    println!(
        "finger: {} hinges driven by `curl`, {} keyframes; tip ends at z = {:+.4} m (target 0.03 m); cost {:.4e}",
        across.len(),
        z.len(),
        rows.last().expect("rows")[2],
        cost
    );
    println!(
        "finger: d cost / d keyframes (adjoint) = {:?} in {t_grad:.3} s",
        grad
    );
    println!("finger: {check} (check in {t_check:.2} s)");
    Ok(())
}
