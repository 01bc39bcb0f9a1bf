//! Bad cavities and muscles are typed errors that say what and where.

mod common;

use common::{box_corners, box_triangles, builder};
use pliant_core::{CoreError, EnergySpec, ParamChannel};
use pliant_pneumatic::{Cavity, Muscle, MuscleModel, PneumaticError, PneumaticMuscles, Quantity};

fn build(x: &[[f64; 3]], spec: Box<dyn EnergySpec>) -> CoreError {
    let mut b = builder(x, 0.01).unwrap();
    b.add_param(ParamChannel::control("p", 1e5).with_keyframes(vec![(0.0, 0.0), (1.0, -2e5)]))
        .unwrap();
    b.add_boxed(spec);
    b.build().expect_err("must be rejected")
}

fn pneumatic(e: &CoreError) -> PneumaticError {
    match e.innermost() {
        CoreError::Other(b) => b
            .downcast_ref::<PneumaticError>()
            .cloned()
            .unwrap_or_else(|| panic!("{e}")),
        other => panic!("not a pneumatic error: {other}"),
    }
}

#[test]
fn open_inconsistent_and_inward_surfaces() {
    let x = box_corners(0.1, 0.1, 0.1);
    let mut open = box_triangles();
    open.pop();
    let e = build(&x, Box::new(Cavity::pressurized(open, 1e4)));
    assert!(
        matches!(pneumatic(&e), PneumaticError::OpenSurface { .. }),
        "{e}"
    );
    assert!(e.to_string().contains("energies[0]"), "{e}");

    let mut flipped = box_triangles();
    flipped[3] = [4, 7, 6];
    let e = build(&x, Box::new(Cavity::pressurized(flipped, 1e4)));
    assert!(
        matches!(
            pneumatic(&e),
            PneumaticError::InconsistentOrientation { .. }
        ),
        "{e}"
    );

    let inward: Vec<[usize; 3]> = box_triangles().iter().map(|t| [t[0], t[2], t[1]]).collect();
    let e = build(&x, Box::new(Cavity::pressurized(inward, 1e4)));
    match pneumatic(&e) {
        PneumaticError::NonPositiveVolume { volume, .. } => assert!((volume + 1e-3).abs() < 1e-12),
        other => panic!("{other}"),
    }

    let mut missing = box_triangles();
    missing[0] = [0, 2, 99];
    let e = build(&x, Box::new(Cavity::pressurized(missing, 1e4)));
    assert!(
        matches!(pneumatic(&e), PneumaticError::MissingNode { node: 99, .. }),
        "{e}"
    );
}

#[test]
fn pressures_below_vacuum_are_rejected() {
    let x = box_corners(0.1, 0.1, 0.1);
    let e = build(&x, Box::new(Cavity::pressurized(box_triangles(), -2e5)));
    assert!(
        matches!(pneumatic(&e), PneumaticError::BeyondVacuum { .. }),
        "{e}"
    );
    // A channel whose schedule reaches −2 bar.
    let e = build(&x, Box::new(Cavity::pressurized(box_triangles(), "p")));
    assert!(
        e.to_string().contains("-200000") && e.to_string().contains("channel `p`"),
        "{e}"
    );
    let mut both = Cavity::ideal_gas(box_triangles(), 1e5);
    both.pressure = Some(Quantity::Value(1e3));
    let e = build(&x, Box::new(both));
    assert!(
        matches!(pneumatic(&e), PneumaticError::Inconsistent { .. }),
        "{e}"
    );
}

fn muscle(nodes: Vec<usize>, pressure: Quantity) -> Box<dyn EnergySpec> {
    Box::new(PneumaticMuscles::new(
        vec![Muscle {
            name: None,
            nodes: nodes.into_iter().map(Into::into).collect(),
            pressure,
        }],
        1900.0,
        90.0,
        MuscleModel::Linear { area: 3.5e-4 },
    ))
}

#[test]
fn bad_muscles() {
    let x = [[0.0; 3], [0.0; 3], [0.1, 0.0, 0.0]];
    let e = build(&x, muscle(vec![2, 0, 1], Quantity::Value(1e5)));
    match pneumatic(&e) {
        PneumaticError::CoincidentAnchors {
            muscle, anchors, ..
        } => {
            assert_eq!((muscle, anchors), (0, [1, 2]))
        }
        other => panic!("{other}"),
    }
    let e = build(&x, muscle(vec![0, 7], Quantity::Value(1e5)));
    assert!(e.to_string().contains("muscles[0].nodes"), "{e}");
    let e = build(&x, muscle(vec![0, 2], Quantity::Channel("p".into())));
    assert!(
        matches!(pneumatic(&e), PneumaticError::BeyondVacuum { .. }),
        "{e}"
    );
    let e = build(&x, muscle(vec![0, 2], Quantity::Channel("nope".into())));
    assert!(e.to_string().contains("nope"), "{e}");
    let e = build(&x, muscle(vec![0], Quantity::Value(1e5)));
    assert!(
        matches!(pneumatic(&e), PneumaticError::Inconsistent { .. }),
        "{e}"
    );
}
