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
//! at 2.5, 1.25 and 0.625 mm spacing (`PLIANT_MESHSTUDY_MM=2.5,1.25` to
//! choose); then the mid-edge tips extrapolated to zero spacing (the error
//! is O(h)) against the equilateral mesh's extrapolated answer, and the
//! same study at ν = 0, where the plate must converge to Euler–Bernoulli
//! (not timed; tables for docs/results.md).
//!
//! *manta*: the manta ray of `pliant::shell_scenes::Manta` at its default
//! resolution and step: wall time per simulated second (1 s simulated).
//!
//! *scaling*: the manta ray's per-step wall time (median and mean of 3
//! steps after 2 warm-up steps; `PLIANT_MANTA_STEPS=K` times K steps, e.g.
//! 60 for a whole 3.4 Hz flapping cycle at dt = 5 ms) at about 1k, 10k
//! and 100k triangles (`PLIANT_MANTA_CELLS=24,75`
//! to choose the mesh sizes: triangles across the span; a generated mesh
//! comes with the generated meshes of half, a quarter, … the cells as
//! multigrid levels, `Manta::build`;
//! `PLIANT_DIRECTIONS=direct|pcg|amg|geometric` to choose Newton's
//! directions, `auto` by default; `PLIANT_MANTA_REFINE=1,3,4` for the
//! 350-triangle mesh refined 1 : 4 that many times, its coarser meshes the
//! levels of geometric multigrid; `--parallel-factorization` to let large
//! factors use faer's parallel kernels).

use pliant::core::{Directions, NewtonSettings};
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
    let spacings: Vec<f64> = match std::env::var("PLIANT_MESHSTUDY_MM") {
        Ok(v) => v
            .split(',')
            .filter_map(|c| c.trim().parse::<f64>().ok())
            .map(|mm| 1e-3 * mm)
            .collect(),
        Err(_) => vec![0.0025, 0.00125, 0.000625],
    };
    let tip = |bending, kind, spacing, poisson| {
        let c = ShellCantilever {
            youngs: 2e9,
            bending,
            kind,
            spacing,
            seed: 1,
            poisson,
        };
        let (w, _) = c.static_tip().unwrap();
        // Normalized by Euler–Bernoulli over this mesh's own free length.
        w / c.euler_bernoulli().unwrap()
    };
    let pct = |a: f64, b: f64| 100.0 * (a / b - 1.0);
    println!("| spacing | mesh | mid-edge vs EB | hinge vs EB |");
    println!("|---|---|---|---|");
    // Normalized mid-edge tips (ν = 0.5) per mesh type and spacing.
    let mut mid = vec![vec![0.0; spacings.len()]; MeshKind::ALL.len()];
    for (si, &spacing) in spacings.iter().enumerate() {
        for (ki, kind) in MeshKind::ALL.into_iter().enumerate() {
            let wm = tip(Bending::MidEdge, kind, spacing, 0.5);
            let wh = tip(Bending::Hinge, kind, spacing, 0.5);
            mid[ki][si] = wm;
            println!(
                "| {} mm | {} | {:+.2} % | {:+.2} % |",
                1e3 * spacing,
                kind.name(),
                pct(wm, 1.0),
                pct(wh, 1.0)
            );
        }
    }
    let n = spacings.len();
    if n < 2 || (spacings[n - 2] / spacings[n - 1] - 2.0).abs() > 1e-9 {
        return;
    }
    // The error is O(h) (the clamp's rotational compliance): Richardson
    // extrapolation of the two finest spacings, `w∞ = 2 w(h/2) − w(h)`.
    let extrapolate = |w: &[f64]| 2.0 * w[n - 1] - w[n - 2];
    let reference = extrapolate(&mid[0]);
    println!(
        "\nMid-edge, ν = 0.5, against the converged plate: the equilateral mesh's normalized tip extrapolated from {} and {} mm, {:+.2} % vs EB\n",
        1e3 * spacings[n - 2],
        1e3 * spacings[n - 1],
        pct(reference, 1.0)
    );
    println!(
        "| mesh | extrapolated vs EB | extrapolated vs reference | at {} mm vs reference |",
        1e3 * spacings[n - 1]
    );
    println!("|---|---|---|---|");
    for (ki, kind) in MeshKind::ALL.into_iter().enumerate() {
        let w = extrapolate(&mid[ki]);
        println!(
            "| {} | {:+.2} % | {:+.2} % | {:+.2} % |",
            kind.name(),
            pct(w, 1.0),
            pct(w, reference),
            pct(mid[ki][n - 1], reference)
        );
    }
    // The plate effect against ν: at ν = 0 there is none, so the
    // discretization must converge to EB; the clamp's suppression of the
    // anticlastic curl should scale roughly as ν²/(1 − ν²).
    println!("\nMid-edge, equilateral mesh, against ν (ν = 0: no anticlastic effect):\n");
    println!("| spacing | ν = 0 | ν = 0.3 | ν = 0.5 |");
    println!("|---|---|---|---|");
    let nus = [0.0, 0.3, 0.5];
    let mut w_nu = vec![Vec::new(); nus.len()];
    for (si, &spacing) in spacings.iter().enumerate() {
        let mut row = format!("| {} mm |", 1e3 * spacing);
        for (ni, &nu) in nus.iter().enumerate() {
            let w = if nu == 0.5 {
                mid[0][si]
            } else {
                tip(Bending::MidEdge, MeshKind::Equilateral, spacing, nu)
            };
            w_nu[ni].push(w);
            row += &format!(" {:+.2} % |", pct(w, 1.0));
        }
        println!("{row}");
    }
    let mut row = "| extrapolated |".to_string();
    for w in &w_nu {
        row += &format!(" {:+.2} % |", pct(extrapolate(w), 1.0));
    }
    println!("{row}");
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
    // PLIANT_DIRECTIONS=auto|direct|pcg: how Newton solves for directions.
    let directions: Directions = std::env::var("PLIANT_DIRECTIONS")
        .ok()
        .map(|d| serde_json::from_value(serde_json::Value::String(d)).unwrap())
        .unwrap_or_default();
    let timed: usize = std::env::var("PLIANT_MANTA_STEPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    // PLIANT_MANTA_REFINE=r1,r2,…: instead of generated meshes, the
    // 350-triangle mesh refined 1 : 4 r times, with its coarser meshes as
    // geometric multigrid levels (`Manta::refined`).
    let refinements: Option<Vec<usize>> = std::env::var("PLIANT_MANTA_REFINE")
        .ok()
        .map(|v| v.split(',').filter_map(|c| c.trim().parse().ok()).collect());
    let runs: Vec<(usize, Option<usize>)> = match &refinements {
        Some(rs) => rs.iter().map(|&r| (12, Some(r))).collect(),
        None => sizes.iter().map(|&c| (c, None)).collect(),
    };
    for (cells, refine) in runs {
        let defaults = Manta::default();
        let scene = Manta {
            cells,
            duration: (timed + 2) as f64 * 5e-3,
            newton: NewtonSettings {
                directions,
                ..defaults.newton
            },
            ..defaults
        };
        let mut run = match refine {
            Some(r) => scene.refined(r).unwrap(),
            None => scene.build().unwrap(),
        };
        let tris = run.mesh.triangles.len();
        let mut times = Vec::new();
        let (mut its, mut pcg, mut fact, mut setups, mut shifted) = (0, 0, 0, 0, 0);
        for k in 0..timed + 2 {
            let t = Instant::now();
            let r = run.sim.step().unwrap();
            if k >= 2 {
                times.push(t.elapsed().as_secs_f64());
                its += r.newton.iterations;
                pcg += r.newton.pcg_iterations;
                fact += r.newton.factorizations;
                setups += r.newton.amg_setups;
                shifted += r.newton.shifted;
            }
        }
        let mean = times.iter().sum::<f64>() / timed as f64;
        let per = median(times);
        let n = timed as f64;
        println!(
            "manta scaling ({directions:?}{}): {tris:>7} triangles, {timed} steps: {:>9.2} ms per step (median; mean {:.2}) ({:.2} Newton iterations, {:.2} PCG iterations, {:.2} factorizations, {:.2} multigrid set-ups, {:.2} shifted iterations per step), {:.2} µs per triangle per step (median; mean {:.2})",
            refine.map_or(String::new(), |r| format!(", refined {r}×")),
            1e3 * per,
            1e3 * mean,
            its as f64 / n,
            pcg as f64 / n,
            fact as f64 / n,
            setups as f64 / n,
            shifted as f64 / n,
            1e6 * per / tris as f64,
            1e6 * mean / tris as f64
        );
    }
}

fn main() {
    // RUST_LOG=pliant_core=debug shows why Newton directions fall back.
    let _ = env_logger::try_init();
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let all = args.is_empty();
    // Large factors with faer's parallel kernels (off by default).
    pliant::core::linsolve::set_parallel_factorization(
        std::env::args().any(|a| a == "--parallel-factorization"),
    );
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
