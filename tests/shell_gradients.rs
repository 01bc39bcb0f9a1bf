//! Rollout gradients of shell robots: a small plate swimming in water
//! (gravity with buoyancy, drag) driven by natural hinge angles, and a
//! mid-edge plate with respect to its Young's modulus. Forward sensitivity
//! and adjoint agree with central finite differences of whole rollouts —
//! for the mid-edge model, through its lagged frames `τ⁰(x_prev)` — so
//! shell robots are optimized with `pliant-optim` like any other.

use pliant::core::{Integrator, ModelBuilder, NewtonSettings, ParamChannel, Simulator};
use pliant::environment::Gravity;
use pliant::optim::{CentreOfMass, ComPath, ControlMap, Gait, Motor, Objective, Shooting};
use pliant::shell::generate::{MeshKind, rectangle};
use pliant::shell::{Bending, Modulus, Shell, ShellDrag};

const H: f64 = 0.01;

fn newton() -> NewtonSettings {
    NewtonSettings {
        abs_tol: 1e-13,
        rel_tol: 1e-13,
        max_iterations: 100,
        ..Default::default()
    }
}

/// A 6 × 4 cm plate, 0.5 mm thick, in water; `bending` model; Young's
/// modulus 5 MPa or the channel `E`; hinges along the middle line `x = 3 cm`
/// driven by the channel `flap`.
fn plate(bending: Bending, youngs_channel: bool) -> (ModelBuilder, Vec<[usize; 2]>) {
    let mesh = rectangle(0.06, 0.04, 0.01, MeshKind::RightIsosceles, 0).unwrap();
    let mut b = ModelBuilder::new(3).unwrap();
    for x in &mesh.nodes {
        b.add_node(x, 0.0).unwrap();
    }
    b.add_param(ParamChannel::control("flap", 0.0)).unwrap();
    b.add_design_param("E", 5e6).unwrap();
    let topo = mesh.topology().unwrap();
    let middle: Vec<[usize; 2]> = topo
        .hinges
        .iter()
        .map(|h| topo.edges[h.edge])
        .filter(|&[a, c]| {
            (mesh.nodes[a][0] - 0.03).abs() < 1e-9 && (mesh.nodes[c][0] - 0.03).abs() < 1e-9
        })
        .collect();
    assert!(!middle.is_empty());
    let youngs = if youngs_channel {
        Modulus::Channel("E".into())
    } else {
        Modulus::Value(5e6)
    };
    let mut shell = Shell::new(mesh.triangles.clone(), 5e-4, youngs, 0.3, 1100.0).bending(bending);
    if bending == Bending::Hinge {
        shell = shell.actuate("flap", middle.clone(), 1.0);
    }
    b.add(shell);
    b.add(Gravity {
        g: vec![0.0, 0.0, -9.81],
        nodes: None,
        density: Some(1100.0),
        medium_density: Some(1000.0),
    });
    b.add(ShellDrag {
        triangles: mesh.triangles,
        medium_density: 1000.0,
        drag_coefficient: 1.0,
    });
    (b, middle)
}

fn objectives(sim: &Simulator, steps: usize) -> Vec<Box<dyn Objective>> {
    let model = sim.model();
    let c0 = CentreOfMass::new(model, &[0, 2]).unwrap().of(model.q0());
    let targets = ComPath::straight(&c0, &[0.01, 0.02], steps, H);
    vec![Box::new(
        ComPath::new(model, &[0, 2], targets, 1e4).unwrap(),
    )]
}

#[test]
fn natural_hinge_angle_gradients_match_finite_differences_of_rollouts() {
    let (b, _) = plate(Bending::Hinge, false);
    let sim = Simulator::new(b.build().unwrap(), Integrator::ImplicitEuler, H, newton()).unwrap();
    let gait = Gait {
        motors: vec![Motor {
            name: "flap".into(),
            channels: vec!["flap".into()],
            mirror_of: None,
        }],
        keyframes: 3,
        prep_steps: 3,
        cycle_steps: 9,
        cycles: 1,
        bounds: None,
    };
    let map = gait.control_map(sim.model()).unwrap();
    let obj = objectives(&sim, gait.steps());
    let p = Shooting::new(sim, map, obj).unwrap();
    let c = p.check_gradient(&[0.6, -0.4, 0.9], 1e-5).unwrap();
    eprintln!("{c}");
    assert!(c.scale > 1e-9, "gradient {:?}", c.forward);
    assert!(c.forward_vs_fd < 1e-5, "{c}");
    assert!(c.adjoint_vs_forward < 1e-9, "{c}");
}

#[test]
fn youngs_modulus_gradients_through_the_mid_edge_frames_match_finite_differences() {
    for bending in [Bending::MidEdge, Bending::Hinge] {
        let (mut b, _) = plate(bending, true);
        // One corner thrown upwards: the plate bends, and how far depends
        // on E.
        b.set_velocity(2, 0.3).unwrap();
        let model = b.build().unwrap();
        let e = model.layout().param("E", "test").unwrap();
        let steps = 10;
        let sim = Simulator::new(model, Integrator::ImplicitEuler, H, newton()).unwrap();
        // E = 5 MPa × z, held over the rollout.
        let map = ControlMap::new(steps, vec![e], 1, vec![5e6; steps], None).unwrap();
        let obj = objectives(&sim, steps);
        let p = Shooting::new(sim, map, obj).unwrap();
        let c = p.check_gradient(&[1.0], 1e-5).unwrap();
        eprintln!("{bending:?}: {c}");
        assert!(c.scale > 1e-12, "gradient {:?}", c.forward);
        assert!(c.forward_vs_fd < 1e-5, "{bending:?}: {c}");
        assert!(c.adjoint_vs_forward < 1e-9, "{bending:?}: {c}");
    }
}
