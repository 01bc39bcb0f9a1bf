//! Compares the Newton direction strategies for indefinite Hessians
//! (exact + diagonal shift, exact-then-project, always-project) on three problems:
//! a slender lattice column compressed quasi-statically until it buckles
//! (compressed springs make element Hessians indefinite), a chain released
//! sideways with large steps (large rotations, springs in compression), and
//! the demo's dynamic drop. Prints Newton iterations, how often the fallbacks fired and
//! wall time (median of 3 runs, release mode):
//!
//! `cargo run --release --example hessian_strategies`

use pliant::core::{HessianStrategy, Integrator, ModelBuilder, Motion, NewtonSettings, Simulator};
use pliant::environment::{Gravity, Spring, Springs};
use pliant::lattice::SpringLattice;
use std::time::Instant;

fn column(strategy: HessianStrategy) -> Simulator {
    let lat = SpringLattice {
        n: [3, 3, 16],
        spacing: 0.01,
        stiffness: 200.0,
        node_mass: 1e-3,
        origin: [0.0; 3],
    };
    let mut b = ModelBuilder::new(3).unwrap();
    lat.add_to(&mut b).unwrap();
    for j in 0..3 {
        for i in 0..3 {
            b.fix_node(lat.node(i, j, 0)).unwrap();
            let top = lat.node(i, j, 15);
            b.constrain(3 * top, Motion::Fixed).unwrap();
            b.constrain(3 * top + 1, Motion::Fixed).unwrap();
            // Shorten the column by 3 mm per load step (t counts steps: dt = 1).
            b.constrain(3 * top + 2, Motion::Linear { velocity: -0.003 })
                .unwrap();
        }
    }
    let m = b.build().unwrap();
    let settings = NewtonSettings {
        hessian: strategy,
        max_iterations: 200,
        ..Default::default()
    };
    // An imperfection so the column picks a buckling direction (the springs'
    // rest lengths stay those of the straight column).
    let mid = lat.node(1, 1, 8);
    let (mut q, v) = (m.q0().to_vec(), m.v0().to_vec());
    q[3 * mid] += 1e-4;
    let mut sim = Simulator::new(m, Integrator::Static, 1.0, settings).unwrap();
    sim.set_state(&q, &v, 0.0, 0).unwrap();
    sim
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
