//! Compares the Newton direction strategies for indefinite Hessians
//! (exact + diagonal shift, exact-then-project, always-project) on three problems:
//! a slender lattice column compressed quasi-statically until it buckles
//! (compressed springs make element Hessians indefinite), a chain released
//! sideways with large steps (large rotations, springs in compression), and
//! the demo's dynamic drop. Prints Newton iterations, how often the fallbacks fired and
//! wall time (median of 3 runs, release mode):
//!
//! `cargo run --release --example hessian_strategies`

use pliant::core::{HessianStrategy, Integrator, ModelBuilder, NewtonSettings, Simulator};
use pliant::environment::{Gravity, Spring, Springs};
use std::time::Instant;

fn column(strategy: HessianStrategy) -> Simulator {
    pliant::lattice::buckling_column(NewtonSettings {
        hessian: strategy,
        max_iterations: 200,
        ..Default::default()
    })
    .unwrap()
}

fn swing(strategy: HessianStrategy) -> Simulator {
    let n = 10;
    let mut b = ModelBuilder::new(3).unwrap();
    for i in 0..=n {
        b.add_node(&[0.03 * i as f64, 0.0, 0.0], 0.01).unwrap();
    }
    b.fix_node(0).unwrap();
    let springs = (0..n)
        .map(|i| Spring {
            nodes: [i, i + 1],
            stiffness: 300.0,
            rest_length: None,
        })
        .collect();
    b.add(Springs::new(springs));
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    let settings = NewtonSettings {
        hessian: strategy,
        max_iterations: 200,
        ..Default::default()
    };
    Simulator::new(
        b.build().unwrap(),
        Integrator::ImplicitEuler,
        0.05,
        settings,
    )
    .unwrap()
}

fn demo(strategy: HessianStrategy) -> (Simulator, usize) {
    let d = pliant::lattice::lattice_drop().unwrap();
    let r = &d.settings;
    let settings = NewtonSettings {
        hessian: strategy,
        ..r.newton
    };
    (
        Simulator::new(d.model, r.integrator, r.dt, settings).unwrap(),
        r.steps,
    )
}

fn run(mut sim: Simulator, steps: usize) -> (usize, usize, usize, Result<(), String>) {
    let (mut it, mut pr, mut sh) = (0, 0, 0);
    for _ in 0..steps {
        match sim.step() {
            Ok(r) => {
                it += r.newton.iterations;
                pr += r.newton.projected;
                sh += r.newton.shifted;
            }
            Err(e) => return (it, pr, sh, Err(e.to_string())),
        }
    }
    (it, pr, sh, Ok(()))
}

fn main() {
    pliant::init();
    for (name, strategy) in [
        ("exact_shift", HessianStrategy::ExactShift),
        ("exact_then_project", HessianStrategy::ExactThenProject),
        ("project", HessianStrategy::Project),
    ] {
        for problem in [
            "buckling column (12 load steps)",
            "swinging chain (40 steps of 50 ms)",
            "demo drop (300 steps)",
        ] {
            let mut times = Vec::new();
            let mut out = None;
            for _ in 0..3 {
                let (sim, steps) = if problem.starts_with("buckling") {
                    (column(strategy), 12)
                } else if problem.starts_with("swinging") {
                    (swing(strategy), 40)
                } else {
                    demo(strategy)
                };
                let t = Instant::now();
                let r = run(sim, steps);
                times.push(t.elapsed().as_secs_f64());
                out = Some(r);
            }
            times.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let (it, pr, sh, res) = out.unwrap();
            println!(
                "{name:>18} | {problem:<36} | {it:>4} Newton iterations, {pr:>3} projected, {sh:>3} shifted | {:>7.1} ms | {}",
                times[1] * 1e3,
                match res {
                    Ok(()) => "converged".to_string(),
                    Err(e) => format!("FAILED: {e}"),
                }
            );
        }
    }
}
