//! The rod examples of MAT-DiSMech §7.1 ([`pliant::rod_scenes`]):
//!
//! - `pneunet`   — three PneuNet actuators (15.70, 31.45, 47.15 1/m) under
//!   gravity, with the paper's end force (175, 0, 7) N and with 1/100 of it
//!   (final shapes x–z, Fig. 4d–e);
//! - `earthworm` — x of the front end against time with and without
//!   friction (Fig. 5f);
//! - `snake`     — head x, y, z against time, C_t = 0.01 ≠ C_n = 0.1, and the
//!   control case C_t = C_n (Fig. 7f);
//! - `drop`      — z of the lowest point against time for E = 2 MPa and
//!   2 GPa (Fig. 9g);
//! - `gripper`   — configurations and the rod–sphere gap with and without
//!   contact (Fig. 10);
//! - `all`       — all of them.
//!
//! Each writes into `DIR/<scene>/` (default `out/rods`): the plotted
//! quantity as CSV, an SVG plot of it, and per run a directory
//! `DIR/<scene>/<run>/` with a ParaView series (`<run>.pvd`), `replay.html`
//! and plots; and prints a short summary.
//!
//! `cargo run --release --example rods -- earthworm [--out out/rods]`

use anyhow::Context;
use pliant::core::Simulator;
use pliant::rod_scenes::{
    DroppedRod, Earthworm, Gripper, PNEUNET_CURVATURES, PNEUNET_PAPER_FORCE, PneuNet, RADIUS,
    RodScene, SceneInfo, Snake, lowest_z, node_positions, turning_angle_xz,
};
use pliant::viz::{Recorder, RecorderOptions};
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "common/output.rs"]
mod output;
use output::{Line, bounds, csv, plot_lines, square};

const SCENES: [&str; 5] = ["pneunet", "earthworm", "snake", "drop", "gripper"];

fn main() -> anyhow::Result<()> {
    pliant::init();
    let mut which = "all".to_string();
    let mut out = PathBuf::from("out/rods");
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = it.next().context("--out DIR")?.into(),
            w => which = w.to_string(),
        }
    }
    let list: Vec<&str> = match which.as_str() {
        "all" => SCENES.to_vec(),
        w if SCENES.contains(&w) => vec![w],
        w => anyhow::bail!("unknown scene `{w}` (pneunet, earthworm, snake, drop, gripper or all)"),
    };
    for s in list {
        let dir = out.join(s);
        std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
        let t = Instant::now();
        match s {
            "pneunet" => pneunet(&dir)?,
            "earthworm" => earthworm(&dir)?,
            "snake" => snake(&dir)?,
            "drop" => drop(&dir)?,
            _ => gripper(&dir)?,
        }
        println!(
            "{s}: {:.1} s wall time; wrote {}\n",
            t.elapsed().as_secs_f64(),
            dir.display()
        );
    }
    Ok(())
}

/// Statistics of one run.
struct Run {
    sim: Simulator,
    info: SceneInfo,
    newton: usize,
    seconds: f64,
}

/// Runs `scene` to its end; `rec` sees the initial state and every step;
/// pictures (ParaView, replay, plots) of about `frames` frames go to
/// `<dir>/<name>/`.
fn run(
    scene: RodScene,
    vtk: Option<(&Path, &str)>,
    frames: usize,
    mut rec: impl FnMut(&Simulator, &SceneInfo),
) -> anyhow::Result<Run> {
    let (mut sim, info) = scene.simulator()?;
    let every = (info.steps / frames.max(1)).max(1);
    let mut pictures = match vtk {
        Some((dir, name)) => Some(Recorder::new(
            &dir.join(name),
            name,
            &format!("{}: {name}", info.name),
            sim.model(),
            RecorderOptions::default(),
        )?),
        None => None,
    };
    rec(&sim, &info);
    if let Some(p) = &mut pictures {
        p.record(&sim)?;
    }
    let t = Instant::now();
    let mut newton = 0;
    for k in 1..=info.steps {
        let r = sim
            .step()
            .with_context(|| format!("{}: step {k} at t = {:.4} s", info.name, sim.time()))?;
        newton += r.newton.iterations;
        rec(&sim, &info);
        if k % every == 0
            && let Some(p) = &mut pictures
        {
            p.record(&sim)?;
        }
    }
    if let Some(p) = pictures {
        p.finish_at(&sim)?;
    }
    Ok(Run {
        sim,
        info,
        newton,
        seconds: t.elapsed().as_secs_f64(),
    })
}

fn positions(sim: &Simulator, info: &SceneInfo) -> Vec<[f64; 3]> {
    node_positions(sim.model(), sim.q(), &info.rods[0])
}

// ---------------------------------------------------------------- PneuNet

fn pneunet(dir: &Path) -> anyhow::Result<()> {
    let small = PNEUNET_PAPER_FORCE.map(|f| f / 100.0);
    let cases: [(&str, Option<[f64; 3]>); 3] = [
        ("gravity", None),
        ("paper_force", Some(PNEUNET_PAPER_FORCE)),
        ("force_1_100", Some(small)),
    ];
    let mut rows = vec![];
    let mut panels = vec![];
    println!(
        "PneuNet: E = 20 GPa, L = 0.1 m, r = 1 mm, clamped at the origin, static load stepping"
    );
    for (ci, (case, force)) in cases.iter().enumerate() {
        let mut shapes = vec![];
        for (k, &kappa) in PNEUNET_CURVATURES.iter().enumerate() {
            let spec = PneuNet {
                tip_force: *force,
                ..PneuNet::with_curvature(kappa)
            };
            let name = format!("{case}_kappa{kappa:.2}");
            let r = run(spec.build()?, Some((dir, &name)), 40, |_, _| {})?;
            let pts = positions(&r.sim, &r.info);
            let tip = pts[pts.len() - 1];
            println!(
                "  {case:<12} κ̄ = {kappa:5.2} 1/m: tip ({:+.4}, {:+.4}, {:+.4}) m, tip angle {:6.1}°, {} Newton iterations",
                tip[0],
                tip[1],
                tip[2],
                turning_angle_xz(&pts).to_degrees(),
                r.newton
            );
            for (n, p) in pts.iter().enumerate() {
                rows.push(vec![ci as f64, kappa, n as f64, p[0], p[1], p[2]]);
            }
            shapes.push((
                format!("{kappa:.2} 1/m"),
                pts.iter().map(|p| (p[0], p[2])).collect::<Vec<_>>(),
                [BLUE, RED, GREEN][k],
            ));
        }
        let title = match *case {
            "gravity" => "(d) gravity".to_string(),
            "paper_force" => "(e) gravity + (175, 0, 7) N".to_string(),
            _ => "(e') gravity + (1.75, 0, 0.07) N".to_string(),
        };
        panels.push(Panel {
            title,
            lines: shapes,
            circle: None,
        });
    }
    csv(
        &dir.join("shapes.csv"),
        &["case", "curvature_per_m", "node", "x_m", "y_m", "z_m"],
        &rows,
    )?;
    println!("  case 0 = gravity, 1 = gravity + (175, 0, 7) N, 2 = gravity + (1.75, 0, 0.07) N");
    plot_panels(&dir.join("shapes.svg"), &panels, "x (m)", "z (m)")
}

// ---------------------------------------------------------------- Earthworm

fn earthworm(dir: &Path) -> anyhow::Result<()> {
    let mut series = vec![];
    let spec = Earthworm::default();
    println!(
        "Earthworm: 3 nodes, E = 200 MPa, edges contract by {} mm in a {} s cycle, ground k = {} N/m, {} s",
        1e3 * spec.contraction,
        spec.period,
        spec.stiffness,
        spec.duration
    );
    for (name, mu) in [("friction", Some(0.25)), ("frictionless", None)] {
        let spec = Earthworm {
            friction: mu,
            ..Earthworm::default()
        };
        let mut xs = vec![];
        let r = run(spec.build()?, Some((dir, name)), 200, |sim, info| {
            let p = positions(sim, info);
            xs.push((sim.time(), p[Earthworm::FRONT][0]));
        })?;
        let com0 = r.sim.model().center_of_mass(r.sim.model().q0())[0];
        let com1 = r.sim.model().center_of_mass(r.sim.q())[0];
        let adv = xs.last().unwrap().1 - xs[0].1;
        let cycles = spec.duration / spec.period;
        println!(
            "  {name:<12}: front end advanced {:+.3} mm ({:+.4} mm per cycle, {:+.3} mm/s), centre of mass {:+.3} mm; {} Newton iterations in {:.2} s",
            1e3 * adv,
            1e3 * adv / cycles,
            1e3 * adv / spec.duration,
            1e3 * (com1 - com0),
            r.newton,
            r.seconds
        );
        series.push((name, xs));
    }
    let from_start =
        |s: &[(f64, f64)]| -> Vec<(f64, f64)> { s.iter().map(|&(t, x)| (t, x - s[0].1)).collect() };
    write_pair(
        dir,
        "front_x",
        ["time_s", "dx_front_friction_m", "dx_front_frictionless_m"],
        [
            ("μ = 0.25", RED, &from_start(&series[0].1)),
            ("no friction", BLUE, &from_start(&series[1].1)),
        ],
        "Earthworm: displacement of the front end",
        "x − x₀ (mm)",
    )
}

// ---------------------------------------------------------------- Snake

fn snake(dir: &Path) -> anyhow::Result<()> {
    let base = Snake::default();
    println!(
        "Snake: {} nodes, E = 2 MPa, curvature wave κ₀ = {} 1/m, λ = {} m, {} Hz, {} s",
        base.nodes, base.curvature_amplitude, base.wavelength, base.frequency, base.duration
    );
    let mut all = vec![];
    for (name, ct, cn) in [("anisotropic", 0.01, 0.1), ("isotropic", 0.1, 0.1)] {
        let spec = Snake {
            ct,
            cn,
            ..Snake::default()
        };
        let head = spec.head();
        let mut tr: Vec<(f64, [f64; 3])> = vec![];
        let r = run(spec.build()?, Some((dir, name)), 200, |sim, info| {
            tr.push((sim.time(), positions(sim, info)[head]));
        })?;
        // Mean speed over the last five periods.
        let per = (1.0 / (spec.frequency * spec.dt)).round() as usize;
        let n = tr.len() - 1;
        let span = (5 * per).min(n);
        let v = (tr[n].1[0] - tr[n - span].1[0]) / (span as f64 * spec.dt);
        let ymax = tr.iter().map(|p| p.1[1].abs()).fold(0.0, f64::max);
        let zmax = tr.iter().map(|p| p.1[2].abs()).fold(0.0, f64::max);
        println!(
            "  C_t = {ct}, C_n = {cn}: head x {:+.2} mm in {} s, speed {:+.4} body lengths/s over the last 5 periods; |y| ≤ {:.2} mm, |z| ≤ {:.1e} m; {} Newton iterations in {:.1} s",
            1e3 * (tr[n].1[0] - tr[0].1[0]),
            spec.duration,
            v / 0.1,
            1e3 * ymax,
            zmax,
            r.newton,
            r.seconds
        );
        all.push(tr);
    }
    let rows: Vec<Vec<f64>> = (0..all[0].len())
        .map(|k| {
            let (a, b) = (all[0][k].1, all[1][k].1);
            vec![all[0][k].0, a[0], a[1], a[2], b[0], b[1], b[2]]
        })
        .collect();
    csv(
        &dir.join("head.csv"),
        &[
            "time_s",
            "head_x_m",
            "head_y_m",
            "head_z_m",
            "isotropic_head_x_m",
            "isotropic_head_y_m",
            "isotropic_head_z_m",
        ],
        &rows,
    )?;
    let col = |i: usize| rows.iter().map(|r| (r[0], 1e3 * r[i])).collect::<Vec<_>>();
    plot_lines(
        &dir.join("head.svg"),
        "Snake: leading end (C_t = 0.01, C_n = 0.1)",
        "t (s)",
        "position (mm)",
        &[
            ("x".into(), col(1), RED),
            ("y".into(), col(2), BLUE),
            ("z".into(), col(3), GREEN),
            ("x, C_t = C_n".into(), col(4), BLACK),
        ],
    )
}

// ---------------------------------------------------------------- Drop

fn drop(dir: &Path) -> anyhow::Result<()> {
    println!(
        "Rod dropped from 5 cm: L = 0.1 m, tilted along (2, 1, 2)/3, ground k = 20 N/m, μ = 0.25"
    );
    let mut all = vec![];
    for (name, e) in [("E2MPa", 2e6), ("E2GPa", 2e9)] {
        let spec = DroppedRod {
            youngs_modulus: e,
            ..DroppedRod::default()
        };
        let mut tr = vec![];
        let r = run(spec.build()?, Some((dir, name)), 200, |sim, info| {
            tr.push((sim.time(), lowest_z(&positions(sim, info))));
        })?;
        let pts = positions(&r.sim, &r.info);
        let span = pts.iter().map(|p| p[2]).fold(f64::MIN, f64::max) - lowest_z(&pts);
        let hit = tr
            .iter()
            .find(|p| p.1 < 2.0 * RADIUS)
            .map_or(f64::NAN, |p| p.0);
        let deepest = tr.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        println!(
            "  {name}: first touch at {hit:.3} s, deepest centre line {:+.2} mm (contact plane r₀ = 1 mm), final lowest {:+.3} mm, final height span {:.2} mm, kinetic energy {:.1e} J; {} Newton iterations in {:.1} s",
            1e3 * deepest,
            1e3 * tr.last().unwrap().1,
            1e3 * span,
            r.sim.kinetic_energy(),
            r.newton,
            r.seconds
        );
        all.push(tr);
    }
    write_pair(
        dir,
        "lowest_z",
        ["time_s", "lowest_z_2MPa_m", "lowest_z_2GPa_m"],
        [("E = 2 MPa", RED, &all[0]), ("E = 2 GPa", BLUE, &all[1])],
        "Rod dropped on the ground: lowest node",
        "z (mm)",
    )
}

// ---------------------------------------------------------------- Gripper

fn gripper(dir: &Path) -> anyhow::Result<()> {
    let g = Gripper::default();
    println!(
        "Gripper: E = 200 MPa, natural curvature of the distal 3/4 ramps to {} 1/m over {} s; sphere R = {} m at {:?}, k = {} N/m, μ = {}",
        g.curvature, g.ramp, g.sphere_radius, g.sphere_centre, g.stiffness, g.friction
    );
    let snap = (0.5 / g.dt).round() as usize;
    let mut gaps = vec![];
    let mut panels = vec![];
    let mut shape_rows = vec![];
    for (ci, (name, contact)) in [("free", false), ("contact", true)].into_iter().enumerate() {
        let spec = Gripper {
            contact,
            ..Gripper::default()
        };
        let mut gap = vec![];
        let mut shapes = vec![];
        let mut k = 0;
        let r = run(spec.build()?, Some((dir, name)), 120, |sim, info| {
            let pts = positions(sim, info);
            gap.push((sim.time(), spec.sphere_gap(&pts)));
            if k % snap == 0 {
                for (n, p) in pts.iter().enumerate() {
                    shape_rows.push(vec![ci as f64, sim.time(), n as f64, p[0], p[1], p[2]]);
                }
                shapes.push(pts);
            }
            k += 1;
        })?;
        let tip = *positions(&r.sim, &r.info).last().unwrap();
        let min = gap.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        println!(
            "  {name:<8}: smallest surface gap to the sphere {:+.2} mm, final gap {:+.2} mm, final tip ({:+.4}, {:+.4}, {:+.4}) m; {} Newton iterations in {:.1} s",
            1e3 * min,
            1e3 * gap.last().unwrap().1,
            tip[0],
            tip[1],
            tip[2],
            r.newton,
            r.seconds
        );
        let n = shapes.len().max(2) - 1;
        let lines = shapes
            .iter()
            .enumerate()
            .map(|(i, pts)| {
                // Yellow → red over time, as in the paper's figure.
                let f = i as f64 / n as f64;
                (
                    String::new(),
                    pts.iter().map(|p| (p[0], p[2])).collect(),
                    RGBColor(255, (220.0 * (1.0 - f)) as u8, 0),
                )
            })
            .collect();
        panels.push(Panel {
            title: if contact {
                "(b) with contact".into()
            } else {
                "(a) without contact".into()
            },
            lines,
            circle: Some(([g.sphere_centre[0], g.sphere_centre[2]], g.sphere_radius)),
        });
        gaps.push(gap);
    }
    csv(
        &dir.join("shapes.csv"),
        &["case", "time_s", "node", "x_m", "y_m", "z_m"],
        &shape_rows,
    )?;
    println!("  shapes.csv: case 0 = without contact, 1 = with contact, every 0.5 s");
    plot_panels(&dir.join("shapes.svg"), &panels, "x (m)", "z (m)")?;
    write_pair(
        dir,
        "gap",
        ["time_s", "gap_free_m", "gap_contact_m"],
        [
            ("without contact", BLUE, &gaps[0]),
            ("with contact", RED, &gaps[1]),
        ],
        "Gripper: smallest gap between the rod surface and the sphere",
        "gap (mm)",
    )
}

// ---------------------------------------------------------------- Plots

/// A labelled, coloured time series `(t s, value m)`.
type Labelled<'a> = (&'a str, RGBColor, &'a [(f64, f64)]);

/// Two time series sampled at the same times (m): `STEM.csv` with `header`
/// (SI units) and `STEM.svg` with both curves in mm.
fn write_pair(
    dir: &Path,
    stem: &str,
    header: [&str; 3],
    series: [Labelled; 2],
    title: &str,
    ylabel: &str,
) -> anyhow::Result<()> {
    let [(_, _, a), (_, _, b)] = series;
    let rows: Vec<Vec<f64>> = a.iter().zip(b).map(|(a, b)| vec![a.0, a.1, b.1]).collect();
    csv(&dir.join(format!("{stem}.csv")), &header, &rows)?;
    let lines: Vec<Line> = series
        .iter()
        .map(|(label, color, s)| {
            (
                label.to_string(),
                s.iter().map(|&(t, v)| (t, 1e3 * v)).collect(),
                *color,
            )
        })
        .collect();
    plot_lines(
        &dir.join(format!("{stem}.svg")),
        title,
        "t (s)",
        ylabel,
        &lines,
    )
}

/// One panel of rod shapes (x–z), optionally with a circle (centre, radius).
struct Panel {
    title: String,
    lines: Vec<Line>,
    circle: Option<([f64; 2], f64)>,
}

/// Panels side by side, with equal axis scales.
fn plot_panels(path: &Path, panels: &[Panel], xl: &str, yl: &str) -> anyhow::Result<()> {
    let circles: Vec<Vec<(f64, f64)>> = panels
        .iter()
        .map(|p| match p.circle {
            Some((c, r)) => (0..=120)
                .map(|k| {
                    let a = std::f64::consts::TAU * k as f64 / 120.0;
                    (c[0] + r * a.cos(), c[1] + r * a.sin())
                })
                .collect(),
            None => vec![],
        })
        .collect();
    let (x0, x1, y0, y1) = square(bounds(
        panels
            .iter()
            .flat_map(|p| p.lines.iter().flat_map(|l| l.1.iter()))
            .chain(circles.iter().flatten()),
    ));
    let side = 560;
    let root = SVGBackend::new(path, (side * panels.len() as u32, side + 40)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((1, panels.len()));
    for ((area, p), circle) in areas.iter().zip(panels).zip(&circles) {
        let mut chart = ChartBuilder::on(area)
            .caption(&p.title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart.configure_mesh().x_desc(xl).y_desc(yl).draw()?;
        if !circle.is_empty() {
            chart.draw_series(LineSeries::new(circle.iter().copied(), &BLACK))?;
        }
        let mut labelled = false;
        for (label, pts, color) in &p.lines {
            let c = *color;
            let s = chart.draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))?;
            if !label.is_empty() {
                labelled = true;
                s.label(label.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c));
            }
        }
        if labelled {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
        }
    }
    root.present()?;
    Ok(())
}
