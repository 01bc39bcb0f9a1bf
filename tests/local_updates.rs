//! `NewtonSettings::local_updates`: kept factorizations refreshed with the
//! ground's node-local Hessian entries reach the same steps as plain reuse,
//! in fewer Newton iterations, on the Puppy walking on its table.

mod common;

use pliant::optim::{Memory, rollout};

/// A short Puppy gait's plain rollout with `local_updates` set: the
/// states and the total of Newton iterations.
fn puppy_rollout(local_updates: bool) -> (Vec<Vec<f64>>, usize) {
    let (mut sim, x0, p) = common::short_puppy_walk(|n| n.local_updates = local_updates);
    let v0 = vec![0.0; x0.len()];
    let tr = rollout(&mut sim, &x0, &v0, &p, Memory::Recompute).unwrap();
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
    let apart = common::farthest_apart(&plain, &local);
    let moved = common::farthest_apart(&plain[..1], &plain[plain.len() - 1..]);
    assert!(moved > 1e-3, "the Puppy moved ({moved} m)");
    assert!(apart < 1e-6, "states {apart} m apart");
    assert!(
        local_iterations < plain_iterations,
        "{local_iterations} Newton iterations with refreshed blocks, {plain_iterations} without"
    );
}
