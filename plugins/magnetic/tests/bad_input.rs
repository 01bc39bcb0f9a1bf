//! Bad connectors and joints are typed errors that say what and where,
//! never panics.

mod common;

use common::builder;
use pliant_core::{CoreError, EnergySpec, ParamChannel};
use pliant_magnetic::{Connector, Joint, Joints, MagnetModel, MagneticConnectors, MagneticError};

/// Nodes 0–3; nodes 2 and 3 coincide.
fn build(spec: Box<dyn EnergySpec>) -> CoreError {
    let x = [
        [0.0; 3],
        [0.01, 0.0, 0.0],
        [0.0, 0.01, 0.0],
        [0.0, 0.01, 0.0],
    ];
    let mut b = builder(3, &x, 0.01).unwrap();
    b.add_param(ParamChannel::control("on", 1.0)).unwrap();
    b.add_boxed(spec);
    b.build().expect_err("must be rejected")
}

fn magnetic(e: &CoreError) -> MagneticError {
    match e.innermost() {
        CoreError::Other(b) => b
            .downcast_ref::<MagneticError>()
            .cloned()
            .unwrap_or_else(|| panic!("{e}")),
        other => panic!("not a magnetic error: {other}"),
    }
}

fn poles(radius: f64) -> MagneticConnectors {
    MagneticConnectors::new(
        vec![Connector::pole(0, 0, 1.0), Connector::pole(1, 1, -1.0)],
        radius,
    )
}

#[test]
fn connector_on_a_missing_node() {
    let mut spec = poles(0.02);
    spec.connectors[1].node = 9;
    let e = build(Box::new(spec));
    assert_eq!(
        magnetic(&e),
        MagneticError::MissingNode {
            field: "connectors[1].node".into(),
            node: 9,
            count: 4
        }
    );
    assert!(e.to_string().contains("energies[0]"), "{e}");
    assert!(e.to_string().contains("connectors[1].node"), "{e}");

    let spec = MagneticConnectors::new(
        vec![
            Connector::dipole(0, 0, 1.0, [0, 1]),
            Connector::dipole(1, 1, 1.0, [1, 7]),
        ],
        0.02,
    )
    .with_model(MagnetModel::Dipole);
    assert_eq!(
        magnetic(&build(Box::new(spec))),
        MagneticError::MissingNode {
            field: "connectors[1].axis".into(),
            node: 7,
            count: 4
        }
    );
}

#[test]
fn radii_out_of_range() {
    for r in [0.0, -0.01, f64::NAN, f64::INFINITY] {
        let e = build(Box::new(poles(r)));
        assert!(matches!(magnetic(&e), MagneticError::Radius { .. }), "{e}");
    }
    for core in [0.0, -0.001, 0.02, 0.03, f64::NAN] {
        let mut spec = poles(0.02);
        spec.core_radius = Some(core);
        let e = build(Box::new(spec));
        assert!(
            matches!(magnetic(&e), MagneticError::CoreRadius { radius: 0.02, .. }),
            "{e}"
        );
    }
    for width in [0.0, -0.001, 0.0191, f64::NAN] {
        let mut spec = poles(0.02);
        spec.core_radius = Some(0.001);
        spec.switch_width = Some(width);
        let e = build(Box::new(spec));
        assert!(
            matches!(magnetic(&e), MagneticError::SwitchWidth { .. }),
            "{e}"
        );
    }
    // The whole band down to the core is allowed, and a large core
    // narrows the default band instead of failing.
    let mut spec = poles(0.02);
    spec.core_radius = Some(0.019);
    let mut b = builder(3, &[[0.0; 3], [0.01, 0.0, 0.0]], 0.01).unwrap();
    b.add(spec.clone());
    assert!(b.build().is_ok());
    spec.switch_width = Some(0.001);
    let mut b = builder(3, &[[0.0; 3], [0.01, 0.0, 0.0]], 0.01).unwrap();
    b.add(spec);
    assert!(b.build().is_ok());
}

#[test]
fn bad_permeability_and_margin() {
    for mu in [0.0, -1e-6, f64::NAN] {
        let mut spec = poles(0.02);
        spec.permeability = mu;
        let e = build(Box::new(spec));
        assert!(
            matches!(magnetic(&e), MagneticError::Field { ref field, .. } if field == "permeability"),
            "{e}"
        );
    }
    let mut spec = poles(0.02);
    spec.margin = Some(-0.01);
    let e = build(Box::new(spec));
    assert!(
        matches!(magnetic(&e), MagneticError::Field { ref field, .. } if field == "margin"),
        "{e}"
    );
}

#[test]
fn bad_strengths() {
    for q in [f64::NAN, f64::INFINITY] {
        let mut spec = poles(0.02);
        spec.connectors[1].strength = q;
        let e = build(Box::new(spec));
        assert!(
            matches!(magnetic(&e), MagneticError::Strength { connector: 1, .. }),
            "{e}"
        );
    }
    // Negative moments are not dipoles (the axis gives the direction).
    let spec = MagneticConnectors::new(
        vec![
            Connector::dipole(0, 0, 1.0, [0, 1]),
            Connector::dipole(1, 1, -1.0, [1, 2]),
        ],
        0.02,
    )
    .with_model(MagnetModel::Dipole);
    let e = build(Box::new(spec));
    assert!(
        matches!(magnetic(&e), MagneticError::Strength { connector: 1, .. }),
        "{e}"
    );
}

#[test]
fn bad_axes() {
    let dipoles = |c: Vec<Connector>| {
        Box::new(MagneticConnectors::new(c, 0.02).with_model(MagnetModel::Dipole))
    };
    // Missing for a dipole.
    let e = build(dipoles(vec![
        Connector::dipole(0, 0, 1.0, [0, 1]),
        Connector::pole(1, 1, 1.0),
    ]));
    assert!(
        matches!(magnetic(&e), MagneticError::Axis { connector: 1, .. }),
        "{e}"
    );
    // Degenerate: the same node twice, or two coincident nodes.
    for axis in [[1, 1], [2, 3]] {
        let e = build(dipoles(vec![
            Connector::dipole(0, 0, 1.0, [0, 1]),
            Connector::dipole(1, 1, 1.0, axis),
        ]));
        assert!(
            matches!(magnetic(&e), MagneticError::Axis { connector: 1, .. }),
            "{e}"
        );
    }
    // Given for a pole.
    let mut spec = poles(0.02);
    spec.connectors[0].axis = Some([0, 1]);
    let e = build(Box::new(spec));
    assert!(
        matches!(magnetic(&e), MagneticError::Axis { connector: 0, .. }),
        "{e}"
    );
}

#[test]
fn unknown_activation_channel() {
    // Reported even when no pair is in range at the start.
    for radius in [0.02, 0.001] {
        let mut spec = poles(radius);
        spec.connectors[1].channel = Some("off".into());
        let e = build(Box::new(spec));
        match e.innermost() {
            CoreError::UnknownParam { field, name, known } => {
                assert_eq!(field, "connectors[1].channel");
                assert_eq!(name, "off");
                assert_eq!(known, &["on".to_string()]);
            }
            other => panic!("{other}"),
        }
    }
}

#[test]
fn bad_joints() {
    let one = |j: Joint| -> Box<dyn EnergySpec> {
        Box::new(Joints::new(vec![Joint::new([0, 1], 10.0), j]))
    };
    // Zero length: the same node twice, or coincident nodes.
    for (nodes, length) in [([1, 1], 0.0), ([2, 3], 0.0)] {
        assert_eq!(
            magnetic(&build(one(Joint::new(nodes, 10.0)))),
            MagneticError::ZeroLengthJoint {
                joint: 1,
                nodes,
                length
            }
        );
    }
    for k in [0.0, -5.0, f64::NAN] {
        let e = build(one(Joint::new([0, 2], k)));
        assert!(
            matches!(magnetic(&e), MagneticError::Stiffness { joint: 1, .. }),
            "{e}"
        );
    }
    for f in [-1.0, f64::NAN, f64::INFINITY] {
        let e = build(one(Joint::new([0, 2], 10.0).breaking_at(f)));
        assert!(
            matches!(magnetic(&e), MagneticError::BreakForce { joint: 1, .. }),
            "{e}"
        );
    }
    let e = build(one(Joint::new([0, 12], 10.0)));
    assert_eq!(
        magnetic(&e),
        MagneticError::MissingNode {
            field: "joints[1].nodes".into(),
            node: 12,
            count: 4
        }
    );
    let mut j = Joint::new([0, 2], 10.0);
    j.rest_length = Some(0.0);
    let e = build(one(j));
    assert!(
        matches!(magnetic(&e), MagneticError::Field { ref field, .. } if field == "joints[1].rest_length"),
        "{e}"
    );
    // A zero break force is allowed: any tension breaks the joint.
    let mut b = builder(3, &[[0.0; 3], [0.01, 0.0, 0.0]], 0.01).unwrap();
    b.add(Joints::new(vec![Joint::new([0, 1], 10.0).breaking_at(0.0)]));
    assert!(b.build().is_ok());
}

#[test]
fn malformed_scene_json_is_an_error() {
    pliant_magnetic::link();
    for json in [
        r#"{"type": "magnetic_connectors", "connectors": [], "radius": 0.02, "model": "quadrupole"}"#,
        r#"{"type": "magnetic_connectors", "connectors": [{"node": 0, "strength": 1.0}], "radius": 0.02}"#,
        r#"{"type": "magnetic_connectors", "connectors": [], "radius": 0.02, "colour": "red"}"#,
        r#"{"type": "joints", "joints": [{"nodes": [0], "stiffness": 1.0}]}"#,
        r#"{"type": "joints", "joints": [{"nodes": [0, 1]}]}"#,
    ] {
        let r: Result<Box<dyn EnergySpec>, _> = serde_json::from_str(json);
        assert!(r.is_err(), "{json}");
    }
}
