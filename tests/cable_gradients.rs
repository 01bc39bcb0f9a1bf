//! Forward-sensitivity and adjoint gradients of a whole rollout of a small
//! FEM body driven by an embedded cable, with ground contact, Coulomb
//! friction and gravity active, against central finite differences of
//! complete rollouts (the cable paper's §III on the smallest scene that
//! exercises every coupling), and against each other.

use pliant::cable::{Cable, CableControl, bind_points_in_tets};
use pliant::core::{Integrator, ModelBuilder, NewtonSettings, ParamChannel, Simulator};
use pliant::environment::{Friction, Gravity, Ground, NormalLaw};
use pliant::fem::{Material, TetMesh};
use pliant::gait::SlackRegularizer;
use pliant::optim::{CentreOfMass, ComPath, ControlSmoothness, Gait, Motor, Objective, Shooting};

const H: f64 = 0.01;

/// An inchworm: a 4 × 1 × 1 cm body on two 1 cm legs, a cable along the
/// underside of the body from leg to leg.
fn inchworm() -> (Shooting, f64) {
    let mesh = TetMesh::from_voxel_boxes(
        &[
            ([0, 0, 1], [4, 1, 2]),
            ([0, 0, 0], [1, 1, 1]),
            ([3, 0, 0], [4, 1, 1]),
        ],
        H,
        [0.0, 0.0, 0.0005],
    )
    .unwrap();
    let mut b = ModelBuilder::new(3).unwrap();
    mesh.add_to(
        &mut b,
        300.0,
        Material::Constant {
            youngs_modulus: 5e4,
            poisson_ratio: 0.3,
        },
    )
    .unwrap();
    b.add_param(ParamChannel::control("u", 0.0)).unwrap();
    let route: Vec<[f64; 3]> = [0.5, 1.5, 2.5, 3.5]
        .iter()
        .map(|x| [x * H, 0.5 * H, 1.2 * H + 0.0005])
        .collect();
    let cable = || {
        Cable::new(
            "belly",
            bind_points_in_tets(&route, &mesh.nodes, &mesh.tets, 1e-9).unwrap(),
            CableControl::Length {
                channel: "u".into(),
            },
            2000.0,
        )
    };
    b.add(cable());
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    let mut ground = Ground::new(
        &[0.0; 3],
        &[0.0, 0.0, 1.0],
        NormalLaw::Quadratic {
            stiffness: 2000.0,
            smoothing: 1e-4,
        },
        Some(Friction::SmoothCoulomb {
            mu: 0.6,
            mu_axis: None,
            slip_velocity: 1e-2,
        }),
    );
    ground.nodes = Some(mesh.boundary_nodes());
    b.add(ground);
    let model = b.build().unwrap();
    let regularized = cable().bind_to(&model.bind_info()).unwrap();
    let newton = NewtonSettings {
        abs_tol: 1e-12,
        rel_tol: 1e-13,
        max_iterations: 100,
        ..Default::default()
    };
    let gait = Gait {
        motors: vec![Motor {
            name: "m".into(),
            channels: vec!["u".into()],
            mirror_of: None,
        }],
        keyframes: 2,
        prep_steps: 3,
        cycle_steps: 6,
        cycles: 2,
        bounds: None,
    };
    let h = 0.02;
    let sim = Simulator::new(model, Integrator::Bdf1, h, newton).unwrap();
    let map = gait.control_map(sim.model()).unwrap();
    let model = sim.model();
    let c0 = CentreOfMass::new(model, &[0, 1]).unwrap().of(model.q0());
    let targets = ComPath::straight(&c0, &[0.01, 0.0], gait.steps(), h);
    let objectives: Vec<Box<dyn Objective>> = vec![
        Box::new(ComPath::new(model, &[0, 1], targets, 1e4).unwrap()),
        Box::new(SlackRegularizer::new(vec![regularized], 1e-3, 1e2).unwrap()),
        Box::new(ControlSmoothness::new(model, &["u"], h, 1e-4).unwrap()),
    ];
    (Shooting::new(sim, map, objectives).unwrap(), h)
}

#[test]
fn fem_cable_rollout_gradients_match_finite_differences_and_each_other() {
    let (p, _) = inchworm();
    // Taut in one keyframe, slack-ish in the other: both cable regimes.
    let z = [0.0015, 0.0004];
    let c = p.check_gradient(&z, 1e-7).unwrap();
    eprintln!("{c}");
    assert!(c.scale > 1e-3, "gradient {:?}", c.forward);
    assert!(c.forward_vs_fd < 1e-5, "{c}");
    assert!(c.adjoint_vs_forward < 1e-9, "{c}");
}
