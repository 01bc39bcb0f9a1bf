//! Forward sensitivities of whole rollouts against central finite differences
//! of complete rollouts, with contact, friction and an actuated spring.

mod common;

use pliant::core::{Integrator, Simulator};
use pliant::optim::rollout_with_sensitivity;

/// The actuator pulls the apex toward node 1: the tetrahedron tips and slides.
fn sim(integrator: Integrator) -> Simulator {
    common::tetra_robot(integrator, &[(1, "u")])
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
