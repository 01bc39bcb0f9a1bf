//! A tolerance below what `f64` resolves for the problem does not fail a
//! run: Newton accepts a residual that stops falling at the round-off floor
//! (with a logged warning and `NewtonStats::at_noise_floor` set), and still
//! fails where the residual is far above that floor. A residual within the
//! resolution of the state is accepted at once, so a body far from the
//! origin takes no more iterations than at it.

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

/// Newton iterations of 40 steps (h = 1 ms) of a 200-edge rod of 1 mm
/// edges released 0.5 mm above frictional ground, its first node at
/// `x0` (m), and the largest final residual (N).
fn rod_on_ground(x0: f64) -> (usize, f64) {
    use pliant::core::ModelBuilder;
    use pliant::environment::{Friction, Gravity, Ground, NormalLaw};
    use pliant::rod::Rod;
    let mut b = ModelBuilder::new(3).unwrap();
    let nodes: Vec<usize> = (0..=200)
        .map(|k| {
            b.add_node(&[x0 + 1e-3 * k as f64, 0.0, 1.5e-3], 0.0)
                .unwrap()
        })
        .collect();
    b.add(Rod::chain(&nodes, 1e-3, 200e6, 0.5, 1200.0));
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    b.add(Ground::new(
        &[0.0; 3],
        &[0.0, 0.0, 1.0],
        NormalLaw::LogExp {
            stiffness: 1e3,
            delta: 2e-4,
        },
        Some(Friction::SmoothCoulomb {
            mu: 0.25,
            mu_axis: None,
            slip_velocity: 1e-3,
        }),
    ));
    let mut sim = Simulator::new(
        b.build().unwrap(),
        Integrator::ImplicitEuler,
        1e-3,
        NewtonSettings::default(),
    )
    .unwrap();
    let (mut its, mut worst) = (0, 0.0f64);
    for _ in 0..40 {
        let r = sim.step().unwrap().newton;
        its += r.iterations;
        worst = worst.max(r.residual);
    }
    (its, worst)
}

#[test]
fn a_rod_far_from_the_origin_needs_no_extra_iterations() {
    // 10 m from the origin, one unit in the last place of a coordinate is
    // 1.8e-15 m, which the axial stiffness EA/ℓ = 6.3e5 N/m turns into
    // ~1e-9 N of residual: above the default tolerance of 1e-10 N. Newton
    // must stop there at once (the state's resolution) instead of spending
    // iterations finding out; at the origin the tolerance is reachable.
    let (near, near_worst) = rod_on_ground(0.0);
    let (far, far_worst) = rod_on_ground(10.0);
    println!("origin: {near} iterations, worst {near_worst:e} N; 10 m: {far}, {far_worst:e} N");
    // At the origin the tolerance (1e-10 N plus 1e-9 of the step's first
    // residual) is reachable and met.
    assert!(near_worst <= 1.01e-10, "at the origin: {near_worst:e} N");
    // Accepted only at a force far below a node's weight (3.7e-5 N).
    assert!(far_worst < 1e-8, "10 m away: {far_worst:e} N");
    assert!(
        far <= near + 2,
        "10 m away the same fall took {far} Newton iterations against {near} at the origin"
    );
}
