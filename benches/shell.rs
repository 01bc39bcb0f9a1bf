//! Shell benchmarks (release; medians of several runs, single process).
//!
//! `cargo bench --bench shell [-- cantilever meshstudy manta scaling]`
//!
//! *cantilever*: the plate cantilever of MAT-DiSMech §7.2 at E = 2 GPa on
//! the equilateral mesh with ~120 nodes (5 mm spacing), from the flat
//! plate to static equilibrium (static steps until the tip moves less than
//! 1e-9 of itself), mid-edge and hinge bending. MAT-DiSMech under Octave
//! took 243 s for the mid-edge case on this machine (issue 15).
//!
//! *meshstudy*: Fig. 12 — the cantilever's tip deflection against
//! Euler–Bernoulli at E = 2 GPa on the five mesh types, hinge and mid-edge,
//! at 2.5 mm and 1.25 mm spacing (not timed; a table for docs/results.md).
//!
//! *manta*: the manta ray of `pliant::shell_scenes::Manta` at its default
//! resolution and step: wall time per simulated second (1 s simulated).
//!
//! *scaling*: the manta ray's per-step wall time (median of 3 steps after 2
//! warm-up steps) at about 1k, 10k and 100k triangles (`PLIANT_MANTA_CELLS=24,75`
//! to choose the mesh sizes: triangles across the span).

use pliant::shell::Bending;
use pliant::shell::generate::MeshKind;
use pliant::shell_cantilever::ShellCantilever;
use pliant::shell_scenes::Manta;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn cantilever() {
    for bending in [Bending::MidEdge, Bending::Hinge] {
        let c = ShellCantilever {
            youngs: 2e9,
            bending,
            kind: MeshKind::Equilateral,
            spacing: 0.005,
            seed: 1,
            poisson: 0.5,
        };
        let nodes = c.mesh().unwrap().nodes.len();
        let mut times = Vec::new();
        let mut result = (0.0, 0);
        for _ in 0..7 {
            let t = Instant::now();
            result = c.static_tip().unwrap();
            times.push(t.elapsed().as_secs_f64());
        }
        println!(
            "cantilever {bending:?}: {nodes} nodes, static equilibrium in {:.1} ms (median of 7; {} static steps), tip {:.4} mm",
            1e3 * median(times),
            result.1,
            1e3 * result.0
        );
    }
}

fn meshstudy() {
    println!("| spacing | mesh | mid-edge vs EB | hinge vs EB |");
    println!("|---|---|---|---|");
    for spacing in [0.0025, 0.00125] {
        for kind in MeshKind::ALL {
            let err = |bending| {
                let c = ShellCantilever {
                    youngs: 2e9,
                    bending,
                    kind,
                    spacing,
                    seed: 1,
                    poisson: 0.5,
                };
                let (w, _) = c.static_tip().unwrap();
                100.0 * (w / c.euler_bernoulli().unwrap() - 1.0)
            };
            println!(
                "| {} mm | {} | {:+.2} % | {:+.2} % |",
                1e3 * spacing,
                kind.name(),
                err(Bending::MidEdge),
                err(Bending::Hinge)
            );
        }
    }
}

fn manta() {
    let scene = Manta {
        duration: 1.0,
        ..Manta::default()
    };
    let mut run = scene.build().unwrap();
    let t = Instant::now();
    let mut its = 0;
    for _ in 0..run.steps {
        its += run.sim.step().unwrap().newton.iterations;
    }
    let wall = t.elapsed().as_secs_f64();
    println!(
        "manta: {} triangles, dt = {} s: {:.2} s wall per simulated second ({} steps, {:.1} Newton iterations per step)",
        run.mesh.triangles.len(),
        scene.dt,
        wall / scene.duration,
        run.steps,
        its as f64 / run.steps as f64
    );
}

fn scaling() {
    let sizes: Vec<usize> = match std::env::var("PLIANT_MANTA_CELLS") {
        Ok(v) => v.split(',').filter_map(|c| c.trim().parse().ok()).collect(),
        Err(_) => vec![24, 75, 236],
    };
    for cells in sizes {
        let scene = Manta {
            cells,
            duration: 5.0 * 5e-3,
            ..Manta::default()
        };
        let mut run = scene.build().unwrap();
        let tris = run.mesh.triangles.len();
        let mut times = Vec::new();
        let mut its = 0;
        for k in 0..5 {
            let t = Instant::now();
            let r = run.sim.step().unwrap();
            if k >= 2 {
                times.push(t.elapsed().as_secs_f64());
                its += r.newton.iterations;
            }
        }
        let per = median(times);
        println!(
            "manta scaling: {tris:>7} triangles: {:>9.2} ms per step ({:.1} Newton iterations per step), {:.2} µs per triangle per step",
            1e3 * per,
            its as f64 / 3.0,
            1e6 * per / tris as f64
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let all = args.is_empty();
    let want = |s: &str| all || args.iter().any(|a| a == s);
    if want("cantilever") {
        cantilever();
    }
    if want("meshstudy") {
        meshstudy();
    }
    if want("manta") {
        manta();
    }
    if want("scaling") {
        scaling();
    }
}
