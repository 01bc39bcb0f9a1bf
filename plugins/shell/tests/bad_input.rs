//! Bad shell input gets a typed error that names the entry, the element and
//! what was wrong — never a panic.

use pliant_core::{CoreError, ModelBuilder};
use pliant_shell::{Bending, HingeActuation, Shell, ShellError};

fn square(extra: Option<[f64; 3]>) -> ModelBuilder {
    let mut b = ModelBuilder::new(3).unwrap();
    for x in [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ] {
        b.add_node(&x, 0.1).unwrap();
    }
    if let Some(x) = extra {
        b.add_node(&x, 0.1).unwrap();
    }
    b
}

fn build(mut b: ModelBuilder, shell: Shell) -> CoreError {
    b.add(shell);
    b.build().unwrap_err()
}

fn shell_error(e: &CoreError) -> ShellError {
    match e.innermost() {
        CoreError::Other(inner) => inner
            .downcast_ref::<ShellError>()
            .unwrap_or_else(|| panic!("not a shell error: {e}"))
            .clone(),
        other => panic!("not a shell error: {other}"),
    }
}

fn sheet() -> Shell {
    Shell::new(vec![[0, 1, 2], [0, 2, 3]], 1e-3, 1e6, 0.3, 1000.0)
}

#[test]
fn each_bad_input_is_named() {
    // Negative thickness.
    let e = build(
        square(None),
        Shell {
            thickness: -1e-3,
            ..sheet()
        },
    );
    assert!(e.to_string().contains("energies[0] (shell)"), "{e}");
    assert!(e.to_string().contains("thickness"), "{e}");
    // ν at or beyond what the plate law allows.
    for nu in [0.6, -1.0, f64::NAN] {
        let e = build(
            square(None),
            Shell {
                poisson_ratio: nu,
                ..sheet()
            },
        );
        assert!(e.to_string().contains("poisson_ratio"), "{e}");
    }
    // Non-manifold: a third triangle on edge 0–2.
    let e = build(
        square(Some([0.5, 0.5, 1.0])),
        Shell {
            triangles: vec![[0, 1, 2], [0, 2, 3], [2, 0, 4]],
            ..sheet()
        },
    );
    assert!(
        matches!(
            shell_error(&e),
            ShellError::NonManifold { nodes: [0, 2], .. }
        ),
        "{e}"
    );
    // Degenerate: three collinear nodes.
    let mut b = square(None);
    b.add_node(&[2.0, 0.0, 0.0], 0.1).unwrap();
    let e = build(
        b,
        Shell {
            triangles: vec![[0, 1, 4]],
            ..sheet()
        },
    );
    assert!(
        matches!(shell_error(&e), ShellError::Degenerate { triangle: 0, .. }),
        "{e}"
    );
    // Inconsistent orientation.
    let e = build(
        square(None),
        Shell {
            triangles: vec![[0, 1, 2], [0, 3, 2]],
            ..sheet()
        },
    );
    assert!(
        matches!(shell_error(&e), ShellError::Orientation { .. }),
        "{e}"
    );
    // A node the model does not have.
    let e = build(
        square(None),
        Shell {
            triangles: vec![[0, 1, 9]],
            ..sheet()
        },
    );
    assert!(
        matches!(shell_error(&e), ShellError::MissingNode { node: 9, .. }),
        "{e}"
    );
    // Natural angles on a boundary edge, and with mid-edge bending.
    let mut b = square(None);
    b.add_param(pliant_core::ParamChannel::control("u", 0.0))
        .unwrap();
    let act = vec![HingeActuation {
        channel: "u".into(),
        edges: vec![[0, 1]],
        gain: 1.0,
    }];
    let e = build(
        b,
        Shell {
            natural_angle: act.clone(),
            bending: Bending::Hinge,
            ..sheet()
        },
    );
    assert!(
        matches!(shell_error(&e), ShellError::NotAHinge { nodes: [0, 1], .. }),
        "{e}"
    );
    let e = build(
        square(None),
        Shell {
            natural_angle: act,
            ..sheet()
        },
    );
    assert!(e.to_string().contains("natural_angle"), "{e}");
    // A 2-D model.
    let mut b = ModelBuilder::new(2).unwrap();
    for x in [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]] {
        b.add_node(&x, 0.1).unwrap();
    }
    b.add(Shell::new(vec![[0, 1, 2]], 1e-3, 1e6, 0.3, 1000.0));
    let e = b.build().unwrap_err();
    assert!(
        matches!(shell_error(&e), ShellError::Dimension { dim: 2 }),
        "{e}"
    );
}

#[test]
fn a_sheet_folded_flat_at_rest_is_refused_and_composites_keep_their_entry_index() {
    // Node 3 on top of node 1: triangle (0, 2, 3) lies on (0, 1, 2) with the
    // opposite normal.
    let mut b = ModelBuilder::new(3).unwrap();
    for x in [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [1.0, 0.0, 0.0],
    ] {
        b.add_node(&x, 0.1).unwrap();
    }
    let e = build(b, sheet());
    assert!(
        matches!(shell_error(&e), ShellError::Folded { nodes: [0, 2], .. }),
        "{e}"
    );
    // A shell entry stands for two energies; what follows keeps its entry
    // index in messages.
    let mut b = square(None);
    b.add(sheet());
    b.add(pliant_environment::Gravity::new(&[0.0, 0.0, -9.81]));
    let m = b.build().unwrap();
    assert_eq!(m.energies().len(), 3);
    assert_eq!(m.describe_energy(0), "energies[0] (shell_stretching)");
    assert_eq!(m.describe_energy(1), "energies[0] (shell_mid_edge)");
    assert_eq!(m.describe_energy(2), "energies[1] (gravity)");
}

#[test]
fn gains_densities_and_ratios_are_checked_whatever_the_bending() {
    let mut b = square(None);
    b.add_param(pliant_core::ParamChannel::control("u", 0.0))
        .unwrap();
    let e = build(
        b,
        Shell {
            bending: Bending::Hinge,
            natural_angle: vec![HingeActuation {
                channel: "u".into(),
                edges: vec![[0, 2]],
                gain: f64::INFINITY,
            }],
            ..sheet()
        },
    );
    assert!(e.to_string().contains("natural_angle[0].gain"), "{e}");
    let e = build(
        square(None),
        Shell {
            bending: Bending::None,
            poisson_ratio: 0.9,
            ..sheet()
        },
    );
    assert!(e.to_string().contains("poisson_ratio"), "{e}");
    let mut b = square(None);
    b.add(pliant_shell::ShellMidEdge {
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        thickness: 1e-3,
        youngs_modulus: 1e6.into(),
        poisson_ratio: 0.3,
        density: -1.0,
        paper_derivatives: false,
    });
    let e = b.build().unwrap_err();
    assert!(e.to_string().contains("density"), "{e}");
}
