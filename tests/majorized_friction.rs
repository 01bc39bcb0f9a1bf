//! `NewtonSettings::majorize`: after a refused full step, Newton factorizes
//! the smooth Coulomb friction's majorizer instead of its exact Hessian.
//! On the Puppy walking on its table the steps end where exact Newton ends
//! them (within the 1e-6 N tolerance), with fewer line-search halvings.

use pliant::core::{Integrator, NewtonSettings, Simulator};
use pliant::gait::GaitSetup;

/// What a short Puppy gait's plain rollout gives with `majorize` set.
struct Run {
    states: Vec<Vec<f64>>,
    iterations: usize,
    backtracks: usize,
    majorized: usize,
}

fn puppy_rollout(majorize: bool) -> Run {
    let mut s = GaitSetup::puppy_walk(true).unwrap();
    s.gait.prep_steps = 3;
    s.gait.cycle_steps = 12;
    s.gait.cycles = 1;
    s.settle_steps = 10;
    s.newton.majorize = majorize;
    let z: Vec<f64> = (0..s.gait.nz())
        .map(|j| 0.002 + 0.004 * ((j * 7) % 5) as f64 / 4.0)
        .collect();
    let (shooting, ctx) = s.problem(&z).unwrap();
    let p = shooting.map().params(shooting.base(), &z).unwrap();
    let model = s.robot.model().unwrap();
    let mut sim = Simulator::new(model, Integrator::Bdf1, s.h, s.newton).unwrap();
    sim.set_state(&ctx.x0, &vec![0.0; ctx.x0.len()], 0.0, 0)
        .unwrap();
    let mut run = Run {
        states: vec![ctx.x0.clone()],
        iterations: 0,
        backtracks: 0,
        majorized: 0,
    };
    for pk in &p {
        let (report, _) = sim.step_with(pk, false).unwrap();
        run.iterations += report.newton.iterations;
        run.backtracks += report.newton.backtracks;
        run.majorized += report.newton.majorized;
        run.states.push(sim.q().to_vec());
    }
    run
}

#[test]
fn majorized_friction_directions_reach_the_same_steps() {
    pliant::init();
    assert!(NewtonSettings::fast().majorize, "on in fast()");
    assert!(!NewtonSettings::default().majorize, "off by default");
    let exact = puppy_rollout(false);
    let major = puppy_rollout(true);
    eprintln!(
        "exact: {} iterations, {} halvings; majorized: {} iterations, {} halvings, {} majorized factorizations",
        exact.iterations, exact.backtracks, major.iterations, major.backtracks, major.majorized
    );
    assert_eq!(exact.majorized, 0);
    assert!(major.majorized > 0, "no full step was refused");
    let apart = exact
        .states
        .iter()
        .zip(&major.states)
        .flat_map(|(a, b)| a.iter().zip(b).map(|(a, b)| (a - b).abs()))
        .fold(0.0f64, f64::max);
    let moved = exact.states[0]
        .iter()
        .zip(exact.states.last().unwrap())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f64, f64::max);
    assert!(moved > 1e-3, "the Puppy moved ({moved} m)");
    // Both meet the 1e-6 N tolerance at every step (contact stiffness
    // 2000 N/m): the paths differ by what it allows.
    assert!(apart < 1e-6, "states {apart} m apart");
    assert!(
        major.backtracks < exact.backtracks,
        "{} halvings with majorized directions, {} without",
        major.backtracks,
        exact.backtracks
    );
}
