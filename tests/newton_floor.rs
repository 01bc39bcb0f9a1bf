//! A tolerance below what `f64` resolves for the problem does not fail a
//! run: Newton accepts a residual that stops falling at the round-off floor
//! (with a logged warning and `NewtonStats::at_noise_floor` set), and still
//! fails where the residual is far above that floor.

use pliant::core::{CoreError, Integrator, NewtonSettings, Simulator};
use pliant::rod_cantilever::RodCantilever;

fn rod(tol: f64, integrator: Integrator, h: f64) -> Simulator {
    let c = RodCantilever {
        edges: 50,
        youngs: 2e9,
        damping: 0.0,
    };
    let newton = NewtonSettings {
        abs_tol: tol,
        rel_tol: 0.0,
        ..Default::default()
    };
    Simulator::new(c.model().unwrap(), integrator, h, newton).unwrap()
}

#[test]
fn an_unreachable_tolerance_is_accepted_at_the_round_off_floor() {
    // 1e-15 N on a 50-edge rod whose forces round off near 1e-12 N.
    let mut sim = rod(1e-15, Integrator::ImplicitEuler, 0.01);
    let mut floored = 0;
    for _ in 0..150 {
        let r = sim
            .step()
            .expect("a step at the round-off floor must not fail");
        assert!(r.newton.residual.is_finite());
        if r.newton.at_noise_floor {
            floored += 1;
            // Accepted only well below any physically meaningful force.
            assert!(r.newton.residual < 1e-9, "{:e} N", r.newton.residual);
        }
    }
    assert!(floored > 0, "the tolerance was reachable after all");
    // The static solve too.
    let mut sim = rod(1e-16, Integrator::Static, 1.0);
    let r = sim.step().expect("static solve at the floor");
    assert!(r.newton.at_noise_floor && r.newton.residual < 1e-9);
}

#[test]
fn a_residual_far_above_the_floor_still_fails() {
    // Two iterations cannot solve the static cantilever from the straight
    // rod: the residual is many orders above the floor.
    let c = RodCantilever {
        edges: 50,
        youngs: 2e7,
        damping: 0.0,
    };
    let newton = NewtonSettings {
        max_iterations: 2,
        ..Default::default()
    };
    let mut sim = Simulator::new(c.model().unwrap(), Integrator::Static, 1.0, newton).unwrap();
    match sim.step() {
        Err(CoreError::NewtonDiverged { residual, .. }) => assert!(residual > 1e-6, "{residual:e}"),
        other => panic!("expected a Newton failure, got {other:?}"),
    }
}
