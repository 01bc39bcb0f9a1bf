//! Every shell energy: analytic gradient and Hessian (and the parameter
//! blocks where written) against the dual-number fallback and central
//! finite differences, at bent, stretched and moving states, with Young's
//! modulus and natural hinge angles as channels.

use pliant_core::derivcheck::{Tolerances, check_model_at_random_states};
use pliant_core::{EnergySpec, Model, ModelBuilder, ParamChannel};
use pliant_shell::generate::{MeshKind, hexagon, rectangle};
use pliant_shell::{
    Modulus, ShellDrag, ShellHinges, ShellMembrane, ShellMidEdge, ShellStretching, TriMesh,
};

/// A model over `mesh` whose nodes are lifted out of the plane by a smooth
/// bump (a curved rest shape), with channels `E` (Pa) and `u`.
fn model(mesh: &TriMesh, curved: bool, energies: Vec<Box<dyn EnergySpec>>) -> Model {
    let mut b = ModelBuilder::new(3).unwrap();
    for x in &mesh.nodes {
        let z = if curved {
            0.3 * (x[0] * x[0] + 0.5 * x[1] * x[1])
        } else {
            0.0
        };
        b.add_node(&[x[0], x[1], z], 0.01).unwrap();
    }
    b.add_design_param("E", 2e6).unwrap();
    b.add_param(ParamChannel::control("u", 0.4)).unwrap();
    for e in energies {
        b.add_boxed(e);
    }
    b.build().unwrap()
}

fn check_all(m: &Model, label: &str, tol: &Tolerances) {
    // Larger moves for later seeds: from nearly flat to strongly bent.
    for (seed, scale) in [(1, 0.02), (2, 0.08), (3, 0.15)] {
        check_model_at_random_states(
            m,
            &[2.5e6, 0.4],
            scale,
            0.3,
            0.01,
            seed..=seed,
            tol,
            label,
            |_, _| {},
        );
    }
}

fn mesh() -> TriMesh {
    hexagon(0.5, 2).unwrap()
}

fn tol() -> Tolerances {
    Tolerances {
        exact: 1e-8,
        fd: 2e-5,
        step: 1e-6,
    }
}

#[test]
fn stretching_derivatives() {
    let m = mesh();
    for youngs in [Modulus::Value(3e6), Modulus::Channel("E".into())] {
        let s = ShellStretching {
            triangles: m.triangles.clone(),
            thickness: 0.01,
            youngs_modulus: youngs,
            density: 100.0,
            stiffness_scale: 1.0,
        };
        check_all(&model(&m, true, vec![Box::new(s)]), "stretching", &tol());
    }
}

#[test]
fn hinge_derivatives_with_natural_angle_and_modulus_channels() {
    let m = mesh();
    let topo = m.topology().unwrap();
    let driven: Vec<[usize; 2]> = topo
        .hinges
        .iter()
        .step_by(2)
        .map(|h| topo.edges[h.edge])
        .collect();
    for youngs in [Modulus::Value(3e6), Modulus::Channel("E".into())] {
        for curved in [false, true] {
            let s = ShellHinges {
                triangles: m.triangles.clone(),
                thickness: 0.01,
                youngs_modulus: youngs.clone(),
                natural_angle: vec![pliant_shell::HingeActuation {
                    channel: "u".into(),
                    edges: driven.clone(),
                    gain: 1.3,
                }],
            };
            check_all(&model(&m, curved, vec![Box::new(s)]), "hinges", &tol());
        }
    }
}

#[test]
fn mid_edge_derivatives_including_the_lagged_frames() {
    for (mesh, label) in [
        (mesh(), "hexagon"),
        (
            rectangle(0.4, 0.2, 0.1, MeshKind::Random, 5).unwrap(),
            "random",
        ),
    ] {
        for youngs in [Modulus::Value(3e6), Modulus::Channel("E".into())] {
            for curved in [false, true] {
                let s = ShellMidEdge {
                    triangles: mesh.triangles.clone(),
                    thickness: 0.01,
                    youngs_modulus: youngs.clone(),
                    poisson_ratio: 0.3,
                    density: 100.0,
                    paper_derivatives: false,
                };
                let t = Tolerances {
                    step: 2e-7,
                    ..tol()
                };
                check_all(&model(&mesh, curved, vec![Box::new(s)]), label, &t);
            }
        }
    }
}

#[test]
fn drag_derivatives() {
    let m = mesh();
    let s = ShellDrag {
        triangles: m.triangles.clone(),
        medium_density: 1.2,
        drag_coefficient: 1.5,
    };
    check_all(&model(&m, true, vec![Box::new(s)]), "drag", &tol());
}

#[test]
fn membrane_derivatives() {
    for mesh in [
        mesh(),
        rectangle(0.4, 0.2, 0.1, MeshKind::Random, 5).unwrap(),
    ] {
        for youngs in [Modulus::Value(3e6), Modulus::Channel("E".into())] {
            for curved in [false, true] {
                let s = ShellMembrane {
                    triangles: mesh.triangles.clone(),
                    thickness: 0.01,
                    youngs_modulus: youngs.clone(),
                    poisson_ratio: 0.3,
                };
                check_all(&model(&mesh, curved, vec![Box::new(s)]), "membrane", &tol());
            }
        }
    }
}
