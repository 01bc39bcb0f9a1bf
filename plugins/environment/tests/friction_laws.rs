//! The friction laws' forces against their definitions: the per-axis law
//! of the snake paper's eq. 4 saturates each tangential component on its
//! own, the elliptic smooth Coulomb law bounds the total by `μ N`; world
//! axes; and the errors of an ill-posed friction axis.

use pliant_core::{Block, EvalState, Model, ModelBuilder};
use pliant_environment::{Friction, Ground, NormalLaw};

const K: f64 = 1000.0;
const EPS: f64 = 1e-4;
const H: f64 = 0.01;
/// Slip velocity, m/s: the sliding speeds below are 10³ times larger, so
/// both laws are saturated (tanh(7.5·10³) = 1 to machine precision).
const NU: f64 = 1e-4;

/// One node on the ground plane z = 0, pressed 2 mm into it.
fn model(g: Ground) -> Model {
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, -2e-3], 0.01).unwrap();
    b.add_boxed(Box::new(g));
    b.build().unwrap()
}

/// A step of `H` from `qp` to `q` (no control channels).
fn state<'a>(q: &'a [f64], qp: &'a [f64]) -> EvalState<'a> {
    EvalState {
        q,
        q_prev: qp,
        p: &[],
        h: H,
        dt: H,
        t: 0.0,
    }
}

/// The gradient of the first energy of `m` over the step `qp → q`.
fn gradient(m: &Model, q: &[f64], qp: &[f64]) -> Vec<f64> {
    let mut grad = vec![0.0; 3];
    m.energies()[0]
        .elements()
        .blocks(&state(q, qp), Block::Gradient, &mut grad);
    grad
}

/// The friction force (N) on the node moving at velocity `u` (m/s) over a
/// step of `H`, at the previous state's depth.
fn friction_force(g: Ground, u: [f64; 3]) -> [f64; 3] {
    let m = model(g);
    let qp = m.q0().to_vec();
    let q: Vec<f64> = qp.iter().zip(&u).map(|(x, v)| x + v * H).collect();
    let grad = gradient(&m, &q, &qp);
    // The normal law's own force is along z only: the tangential part of
    // −∇E is friction.
    [-grad[0], -grad[1], 0.0]
}

/// The plane z = 0 with the quadratic contact law and `friction`.
fn plane(friction: Option<Friction>) -> Ground {
    Ground::new(
        &[0.0, 0.0, 0.0],
        &[0.0, 0.0, 1.0],
        NormalLaw::Quadratic {
            stiffness: K,
            smoothing: EPS,
        },
        friction,
    )
}

fn ground(friction: Friction, axis: Option<Vec<f64>>) -> Ground {
    let mut g = plane(Some(friction));
    g.axis = axis;
    g
}

/// Elastic normal force of the quadratic law at 2 mm depth, N.
fn normal_force() -> f64 {
    K * (2e-3 - 0.5 * EPS)
}

#[test]
fn per_axis_friction_saturates_each_component_as_eq_4() {
    let law = Friction::PerAxisCoulomb {
        mu: 0.2,
        mu_axis: 0.6,
        slip_velocity: NU,
    };
    let n = normal_force();
    // Sliding mostly along the world x axis, slightly sideways: eq. 4 gives
    // −N (μ_x sign ẋ, μ_y sign ẏ), the full μ_y N across.
    let f = friction_force(ground(law, Some(vec![1.0, 0.0, 0.0])), [0.1, -0.01, 0.0]);
    assert!((f[0] + 0.6 * n).abs() < 1e-9 * n, "{f:?}");
    assert!((f[1] - 0.2 * n).abs() < 1e-9 * n, "{f:?}");
    // The axis along y swaps the coefficients.
    let f = friction_force(ground(law, Some(vec![0.0, 2.0, 0.0])), [0.1, -0.01, 0.0]);
    assert!((f[0] + 0.2 * n).abs() < 1e-9 * n, "{f:?}");
    assert!((f[1] - 0.6 * n).abs() < 1e-9 * n, "{f:?}");
}

#[test]
fn elliptic_friction_bounds_the_total_force() {
    // The same motion under smooth Coulomb with the same coefficients: the
    // force opposes the μ-weighted velocity and its μ-weighted norm is N.
    let law = Friction::SmoothCoulomb {
        mu: 0.2,
        mu_axis: Some(0.6),
        slip_velocity: NU,
    };
    let n = normal_force();
    let u = [0.1, -0.01, 0.0];
    let f = friction_force(ground(law, Some(vec![1.0, 0.0, 0.0])), u);
    // Force = −N (μ_x² u_x, μ_y² u_y)/‖(μ_x u_x, μ_y u_y)‖.
    let (ax, ay) = (0.6 * u[0], 0.2 * u[1]);
    let s = (ax * ax + ay * ay).sqrt();
    let expected = [-n * 0.6 * ax / s, -n * 0.2 * ay / s];
    for k in 0..2 {
        assert!(
            (f[k] - expected[k]).abs() < 1e-9 * n,
            "{f:?} vs {expected:?}"
        );
    }
    // Sideways it gives far less than the per-axis law's μ_y N.
    assert!(f[1].abs() < 0.02 * n, "{f:?}");
}

#[test]
fn an_ill_posed_friction_axis_is_an_error() {
    let per_axis = Friction::PerAxisCoulomb {
        mu: 0.2,
        mu_axis: 0.6,
        slip_velocity: NU,
    };
    let bind = |g: Ground| {
        let mut b = ModelBuilder::new(3).unwrap();
        b.add_node(&[0.0, 0.0, 0.0], 0.01).unwrap();
        b.add_node(&[0.1, 0.0, 0.0], 0.01).unwrap();
        b.add_boxed(Box::new(g));
        b.build().map(|_| ()).unwrap_err().to_string()
    };
    // No axis at all.
    let e = bind(ground(per_axis, None));
    assert!(e.contains("`mu_axis` and an axis"), "{e}");
    // Along the normal, or zero: no direction in the plane.
    for v in [vec![0.0, 0.0, 3.0], vec![0.0; 3]] {
        let e = bind(ground(per_axis, Some(v)));
        assert!(e.contains("axis") && e.contains("parallel"), "{e}");
    }
    // Wrong length, not finite.
    let e = bind(ground(per_axis, Some(vec![1.0, 0.0])));
    assert!(e.contains("`axis` has 2 entries, expected 3"), "{e}");
    let e = bind(ground(per_axis, Some(vec![f64::NAN, 1.0, 0.0])));
    assert!(e.contains("axis[0]"), "{e}");
    // Both per-node axes and a world axis.
    let mut g = ground(per_axis, Some(vec![1.0, 0.0, 0.0]));
    g.axes = Some(vec![[0, 1], [0, 1]]);
    let e = bind(g);
    assert!(e.contains("not both"), "{e}");
}

#[test]
fn a_scene_file_gives_the_per_axis_law_along_a_world_axis() {
    let text = r#"{
      "dim": 3, "nodes": [[0, 0, -0.002]], "mass": 0.01, "dt": 0.01, "steps": 1,
      "energies": [{ "type": "ground",
        "contact": { "law": "quadratic", "stiffness": 1000.0, "smoothing": 0.0001 },
        "friction": { "model": "per_axis_coulomb", "mu": 0.2, "mu_axis": 0.6, "slip_velocity": 0.0001 },
        "axis": [0, 1, 0] }]
    }"#;
    let m = pliant_core::scene::Scene::from_json(text, "test")
        .unwrap()
        .build_model()
        .unwrap();
    let qp = m.q0().to_vec();
    let q = [0.1 * H, -0.01 * H, qp[2]];
    let grad = gradient(&m, &q, &qp);
    let n = normal_force();
    // μ_axis along y, μ along x.
    assert!((grad[0] - 0.2 * n).abs() < 1e-9 * n, "{grad:?}");
    assert!((grad[1] + 0.6 * n).abs() < 1e-9 * n, "{grad:?}");
}

#[test]
fn a_degenerate_axis_pair_gives_no_per_axis_friction() {
    // Node 0 pressed into the ground and sliding; its axis pair (1, 2) is
    // vertical, so it has no direction in the plane that step: the per-axis
    // law applies no friction, in the energy and in its derivatives alike.
    let build = |friction: Option<Friction>| {
        let mut b = ModelBuilder::new(3).unwrap();
        b.add_node(&[0.0, 0.0, -2e-3], 0.01).unwrap();
        b.add_node(&[0.1, 0.0, 0.01], 0.01).unwrap();
        b.add_node(&[0.1, 0.0, 0.02], 0.01).unwrap();
        let mut g = plane(friction);
        g.nodes = Some(vec![0]);
        if friction.is_some() {
            g.axes = Some(vec![[1, 2]]);
        }
        b.add_boxed(Box::new(g));
        b.build().unwrap()
    };
    let with = build(Some(Friction::PerAxisCoulomb {
        mu: 0.2,
        mu_axis: 0.6,
        slip_velocity: NU,
    }));
    let without = build(None);
    let qp = with.q0().to_vec();
    let mut q = qp.clone();
    q[0] += 0.05 * H;
    q[1] -= 0.02 * H;
    let s = state(&q, &qp);
    let (ew, eo) = (
        with.energies()[0].elements().value(&s),
        without.energies()[0].elements().value(&s),
    );
    assert!(ew > 0.0 && ew == eo, "{ew} vs {eo}");
    for kind in [Block::Gradient, Block::Hessian] {
        let len = if kind == Block::Gradient { 9 } else { 81 };
        let mut bw = vec![0.0; len];
        with.energies()[0].elements().blocks(&s, kind, &mut bw);
        // The block of node 0 (the first three rows) has the normal law's
        // z terms only.
        let row = if kind == Block::Gradient { 1 } else { 9 };
        for a in 0..3 {
            for c in 0..row.min(3) {
                let v = bw[a * row + c];
                let normal_only = a == 2 && (kind == Block::Gradient || c == 2);
                assert!(normal_only || v == 0.0, "{kind:?} [{a}][{c}] = {v}");
            }
        }
    }
}
