//! Rollout gradients of a rod robot with respect to natural-curvature
//! controls: a short swimming snake (RFT drag) whose front and back halves
//! bend by two motors. Forward sensitivity and adjoint agree with central
//! finite differences of whole rollouts and with each other, so rod robots
//! are optimized with the same optim crate as FEM robots. A non-planar
//! variant checks that blocks rebuilt at stored states (Memory::Recompute,
//! frames restored from the recorded carried state) equal those recorded
//! during the rollout (Memory::Store), and that out of the plane, where
//! the reference frames carry history, the gradients are as exact as in
//! the plane; so is a twisted rod on frictional ground.

use pliant::core::{Integrator, ModelBuilder, NewtonSettings, ParamChannel, ParamKind, Simulator};
use pliant::environment::{Friction, Gravity, Ground, NormalLaw, ResistiveForce};
use pliant::optim::{CentreOfMass, ComPath, Gait, Memory, Motor, Objective, Shooting};
use pliant::rod::{Actuation, Rod};

const EDGES: usize = 8;

/// The snake: 8 edges of 1 cm, r = 1 mm, E = 2 MPa, in the plane z = 0
/// (or with a 3-D initial shape); curvature channel `front` drives springs
/// 0–3, `back` springs 4–6 (axis 2: bending in the plane of a rod whose
/// first director is the plane normal).
fn snake(planar: bool, memory: Memory) -> Shooting {
    snake_with(planar, memory, false)
}

/// [`snake`], with a spare simulator of the same model when `spare`.
fn snake_with(planar: bool, memory: Memory, spare: bool) -> Shooting {
    let newton = NewtonSettings {
        abs_tol: 1e-13,
        rel_tol: 1e-13,
        max_iterations: 100,
        ..Default::default()
    };
    let h = 0.01;
    let sim = Simulator::new(snake_model(planar), Integrator::ImplicitEuler, h, newton).unwrap();
    let spares: Vec<Simulator> = (0..usize::from(spare))
        .map(|_| Simulator::new(snake_model(planar), Integrator::ImplicitEuler, h, newton).unwrap())
        .collect();
    let gait = Gait {
        motors: vec![
            Motor {
                name: "front".into(),
                channels: vec!["front".into()],
                mirror_of: None,
            },
            Motor {
                name: "back".into(),
                channels: vec!["back".into()],
                mirror_of: None,
            },
        ],
        keyframes: 3,
        prep_steps: 4,
        cycle_steps: 9,
        cycles: 1,
        bounds: None,
    };
    let map = gait.control_map(sim.model()).unwrap();
    let model = sim.model();
    let c0 = CentreOfMass::new(model, &[0, 1]).unwrap().of(model.q0());
    let targets = ComPath::straight(&c0, &[0.002, 0.001], gait.steps(), h);
    let objectives: Vec<Box<dyn Objective>> = vec![Box::new(
        ComPath::new(model, &[0, 1], targets, 1e4).unwrap(),
    )];
    Shooting::new(sim, map, objectives)
        .unwrap()
        .with_memory(memory)
        .with_spare_simulators(spares)
        .unwrap()
}

/// The snake's model (see [`snake`]).
fn snake_model(planar: bool) -> pliant::core::Model {
    let mut b = ModelBuilder::new(3).unwrap();
    let nodes: Vec<usize> = (0..=EDGES)
        .map(|k| {
            let s = k as f64 * 0.01;
            let z = if planar {
                0.0
            } else {
                0.002 * (3.0 * s / 0.08).sin()
            };
            let y = if planar {
                0.0
            } else {
                0.003 * (5.0 * s / 0.08).cos()
            };
            b.add_node(&[s, y, z], 0.0).unwrap()
        })
        .collect();
    for name in ["front", "back"] {
        b.add_param(ParamChannel {
            name: name.into(),
            kind: ParamKind::Control,
            value: 0.0,
            keyframes: vec![],
        })
        .unwrap();
    }
    b.add(
        Rod::chain(&nodes, 1e-3, 2e6, 0.5, 1200.0)
            .with_first_director([0.0, 0.0, 1.0])
            .actuate(Actuation::curvature("front", 2, Some(vec![0, 1, 2, 3])))
            .actuate(Actuation::curvature("back", 2, Some(vec![4, 5, 6]))),
    );
    let edges: Vec<[usize; 2]> = nodes.windows(2).map(|w| [w[0], w[1]]).collect();
    b.add(ResistiveForce::new(edges, 0.01, 0.1));
    b.build().unwrap()
}

/// Keyframe values (curvature increments, 1/m) of the two motors.
const Z: [f64; 6] = [8.0, -5.0, 3.0, -6.0, 7.0, -2.0];

#[test]
fn snake_curvature_gradients_match_finite_differences_and_each_other() {
    let p = snake(true, Memory::Recompute);
    let c = p.check_gradient(&Z, 1e-4).unwrap();
    eprintln!("{c}");
    assert!(c.scale > 1e-9, "gradient {:?}", c.forward);
    assert!(c.forward_vs_fd < 1e-5, "{c}");
    assert!(c.adjoint_vs_forward < 1e-9, "{c}");
}

#[test]
fn recomputed_blocks_equal_recorded_ones_for_a_twisted_rod() {
    // Out of the plane the reference frames are transported along a path
    // of tangents; the recomputed blocks must see the recorded frames.
    let (rs, js) = snake(false, Memory::Store).jacobian(&Z).unwrap();
    let (rr, jr) = snake(false, Memory::Recompute).jacobian(&Z).unwrap();
    let d = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    };
    let scale = js.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    eprintln!(
        "residuals differ by {:e}, Jacobians by {:e} (scale {scale:e})",
        d(&rs, &rr),
        d(&js, &jr)
    );
    assert_eq!(rs, rr, "the rollouts themselves must agree bitwise");
    assert!(
        d(&js, &jr) <= 1e-12 * scale,
        "Jacobians differ by {}",
        d(&js, &jr)
    );
}

/// A spare simulator rebuilds two steps' blocks of every three beside the
/// sweep (`Shooting::jacobian`, `Shooting::gradient`); on the twisted rod,
/// whose blocks depend on the carried frames each rebuild restores, the
/// Jacobian and the gradient must be the same bit for bit.
#[test]
fn a_spare_simulator_rebuilds_the_same_jacobian() {
    let (r1, j1) = snake_with(false, Memory::Recompute, false)
        .jacobian(&Z)
        .unwrap();
    let p = snake_with(false, Memory::Recompute, true);
    let (r2, j2) = p.jacobian(&Z).unwrap();
    assert_eq!(r1, r2);
    assert_eq!(j1, j2, "the Jacobian must not depend on the spare");
    let g1 = snake_with(false, Memory::Recompute, false)
        .gradient(&Z)
        .unwrap();
    let g2 = p.gradient(&Z).unwrap();
    assert_eq!(g1, g2, "nor the adjoint gradient");
    // The spare is left fit for a trial rollout: the second of two
    // concurrent trials runs on it and costs what the same trial costs on
    // a problem without a spare that took the same derivatives (trials
    // start near that trajectory), and what a cold rollout costs within
    // Newton's tolerance.
    let w = Z.map(|z| 1.1 * z);
    let trials = [Z.map(|z| 0.9 * z).to_vec(), w.to_vec()];
    let q = snake_with(false, Memory::Recompute, false);
    q.jacobian(&Z).unwrap();
    q.gradient(&Z).unwrap();
    let c1 = q.costs_below(&trials, f64::INFINITY);
    let c2 = p.costs_below(&trials, f64::INFINITY);
    let c2 = c2[1].as_ref().unwrap().unwrap();
    assert_eq!(c2, c1[1].as_ref().unwrap().unwrap());
    let c = pliant::optim::gradient::cost(&snake(false, Memory::Recompute).residuals(&w).unwrap());
    assert!((c2 - c).abs() <= 1e-9 * c, "{c2} against a cold {c}");
    assert!(p.stats().rollouts_in_parallel > 0, "the spare ran a trial");
}

/// Out of the plane the reference frames are transported along the path
/// of tangents, so each step's energy depends on the whole history (a
/// holonomy). The sensitivities follow the carried frames through the
/// recurrence: on this twisted, non-planar snake they agree with central
/// differences of whole rollouts like the planar one does (before the
/// frames were followed, this test measured 1.4e-4).
#[test]
fn twisted_rod_gradients_match_finite_differences() {
    let p = snake(false, Memory::Recompute);
    let c = p.check_gradient(&Z, 1e-4).unwrap();
    eprintln!("{c}");
    assert!(c.scale > 1e-9, "gradient {:?}", c.forward);
    assert!(c.forward_vs_fd < 1e-6, "{c}");
    assert!(c.adjoint_vs_forward < 1e-9, "{c}");
}

/// A rod crawling on frictional ground, out of the plane and twisted:
/// curvature about both material axes and natural twist are controlled,
/// gravity presses it onto the ground (penalty contact with smooth Coulomb
/// friction). Forward and adjoint gradients of a centre-of-mass objective
/// against central differences of whole rollouts.
fn crawler(memory: Memory, integrator: Integrator, h: f64) -> Shooting {
    let mut b = ModelBuilder::new(3).unwrap();
    let n_edges = 6;
    let nodes: Vec<usize> = (0..=n_edges)
        .map(|k| {
            let s = k as f64 * 0.01;
            let y = 0.004 * (4.0 * s / 0.06).sin();
            let z = 0.0003 + 0.0015 * (1.0 + (3.0 * s / 0.06).cos()) / 2.0;
            b.add_node(&[s, y, z], 0.0).unwrap()
        })
        .collect();
    for name in ["bend1", "bend2", "twist"] {
        b.add_param(ParamChannel::control(name, 0.0)).unwrap();
    }
    b.add(
        Rod::chain(&nodes, 1e-3, 1e6, 0.5, 1200.0)
            .with_first_director([0.0, 0.0, 1.0])
            .actuate(Actuation::curvature("bend1", 1, Some(vec![0, 1, 2])))
            .actuate(Actuation::curvature("bend2", 2, Some(vec![2, 3, 4])))
            .actuate(Actuation::twist("twist", None)),
    );
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    b.add(Ground::new(
        &[0.0, 0.0, 0.0],
        &[0.0, 0.0, 1.0],
        NormalLaw::Quadratic {
            stiffness: 50.0,
            smoothing: 1e-4,
        },
        Some(Friction::SmoothCoulomb {
            mu: 0.4,
            mu_axis: None,
            slip_velocity: 0.01,
        }),
    ));
    let newton = NewtonSettings {
        abs_tol: 1e-13,
        rel_tol: 1e-13,
        max_iterations: 100,
        ..Default::default()
    };
    let motor = |name: &str| Motor {
        name: name.into(),
        channels: vec![name.into()],
        mirror_of: None,
    };
    let gait = Gait {
        motors: vec![motor("bend1"), motor("bend2"), motor("twist")],
        keyframes: 2,
        prep_steps: 3,
        cycle_steps: 8,
        cycles: 1,
        bounds: None,
    };
    let sim = Simulator::new(b.build().unwrap(), integrator, h, newton).unwrap();
    let map = gait.control_map(sim.model()).unwrap();
    let model = sim.model();
    let c0 = CentreOfMass::new(model, &[0, 1, 2]).unwrap().of(model.q0());
    let targets = ComPath::straight(&c0, &[0.003, 0.002, 0.0], gait.steps(), h);
    let objectives: Vec<Box<dyn Objective>> = vec![Box::new(
        ComPath::new(model, &[0, 1, 2], targets, 1e4).unwrap(),
    )];
    Shooting::new(sim, map, objectives)
        .unwrap()
        .with_memory(memory)
}

#[test]
fn a_twisted_rod_on_frictional_ground_has_exact_rollout_gradients() {
    // Curvature increments (1/m) and twist (rad/m) keyframes.
    let z = [20.0, -15.0, 12.0, -18.0, 30.0, -25.0];
    for (memory, integrator) in [
        (Memory::Store, Integrator::ImplicitEuler),
        (Memory::Recompute, Integrator::ImplicitEuler),
        (Memory::Recompute, Integrator::Bdf1),
        (Memory::Recompute, Integrator::ImplicitMidpoint),
    ] {
        // (Symplectic Euler, explicit in the elastic forces, needs steps
        // below 2e-5 s for these stiff 1 cm edges; over this short horizon
        // the controls then move nothing.)
        let p = crawler(memory, integrator, 0.01);
        let c = p.check_gradient(&z, 1e-4).unwrap();
        eprintln!("{memory:?}, {integrator:?}: {c}");
        assert!(c.scale > 1e-9, "gradient {:?}", c.forward);
        assert!(c.forward_vs_fd < 1e-6, "{memory:?}, {integrator:?}: {c}");
        assert!(
            c.adjoint_vs_forward < 1e-9,
            "{memory:?}, {integrator:?}: {c}"
        );
    }
}
