//! Ground contact and friction scenarios: a lattice block dropped on the
//! ground comes to rest without sinking in; on an incline it slides or stays
//! depending on the friction angle (Coulomb), or creeps at the closed-form
//! rate (the cable paper's lagged quadratic law, which has no stick limit).

use pliant::core::{Integrator, Model, ModelBuilder, NewtonSettings, Simulator};
use pliant::environment::{Friction, Gravity, Ground, NormalLaw};
use pliant::lattice::SpringLattice;

const G: f64 = 9.81;

/// The lattice block resting on (`lift` = 0) or above the plane through the
/// origin with normal `normal`, moving at `v0` along it.
fn block(
    normal: [f64; 3],
    contact: NormalLaw,
    friction: Option<Friction>,
    v0: f64,
    lift: f64,
) -> Model {
    let lattice = SpringLattice {
        n: [4, 4, 3],
        spacing: 0.02,
        stiffness: 800.0,
        node_mass: 1e-3,
        origin: [0.0, 0.0, 0.0],
    };
    // Rest the block's bottom on the plane through the origin: rotate the
    // lattice so its bottom face is perpendicular to `normal`, 1 mm above it.
    let nz = normal;
    let l = (nz[0] * nz[0] + nz[1] * nz[1] + nz[2] * nz[2]).sqrt();
    let n = [nz[0] / l, nz[1] / l, nz[2] / l];
    // Tilt about the y axis only (normal in the x–z plane).
    let (c, s) = (n[2], n[0]);
    let mut bb = ModelBuilder::new(3).unwrap();
    for (i, p) in lattice.positions().iter().enumerate() {
        let (x, z) = (p[0], p[2] + 1e-3);
        bb.add_node(
            &[c * x + s * z, p[1], -s * x + c * z + lift],
            lattice.node_mass,
        )
        .unwrap();
        bb.set_velocity(3 * i, v0 * c).unwrap();
        bb.set_velocity(3 * i + 2, -v0 * s).unwrap();
    }
    bb.add(lattice.springs(0));
    bb.add(Gravity::new(&[0.0, 0.0, -G]));
    bb.add(Ground::new(&[0.0, 0.0, 0.0], &n, contact, friction));
    bb.build().unwrap()
}

fn run(model: Model, integrator: Integrator, h: f64, steps: usize) -> Simulator {
    let mut sim = Simulator::new(model, integrator, h, NewtonSettings::default()).unwrap();
    for _ in 0..steps {
        sim.step().unwrap();
    }
    sim
}

fn signed_distances(sim: &Simulator, n: [f64; 3]) -> Vec<f64> {
    let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    (0..sim.model().layout().n_nodes())
        .map(|i| {
            let p = sim.model().node_position(sim.q(), i);
            (p[0] * n[0] + p[1] * n[1] + p[2] * n[2]) / l
        })
        .collect()
}

const COULOMB: Friction = Friction::SmoothCoulomb {
    mu: 0.5,
    mu_axis: None,
    slip_velocity: 1e-4,
};

#[test]
fn dropped_block_comes_to_rest_on_the_ground() {
    let laws = [
        NormalLaw::Quadratic {
            stiffness: 5000.0,
            smoothing: 1e-4,
        },
        NormalLaw::LogExp {
            stiffness: 5000.0,
            delta: 1e-4,
        },
        NormalLaw::SpringDamper {
            stiffness: 5000.0,
            damping: 5.0,
            smoothing: 1e-4,
        },
    ];
    for law in laws {
        for fr in [
            COULOMB,
            Friction::LaggedQuadratic {
                mu: 200.0,
                mu_axis: None,
            },
        ] {
            // Dropped from 3 cm.
            let model = block([0.0, 0.0, 1.0], law, Some(fr), 0.2, 0.03);
            let sim = run(model, Integrator::ImplicitEuler, 0.004, 400);
            let d = signed_distances(&sim, [0.0, 0.0, 1.0]);
            let min = d.iter().cloned().fold(f64::INFINITY, f64::min);
            let ke = sim.kinetic_energy();
            eprintln!("{law:?} {fr:?}: lowest node {min:.3e} m, kinetic energy {ke:.3e} J");
            // Penetration at rest is about F/k + ε/2 ≈ 0.03 N / 5000 N/m + 50 µm for
            // the quadratic law; the stated tolerance is 0.1 mm (1/400 of the block).
            assert!(min > -1e-4, "penetration {min} m");
            assert!(ke < 1e-8, "still moving: {ke} J");
        }
    }
}

/// Displacement along the slope between step `from` and step `to` on an
/// incline of `deg` degrees (the block starts 1 mm above it, at rest).
fn incline_slide(deg: f64, friction: Friction, h: f64, from: usize, to: usize) -> f64 {
    let th = deg.to_radians();
    let n = [-th.sin(), 0.0, th.cos()];
    let model = block(
        n,
        NormalLaw::Quadratic {
            stiffness: 5000.0,
            smoothing: 1e-4,
        },
        Some(friction),
        0.0,
        0.0,
    );
    let mut sim = run(model, Integrator::ImplicitEuler, h, from);
    let c0 = sim.model().center_of_mass(sim.q());
    for _ in from..to {
        sim.step().unwrap();
    }
    let c1 = sim.model().center_of_mass(sim.q());
    // Down-slope direction (the plane rises with x).
    let down = [-th.cos(), 0.0, -th.sin()];
    (0..3).map(|a| (c1[a] - c0[a]) * down[a]).sum()
}

#[test]
fn coulomb_block_slides_above_the_friction_angle_and_sticks_below() {
    // μ = 0.5: friction angle atan(0.5) = 26.6°.
    // Settle for 0.5 s (landing from 1 mm), then measure over the next 0.5 s.
    let h = 0.005;
    let steep = incline_slide(35.0, COULOMB, h, 100, 200);
    let shallow = incline_slide(15.0, COULOMB, h, 100, 200);
    // Sliding from t = 0.5 s to 1 s: a = g (sin θ − μ cos θ), s = a (1² − 0.5²)/2.
    let th = 35f64.to_radians();
    let expected = 0.5 * G * (th.sin() - 0.5 * th.cos()) * (1.0 - 0.25);
    eprintln!(
        "35°: slid {steep:.4} m (rigid-block estimate {expected:.4} m); 15°: {shallow:.2e} m"
    );
    assert!(
        (steep - expected).abs() < 0.1 * expected,
        "steep slide {steep} vs {expected}"
    );
    // Regularized Coulomb creeps at ~(2ν/15) atanh(tan θ/μ) ≈ 8 µm/s here.
    assert!(
        shallow.abs() < 2e-5,
        "shallow incline drifted {shallow} m in 0.5 s"
    );
}

#[test]
fn lagged_quadratic_friction_creeps_at_the_closed_form_rate() {
    // The cable paper's friction N_{k−1} μ |Δ|² balances the slope force
    // m g sin θ with 2 μ N Δ, N = m g cos θ: the block creeps tan θ/(2μ) per
    // step whatever the angle — a drag law, not a stick limit.
    let mu = 500.0;
    let (h, steps) = (0.01, 100);
    for deg in [10.0f64, 30.0] {
        let slid = incline_slide(
            deg,
            Friction::LaggedQuadratic { mu, mu_axis: None },
            h,
            20,
            20 + steps,
        );
        let per_step = deg.to_radians().tan() / (2.0 * mu);
        eprintln!(
            "{deg}°: {slid:.4e} m in {steps} steps, closed form {:.4e} m",
            per_step * steps as f64
        );
        assert!((slid - per_step * steps as f64).abs() < 0.01 * per_step * steps as f64);
    }
}

#[test]
fn anisotropic_friction_resists_more_along_the_body_axis() {
    // Same push along and across a body axis pointing along x (μ_axis = 0.6,
    // μ = 0.2, the snake paper's carpet): a block thrown along x stops sooner.
    let throw = |vx: f64, vy: f64| {
        let lattice = SpringLattice {
            n: [3, 3, 2],
            spacing: 0.02,
            stiffness: 800.0,
            node_mass: 1e-3,
            origin: [0.0, 0.0, 1e-4],
        };
        let mut b = ModelBuilder::new(3).unwrap();
        lattice.add_to(&mut b).unwrap();
        for i in 0..lattice.n_nodes() {
            b.set_velocity(3 * i, vx).unwrap();
            b.set_velocity(3 * i + 1, vy).unwrap();
        }
        b.add(Gravity::new(&[0.0, 0.0, -G]));
        let mut g = Ground::new(
            &[0.0, 0.0, 0.0],
            &[0.0, 0.0, 1.0],
            NormalLaw::Quadratic {
                stiffness: 5000.0,
                smoothing: 1e-4,
            },
            Some(Friction::SmoothCoulomb {
                mu: 0.2,
                mu_axis: Some(0.6),
                slip_velocity: 1e-4,
            }),
        );
        // Body axis of every node: from node (0,0,0) to node (2,0,0), i.e. +x.
        g.axes = Some(vec![
            [lattice.node(0, 0, 0), lattice.node(2, 0, 0)];
            lattice.n_nodes()
        ]);
        b.add(g);
        let m = b.build().unwrap();
        let c0 = m.center_of_mass(m.q0());
        let sim = run(m, Integrator::ImplicitEuler, 0.004, 150);
        let c1 = sim.model().center_of_mass(sim.q());
        ((c1[0] - c0[0]).powi(2) + (c1[1] - c0[1]).powi(2)).sqrt()
    };
    let v = 0.5;
    let along = throw(v, 0.0);
    let across = throw(0.0, v);
    // Rigid estimates v²/(2 μ g).
    let (ea, ec) = (v * v / (2.0 * 0.6 * G), v * v / (2.0 * 0.2 * G));
    eprintln!(
        "stopping distance along axis {along:.4} m (≈{ea:.4}), across {across:.4} m (≈{ec:.4})"
    );
    assert!((along - ea).abs() < 0.15 * ea && (across - ec).abs() < 0.15 * ec);
}
