//! Every cell energy: analytic gradient and Hessian (and parameter blocks)
//! against the dual-number fallback and central finite differences, at
//! deformed and moving states, with the pressure constant and actuator
//! lengths as channels and membranes in contact with friction.

use pliant_cells::{Actuator, Actuators, Cell, CellContact, CellLink, CellLinks, Cells, add_ring};
use pliant_core::derivcheck::{Tolerances, check_model_at_random_states};
use pliant_core::{EnergySpec, Model, ModelBuilder, ParamChannel, Quantity};

/// Two 7-node cells side by side, `gap` (m) apart, and the energy `spec`
/// built from their rings.
fn model(gap: f64, spec: impl Fn(&[Vec<usize>]) -> Box<dyn EnergySpec>) -> Model {
    let mut b = ModelBuilder::new(2).unwrap();
    let r = 0.05;
    let a = add_ring(&mut b, [0.0, 0.0], r, 7, 0.0, 1e-3).unwrap();
    let c = add_ring(&mut b, [2.0 * r + gap, 0.01], r, 7, 0.4, 1e-3).unwrap();
    b.add_param(ParamChannel::control("C", 2.0)).unwrap();
    b.add_param(ParamChannel::control("L", 0.06)).unwrap();
    b.add_boxed(spec(&[a, c]));
    b.build().unwrap()
}

fn check_model(m: &Model, scale: f64, label: &str) {
    let tol = Tolerances {
        exact: 1e-8,
        fd: 2e-5,
        step: 1e-7,
    };
    check_model_at_random_states(
        m,
        &[1.7, 0.055],
        scale,
        0.5,
        0.01,
        1..=4,
        &tol,
        label,
        |e, s| {
            // Something to check: the energy and its gradient are not zero.
            assert!(e.elements().value(s).abs() > 1e-12, "{label}: no energy");
        },
    );
}

#[test]
fn cells_with_constant_and_channel_pressure() {
    for (pressure, bending) in [
        (Quantity::Value(3.0), 2e-4),
        (Quantity::Channel("C".into()), 0.0),
        (Quantity::Channel("C".into()), 1e-3),
    ] {
        let m = model(0.02, |rings| {
            Box::new(Cells {
                cells: rings
                    .iter()
                    .map(|r| Cell {
                        nodes: r.clone(),
                        pressure: pressure.clone(),
                    })
                    .collect(),
                stretch_stiffness: 50.0,
                bending_stiffness: bending,
                name: None,
            })
        });
        check_model(&m, 0.008, "cells");
    }
}

#[test]
fn actuators() {
    let m = model(0.02, |rings| {
        Box::new(Actuators {
            actuators: vec![
                Actuator {
                    nodes: [rings[0][0], rings[0][3]],
                    length: Some("L".into()),
                },
                Actuator {
                    nodes: [rings[0][1], rings[1][4]],
                    length: Some(0.12.into()),
                },
                Actuator {
                    nodes: [rings[1][2], rings[1][5]],
                    length: None,
                },
            ],
            stiffness: 300.0,
        })
    });
    check_model(&m, 0.01, "actuators");
}

/// Two membranes about 1–5 mm apart (thickness 8 mm, so the facing nodes
/// and segments are inside the penalty's band), with and without friction,
/// searched with `margin` (`None`: the default).
fn check_contact(margin: Option<f64>, label: &str) {
    for friction in [false, true] {
        let m = model(0.001, |rings| {
            let mut c = CellContact::new(rings.to_vec(), 0.008, 500.0);
            c.margin = margin;
            Box::new(if friction {
                c.with_friction(0.5, 0.01)
            } else {
                c
            })
        });
        let what = if friction {
            "with friction"
        } else {
            "frictionless"
        };
        check_model(&m, 0.0015, &format!("{label}, {what}"));
    }
}

#[test]
fn contact_with_and_without_friction() {
    check_contact(None, "contact");
}

/// With a wide fixed search margin most candidate pairs lie beyond the
/// penalty's cutoff, where the pair skips its distance derivatives (the
/// penalty's terms are zero there; friction still acts on pairs whose
/// previous state was in the band): those pairs are checked too.
#[test]
fn contact_pairs_beyond_the_band() {
    check_contact(Some(0.06), "contact, wide margin");
}

#[test]
fn free_joints() {
    let m = model(0.02, |rings| {
        Box::new(CellLinks {
            links: vec![CellLink {
                rings: [rings[0].clone(), rings[1].clone()],
                rest_length: Some(0.09),
            }],
            stiffness: 400.0,
        })
    });
    check_model(&m, 0.01, "links");
}
