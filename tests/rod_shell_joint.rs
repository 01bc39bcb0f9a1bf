//! Rod–shell joints (MAT-DiSMech §3.4, Fig. 2g): a mast (rod) standing on a
//! clamped plate (shell) and pushed sideways at its tip. Welded by a joint,
//! the mast bends like a cantilever on a slightly compliant base; merely
//! sharing the node, it is pinned and has no lateral stiffness at all.

use pliant::core::{CoreError, Integrator, ModelBuilder, NewtonSettings, Simulator};
use pliant::environment::{NodeForce, PointForces};
use pliant::rod::{Rod, RodError};
use pliant::shell::generate::{MeshKind, rectangle};
use pliant::shell::{Bending, Shell};

const E: f64 = 1e8;
const R: f64 = 1e-3;
const MAST: f64 = 0.05;
const F: f64 = 0.01;
const EDGES: usize = 20;

/// Tip deflection along the force (m), or the solver's error.
fn mast(weld: bool, bending: Bending) -> Result<f64, CoreError> {
    mast_on(weld, bending, false)
}

/// [`mast`], optionally with the plate's triangles listed in reverse order,
/// each starting from its second vertex (the same mesh, labelled otherwise).
fn mast_on(weld: bool, bending: Bending, relabel: bool) -> Result<f64, CoreError> {
    let mut plate = rectangle(0.1, 0.1, 0.02, MeshKind::RightIsosceles, 0).unwrap();
    if relabel {
        plate.triangles.reverse();
        for t in &mut plate.triangles {
            t.rotate_left(1);
        }
    }
    let mut b = ModelBuilder::new(3)?;
    for x in &plate.nodes {
        let n = b.add_node(x, 0.0)?;
        let edge = |v: f64| v.abs() < 1e-9 || (v - 0.1).abs() < 1e-9;
        if edge(x[0]) || edge(x[1]) {
            b.fix_node(n)?;
        }
    }
    let foot = plate.nearest([0.05, 0.05, 0.0]);
    let mut chain = vec![foot];
    for k in 1..=EDGES {
        chain.push(b.add_node(&[0.05, 0.05, MAST * k as f64 / EDGES as f64], 0.0)?);
    }
    let tip = *chain.last().unwrap();
    b.add(Shell::new(plate.triangles.clone(), 2e-3, E, 0.3, 0.0).bending(bending));
    let mut rod = Rod::chain(&chain, R, E, 0.3, 1000.0);
    if weld {
        rod = rod.with_shell_joints(vec![foot], plate.triangles.clone());
    }
    b.add(rod.fix_twist(EDGES - 1));
    b.add(PointForces::new(vec![NodeForce {
        node: tip,
        force: vec![F, 0.0, 0.0],
    }]));
    let mut sim = Simulator::new(
        b.build()?,
        Integrator::Static,
        1.0,
        NewtonSettings::default(),
    )?;
    sim.step()?;
    Ok(sim.q()[3 * tip] - 0.05)
}

#[test]
fn a_welded_mast_bends_like_a_cantilever_and_a_pinned_one_does_not_stand() {
    let i = std::f64::consts::PI * R.powi(4) / 4.0;
    let cantilever = F * MAST.powi(3) / (3.0 * E * i);
    for bending in [Bending::Hinge, Bending::MidEdge] {
        let welded = mast(true, bending).unwrap();
        eprintln!(
            "{bending:?}: welded mast tip {:.3} mm (rigid-base cantilever {:.3} mm)",
            1e3 * welded,
            1e3 * cantilever
        );
        match mast(false, bending) {
            Err(e) => eprintln!("{bending:?}: pinned mast: {e}"),
            Ok(pinned) => {
                eprintln!("{bending:?}: pinned mast tip {:.3} mm", 1e3 * pinned);
                assert!(pinned > 5.0 * welded, "pinned {pinned} vs welded {welded}");
            }
        }
        // The discrete cantilever (its clamp acts half an edge up the
        // mast) on a slightly compliant base: close to the continuous
        // cantilever, not loose.
        assert!(
            (welded / cantilever - 1.0).abs() < 0.1,
            "{welded} vs {cantilever}"
        );
    }
}

#[test]
fn a_joint_does_not_depend_on_how_the_shell_is_labelled() {
    // The joint edges' frames come from the geometry and the winding, not
    // from the order in which the triangles list them: a breadth-first transport across the
    // loops of the triangle fan picked its path by that order (hinge: tip
    // 5.7073 against 5.7056 mm before the frames were anchored to the rod
    // edge).
    for bending in [Bending::Hinge, Bending::MidEdge] {
        let a = mast_on(true, bending, false).unwrap();
        let b = mast_on(true, bending, true).unwrap();
        eprintln!("{bending:?}: tip {a:.9e} m, relabelled {b:.9e} m");
        assert!((a / b - 1.0).abs() < 1e-10, "{a} vs {b}");
    }
}

#[test]
fn joints_must_weld_a_rod_node_to_a_shell_vertex() {
    let mut b = ModelBuilder::new(3).unwrap();
    for x in [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, 2.0],
    ] {
        b.add_node(&x, 0.1).unwrap();
    }
    // Node 4 is on the rod but in no triangle.
    b.add(Rod::chain(&[3, 4], R, E, 0.3, 1000.0).with_shell_joints(vec![4], vec![[0, 1, 2]]));
    let e = b.build().unwrap_err();
    let CoreError::Other(inner) = e.innermost() else {
        panic!("{e}")
    };
    let inner = inner.downcast_ref::<RodError>().expect("a rod error");
    assert!(matches!(inner, RodError::Joint { node: 4, .. }), "{inner}");
    assert!(e.to_string().contains("shell_joints.nodes[0]"), "{e}");
    assert!(e.to_string().contains("in no triangle"), "{e}");
}

#[test]
fn a_welded_rod_has_exact_derivatives_at_the_joint() {
    // The mast model, bent and moving: the rod's analytic blocks (joint
    // springs included) against its dual-number fallback and finite
    // differences.
    use pliant::core::EvalState;
    use pliant::core::derivcheck::{Rng, Tolerances, check};
    let plate = rectangle(0.1, 0.1, 0.025, MeshKind::RightIsosceles, 0).unwrap();
    let mut b = ModelBuilder::new(3).unwrap();
    for x in &plate.nodes {
        b.add_node(x, 0.0).unwrap();
    }
    let foot = plate.nearest([0.05, 0.05, 0.0]);
    let mut chain = vec![foot];
    for k in 1..=3 {
        chain.push(b.add_node(&[0.05, 0.05, 0.01 * k as f64], 0.0).unwrap());
    }
    b.add(
        Rod::chain(&chain, R, E, 0.3, 1000.0)
            .with_shell_joints(vec![foot], plate.triangles.clone()),
    );
    let m = b.build().unwrap();
    let mut rng = Rng::new(3);
    let q: Vec<f64> = m.q0().iter().map(|v| v + rng.range(-1e-3, 1e-3)).collect();
    let qp: Vec<f64> = q.iter().map(|v| v + rng.range(-1e-4, 1e-4)).collect();
    let s = EvalState {
        q: &q,
        q_prev: &qp,
        p: &[],
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    };
    let tol = Tolerances {
        exact: 1e-8,
        fd: 1e-5,
        step: 1e-7,
    };
    let r = check(m.energies()[0].as_ref(), &s, &tol);
    eprintln!("{r:?}");
    r.assert_within(&tol);
}
