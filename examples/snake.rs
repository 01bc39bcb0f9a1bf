//! The pneumatic soft robotic snake of Arachchige et al. 2023
//! ([`pliant::soft_snake`]): drop test, then planar or spatial rolling at
//! 3 bar and 0.5 Hz for 15 s, against the paper's Table I.
//!
//! - `planar`  — every section's muscles driven alike (Fig. 5C);
//! - `spatial` — adjacent sections' muscles a sixth of a period apart (Fig. 5D);
//! - `drop`    — the drop test alone (no pressure);
//! - `all`     — planar and spatial;
//! - `table`   — planar and spatial at `--start-phases N` (default 6) start
//!   phases, two runs at a time: Table I as mean and range over them, over
//!   the whole 15 s and steady (from 5 s after the gait starts); writes
//!   `DIR/table_i.csv` (about 8 minutes);
//! - `optimize` — optimizes the planar gait's pressure waveform (12
//!   keyframes per 2 s cycle, shared by the nine muscles shifted by their
//!   angles, within 0–3 bar) for speed along `+y` with exact gradients over
//!   three cycles of steady rolling, then rolls the hand-made and the
//!   optimized gait for `--seconds` (default 16 s) and compares their
//!   speeds (`--iterations N`, default 8); writes `waveform.csv/svg`.
//!
//! Each writes into `DIR/<gait>/` (default `out/snake`): `com.csv` (centre
//! of mass, m) and `path.svg` (its XY path with the centre line every 3 s,
//! as the paper's Fig. 12), `pmas.csv` / `pmas.svg` / `lengths.svg`
//! (pressure in Pa and length in m of the nine muscles at 30 Hz; `controls.csv`
//! the pressures by channel, which `pliant export` reads), `contacts.csv` /
//! `contacts.svg` (the skin points touching the ground, sampled at 10 Hz:
//! the contact map of Fig. 11), `snapshots.svg` (the body at six times) and
//! `snake.pvd` (ParaView: skin triangles, centre line and muscles at
//! 30 Hz); and prints Vx, Vy next to Table I and the wall time per
//! simulated second.
//!
//! `cargo run --release --example snake -- planar [--out out/snake] [--seconds S] [--amplitude PA]
//! [--mu-axial μx] [--mu-lateral μy] [--friction per-axis|per-axis-world|per-axis-local|elliptic]
//! [--slip-velocity M/S] [--shear-stiffness N/M] [--wave ±1] [--phases joint|planes] [--mounting left|right]
//! [--start-phase RAD] [--dt S] [--start predictor|lower-potential]` (by default eq. 4 as written, 0.6
//! along the robot's long axis and 0.2 across, each component on its own; time step 5 ms; the gaits'
//! phase shifts read between the sections' muscle pressures, `--phases planes` reads them between
//! their bending planes; sections mounted as a left-handed helix: see `pliant::soft_snake::gait`;
//! each Newton solve started from the inertial predictor, `pliant::core::NewtonStart`).

use anyhow::Context;
use pliant::core::{NewtonStart, Simulator};
use pliant::shell::vtk::ShellVtkSeries;
use pliant::soft_snake::gait::{Gait, GaitKind, Phases};
use pliant::soft_snake::table_i::{RunVelocities, STEADY_AFTER, cycle_speeds};
use pliant::soft_snake::{
    Mounting, SnakeFriction, SnakeInfo, SoftSnake, TABLE_I_MODEL, TABLE_I_PROTOTYPE, mean_velocity,
};
use pliant::viz::{Recorder, RecorderOptions};
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "common/output.rs"]
mod output;
use output::{bounds, csv, plot_lines, plot_snapshots, square};
#[path = "common/snake_table.rs"]
mod snake_table;

/// Values given on the command line, over the snake's defaults.
#[derive(Default)]
struct Overrides {
    seconds: Option<f64>,
    amplitude: Option<f64>,
    mu_axial: Option<f64>,
    mu_lateral: Option<f64>,
    dt: Option<f64>,
    friction: Option<SnakeFriction>,
    slip: Option<f64>,
    shear: Option<f64>,
    wave: Option<f64>,
    phases: Option<Phases>,
    mounting: Option<Mounting>,
    start_phase: Option<f64>,
}

impl Overrides {
    /// The snake with `kind`'s gait and these values.
    fn snake(&self, kind: GaitKind) -> SoftSnake {
        let mut snake = SoftSnake {
            gait: Gait::new(kind),
            ..SoftSnake::default()
        };
        let g = &mut snake.gait;
        g.amplitude = self.amplitude.unwrap_or(g.amplitude);
        g.wave = self.wave.unwrap_or(g.wave);
        g.phases = self.phases.unwrap_or(g.phases);
        g.start_phase = self.start_phase.unwrap_or(g.start_phase);
        snake.duration = self.seconds.unwrap_or(snake.duration);
        snake.mu_axial = self.mu_axial.unwrap_or(snake.mu_axial);
        snake.mu_lateral = self.mu_lateral.unwrap_or(snake.mu_lateral);
        snake.dt = self.dt.unwrap_or(snake.dt);
        snake.friction = self.friction.unwrap_or(snake.friction);
        snake.slip_velocity = self.slip.unwrap_or(snake.slip_velocity);
        snake.shear_stiffness = self.shear.unwrap_or(snake.shear_stiffness);
        snake.mounting = self.mounting.unwrap_or(snake.mounting);
        snake
    }
}

fn main() -> anyhow::Result<()> {
    pliant::init();
    let mut which = "all".to_string();
    let mut out = PathBuf::from("out/snake");
    let mut o = Overrides::default();
    let mut iterations = 8u64;
    let mut start_phases = 6usize;
    let mut start: Option<NewtonStart> = None;
    let mut it = std::env::args().skip(1);
    let number = |s: Option<String>, what: &str| -> anyhow::Result<f64> {
        s.with_context(|| format!("{what} needs a value"))?
            .parse()
            .with_context(|| format!("{what} needs a number"))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = it.next().context("--out DIR")?.into(),
            "--seconds" => o.seconds = Some(number(it.next(), "--seconds")?),
            "--amplitude" => o.amplitude = Some(number(it.next(), "--amplitude")?),
            "--iterations" => iterations = number(it.next(), "--iterations")? as u64,
            "--start-phases" => {
                let n = number(it.next(), "--start-phases")?;
                anyhow::ensure!(
                    n >= 1.0 && n.fract() == 0.0,
                    "--start-phases takes a whole number ≥ 1, not {n}"
                );
                start_phases = n as usize;
            }
            "--mu-axial" => o.mu_axial = Some(number(it.next(), "--mu-axial")?),
            "--dt" => o.dt = Some(number(it.next(), "--dt")?),
            "--mu-lateral" => o.mu_lateral = Some(number(it.next(), "--mu-lateral")?),
            "--slip-velocity" => o.slip = Some(number(it.next(), "--slip-velocity")?),
            "--shear-stiffness" => o.shear = Some(number(it.next(), "--shear-stiffness")?),
            "--wave" => o.wave = Some(number(it.next(), "--wave")?),
            "--start-phase" => o.start_phase = Some(number(it.next(), "--start-phase")?),
            "--start" => {
                start = Some(match it.next().as_deref() {
                    Some("predictor") => NewtonStart::Predictor,
                    Some("lower-potential" | "lower_potential") => NewtonStart::LowerPotential,
                    w => anyhow::bail!("--start takes predictor or lower-potential, not {w:?}"),
                })
            }
            "--phases" => {
                o.phases = Some(match it.next().as_deref() {
                    Some("planes") => Phases::BendingPlanes,
                    Some("joint") => Phases::JointSpace,
                    w => anyhow::bail!("--phases takes planes or joint, not {w:?}"),
                })
            }
            "--mounting" => {
                o.mounting = Some(match it.next().as_deref() {
                    Some("left") => Mounting::LeftHanded,
                    Some("right") => Mounting::RightHanded,
                    w => anyhow::bail!("--mounting takes left or right, not {w:?}"),
                })
            }
            "--friction" => {
                o.friction = Some(match it.next().as_deref() {
                    Some("per-axis") => SnakeFriction::PerAxisRobot,
                    Some("per-axis-world") => SnakeFriction::PerAxisWorld,
                    Some("per-axis-local") => SnakeFriction::PerAxisLocal,
                    Some("elliptic") => SnakeFriction::Elliptic,
                    w => anyhow::bail!(
                        "--friction takes per-axis, per-axis-world, per-axis-local or elliptic, not {w:?}"
                    ),
                })
            }
            w => which = w.to_string(),
        }
    }
    if which == "optimize" || which == "table" {
        anyhow::ensure!(
            start.is_none(),
            "--start applies to planar, spatial and drop runs; `{which}` uses pliant::soft_snake::newton()"
        );
    }
    if which == "optimize" {
        let mut snake = o.snake(GaitKind::Planar);
        snake.duration = SoftSnake::default().duration;
        return optimize_gait(
            &snake,
            o.seconds.unwrap_or(16.0),
            iterations,
            &out.join("optimize"),
        );
    }
    if which == "table" {
        return snake_table::table(&o, start_phases, &out);
    }
    let gaits: Vec<GaitKind> = match which.as_str() {
        "planar" => vec![GaitKind::Planar],
        "spatial" => vec![GaitKind::Spatial],
        "drop" => vec![GaitKind::Still],
        "all" => vec![GaitKind::Planar, GaitKind::Spatial],
        w => anyhow::bail!("unknown gait `{w}`: planar, spatial, drop, all, table or optimize"),
    };
    for kind in gaits {
        run(
            &o.snake(kind),
            start.unwrap_or(pliant::soft_snake::newton().start),
            &out,
        )?;
    }
    Ok(())
}

fn name(kind: GaitKind) -> &'static str {
    match kind {
        GaitKind::Planar => "planar",
        GaitKind::Spatial => "spatial",
        GaitKind::Still => "drop",
    }
}

fn point(q: &[f64], n: usize) -> [f64; 3] {
    [q[3 * n], q[3 * n + 1], q[3 * n + 2]]
}

fn run(snake: &SoftSnake, start: NewtonStart, out: &Path) -> anyhow::Result<()> {
    let dir = out.join(name(snake.gait.kind));
    std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
    let newton = pliant::core::NewtonSettings {
        start,
        ..pliant::soft_snake::newton()
    };
    let (mut sim, info) = snake.build()?.simulator_with(newton)?;
    let n_nodes = sim.model().layout().n_nodes();
    let triangles = info.body.skin_triangles();
    let lines = info.body.lines();
    let mut vtk = ShellVtkSeries::new(&dir, "snake")?;
    // The replay and plots (the ParaView series above draws the skin).
    let opts = RecorderOptions {
        vtk: false,
        ..Default::default()
    };
    let title = format!("soft snake: {}", name(snake.gait.kind));
    let mut pictures = Recorder::new(&dir, "snake", &title, sim.model(), opts)?;
    pictures.record(&sim)?;
    let (mut com, mut pmas, mut contacts) = (vec![], vec![], vec![]);
    let mut snapshots: Vec<(String, Vec<[f64; 3]>)> = vec![];
    let mut axes: Vec<(f64, Vec<(f64, f64)>)> = vec![];
    let frame = (1.0 / 30.0 / info.dt).round().max(1.0) as usize;
    let sample = (0.1 / info.dt).round().max(1.0) as usize;
    let shot = (3.0 / info.dt).round() as usize;
    let gait_step = (info.gait_start / info.dt).round() as usize;
    let (mut iterations, mut halvings, mut max_penetration) = (0usize, 0usize, 0.0f64);
    let started = Instant::now();
    let record = |sim: &Simulator, com: &mut Vec<Vec<f64>>| {
        let c = sim.model().center_of_mass(sim.q());
        com.push(vec![sim.time(), c[0], c[1], c[2]]);
    };
    record(&sim, &mut com);
    for k in 1..=info.steps {
        let r = sim
            .step()
            .with_context(|| format!("step {k} of {} (t = {:.3} s)", info.steps, sim.time()))?;
        iterations += r.newton.iterations;
        halvings += r.substeps.saturating_sub(1);
        record(&sim, &mut com);
        let q = sim.q();
        let t = sim.time();
        let x: Vec<[f64; 3]> = (0..n_nodes).map(|n| point(q, n)).collect();
        if t > info.gait_start - 0.5 && t <= info.gait_start + 1e-9 {
            for &n in &info.body.contact_nodes() {
                max_penetration = max_penetration.max(-x[n][2]);
            }
        }
        if k.is_multiple_of(frame) {
            vtk.write_frame(t, &x, &triangles, &lines, None)?;
            pictures.record(&sim)?;
            let p = sim.model().params_at(t);
            let obs = sim.observables(&p);
            let mut row = vec![t];
            for suffix in ["pressure", "length"] {
                for o in obs
                    .iter()
                    .filter(|o| o.0.starts_with("pma") && o.0.ends_with(suffix))
                {
                    row.push(o.1);
                }
            }
            pmas.push(row);
        }
        if k.is_multiple_of(sample) {
            for &n in &info.body.contact_nodes() {
                if x[n][2] < 0.0 {
                    contacts.push(vec![t, x[n][0], x[n][1]]);
                }
            }
        }
        if k >= gait_step && (k - gait_step).is_multiple_of(shot) {
            let tau = t - info.gait_start;
            snapshots.push((format!("t = {:.0} s", tau.max(0.0)), x.clone()));
            axes.push((
                tau,
                info.body.hubs.iter().map(|&h| (x[h][0], x[h][1])).collect(),
            ));
        }
    }
    let wall = started.elapsed().as_secs_f64();
    pictures.finish_at(&sim)?;
    let simulated = info.steps as f64 * info.dt;
    write_outputs(&dir, &info, &com, &pmas, &contacts, &axes)?;
    snapshots.retain(|s| !s.0.is_empty());
    if snapshots.len() > 6 {
        let step = snapshots.len().div_ceil(6);
        snapshots = snapshots.into_iter().step_by(step).collect();
    }
    plot_snapshots(&dir.join("snapshots.svg"), &snapshots, &triangles, &lines)?;

    let path: Vec<(f64, [f64; 3])> = com.iter().map(|r| (r[0], [r[1], r[2], r[3]])).collect();
    let t1 = info.gait_start + snake.duration;
    let v = mean_velocity(&path, info.gait_start, t1).unwrap_or([0.0; 3]);
    println!(
        "{} rolling, {:.0} s after a {:.2} m drop ({} steps of {} ms):",
        name(snake.gait.kind),
        snake.duration,
        snake.drop_height,
        info.steps,
        info.dt * 1e3
    );
    println!(
        "  drop: at rest on the ground, deepest skin penetration {:.3} mm over the last 0.5 s before the gait",
        max_penetration * 1e3
    );
    if snake.gait.kind != GaitKind::Still {
        let row = if snake.gait.kind == GaitKind::Planar {
            0
        } else {
            1
        };
        let (mx, my) = TABLE_I_MODEL[row];
        let (px, py) = TABLE_I_PROTOTYPE[row];
        println!(
            "  Vx = {:6.2} cm/s   (paper model {mx:.2}, prototype {px:.2})",
            100.0 * v[0]
        );
        println!(
            "  Vy = {:6.2} cm/s   (paper model {my:.2}, prototype {py:.2}); Vy/model = {:.2}",
            100.0 * v[1],
            100.0 * v[1] / my
        );
        let cycles = cycle_speeds(
            &path,
            info.gait_start,
            snake.duration,
            1.0 / snake.gait.frequency,
        );
        println!(
            "  speed over each cycle: {} cm/s",
            cycles
                .iter()
                .map(|c| format!("{:.1}", 100.0 * c))
                .collect::<Vec<_>>()
                .join(" ")
        );
        if let Some(r) = RunVelocities::of_path(&path, info.gait_start, snake.duration) {
            println!(
                "  steady (from {STEADY_AFTER} s after the gait starts): Vx = {:.2}, Vy = {:.2} cm/s; Vy/model = {:.2}",
                100.0 * r.steady[0],
                100.0 * r.steady[1],
                100.0 * r.steady[1] / my
            );
        }
        // Speed along the path (the centre of mass sampled every 0.1 s),
        // which differs from the net velocity when the snake turns.
        let pts: Vec<&Vec<f64>> = com
            .iter()
            .filter(|r| r[0] >= info.gait_start - 1e-9 && r[0] <= t1 + 1e-9)
            .step_by(sample.max(1))
            .collect();
        let arc: f64 = pts
            .windows(2)
            .map(|w| ((w[1][1] - w[0][1]).powi(2) + (w[1][2] - w[0][2]).powi(2)).sqrt())
            .sum();
        let heading = |a: &Vec<f64>, b: &Vec<f64>| (b[2] - a[2]).atan2(b[1] - a[1]);
        let turn = match (pts.first(), pts.get(pts.len() / 2), pts.last()) {
            (Some(a), Some(m), Some(b)) if pts.len() > 2 => {
                ((heading(m, b) - heading(a, m)).to_degrees() + 180.0).rem_euclid(360.0) - 180.0
            }
            _ => 0.0,
        };
        println!(
            "  along its path: {:6.2} cm/s ({arc:.2} m travelled; heading turned {turn:.0}° between the two halves)",
            100.0 * arc / snake.duration
        );
    }
    println!(
        "  wall {wall:.1} s for {simulated:.1} s simulated: {:.2} s per simulated second; {:.2} Newton iterations per step, {halvings} step halvings",
        wall / simulated,
        iterations as f64 / info.steps as f64
    );
    println!("  outputs in {}", dir.display());
    Ok(())
}

fn write_outputs(
    dir: &Path,
    info: &SnakeInfo,
    com: &[Vec<f64>],
    pmas: &[Vec<f64>],
    contacts: &[Vec<f64>],
    axes: &[(f64, Vec<(f64, f64)>)],
) -> anyhow::Result<()> {
    csv(&dir.join("com.csv"), &["t_s", "x_m", "y_m", "z_m"], com)?;
    let mut header = vec!["t_s".to_string()];
    for suffix in ["pressure_Pa", "length_m"] {
        for names in &info.body.channels {
            for n in names {
                header.push(format!("pma{}_{suffix}", &n[1..]));
            }
        }
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    csv(&dir.join("pmas.csv"), &header, pmas)?;
    // The pressure commands by control channel, for `pliant export`.
    let mut controls = vec!["time_s".to_string()];
    for names in &info.body.channels {
        controls.extend(names.iter().map(|n| format!("{n}_Pa")));
    }
    let controls: Vec<&str> = controls.iter().map(String::as_str).collect();
    let rows: Vec<Vec<f64>> = pmas.iter().map(|r| r[..controls.len()].to_vec()).collect();
    csv(&dir.join("controls.csv"), &controls, &rows)?;
    csv(&dir.join("contacts.csv"), &["t_s", "x_m", "y_m"], contacts)?;
    let colors = [
        RED,
        BLUE,
        GREEN,
        MAGENTA,
        CYAN,
        BLACK,
        RGBColor(200, 120, 0),
        RGBColor(120, 0, 200),
        RGBColor(0, 120, 120),
    ];
    let lines: Vec<output::Line> = (0..9)
        .map(|j| {
            let (i, m) = (j / 3, j % 3);
            (
                format!("p{}{} (bar)", i + 1, m + 1),
                pmas.iter().map(|r| (r[0], r[1 + j] / 1e5)).collect(),
                colors[j],
            )
        })
        .collect();
    plot_lines(
        &dir.join("pmas.svg"),
        "Muscle pressures",
        "t (s)",
        "p (bar)",
        &lines,
    )?;
    // XY path of the centre of mass with the centre line every 3 s.
    let com_xy: Vec<(f64, f64)> = com.iter().map(|r| (r[1], r[2])).collect();
    let all = com_xy.iter().chain(axes.iter().flat_map(|a| a.1.iter()));
    plan_view(
        &dir.join("path.svg"),
        "Centre of mass (red) and centre line every 3 s, seen from above",
        all,
        |chart| {
            for (k, (_, a)) in axes.iter().enumerate() {
                let shade = 200 - (150 * k / axes.len().max(1)) as u8;
                chart.draw_series(LineSeries::new(
                    a.iter().copied(),
                    RGBColor(shade, shade, shade).stroke_width(3),
                ))?;
            }
            chart.draw_series(LineSeries::new(com_xy.iter().copied(), RED.stroke_width(2)))?;
            Ok(())
        },
    )?;
    // Contact map: where the skin touched the ground, coloured by time.
    if !contacts.is_empty() {
        let pts: Vec<(f64, f64)> = contacts.iter().map(|r| (r[1], r[2])).collect();
        let t_end = contacts.last().map_or(1.0, |r| r[0]).max(1e-9);
        plan_view(
            &dir.join("contacts.svg"),
            "Skin points on the ground (blue: early, red: late)",
            pts.iter(),
            |chart| {
                chart.draw_series(contacts.iter().map(|r| {
                    let f = (r[0] / t_end).clamp(0.0, 1.0);
                    let c = RGBColor((255.0 * f) as u8, 0, (255.0 * (1.0 - f)) as u8);
                    Circle::new((r[1], r[2]), 1, c.filled())
                }))?;
                Ok(())
            },
        )?;
    }
    Ok(())
}

/// Optimizes the rolling gait over three cycles, then compares the hand-made
/// and optimized gaits over `seconds`.
fn optimize_gait(
    snake: &SoftSnake,
    seconds: f64,
    iterations: u64,
    dir: &Path,
) -> anyhow::Result<()> {
    use pliant::optim::{Damping, Method, OptimizeSettings, optimize};
    use pliant::soft_snake::optimize::{Keyframing, rolling_problem};
    std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
    let started = Instant::now();
    let problem = rolling_problem(snake, Keyframing::Rotational, 12, 3, 0.3)?;
    let hand = problem.hand_made.clone();
    let v_hand = problem.speed(&hand)?;
    println!(
        "rolling-gait optimization: {} pressure keyframes, rollouts of {:.1} s ({} steps) in steady rolling",
        hand.len(),
        problem.duration,
        problem.steps
    );
    println!(
        "  hand-made gait: Vy = {:.2} cm/s over the rollout",
        100.0 * v_hand
    );
    let settings = OptimizeSettings {
        method: Method::LevenbergMarquardt {
            tol: 1e-4,
            damping: Damping::Nielsen,
        },
        max_iters: iterations,
        checkpoint: None,
    };
    let progress: pliant::optim::ProgressFn = Box::new(|r| println!("  {r}"));
    let (result, shooting) = optimize(problem.shooting, &hand, &settings, Some(progress))?;
    let _ = shooting;
    let z = result.z.clone();
    let rows: Vec<Vec<f64>> = hand
        .iter()
        .zip(&z)
        .enumerate()
        .map(|(m, (h, o))| vec![360.0 * m as f64 / z.len() as f64, *h, *o])
        .collect();
    csv(
        &dir.join("waveform.csv"),
        &["phase_deg", "hand_made_Pa", "optimized_Pa"],
        &rows,
    )?;
    let curve = |col: usize| {
        rows.iter()
            .map(|r| (r[0], r[col] / 1e5))
            .collect::<Vec<_>>()
    };
    plot_lines(
        &dir.join("waveform.svg"),
        "Rolling waveform: pressure against phase (every muscle, shifted by its angle)",
        "phase (°)",
        "p (bar)",
        &[
            ("hand-made".into(), curve(1), BLUE),
            ("optimized".into(), curve(2), RED),
        ],
    )?;
    let optimized_wall = started.elapsed().as_secs_f64();
    // Both gaits over the long run, as keyframe schedules.
    let cycles = (seconds * snake.gait.frequency).round().max(1.0) as usize;
    let long = rolling_problem(snake, Keyframing::Rotational, 12, cycles, 0.3)?;
    let (vh, vo) = write_optimized(snake, &long, &hand, &z, dir)?;
    println!(
        "  after {} iterations ({optimized_wall:.0} s): over {:.1} s the hand-made gait rolls at Vy = {:.2} cm/s, the optimized one at {:.2} cm/s ({:.2}×)",
        result.iterations,
        long.duration,
        100.0 * vh,
        100.0 * vo,
        vo / vh
    );
    println!(
        "  waveforms (Pa against phase): {}; paths and a ParaView series of the optimized gait beside it",
        dir.join("waveform.csv").display()
    );
    Ok(())
}

/// Rolls the hand-made and optimized gaits over the long rollout, writes
/// their centre-of-mass paths (`paths.csv`, `paths.svg`, seen from above)
/// and a ParaView series of the optimized gait at 30 Hz (`optimized.pvd`),
/// to look at how it rolls, and returns their mean velocities along `y`
/// (m/s; what `RollingProblem::speed` gives).
fn write_optimized(
    snake: &SoftSnake,
    long: &pliant::soft_snake::optimize::RollingProblem,
    hand: &[f64],
    z: &[f64],
    dir: &Path,
) -> anyhow::Result<(f64, f64)> {
    let scene = snake.build()?;
    let (model, body) = (&scene.model, &scene.info.body);
    let (hand_tr, opt_tr) = (long.shooting.rollout_z(hand)?, long.shooting.rollout_z(z)?);
    let com = |x: &[f64]| {
        let c = model.center_of_mass(x);
        [c[0], c[1], c[2]]
    };
    let rows: Vec<Vec<f64>> = hand_tr
        .t
        .iter()
        .zip(hand_tr.x.iter().zip(&opt_tr.x))
        .map(|(t, (a, b))| {
            let (a, b) = (com(a), com(b));
            vec![*t, a[0], a[1], a[2], b[0], b[1], b[2]]
        })
        .collect();
    csv(
        &dir.join("paths.csv"),
        &[
            "t_s",
            "hand_x_m",
            "hand_y_m",
            "hand_z_m",
            "optimized_x_m",
            "optimized_y_m",
            "optimized_z_m",
        ],
        &rows,
    )?;
    let xy = |i: usize| rows.iter().map(|r| (r[i], r[i + 1])).collect::<Vec<_>>();
    let (hand_xy, opt_xy) = (xy(1), xy(4));
    plan_view(
        &dir.join("paths.svg"),
        "Centre of mass seen from above: hand-made (blue), optimized (red)",
        hand_xy.iter().chain(&opt_xy),
        |chart| {
            chart.draw_series(LineSeries::new(
                hand_xy.iter().copied(),
                BLUE.stroke_width(2),
            ))?;
            chart.draw_series(LineSeries::new(opt_xy.iter().copied(), RED.stroke_width(2)))?;
            Ok(())
        },
    )?;
    let (triangles, lines) = (body.skin_triangles(), body.lines());
    let mut vtk = ShellVtkSeries::new(dir, "optimized")?;
    let frame = (1.0 / 30.0 / snake.dt).round().max(1.0) as usize;
    for (t, x) in opt_tr.t.iter().zip(&opt_tr.x).step_by(frame) {
        let points: Vec<[f64; 3]> = (0..model.layout().n_nodes()).map(|n| point(x, n)).collect();
        vtk.write_frame(*t, &points, &triangles, &lines, None)?;
    }
    let vy = |i: usize| match (rows.first(), rows.last()) {
        (Some(a), Some(b)) => (b[i] - a[i]) / long.duration,
        _ => 0.0,
    };
    Ok((vy(2), vy(5)))
}

/// The ground plane seen from above (x, y in m) in `file`: a square chart
/// framing `pts`, with `caption`; `draw` adds the series.
fn plan_view<'a>(
    file: &Path,
    caption: &str,
    pts: impl Iterator<Item = &'a (f64, f64)>,
    draw: impl FnOnce(
        &mut ChartContext<
            SVGBackend,
            Cartesian2d<
                plotters::coord::types::RangedCoordf64,
                plotters::coord::types::RangedCoordf64,
            >,
        >,
    ) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let (x0, x1, y0, y1) = square(bounds(pts));
    let root = SVGBackend::new(file, (700, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc("x (m)")
        .y_desc("y (m)")
        .draw()?;
    draw(&mut chart)?;
    root.present()?;
    Ok(())
}
