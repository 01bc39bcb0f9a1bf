//! Scenes shared by the integration tests.
//!
//! `mod common;` in a test file includes this module; each test binary uses
//! only some of it.
#![allow(dead_code)]

use pliant::core::{Integrator, ModelBuilder, NewtonSettings, ParamChannel, Simulator};
use pliant::environment::{Friction, Gravity, Ground, NormalLaw, Spring, Springs};

/// A linear spring between `a` and `b` (N/m), rest length from the initial state.
pub fn spring(a: usize, b: usize, stiffness: f64) -> Spring {
    Spring {
        nodes: [a, b],
        stiffness,
        rest_length: None,
    }
}

/// Newton tolerances tight enough for finite differences of whole rollouts.
pub fn tight_newton() -> NewtonSettings {
    NewtonSettings {
        abs_tol: 1e-13,
        rel_tol: 1e-14,
        max_iterations: 100,
        ..Default::default()
    }
}

/// The plane `z = 0` with a quadratic penalty (`stiffness` N/m, 1 mm
/// smoothing) and smooth Coulomb friction (`μ = 0.5`, 2 cm/s slip).
pub fn ground(stiffness: f64, friction: Friction) -> Ground {
    Ground::new(
        &[0.0, 0.0, 0.0],
        &[0.0, 0.0, 1.0],
        NormalLaw::Quadratic {
            stiffness,
            smoothing: 1e-3,
        },
        Some(friction),
    )
}

/// Smooth Coulomb friction, `μ = 0.5`, regularized below 2 cm/s.
pub fn coulomb() -> Friction {
    Friction::SmoothCoulomb {
        mu: 0.5,
        mu_axis: None,
        slip_velocity: 0.02,
    }
}

/// A spring tetrahedron standing on frictional ground under gravity: a
/// 6 cm base triangle (nodes 0–2, 10 g each, 1 mm into the ground; edges
/// 200 N/m) and an apex (node 3, 5 cm up) tied to the base by 100 N/m
/// springs, except the edges `(base node, channel)` in `actuators`, which
/// are 150 N/m springs contracted by their control channel (m). Steps of
/// 10 ms with [`tight_newton`].
pub fn tetra_robot(integrator: Integrator, actuators: &[(usize, &str)]) -> Simulator {
    let mut b = ModelBuilder::new(3).unwrap();
    for p in [
        [0.0, 0.0, -0.001],
        [0.06, 0.0, -0.001],
        [0.0, 0.06, -0.001],
        [0.02, 0.02, 0.05],
    ] {
        b.add_node(&p, 0.01).unwrap();
    }
    for (_, channel) in actuators {
        b.add_param(ParamChannel::control(channel, 0.0)).unwrap();
    }
    let mut passive = vec![
        spring(0, 1, 200.0),
        spring(1, 2, 200.0),
        spring(0, 2, 200.0),
    ];
    passive.extend(
        (0..3)
            .filter(|n| !actuators.iter().any(|(a, _)| a == n))
            .map(|n| spring(n, 3, 100.0)),
    );
    b.add(Springs::new(passive));
    for (n, channel) in actuators {
        b.add(Springs::with_contraction(
            vec![spring(*n, 3, 150.0)],
            channel,
        ));
    }
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    b.add(ground(300.0, coulomb()));
    Simulator::new(b.build().unwrap(), integrator, 0.01, tight_newton()).unwrap()
}

/// The Puppy's walk, shortened (3 preparation steps, one 12-step cycle, 10
/// settling steps) with fixed keyframes, its Newton settings adjusted by
/// `tune`: a simulator, the settled start positions, and each step's
/// parameters.
pub fn short_puppy_walk(
    tune: impl FnOnce(&mut NewtonSettings),
) -> (Simulator, Vec<f64>, Vec<Vec<f64>>) {
    let mut s = pliant::gait::GaitSetup::puppy_walk(true).unwrap();
    s.gait.prep_steps = 3;
    s.gait.cycle_steps = 12;
    s.gait.cycles = 1;
    s.settle_steps = 10;
    tune(&mut s.newton);
    let z: Vec<f64> = (0..s.gait.nz())
        .map(|j| 0.002 + 0.004 * ((j * 7) % 5) as f64 / 4.0)
        .collect();
    let (shooting, ctx) = s.problem(&z).unwrap();
    let p = shooting.map().params(shooting.base(), &z).unwrap();
    let model = s.robot.model().unwrap();
    let sim = Simulator::new(model, Integrator::Bdf1, s.h, s.newton).unwrap();
    (sim, ctx.x0.clone(), p)
}

/// The largest difference between two trajectories' coordinates, m.
pub fn farthest_apart(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(a, b)| a.iter().zip(b).map(|(a, b)| (a - b).abs()))
        .fold(0.0f64, f64::max)
}
