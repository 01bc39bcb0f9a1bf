//! Implicit discrete elastic rods against PyElastica (explicit Cosserat
//! rods) on the same problem, and the per-step cost against the number of
//! edges.
//!
//! `cargo bench --bench rod_cantilever [-- compare scaling [EDGES ...]]`
//! (`ROD_SCALING_TRACE=1` prints the Newton iterations of every timed step)
//!
//! *compare*: the cantilever of MAT-DiSMech §7.2 (L = 0.1 m, r = 1 mm,
//! ρ = 1200 kg/m³, ν = 0.5, E = 200 MPa) under gravity with uniform velocity
//! damping ζ = 20 1/s, 1 s of physical time from rest, 50 and 200 elements.
//! pliant: implicit Euler at h = 10 ms (and a 4× smaller step to show the
//! answer does not depend on it). PyElastica: `benches/pyelastica/
//! cantilever.py` at the largest stable step found there, run from the
//! throwaway virtualenv made by `benches/pyelastica/setup.sh` when it exists
//! (`/tmp/pyelastica-venv`, or `PLIANT_PYELASTICA=/path/to/python`), so both
//! sides are measured in the same run.
//!
//! *scaling*: wall time per step for 100, 1,000 and 10,000 edges of 1 mm
//! (rods 0.1, 1 and 10 m long, E = 200 MPa): a straight rod released 0.5 mm
//! above the ground under gravity, with log-exp ground contact and smooth
//! Coulomb friction on every node (h = 1 ms; 20 steps of free fall, then the
//! median of 20 timed steps through the impact).

use pliant::core::{Integrator, NewtonSettings, Simulator};
use pliant::rod_cantilever::RodCantilever;
use std::process::Command;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Tip deflection (m, down), wall time (s) and Newton iterations of 1 s.
fn pliant_run(c: &RodCantilever, h: f64) -> (f64, f64, usize) {
    let mut sim = Simulator::new(
        c.model().unwrap(),
        Integrator::ImplicitEuler,
        h,
        NewtonSettings::default(),
    )
    .unwrap();
    let steps = (1.0 / h).round() as usize;
    let t = Instant::now();
    let mut its = 0;
    for _ in 0..steps {
        its += sim.step().unwrap().newton.iterations;
    }
    (-sim.q()[3 * c.tip() + 2], t.elapsed().as_secs_f64(), its)
}

fn python() -> Option<String> {
    if let Ok(p) = std::env::var("PLIANT_PYELASTICA") {
        return Some(p);
    }
    let p = "/tmp/pyelastica-venv/bin/python";
    std::path::Path::new(p).exists().then(|| p.to_string())
}

/// PyElastica's `(wall_s, tip_z)` for `n` elements at step `dt`.
fn pyelastica(py: &str, n: usize, dt: f64) -> Option<(f64, f64)> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/pyelastica/cantilever.py"
    );
    let out = Command::new(py)
        .args([
            script,
            "--elements",
            &n.to_string(),
            "--dt",
            &dt.to_string(),
            "--E",
            "200e6",
            "--zeta",
            "20",
        ])
        .output()
        .ok()?;
    let line = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(line.lines().last()?).ok()?;
    Some((v["wall_s"].as_f64()?, v["tip_z"].as_f64()?))
}

fn compare() {
    let py = python();
    if py.is_none() {
        println!(
            "(PyElastica not found: run benches/pyelastica/setup.sh or set PLIANT_PYELASTICA; pliant side only)"
        );
    }
    // Largest stable PyElastica steps (benches/pyelastica/README.md).
    for (n, py_dt) in [(50, 3.1e-6), (200, 1.15e-6)] {
        let c = RodCantilever {
            edges: n,
            youngs: 200e6,
            damping: 20.0,
        };
        let exact = c.elastica();
        let mut walls = Vec::new();
        let (mut tip, mut its) = (0.0, 0);
        for _ in 0..5 {
            let (w, t, i) = pliant_run(&c, 0.01);
            walls.push(t);
            (tip, its) = (w, i);
        }
        let (tip_fine, _, _) = pliant_run(&c, 0.0025);
        let wall = median(walls);
        println!(
            "{n} edges: pliant implicit Euler h = 10 ms: 100 steps, {its} Newton iterations, {:.1} ms wall (median of 5); tip {:.5} mm ({:+.3} % vs elastica {:.5} mm; h = 2.5 ms gives {:.5} mm)",
            1e3 * wall,
            1e3 * tip,
            100.0 * (tip / exact - 1.0),
            1e3 * exact,
            1e3 * tip_fine
        );
        if let Some(py) = &py {
            match pyelastica(py, n, py_dt) {
                Some((pw, ptip)) => println!(
                    "{n} elements: PyElastica position Verlet dt = {py_dt:e} s: {} steps, {:.2} s wall; tip {:.5} mm ({:+.3} % vs elastica) — pliant is {:.0}× faster",
                    (1.0 / py_dt).round(),
                    pw,
                    -1e3 * ptip,
                    100.0 * (-ptip / exact - 1.0),
                    pw / wall
                ),
                None => println!("{n} elements: PyElastica run failed"),
            }
        }
    }
}

fn scaling(sizes: &[usize]) {
    use pliant::core::ModelBuilder;
    use pliant::environment::{Friction, Gravity, Ground, NormalLaw};
    use pliant::rod::Rod;
    for &n in sizes {
        let mut b = ModelBuilder::new(3).unwrap();
        let nodes: Vec<usize> = (0..=n)
            .map(|k| b.add_node(&[1e-3 * k as f64, 0.0, 1.5e-3], 0.0).unwrap())
            .collect();
        b.add(Rod::chain(&nodes, 1e-3, 200e6, 0.5, 1200.0));
        b.add(Gravity::new(&[0.0, 0.0, -9.81]));
        b.add(Ground::new(
            &[0.0; 3],
            &[0.0, 0.0, 1.0],
            NormalLaw::LogExp {
                stiffness: 1e3,
                delta: 2e-4,
            },
            Some(Friction::SmoothCoulomb {
                mu: 0.25,
                mu_axis: None,
                slip_velocity: 1e-3,
            }),
        ));
        let mut sim = Simulator::new(
            b.build().unwrap(),
            Integrator::ImplicitEuler,
            1e-3,
            NewtonSettings::default(),
        )
        .unwrap();
        // 20 steps free fall (h = 1 ms), then 20 timed steps through the
        // impact and sliding on the ground.
        for _ in 0..20 {
            sim.step().unwrap();
        }
        let mut per_step = Vec::new();
        let mut its = 0;
        let mut trace = Vec::new();
        for _ in 0..20 {
            let t = Instant::now();
            let r = sim.step().unwrap().newton;
            its += r.iterations;
            trace.push((r.iterations, format!("{:.1e}", r.residual)));
            per_step.push(t.elapsed().as_secs_f64());
        }
        if std::env::var_os("ROD_SCALING_TRACE").is_some() {
            println!(
                "{n:>6} edges: Newton iterations and final residual (N) per timed step {trace:?}"
            );
        }
        let t = median(per_step);
        println!(
            "{n:>6} edges: {:.3} ms per step ({:.1} Newton iterations per step), {:.2} µs per edge and step",
            1e3 * t,
            its as f64 / 20.0,
            1e6 * t / n as f64
        );
    }
}

fn main() {
    pliant::init();
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let args: Vec<String> = args
        .into_iter()
        .filter(|a| a.parse::<usize>().is_err())
        .collect();
    let want = |k: &str| args.is_empty() || args.iter().any(|a| a == k);
    if want("compare") {
        compare();
    }
    if want("scaling") {
        scaling(if sizes.is_empty() {
            &[100, 1_000, 10_000]
        } else {
            &sizes
        });
    }
}
