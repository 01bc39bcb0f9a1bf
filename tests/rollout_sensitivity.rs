//! Forward sensitivities of whole rollouts against central finite differences
//! of complete rollouts, with contact, friction and an actuated spring.

use pliant::core::{Integrator, ModelBuilder, NewtonSettings, ParamChannel, Simulator};
use pliant::environment::{Friction, Gravity, Ground, NormalLaw, Spring, Springs};
use pliant::optim::rollout_with_sensitivity;

fn sim(integrator: Integrator) -> Simulator {
    let mut b = ModelBuilder::new(3).unwrap();
    for p in [
        [0.0, 0.0, -0.001],
        [0.06, 0.0, -0.001],
        [0.0, 0.06, -0.001],
        [0.02, 0.02, 0.05],
    ] {
        b.add_node(&p, 0.01).unwrap();
    }
    b.add_param(ParamChannel::control("u", 0.0)).unwrap();
    let s = |a, c, k| Spring {
        nodes: [a, c],
        stiffness: k,
        rest_length: None,
    };
    b.add(Springs::new(vec![
        s(0, 1, 200.0),
        s(1, 2, 200.0),
        s(0, 2, 200.0),
        s(0, 3, 100.0),
        s(2, 3, 100.0),
    ]));
    // The actuator pulls node 3 toward node 1: the triangle tips and slides.
    b.add(Springs::with_contraction(vec![s(1, 3, 150.0)], "u"));
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    b.add(Ground::new(
        &[0.0, 0.0, 0.0],
        &[0.0, 0.0, 1.0],
        NormalLaw::Quadratic {
            stiffness: 300.0,
            smoothing: 1e-3,
        },
        Some(Friction::SmoothCoulomb {
            mu: 0.5,
            mu_axis: None,
            slip_velocity: 0.02,
        }),
    ));
    let newton = NewtonSettings {
        abs_tol: 1e-13,
        rel_tol: 1e-14,
        max_iterations: 100,
        ..Default::default()
    };
    Simulator::new(b.build().unwrap(), integrator, 0.01, newton).unwrap()
}

#[test]
fn forward_sensitivity_matches_finite_differences_of_whole_rollouts() {
    let steps = 30;
    for integ in [Integrator::Bdf1, Integrator::ImplicitMidpoint] {
        let u = 0.01;
        let r = rollout_with_sensitivity(&mut sim(integ), &[u], &[0], steps).unwrap();
        // The undamped midpoint rollout is strongly nonlinear in u: its FD
        // truncation error shrinks as ε² (5.9e-2, 5.6e-4, 5.6e-6, 6.2e-8 for
        // ε = 1e-5 … 1e-8), so it needs the smaller step.
        let eps = if integ == Integrator::Bdf1 {
            1e-7
        } else {
            1e-8
        };
        let end = |u: f64| {
            let mut s = sim(integ);
            for _ in 0..steps {
                s.step_with(&[u], false).unwrap();
            }
            s.q().to_vec()
        };
        let (a, b) = (end(u + eps), end(u - eps));
        let fd: Vec<f64> = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - y) / (2.0 * eps))
            .collect();
        let scale = fd.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let err = fd
            .iter()
            .zip(&r.dx_dp[0])
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        eprintln!("{integ:?}: max |dx/du − FD| = {err:.3e}, scale {scale:.3e}");
        assert!(scale > 1e-2, "the control must move the robot");
        assert!(err < 1e-6 * scale, "{integ:?}: {err} vs {scale}");
    }
}
