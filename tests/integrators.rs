//! Integrators against analytic solutions: free fall, a linear oscillator,
//! a hanging spring chain, energy behaviour of midpoint vs BDF1.

use pliant::core::{Integrator, ModelBuilder, NewtonSettings, Simulator};
use pliant::environment::{Gravity, Spring, Springs};

const G: f64 = 9.81;

fn free_fall(integrator: Integrator, h: f64, t_end: f64) -> f64 {
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 1.0], 0.2).unwrap();
    b.set_velocity(0, 0.5).unwrap();
    b.add(Gravity::new(&[0.0, 0.0, -G]));
    let mut sim =
        Simulator::new(b.build().unwrap(), integrator, h, NewtonSettings::default()).unwrap();
    let n = (t_end / h).round() as usize;
    for _ in 0..n {
        sim.step().unwrap();
    }
    let t = sim.time();
    let exact_z = 1.0 - 0.5 * G * t * t;
    let exact_x = 0.5 * t;
    ((sim.q()[2] - exact_z).powi(2) + (sim.q()[0] - exact_x).powi(2)).sqrt()
}

#[test]
fn free_fall_converges_at_first_order_and_midpoint_is_exact() {
    let hs = [0.1, 0.05, 0.025];
    for integ in [
        Integrator::Bdf1,
        Integrator::ImplicitEuler,
        Integrator::SymplecticEuler,
    ] {
        let e: Vec<f64> = hs.iter().map(|&h| free_fall(integ, h, 1.0)).collect();
        let orders: Vec<f64> = e.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
        eprintln!("{integ:?}: errors {e:?}, observed orders {orders:?}");
        // BDF1's error at t = 1 s is exactly g h t / 2.
        assert!(
            (e[0] - 0.5 * G * 0.1).abs() < 1e-9,
            "{integ:?} error {}",
            e[0]
        );
        for o in orders {
            assert!((o - 1.0).abs() < 0.02, "{integ:?}: order {o}");
        }
    }
    // Implicit midpoint integrates constant acceleration exactly.
    for h in hs {
        let e = free_fall(Integrator::ImplicitMidpoint, h, 1.0);
        assert!(e < 1e-12, "midpoint error {e}");
    }
}

/// A node on a spring to a fixed anchor, oscillating along the spring axis:
/// `x(t) = A cos(ωt)`, `ω = √(k/m)`. Returns (position error at t_end, model energy ratio).
fn oscillator(integrator: Integrator, h: f64, steps: usize) -> (f64, f64) {
    let (k, m, a) = (40.0, 0.1, 0.05);
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    b.add_node(&[1.0 + a, 0.0, 0.0], m).unwrap();
    b.fix_node(0).unwrap();
    b.add(Springs::new(vec![Spring {
        nodes: [0, 1],
        stiffness: k,
        rest_length: Some(1.0),
    }]));
    let mut sim =
        Simulator::new(b.build().unwrap(), integrator, h, NewtonSettings::default()).unwrap();
    let e0 = sim.potential_energy(&[]) + sim.kinetic_energy();
    for _ in 0..steps {
        sim.step().unwrap();
    }
    let w = (k / m).sqrt();
    let exact = 1.0 + a * (w * sim.time()).cos();
    let e1 = sim.potential_energy(&[]) + sim.kinetic_energy();
    ((sim.q()[3] - exact).abs(), e1 / e0)
}

#[test]
fn oscillator_orders_bdf1_first_midpoint_second() {
    // ωh from 0.04 down to 0.01: the asymptotic regime.
    let t_end = 0.25;
    let hs = [2e-3, 1e-3, 5e-4];
    for (integ, expected) in [(Integrator::Bdf1, 1.0), (Integrator::ImplicitMidpoint, 2.0)] {
        let e: Vec<f64> = hs
            .iter()
            .map(|&h| oscillator(integ, h, (t_end / h).round() as usize).0)
            .collect();
        let orders: Vec<f64> = e.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
        eprintln!("{integ:?}: errors {e:?}, orders {orders:?}");
        for o in orders {
            assert!(
                (o - expected).abs() < 0.15,
                "{integ:?}: order {o}, expected {expected}"
            );
        }
    }
}

#[test]
fn midpoint_conserves_oscillator_energy_bdf1_dissipates() {
    let h = 0.01; // about 20 steps per period
    let (_, mid) = oscillator(Integrator::ImplicitMidpoint, h, 1000);
    let (_, bdf) = oscillator(Integrator::Bdf1, h, 1000);
    eprintln!("energy ratio after 1000 steps: midpoint {mid}, BDF1 {bdf}");
    assert!(
        (mid - 1.0).abs() < 1e-9,
        "midpoint energy drift {}",
        mid - 1.0
    );
    assert!(bdf < 0.01, "BDF1 kept {bdf} of the energy");
}

#[test]
fn midpoint_energy_bounded_for_nonlinear_swing() {
    // Spring pendulum swinging sideways: geometrically nonlinear spring.
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    b.add_node(&[0.3, 0.0, -0.4], 0.05).unwrap();
    b.fix_node(0).unwrap();
    b.add(Springs::new(vec![Spring {
        nodes: [0, 1],
        stiffness: 50.0,
        rest_length: Some(0.45),
    }]));
    b.add(Gravity::new(&[0.0, 0.0, -G]));
    let mut sim = Simulator::new(
        b.build().unwrap(),
        Integrator::ImplicitMidpoint,
        0.005,
        NewtonSettings::default(),
    )
    .unwrap();
    let e0 = sim.potential_energy(&[]) + sim.kinetic_energy();
    let mut worst: f64 = 0.0;
    for _ in 0..1000 {
        sim.step().unwrap();
        let e = sim.potential_energy(&[]) + sim.kinetic_energy();
        worst = worst.max(((e - e0) / e0).abs());
    }
    eprintln!("nonlinear swing: worst relative energy error {worst:.3e}");
    assert!(worst < 2e-2, "midpoint energy error {worst}");
}

#[test]
fn hanging_chain_static_matches_closed_form() {
    // n springs hanging from a fixed top node; spring i (from the top) carries
    // the weight of the n − i nodes below it: extension (n − i) m g / k.
    let (n, k, m, l) = (8, 25.0, 0.01, 0.05);
    let mut b = ModelBuilder::new(3).unwrap();
    for i in 0..=n {
        b.add_node(&[0.0, 0.0, -(i as f64) * l], m).unwrap();
    }
    b.fix_node(0).unwrap();
    let springs = (0..n)
        .map(|i| Spring {
            nodes: [i, i + 1],
            stiffness: k,
            rest_length: None,
        })
        .collect();
    b.add(Springs::new(springs));
    b.add(Gravity::new(&[0.0, 0.0, -G]));
    let mut sim = Simulator::new(
        b.build().unwrap(),
        Integrator::Static,
        1.0,
        NewtonSettings::default(),
    )
    .unwrap();
    let r = sim.step().unwrap();
    eprintln!("static chain: {:?}", r.newton);
    let mut z = 0.0;
    for i in 1..=n {
        z -= l + (n - i + 1) as f64 * m * G / k;
        let zi = sim.q()[3 * i + 2];
        assert!((zi - z).abs() < 1e-10, "node {i}: {zi} vs {z}");
        assert!(sim.q()[3 * i].abs() < 1e-12 && sim.q()[3 * i + 1].abs() < 1e-12);
    }
}
