//! `NewtonSettings::local_updates`: kept factorizations refreshed with the
//! ground's node-local Hessian entries reach the same steps as plain reuse,
//! in fewer Newton iterations, on the Puppy walking on its table.

use pliant::core::{Integrator, Simulator};
use pliant::gait::GaitSetup;
use pliant::optim::{Memory, rollout};

/// A short Puppy gait's plain rollout with `local_updates` set: the
/// states and the total of Newton iterations.
fn puppy_rollout(local_updates: bool) -> (Vec<Vec<f64>>, usize) {
    let mut s = GaitSetup::puppy_walk(true).unwrap();
    s.gait.prep_steps = 3;
    s.gait.cycle_steps = 12;
    s.gait.cycles = 1;
    s.settle_steps = 10;
    s.newton.local_updates = local_updates;
    let z: Vec<f64> = (0..s.gait.nz())
        .map(|j| 0.002 + 0.004 * ((j * 7) % 5) as f64 / 4.0)
        .collect();
    let (shooting, ctx) = s.problem(&z).unwrap();
    let p = shooting.map().params(shooting.base(), &z).unwrap();
    let model = s.robot.model().unwrap();
    let mut sim = Simulator::new(model, Integrator::Bdf1, s.h, s.newton).unwrap();
    let v0 = vec![0.0; ctx.x0.len()];
    let tr = rollout(&mut sim, &ctx.x0, &v0, &p, Memory::Recompute).unwrap();
    (tr.x.clone(), tr.newton_iterations.iter().sum())
}

#[test]
fn refreshed_contact_blocks_reach_the_same_steps_in_fewer_iterations() {
    pliant::init();
    assert!(
        !pliant::core::NewtonSettings::fast().local_updates,
        "off by default"
    );
    let (plain, plain_iterations) = puppy_rollout(false);
    let (local, local_iterations) = puppy_rollout(true);
    assert_eq!(plain.len(), local.len());
    // Both meet Newton's 1e-6 N tolerance at every step; the paths differ
    // by what that tolerance allows (contact stiffness 2000 N/m).
    let apart = plain
        .iter()
        .zip(&local)
        .flat_map(|(a, b)| a.iter().zip(b).map(|(a, b)| (a - b).abs()))
        .fold(0.0f64, f64::max);
    let moved = plain[0]
        .iter()
        .zip(plain.last().unwrap())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f64, f64::max);
    assert!(moved > 1e-3, "the Puppy moved ({moved} m)");
    assert!(apart < 1e-6, "states {apart} m apart");
    assert!(
        local_iterations < plain_iterations,
        "{local_iterations} Newton iterations with refreshed blocks, {plain_iterations} without"
    );
}
