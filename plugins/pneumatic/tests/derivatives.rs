//! Every pneumatic energy: analytic gradient and Hessian (and parameter
//! blocks) against the dual-number fallback and central finite
//! differences, at deformed and moving states, with pressures and gas
//! amounts as channels; the muscles also with their length guards engaged.

mod common;

use common::{box_corners, box_triangles, builder};
use pliant_core::derivcheck::{Tolerances, check_model_at_random_states};
use pliant_core::{EnergySpec, Model, ParamChannel};
use pliant_pneumatic::{Anchor, Cavity, Gas, Muscle, MuscleModel, PneumaticMuscles, Quantity};

fn model(x: &[[f64; 3]], energy: Box<dyn EnergySpec>) -> Model {
    let mut b = builder(x, 0.01).unwrap();
    b.add_param(ParamChannel::control("p", 2e5)).unwrap();
    b.add_param(ParamChannel::control("n", 0.02)).unwrap();
    b.add_boxed(energy);
    b.build().unwrap()
}

fn check_model(m: &Model, scale: f64, label: &str) {
    let tol = Tolerances {
        exact: 1e-8,
        fd: 2e-5,
        step: 1e-7,
    };
    // Pressure 1.7 bar and 0.03 mol of gas on the channels.
    check_model_at_random_states(
        m,
        &[1.7e5, 0.03],
        scale,
        0.3,
        0.01,
        1..=3,
        &tol,
        label,
        |_, _| {},
    );
}

#[test]
fn constant_pressure_cavity() {
    let x = box_corners(0.1, 0.08, 0.05);
    for pressure in [Quantity::Value(3e4), Quantity::Channel("p".into())] {
        let m = model(&x, Box::new(Cavity::pressurized(box_triangles(), pressure)));
        check_model(&m, 0.01, "pressure");
    }
}

#[test]
fn ideal_gas_cavity() {
    let x = box_corners(0.1, 0.08, 0.05);
    let gases = [
        Gas {
            amount: None,
            pressure_at_rest: Some(2e5),
            temperature: 300.0,
        },
        Gas {
            amount: Some(Quantity::Channel("n".into())),
            pressure_at_rest: None,
            temperature: 300.0,
        },
    ];
    for gas in gases {
        let mut c = Cavity::ideal_gas(box_triangles(), 1.0);
        c.gas = Some(gas);
        let m = model(&x, Box::new(c));
        check_model(&m, 0.01, "gas");
    }
}

fn muscles(model: MuscleModel, pressure: Quantity) -> PneumaticMuscles {
    PneumaticMuscles::new(
        vec![
            Muscle {
                name: None,
                nodes: vec![0.into(), 1.into(), 2.into()],
                pressure: pressure.clone(),
            },
            Muscle {
                name: Some("side".into()),
                nodes: vec![3.into(), 4.into()],
                pressure,
            },
        ],
        1900.0,
        90.0,
        model,
    )
}

/// A muscle from a material point (weights over four nodes) through a
/// node to a point over two nodes: the 24-DOF pieces.
fn embedded(model: MuscleModel, pressure: Quantity) -> PneumaticMuscles {
    PneumaticMuscles::new(
        vec![Muscle {
            name: None,
            nodes: vec![
                Anchor::Point {
                    nodes: vec![0, 3, 1, 4],
                    weights: vec![0.4, 0.3, 0.2, 0.1],
                },
                2.into(),
                // A zero and a negative weight (a point outside the segment).
                Anchor::Point {
                    nodes: vec![4, 1, 0],
                    weights: vec![0.0, 1.3, -0.3],
                },
            ],
            pressure,
        }],
        1900.0,
        90.0,
        model,
    )
}

#[test]
fn muscles_with_material_point_anchors() {
    let x = vec![
        [0.0, 0.0, 0.0],
        [0.05, 0.0, 0.001],
        [0.2, 0.002, 0.0],
        [0.0, 0.02, 0.0],
        [0.4, 0.02, 0.01],
    ];
    for mm in [
        MuscleModel::linear_from_free_extension(0.5, 4e5, 1900.0, 0.15),
        MuscleModel::McKibben {
            braid_angle: 1.2,
            diameter: 0.012,
        },
    ] {
        let m = model(&x, Box::new(embedded(mm, Quantity::Channel("p".into()))));
        check_model(&m, 0.002, "embedded muscle");
        check_model(&m, 0.02, "embedded muscle (guards)");
    }
}

#[test]
fn muscles_linear_and_mckibben() {
    let x = vec![
        [0.0, 0.0, 0.0],
        [0.05, 0.0, 0.001],
        [0.1, 0.002, 0.0],
        [0.0, 0.02, 0.0],
        [0.1, 0.02, 0.01],
    ];
    let models = [
        MuscleModel::linear_from_free_extension(0.5, 4e5, 1900.0, 0.15),
        MuscleModel::McKibben {
            braid_angle: 1.2,
            diameter: 0.012,
        },
    ];
    for mm in models {
        for p in [Quantity::Value(2e5), Quantity::Channel("p".into())] {
            let m = model(&x, Box::new(muscles(mm, p)));
            // Small moves, then large ones that reach the length guards
            // (±0.3 of a 5 cm piece is beyond both limits for some pieces).
            check_model(&m, 0.002, "muscle");
            check_model(&m, 0.02, "muscle (guards)");
        }
    }
}
