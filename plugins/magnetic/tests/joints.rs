//! Joints pulled by a point force: they hold below their break force,
//! break in the step their tension first exceeds it (once, with one
//! event), never break in compression or without a break force, and
//! replay exactly after a reset or from recorded carried state.

mod common;

use common::builder;
use pliant_core::{Energy, Integrator, Model, NewtonSettings, ParamChannel, Simulator};
use pliant_environment::{NodeForce, PointForces};
use pliant_magnetic::{BreakEvent, Joint, Joints, JointsEnergy};

const BREAK: f64 = 1.0;

/// Node 0 fixed, node 1 10 cm along x tied to it by a 100 N/m joint that
/// breaks beyond 1 N (or never), pulled along x by a force ramped from 0
/// to `f_end` (N) over 1 s and then held.
fn pulled(dim: usize, f_end: f64, break_force: Option<f64>) -> Simulator {
    let mut b = builder(dim, &[[0.0; 3], [0.1, 0.0, 0.0]], 0.01).unwrap();
    b.fix_node(0).unwrap();
    b.add_param(ParamChannel::control("pull", 0.0).with_keyframes(vec![(0.0, 0.0), (1.0, f_end)]))
        .unwrap();
    let mut force = vec![0.0; dim];
    force[0] = 1.0;
    b.add(PointForces::new(vec![NodeForce { node: 1, force }]).scaled_by("pull"));
    let mut joint = Joint::new([0, 1], 100.0);
    joint.break_force = break_force;
    b.add(Joints::new(vec![joint]));
    let model: Model = b.build().unwrap();
    Simulator::new(
        model,
        Integrator::ImplicitEuler,
        0.01,
        NewtonSettings::default(),
    )
    .unwrap()
}

fn joints(sim: &Simulator) -> &JointsEnergy {
    sim.model().energies_of::<JointsEnergy>()[0]
}

fn observable(sim: &Simulator, name: &str) -> f64 {
    let p = sim.model().params_at(sim.time());
    sim.observables(&p)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no observable {name}"))
        .1
}

#[test]
fn holds_below_its_break_force() {
    for dim in [2, 3] {
        let mut sim = pulled(dim, 0.8, Some(BREAK));
        for _ in 0..150 {
            sim.step().unwrap();
            assert!(!joints(&sim).is_broken(0));
        }
        assert!(joints(&sim).events().is_empty());
        assert_eq!(observable(&sim, "joints.broken"), 0.0);
        let f = observable(&sim, "joints.max_force");
        assert!((f - 0.8).abs() < 0.01, "tension {f} N");
        // Stretched by F/k.
        assert!((sim.q()[dim] - 0.108).abs() < 1e-4);
    }
}

/// Steps `sim` until its joint breaks (at most `max` steps); returns the
/// step count, checking on the way that the tension stayed within the
/// break force until that step and exceeds it in it.
fn step_until_broken(sim: &mut Simulator, max: usize) -> usize {
    for k in 1..=max {
        sim.step().unwrap();
        let e = joints(sim);
        let tension = e.tension(0, sim.q()).unwrap();
        if e.is_broken(0) {
            assert!(tension > BREAK, "broke at {tension} N");
            assert_eq!(
                e.events(),
                &[BreakEvent {
                    time: sim.time(),
                    joint: 0,
                    force: tension,
                }]
            );
            return k;
        }
        assert!(tension <= BREAK, "step {k}: {tension} N and intact");
    }
    panic!("never broke");
}

#[test]
fn breaks_in_the_step_its_tension_exceeds_the_break_force_once() {
    for dim in [2, 3] {
        let mut sim = pulled(dim, 2.0, Some(BREAK));
        let k = step_until_broken(&mut sim, 150);
        // The ramp reaches 1 N at t = 0.5 s; quasi-static, it breaks soon after.
        assert!((50..=60).contains(&k), "broke at step {k}");
        assert_eq!(observable(&sim, "joints.broken"), 1.0);
        assert_eq!(observable(&sim, "joints.max_force"), 0.0, "no intact joint");
        let event = joints(&sim).events()[0];
        for _ in 0..50 {
            sim.step().unwrap();
        }
        // Free now: the node flies off, and the break is recorded once.
        assert!(sim.q()[dim] > 0.2);
        assert_eq!(joints(&sim).events(), &[event]);
        assert!(joints(&sim).elements().is_empty());
        assert_eq!(joints(&sim).tension(1, sim.q()), None);
        assert_eq!(joints(&sim).tension(0, &[0.0]), None);
    }
}

#[test]
fn compression_and_missing_break_forces_never_break() {
    for (f_end, break_force) in [(-2.0, Some(BREAK)), (-2.0, Some(0.0)), (2.0, None)] {
        let mut sim = pulled(3, f_end, break_force);
        for _ in 0..150 {
            sim.step().unwrap();
        }
        assert!(
            joints(&sim).events().is_empty(),
            "{f_end} N, {break_force:?}"
        );
        let t = joints(&sim).tension(0, sim.q()).unwrap();
        assert!((t - f_end).abs() < 0.02, "tension {t}");
    }
}

#[test]
fn replays_exactly_after_a_reset() {
    let mut sim = pulled(3, 2.0, Some(BREAK));
    let (q0, v0) = (sim.q().to_vec(), sim.v().to_vec());
    let run = |sim: &mut Simulator| {
        let mut states = Vec::new();
        for _ in 0..100 {
            sim.step().unwrap();
            states.push(sim.q().to_vec());
        }
        (states, joints(sim).events().to_vec())
    };
    let first = run(&mut sim);
    assert_eq!(first.1.len(), 1);
    sim.set_state(&q0, &v0, 0.0, 0).unwrap();
    assert!(joints(&sim).events().is_empty() && !joints(&sim).is_broken(0));
    assert_eq!(observable(&sim, "joints.broken"), 0.0);
    let second = run(&mut sim);
    assert_eq!(first, second, "bitwise the same run");
}

#[test]
fn carried_state_restores_the_breaks_and_replays_the_breaking_step() {
    let mut sim = pulled(3, 2.0, Some(BREAK));
    let mut carried = vec![sim.carried_state()];
    let mut states = vec![(sim.q().to_vec(), sim.v().to_vec(), sim.time())];
    let k = loop {
        sim.step().unwrap();
        carried.push(sim.carried_state());
        states.push((sim.q().to_vec(), sim.v().to_vec(), sim.time()));
        if joints(&sim).is_broken(0) {
            break states.len() - 1;
        }
    };
    let event = joints(&sim).events()[0];
    assert_eq!(carried[k][1], vec![1.0, event.time, event.force]);
    // Back to before the breaking step: intact, no event.
    sim.restore_carried_state(&carried[k - 1]).unwrap();
    assert!(!joints(&sim).is_broken(0) && joints(&sim).events().is_empty());
    // Replaying that step's derivative blocks breaks it again, identically.
    let p = sim.model().params_at(states[k].2);
    let (x_prev, v_prev, t_prev) = &states[k - 1];
    sim.derivatives_at(&states[k].0, x_prev, v_prev, *t_prev, &p)
        .unwrap();
    assert_eq!(joints(&sim).events(), &[event]);
    // And forward again to the end state.
    sim.restore_carried_state(&carried[k]).unwrap();
    assert_eq!(joints(&sim).events(), &[event]);
    // A malformed snapshot is an error, not a panic.
    assert!(
        sim.restore_carried_state(&[vec![], vec![0.5, 0.0, 0.0]])
            .is_err()
    );
    assert!(sim.restore_carried_state(&[vec![], vec![1.0]]).is_err());
}
