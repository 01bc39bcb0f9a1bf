//! Gradients of whole rollouts through an ideal-gas cavity, whose Hessian
//! has a rank-one term coupling every node of its surface: under implicit
//! midpoint and symplectic Euler that term sits in every step's
//! `∂g/∂x_{k−1}` as a rank-one part (`SparsePlusLowRank`), which the
//! forward sweep applies and the adjoint sweep applies transposed. Both
//! against central finite differences of complete rollouts, with the gas
//! amount (mol) as the control.

use pliant::core::{Integrator, ModelBuilder, NewtonSettings, ParamChannel, Simulator};
use pliant::environment::{Spring, Springs};
use pliant::mesh::SurfaceMesh;
use pliant::optim::{AverageVelocity, Gait, Motor, Objective, Shooting};
use pliant::pneumatic::{ATMOSPHERE, Cavity, Gas, Quantity};

/// A ball of gas (an icosahedron of radius 6 cm) held by springs between
/// every pair of its 12 vertices, vertex 0 fixed, in a near vacuum (100 Pa
/// ambient); its amount of gas is channel `n` (mol), none at first (the
/// gait pumps it in: 0.004 mol is about a tenth of an atmosphere here).
fn gas_ball(integrator: Integrator, h: f64) -> Simulator {
    let ball = SurfaceMesh::icosphere(0.06, [0.0; 3], 0);
    let mut b = ModelBuilder::new(3).unwrap();
    for c in &ball.vertices {
        b.add_node(c, 0.01).unwrap();
    }
    b.fix_node(0).unwrap();
    let n = ball.vertices.len();
    let mut springs = vec![];
    for i in 0..n {
        for j in i + 1..n {
            springs.push(Spring {
                nodes: [i, j],
                stiffness: 2e4,
                rest_length: None,
            });
        }
    }
    b.add(Springs::new(springs));
    b.add_param(ParamChannel::control("n", 0.0)).unwrap();
    let mut cavity = Cavity::ideal_gas(ball.triangles, ATMOSPHERE).with_ambient(100.0);
    cavity.gas = Some(Gas {
        amount: Some(Quantity::Channel("n".into())),
        pressure_at_rest: None,
        temperature: 293.15,
    });
    b.add(cavity);
    let newton = NewtonSettings {
        abs_tol: 1e-12,
        rel_tol: 1e-14,
        max_iterations: 100,
        ..NewtonSettings::default()
    };
    Simulator::new(b.build().unwrap(), integrator, h, newton).unwrap()
}

#[test]
fn gas_cavity_rollout_gradients_match_finite_differences_under_midpoint_and_symplectic_euler() {
    for (integrator, h, steps) in [
        (Integrator::ImplicitMidpoint, 2e-3, 4),
        (Integrator::SymplecticEuler, 2e-4, 20),
    ] {
        let sim = gas_ball(integrator, h);
        let gait = Gait {
            motors: vec![Motor {
                name: "n".into(),
                channels: vec!["n".into()],
                mirror_of: None,
            }],
            keyframes: 2,
            prep_steps: steps,
            cycle_steps: steps,
            cycles: 1,
            bounds: None,
        };
        let map = gait.control_map(sim.model()).unwrap();
        let objectives: Vec<Box<dyn Objective>> = vec![Box::new(
            AverageVelocity::new(sim.model(), &[0, 2], vec![0.5, 0.5], 1.0).unwrap(),
        )];
        let problem = Shooting::new(sim, map, objectives).unwrap();
        let w = problem.w_of(&[0.004, 0.003]);
        let c = problem.check_gradient(&w, 1e-6).unwrap();
        eprintln!("{integrator:?}: {c}");
        assert!(c.scale > 1e-4, "{integrator:?}: gradient scale {}", c.scale);
        assert!(c.forward_vs_fd < 1e-5, "{integrator:?}: {c}");
        assert!(c.adjoint_vs_forward < 1e-9, "{integrator:?}: {c}");
    }
}
