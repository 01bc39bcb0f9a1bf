//! The pair law of two isolated connectors: Coulomb's law for magnetic
//! poles between the core radius and the switch band, signs, cut-off,
//! bodies, activation, smoothness at R; a dipole pair against the
//! textbook formula; connectors that meet during a simulation.

mod common;

use common::{builder, gradient, hessian, state};
use pliant_core::{Integrator, Model, NewtonSettings, ParamChannel, Simulator};
use pliant_magnetic::{
    Connector, MagnetModel, MagneticConnectors, MagneticConnectorsEnergy, VACUUM_PERMEABILITY,
};
use std::f64::consts::PI;

const R: f64 = 0.02;

/// Two poles `q1` (node 0, body 0) and `q2` (node 1, body `body2`) at
/// distance `r` along a tilted direction, activation channel `a` on the
/// first.
fn pair(dim: usize, r: f64, q1: f64, q2: f64, body2: usize) -> (Model, [f64; 3]) {
    let dir = if dim == 3 {
        [0.48, 0.6, -0.64]
    } else {
        [0.6, -0.8, 0.0]
    };
    let x = [[0.001, -0.002, 0.003], [0.0; 3]];
    let x1 = std::array::from_fn(|k| x[0][k] + r * dir[k]);
    let mut b = builder(dim, &[x[0], x1], 0.01).unwrap();
    b.add_param(ParamChannel::control("a", 1.0)).unwrap();
    b.add(MagneticConnectors::new(
        vec![
            Connector::pole(0, 0, q1).with_channel("a"),
            Connector::pole(1, body2, q2),
        ],
        R,
    ));
    (b.build().unwrap(), dir)
}

/// Force on node 1 (N) and the energy (J) at activation `a`.
fn force_on_second(m: &Model, a: f64) -> (Vec<f64>, f64) {
    let dim = m.dim();
    let q = m.q0().to_vec();
    let p = [a];
    let s = state(&q, &p);
    let e = m.energies()[0].as_ref();
    let g = gradient(e, &s);
    // The two forces balance.
    for k in 0..dim {
        assert!((g[k] + g[dim + k]).abs() <= 1e-15 * g[dim + k].abs().max(1e-300));
    }
    (
        g[dim..2 * dim].iter().map(|v| -v).collect(),
        e.elements().value(&s),
    )
}

#[test]
fn inverse_square_force_with_physical_signs() {
    let (rc, w) = (R / 20.0, R / 5.0);
    for dim in [2, 3] {
        for r in [rc, 1.5 * rc, 0.004, 0.0077, 0.012, R - w] {
            for (q1, q2) in [(3.0, 2.0), (3.0, -2.0), (-1.5, -4.0), (-2.5, 0.5)] {
                let (m, dir) = pair(dim, r, q1, q2, 1);
                let (f, u) = force_on_second(&m, 1.0);
                let expected = VACUUM_PERMEABILITY * q1 * q2 / (4.0 * PI * r * r);
                // Radial component along x_1 − x_0: positive = repulsion.
                let radial: f64 = (0..dim).map(|k| f[k] * dir[k]).sum();
                let norm = f.iter().map(|v| v * v).sum::<f64>().sqrt();
                assert!(
                    (radial - expected).abs() <= 1e-12 * expected.abs(),
                    "{dim}-D r {r} q {q1} {q2}: {radial} vs {expected}"
                );
                assert!((norm - expected.abs()).abs() <= 1e-12 * expected.abs());
                assert_eq!(radial > 0.0, q1 * q2 > 0.0, "like poles repel");
                let u_expected = VACUUM_PERMEABILITY * q1 * q2 / (4.0 * PI * r);
                assert!((u - u_expected).abs() <= 1e-12 * u_expected.abs());
            }
        }
    }
}

#[test]
fn nothing_beyond_the_interaction_radius() {
    for r in [R, R * (1.0 + 1e-9), 1.2 * R, 1.9 * R, 3.0 * R, 10.0] {
        let (m, _) = pair(3, r, 3.0, -2.0, 1);
        let (f, u) = force_on_second(&m, 1.0);
        assert_eq!(u, 0.0, "r {r}");
        assert!(f.iter().all(|&v| v == 0.0), "r {r}: {f:?}");
    }
}

#[test]
fn connectors_of_one_body_never_interact() {
    for r in [0.0005, 0.005, 0.015] {
        let (m, _) = pair(3, r, 3.0, -2.0, 0);
        assert!(
            m.energies_of::<MagneticConnectorsEnergy>()[0]
                .pairs()
                .is_empty()
        );
        let (f, u) = force_on_second(&m, 1.0);
        assert_eq!(u, 0.0);
        assert!(f.iter().all(|&v| v == 0.0));
    }
}

#[test]
fn activation_scales_and_switches_off() {
    let (m, _) = pair(3, 0.008, 3.0, -2.0, 1);
    let (f1, u1) = force_on_second(&m, 1.0);
    let (fh, uh) = force_on_second(&m, 0.5);
    let (f0, u0) = force_on_second(&m, 0.0);
    assert_eq!(u0, 0.0);
    assert!(f0.iter().all(|&v| v == 0.0));
    assert!((uh - 0.5 * u1).abs() <= 1e-15 * u1.abs());
    for (a, b) in fh.iter().zip(&f1) {
        assert!((a - 0.5 * b).abs() <= 1e-15 * b.abs());
    }
}

#[test]
fn bounded_in_the_core() {
    let (q1, q2) = (3.0, 2.0);
    let rc = R / 20.0;
    let k = VACUUM_PERMEABILITY * q1 * q2 / (4.0 * PI);
    for r in [
        0.0,
        1e-9,
        0.2 * rc,
        0.7 * rc,
        5f64.sqrt() / 3.0 * rc,
        0.999 * rc,
    ] {
        let (m, _) = pair(3, r, q1, q2, 1);
        let (f, u) = force_on_second(&m, 1.0);
        let norm = f.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!(u.is_finite() && u <= 15.0 / 8.0 * k / rc * (1.0 + 1e-12));
        // The core's force peaks at r = (√5/3) r_c, 5√5/9 ≈ 1.24 times
        // its value at r_c.
        assert!(
            norm <= 5.0 * 5f64.sqrt() / 9.0 * k / (rc * rc) * (1.0 + 1e-12),
            "r {r}: {norm}"
        );
        // Still repulsive for like poles (and zero exactly at r = 0).
        if r == 0.0 {
            assert_eq!(norm, 0.0);
            assert!((u - 15.0 / 8.0 * k / rc).abs() <= 1e-12 * u);
        }
    }
}

#[test]
fn twice_differentiable_at_the_interaction_radius() {
    // Energy, force and stiffness go to zero as r → R from inside.
    let (q1, q2) = (3.0, -2.0);
    let w = R / 5.0;
    let k = (VACUUM_PERMEABILITY * q1 * q2 / (4.0 * PI)).abs();
    // Scales of U, U' and U'' in the band.
    let (su, sf, sk) = (k / R, k / (R * w), k / (R * w * w));
    let mut last = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for eps in [1e-2, 1e-3, 1e-4, 1e-5] {
        let r = R - eps * w;
        let (m, _) = pair(3, r, q1, q2, 1);
        let q = m.q0().to_vec();
        let p = [1.0];
        let s = state(&q, &p);
        let e = m.energies()[0].as_ref();
        let u = e.elements().value(&s).abs() / su;
        let f = gradient(e, &s).iter().fold(0.0f64, |a, v| a.max(v.abs())) / sf;
        let h = hessian(e, &s).iter().fold(0.0f64, |a, v| a.max(v.abs())) / sk;
        // U ~ ε³, U' ~ ε², U'' ~ ε (relative to their scales).
        assert!(u <= 20.0 * eps.powi(3) && f <= 60.0 * eps.powi(2) && h <= 200.0 * eps);
        assert!(u < last.0 && f < last.1 && h < last.2);
        last = (u, f, h);
    }
}

#[test]
fn permeability_scales_the_force() {
    let mu = 3.0 * VACUUM_PERMEABILITY;
    let mut b = builder(3, &[[0.0; 3], [0.01, 0.0, 0.0]], 0.01).unwrap();
    let mut spec = MagneticConnectors::new(
        vec![Connector::pole(0, 0, 2.0), Connector::pole(1, 1, 2.0)],
        R,
    );
    spec.permeability = mu;
    b.add(spec);
    let m = b.build().unwrap();
    let q = m.q0().to_vec();
    let g = gradient(m.energies()[0].as_ref(), &state(&q, &[]));
    let expected = mu * 4.0 / (4.0 * PI * 1e-4);
    assert!((-g[3] - expected).abs() <= 1e-12 * expected);
}

#[test]
fn dipoles_match_the_dipole_formula() {
    let (m1, m2) = (0.02, 0.03);
    let r = 0.008;
    let c = VACUUM_PERMEABILITY / (4.0 * PI);
    // Coaxial and aligned: U = −2 c m1 m2 / r³ (attractive). Side by side
    // and parallel: U = c m1 m2 / r³ (repulsive). Perpendicular: 0.
    let cases = [
        ([1.0, 0.0, 0.0], [1.0, 0.0, 0.0], -2.0),
        ([0.0, 1.0, 0.0], [0.0, 1.0, 0.0], 1.0),
        ([0.0, 1.0, 0.0], [0.0, -1.0, 0.0], -1.0),
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], 0.0),
    ];
    for (e1, e2, factor) in cases {
        let x = [
            [0.0; 3],
            [r, 0.0, 0.0],
            [e1[0] * 0.003, e1[1] * 0.003, e1[2] * 0.003],
            [r + e2[0] * 0.005, e2[1] * 0.005, e2[2] * 0.005],
        ];
        let mut b = builder(3, &x, 0.01).unwrap();
        b.add(
            MagneticConnectors::new(
                vec![
                    Connector::dipole(0, 0, m1, [0, 2]),
                    Connector::dipole(1, 1, m2, [1, 3]),
                ],
                R,
            )
            .with_model(MagnetModel::Dipole),
        );
        let m = b.build().unwrap();
        let q = m.q0().to_vec();
        let u = m.energies()[0].elements().value(&state(&q, &[]));
        let expected = factor * c * m1 * m2 / (r * r * r);
        assert!(
            (u - expected).abs() <= 1e-12 * (c * m1 * m2 / (r * r * r)),
            "{e1:?} {e2:?}: {u} vs {expected}"
        );
        // Axial force of the coaxial pair: F = 6 c m1 m2 / r⁴ towards each other.
        if factor == -2.0 {
            let g = gradient(m.energies()[0].as_ref(), &state(&q, &[]));
            let f = 6.0 * c * m1 * m2 / r.powi(4);
            assert!((g[3] - f).abs() <= 1e-12 * f, "{} vs {f}", g[3]);
        }
    }
}

/// Two free single-node bodies of opposite poles, 5 R apart and drifting
/// towards each other: the broad phase picks the pair up as they come in
/// range, the attraction pulls them together, and nothing blows up when
/// they meet (the core keeps the force bounded) and pass through each
/// other (the bodies have no contact here).
#[test]
fn bodies_drifting_into_range_attract_and_meet() {
    let mut b = builder(2, &[[0.0; 3], [5.0 * R, 0.0, 0.0]], 0.001).unwrap();
    b.set_velocity(2, -0.5).unwrap(); // node 1's x, m/s
    b.add(MagneticConnectors::new(
        vec![Connector::pole(0, 0, 5.0), Connector::pole(1, 1, -5.0)],
        R,
    ));
    let m = b.build().unwrap();
    let mut sim = Simulator::new(
        m,
        Integrator::ImplicitEuler,
        0.002,
        NewtonSettings::default(),
    )
    .unwrap();
    let mut min_distance = f64::INFINITY;
    let (mut in_range, mut candidate) = (0, 0);
    for _ in 0..150 {
        sim.step().unwrap();
        let obs = sim.observables(&[]);
        assert_eq!(obs[0].0, "magnets.pairs");
        assert_eq!(obs[1].0, "magnets.min_distance");
        assert!(obs[1].1 <= R && obs[1].1 >= 0.0);
        if obs[0].1 == 1.0 {
            in_range += 1;
        }
        min_distance = min_distance.min(obs[1].1);
        assert!(sim.q().iter().all(|v| v.is_finite()));
        let e = sim.model().energies_of::<MagneticConnectorsEnergy>();
        if e[0].pairs() == [(0, 1)] {
            candidate += 1;
        } else {
            assert!(e[0].pairs().is_empty());
        }
    }
    assert!(in_range > 0 && candidate >= in_range);
    let e = sim.model().energies_of::<MagneticConnectorsEnergy>();
    assert_eq!(e[0].missed_pairs(), 0, "the default margin kept up");
    assert!(min_distance < R / 20.0, "they met: {min_distance}");
}

/// With no search margin, a body that jumps into range within one step is
/// not a candidate in that step: the miss is counted (and logged), and
/// the pair joins at the next step.
#[test]
fn a_pair_reaching_range_without_margin_is_reported_and_joins_next_step() {
    let mut b = builder(3, &[[0.0; 3], [1.5 * R, 0.0, 0.0]], 0.001).unwrap();
    b.set_velocity(3, -2.0).unwrap(); // node 1's x, m/s: 2 cm per 10 ms step
    let mut spec = MagneticConnectors::new(
        vec![Connector::pole(0, 0, 1.0), Connector::pole(1, 1, 1.0)],
        R,
    );
    spec.margin = Some(0.0);
    b.add(spec);
    let mut sim = Simulator::new(
        b.build().unwrap(),
        Integrator::ImplicitEuler,
        0.01,
        NewtonSettings::default(),
    )
    .unwrap();
    sim.step().unwrap();
    let e = sim.model().energies_of::<MagneticConnectorsEnergy>();
    assert!(e[0].pairs().is_empty());
    assert_eq!(e[0].missed_pairs(), 1);
    assert_eq!(sim.observables(&[])[0].1, 1.0, "in range now");
    sim.step().unwrap();
    let e = sim.model().energies_of::<MagneticConnectorsEnergy>();
    assert_eq!(e[0].pairs(), &[(0, 1)]);
}
