//! Resistive-force drag against its terminal velocities, and a node resting
//! on a rigid sphere.

use pliant_core::{Integrator, ModelBuilder, NewtonSettings, Simulator};
use pliant_environment::{Gravity, LogExpPenalty, ResistiveForce, SphereContact, Spring, Springs};

/// A straight 0.1 m rod along x of 0.1 g, `n` edges with masses by Voronoi
/// length so that a uniform pull `f` (N/kg) meets a uniform drag per unit
/// mass, pulled for 1 s (ten time constants); returns the mean node
/// velocity. (A chain of several edges without bending stiffness would be
/// unstable under a transverse pull: a tilted edge drags less.)
fn pulled_chain(f: [f64; 3], n: usize) -> [f64; 3] {
    let (len, mass) = (0.1, 1e-4);
    let mut b = ModelBuilder::new(3).unwrap();
    let nodes: Vec<usize> = (0..=n)
        .map(|i| {
            b.add_node(
                &[len * i as f64 / n as f64, 0.0, 0.0],
                mass / (n + 1) as f64,
            )
            .unwrap()
        })
        .collect();
    let edges: Vec<[usize; 2]> = nodes.windows(2).map(|w| [w[0], w[1]]).collect();
    b.add(Springs::new(
        edges
            .iter()
            .map(|&nodes| Spring {
                nodes,
                stiffness: 1e3,
                rest_length: None,
            })
            .collect(),
    ));
    b.add(Gravity::new(&f));
    b.add(ResistiveForce::new(edges, 0.01, 0.1));
    let mut sim = Simulator::new(
        b.build().unwrap(),
        Integrator::ImplicitEuler,
        1e-2,
        NewtonSettings::default(),
    )
    .unwrap();
    for _ in 0..100 {
        sim.step().unwrap();
    }
    let v = sim.v();
    std::array::from_fn(|k| (0..=n).map(|i| v[3 * i + k]).sum::<f64>() / (n + 1) as f64)
}

#[test]
fn terminal_velocities_follow_the_tangential_and_normal_coefficients() {
    // Total drag C·L·u balances the pull m·f: u = m f/(C L), with
    // C_t = 0.01 along the chain and C_n = 0.1 across it (N·s/m²).
    let (m, l) = (1e-4, 0.1);
    let along = pulled_chain([1.0, 0.0, 0.0], 10);
    let across = pulled_chain([0.0, 1.0, 0.0], 1);
    let ut = m * 1.0 / (0.01 * l);
    let un = m * 1.0 / (0.1 * l);
    eprintln!("along {along:?} (expect {ut}), across {across:?} (expect {un})");
    assert!((along[0] - ut).abs() < 1e-3 * ut, "{along:?}");
    assert!((across[1] - un).abs() < 1e-3 * un, "{across:?}");
    // Pulled at 45°, the chain slides mostly along its axis: the velocity
    // turns towards the low-drag direction (the mechanism of swimming).
    let oblique = pulled_chain([1.0, 1.0, 0.0], 1);
    assert!(oblique[0] > 5.0 * oblique[1], "{oblique:?}");
}

#[test]
fn a_node_comes_to_rest_on_the_sphere() {
    let (radius, r0, delta) = (0.02, 1e-3, 2e-4);
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.003, 0.0, radius + 0.01], 1e-3).unwrap();
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    let mut c = SphereContact::new(
        [0.0; 3],
        radius,
        LogExpPenalty {
            stiffness: 50.0,
            delta,
        },
    );
    c.node_radius = r0;
    c.mu = 2.0;
    c.slip_velocity = Some(1e-4);
    b.add(c);
    let mut sim = Simulator::new(
        b.build().unwrap(),
        Integrator::ImplicitEuler,
        1e-3,
        NewtonSettings::default(),
    )
    .unwrap();
    for _ in 0..600 {
        sim.step().unwrap();
    }
    let q = sim.q();
    let dist = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
    let speed = sim.v().iter().map(|v| v * v).sum::<f64>().sqrt();
    eprintln!("distance {dist}, speed {speed}, x {}", q[0]);
    // On the surface within the tolerance band, and held by friction on a
    // slope of atan(0.003/0.02) ≈ 8.5° (μ = 2 ≫ tan 8.5°).
    assert!((dist - radius - r0).abs() < delta, "distance {dist}");
    assert!(speed < 1e-3, "still moving at {speed} m/s");
}
