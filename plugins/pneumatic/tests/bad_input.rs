//! Bad cavities and muscles are typed errors that say what and where.

mod common;

use common::{box_corners, box_triangles, builder};
use pliant_core::{CoreError, EnergySpec, Integrator, NewtonSettings, ParamChannel, Simulator};
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

#[test]
fn a_large_ideal_gas_cavity_steps_and_is_refused_only_where_a_dense_block_is_needed() {
    // 2,562 nodes: a dense 7,686² block (4.7·10⁷ entries) if expanded.
    let ball = pliant_mesh::SurfaceMesh::icosphere(0.1, [0.0; 3], 4);
    let n = ball.vertices.len();
    assert!(9 * n * n > pliant_core::DENSE_EXPANSION_LIMIT);
    let model = || {
        let mut b = builder(&ball.vertices, 1e-4).unwrap();
        // 10 % above the ambient pressure at rest: it inflates.
        b.add(Cavity::ideal_gas(
            ball.triangles.clone(),
            1.1 * pliant_pneumatic::ATMOSPHERE,
        ));
        b.build().unwrap()
    };
    let volume = |q: &[f64]| {
        let x: Vec<[f64; 3]> = q.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
        pliant_mesh::SurfaceMesh {
            vertices: x,
            triangles: ball.triangles.clone(),
        }
        .volume()
    };
    // Implicit Euler: steps and step derivatives never expand the gas's
    // rank-one term.
    let mut sim = Simulator::new(
        model(),
        Integrator::ImplicitEuler,
        1e-3,
        NewtonSettings::default(),
    )
    .unwrap();
    let v0 = volume(sim.q());
    let p = sim.model().params_at(1e-3);
    let (_, d) = sim.step_with(&p, true).unwrap();
    assert!(d.is_some());
    assert!(volume(sim.q()) > v0, "the gas pushes the wall out");
    // Implicit midpoint steps too, but its derivatives would hold the
    // whole Hessian: a typed error naming the energy.
    let mut sim = Simulator::new(
        model(),
        Integrator::ImplicitMidpoint,
        1e-3,
        NewtonSettings::default(),
    )
    .unwrap();
    sim.step().unwrap();
    let e = sim.step_with(&p, true).unwrap_err();
    match &e {
        CoreError::DenseExpansion {
            integrator,
            energy,
            entries,
            ..
        } => {
            assert_eq!(*integrator, "implicit_midpoint");
            assert_eq!(energy, "energies[0] (cavity)", "{e}");
            assert_eq!(*entries, 9 * n * n);
        }
        other => panic!("{other}"),
    }
    assert_eq!(sim.steps_done(), 1, "the refused step is not taken");
}
