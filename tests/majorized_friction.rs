//! `NewtonSettings::majorize`: after a refused full step, Newton factorizes
//! the smooth Coulomb friction's majorizer instead of its exact Hessian.
//! On the Puppy walking on its table the steps end where exact Newton ends
//! them (within the 1e-6 N tolerance), with fewer line-search halvings.

mod common;

use pliant::core::NewtonSettings;

/// What a short Puppy gait's plain rollout gives with `majorize` set.
struct Run {
    states: Vec<Vec<f64>>,
    iterations: usize,
    backtracks: usize,
    majorized: usize,
}

fn puppy_rollout(majorize: bool) -> Run {
    let (mut sim, x0, p) = common::short_puppy_walk(|n| n.majorize = majorize);
    sim.set_state(&x0, &vec![0.0; x0.len()], 0.0, 0).unwrap();
    let mut run = Run {
        states: vec![x0.clone()],
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
    let apart = common::farthest_apart(&exact.states, &major.states);
    let moved = common::farthest_apart(&exact.states[..1], &exact.states[exact.states.len() - 1..]);
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
