//! Every energy's gradient, Hessian and parameter blocks against the
//! dual-number fallback and central finite differences, in 2-D and 3-D
//! models, with connector pairs in the core (`r < r_c`), in the
//! inverse-power region and in the switch band (`R − w < r < R`), and
//! activation channels (one shared by two connectors).

mod common;

use common::builder;
use pliant_core::derivcheck::{Tolerances, check, check_model_at_random_states};
use pliant_core::{EnergySpec, EvalState, Model, ParamChannel};
use pliant_magnetic::{
    Connector, Joint, Joints, MagnetModel, MagneticConnectors, MagneticConnectorsEnergy,
};

/// R = 2 cm, r_c = 3 mm, switch band [1.4, 2] cm.
const R: f64 = 0.02;
const CORE: f64 = 0.003;
const WIDTH: f64 = 0.006;

/// Connector nodes 0–4 (bodies 0, 1, 2, 3, 1): 0–1 in the core
/// (1.75 mm), 0–2, 1–2 and 2–4 in the inverse-power region (6.8–10.5 mm),
/// 0–3, 1–3, 2–3 and 0–4 in the switch band (15.8–17.6 mm), 3–4 a
/// candidate beyond R (24.8 mm), 1–4 of one body; nodes 5–9 are dipole
/// axis nodes.
fn nodes() -> Vec<[f64; 3]> {
    vec![
        [0.0, 0.0, 0.0],
        [0.0015, 0.0008, 0.0004],
        [0.008, 0.002, -0.001],
        [0.001, 0.0165, 0.002],
        [0.0175, -0.002, 0.001],
        [0.003, 0.004, 0.001],
        [-0.01, 0.0, 0.0],
        [-0.01, 0.005, 0.003],
        [0.008, -0.004, 0.0],
        [0.006, 0.0165, 0.0],
    ]
}

fn model(dim: usize, energy: Box<dyn EnergySpec>) -> Model {
    let mut b = builder(dim, &nodes(), 0.01).unwrap();
    b.add_param(ParamChannel::control("a", 0.8)).unwrap();
    b.add_param(ParamChannel::control("b", 1.3)).unwrap();
    b.add_boxed(energy);
    b.build().unwrap()
}

fn poles() -> MagneticConnectors {
    MagneticConnectors::new(
        vec![
            Connector::pole(0, 0, 20.0).with_channel("a"),
            Connector::pole(1, 1, -15.0),
            Connector::pole(2, 2, 10.0).with_channel("b"),
            Connector::pole(3, 3, -25.0).with_channel("a"),
            Connector::pole(4, 1, 30.0),
        ],
        R,
    )
    .with_profile(CORE, WIDTH)
}

fn dipoles() -> MagneticConnectors {
    MagneticConnectors::new(
        vec![
            // The axis may start at the connector's own node.
            Connector::dipole(0, 0, 0.02, [0, 5]).with_channel("a"),
            Connector::dipole(1, 1, 0.015, [6, 7]),
            Connector::dipole(2, 2, 0.03, [2, 8]).with_channel("b"),
            Connector::dipole(3, 3, 0.025, [9, 3]).with_channel("a"),
            Connector::dipole(4, 1, 0.01, [6, 7]),
        ],
        R,
    )
    .with_profile(CORE, WIDTH)
    .with_model(MagnetModel::Dipole)
}

fn check_model(m: &Model, scale: f64, tol: &Tolerances, label: &str) {
    check_model_at_random_states(
        m,
        &[0.7, 1.4],
        scale,
        0.3,
        0.01,
        1..=3,
        tol,
        label,
        |e, _| {
            assert!(!e.elements().is_empty(), "{label}: no elements to check");
        },
    );
}

fn tolerances() -> Tolerances {
    Tolerances {
        exact: 1e-9,
        fd: 1e-5,
        step: 1e-7,
    }
}

/// The candidate pairs cover every region (and skip the same-body pair).
fn assert_pairs(m: &Model) {
    let e = m.energies_of::<MagneticConnectorsEnergy>();
    assert_eq!(
        e[0].pairs(),
        &[
            (0, 1),
            (0, 2),
            (0, 3),
            (0, 4),
            (1, 2),
            (1, 3),
            (2, 3),
            (2, 4),
            (3, 4)
        ]
    );
}

#[test]
fn pole_pairs_3d() {
    let m = model(3, Box::new(poles()));
    assert_pairs(&m);
    check_model(&m, 2e-4, &tolerances(), "poles 3-D");
}

#[test]
fn pole_pairs_2d() {
    let m = model(2, Box::new(poles()));
    assert_pairs(&m);
    check_model(&m, 2e-4, &tolerances(), "poles 2-D");
}

#[test]
fn pole_pairs_at_and_near_zero_distance() {
    // Two connectors on one node and two 1 µm apart: deep in the core,
    // where the potential is a polynomial in r² (no cone at r = 0).
    let mut spec = MagneticConnectors::new(
        vec![
            Connector::pole(0, 0, 20.0).with_channel("a"),
            Connector::pole(0, 1, -15.0).with_channel("b"),
            Connector::pole(1, 2, 10.0),
        ],
        R,
    );
    spec.core_radius = Some(CORE);
    let mut b = builder(3, &[[0.0; 3], [1e-6, 0.0, 0.0]], 0.01).unwrap();
    b.add_param(ParamChannel::control("a", 0.8)).unwrap();
    b.add_param(ParamChannel::control("b", 1.3)).unwrap();
    b.add(spec);
    let m = b.build().unwrap();
    let q = m.q0().to_vec();
    let p = vec![0.7, 1.4];
    let s = EvalState::at_rest(&q, &p, 0.01, 0.0);
    let r = check(m.energies()[0].as_ref(), &s, &tolerances());
    r.assert_within(&tolerances());
    // And at small random offsets around it.
    check_model(&m, 1e-5, &tolerances(), "poles near r = 0");
}

#[test]
fn dipole_pairs_3d() {
    let m = model(3, Box::new(dipoles()));
    assert_pairs(&m);
    check_model(&m, 2e-4, &tolerances(), "dipoles 3-D");
}

#[test]
fn dipole_pairs_2d() {
    let m = model(2, Box::new(dipoles()));
    assert_pairs(&m);
    check_model(&m, 2e-4, &tolerances(), "dipoles 2-D");
}

fn joints() -> Joints {
    let mut j = Joints::new(vec![
        Joint::new([0, 5], 200.0).breaking_at(1.0),
        Joint::new([5, 2], 50.0),
        Joint {
            nodes: [6, 7],
            stiffness: 1e3,
            rest_length: Some(0.004),
            break_force: None,
        },
    ]);
    j.name = "bonds".into();
    j
}

#[test]
fn joints_2d_and_3d() {
    for dim in [2, 3] {
        let m = model(dim, Box::new(joints()));
        check_model(&m, 1e-3, &tolerances(), &format!("joints {dim}-D"));
    }
}

/// One pair at a time, so that a region's derivatives are not measured
/// against a larger pair's: the core, the inverse-power region and the
/// switch band, for both models in 2-D and 3-D.
#[test]
fn each_region_alone() {
    let dir = [0.6, -0.48, 0.64];
    for dim in [2, 3] {
        for model in [MagnetModel::Pole, MagnetModel::Dipole] {
            for r in [0.0012, 0.0026, 0.005, 0.012, 0.0145, 0.0175, 0.0196] {
                let x = [
                    [0.0; 3],
                    [r * dir[0], r * dir[1], r * dir[2]],
                    [0.004, 0.003, -0.002],
                    [-0.002, 0.005, 0.003],
                ];
                let connectors = match model {
                    MagnetModel::Pole => vec![
                        Connector::pole(0, 0, 20.0).with_channel("a"),
                        Connector::pole(1, 1, -15.0).with_channel("b"),
                    ],
                    MagnetModel::Dipole => vec![
                        Connector::dipole(0, 0, 0.02, [0, 2]).with_channel("a"),
                        Connector::dipole(1, 1, 0.015, [3, 1]).with_channel("b"),
                    ],
                };
                let spec = MagneticConnectors::new(connectors, R)
                    .with_profile(CORE, WIDTH)
                    .with_model(model);
                let mut b = builder(dim, &x, 0.01).unwrap();
                b.add_param(ParamChannel::control("a", 0.8)).unwrap();
                b.add_param(ParamChannel::control("b", 1.3)).unwrap();
                b.add(spec);
                let m = b.build().unwrap();
                check_model(&m, 1e-4, &tolerances(), &format!("{model:?} {dim}-D r {r}"));
            }
        }
    }
}
