//! Bad cells, actuators, links and contact sets give typed errors naming
//! what is wrong — never a panic.

use pliant_cells::{
    Actuator, Actuators, Cell, CellContact, CellError, CellLink, CellLinks, Cells, add_ring,
};
use pliant_core::{CoreError, EnergySpec, ModelBuilder};

/// A 2-D model with a 6-node ring (nodes 0–5), a bow-tie (6–9), a flat
/// triangle (10–12) and a clockwise ring (13–18), binding `spec`.
fn bind(spec: impl EnergySpec + 'static) -> CoreError {
    let mut b = ModelBuilder::new(2).unwrap();
    add_ring(&mut b, [0.0, 0.0], 0.1, 6, 0.0, 1e-3).unwrap();
    for p in [[1.0, 0.0], [1.1, 0.1], [1.1, 0.0], [1.0, 0.1]] {
        b.add_node(&p, 1e-3).unwrap();
    }
    for p in [[2.0, 0.0], [2.1, 0.0], [2.2, 0.0]] {
        b.add_node(&p, 1e-3).unwrap();
    }
    let cw: Vec<[f64; 2]> = pliant_cells::circle([3.0, 0.0], 0.1, 6, 0.0)
        .into_iter()
        .rev()
        .collect();
    for p in cw {
        b.add_node(&p, 1e-3).unwrap();
    }
    b.add(spec);
    b.build().unwrap_err()
}

fn cell_error(e: &CoreError) -> CellError {
    match e.innermost() {
        CoreError::Other(inner) => inner
            .downcast_ref::<CellError>()
            .unwrap_or_else(|| panic!("not a CellError: {e}"))
            .clone(),
        other => panic!("not a CellError: {other}"),
    }
}

fn cells(nodes: Vec<usize>) -> Cells {
    Cells {
        cells: vec![Cell {
            nodes,
            pressure: 2.0.into(),
        }],
        stretch_stiffness: 100.0,
        bending_stiffness: 0.0,
        name: None,
    }
}

#[test]
fn bad_membranes_are_named() {
    let e = bind(cells(vec![6, 7, 8, 9]));
    assert!(
        matches!(cell_error(&e), CellError::SelfIntersecting { cell: 0, .. }),
        "{e}"
    );
    let e = bind(cells(vec![0, 1]));
    assert_eq!(cell_error(&e), CellError::TooFewNodes { cell: 0, found: 2 });
    let e = bind(cells(vec![10, 11, 12]));
    assert!(
        matches!(
            cell_error(&e),
            CellError::NonPositiveArea { .. } | CellError::SelfIntersecting { .. }
        ),
        "{e}"
    );
    let e = bind(cells(vec![13, 14, 15, 16, 17, 18]));
    assert!(
        matches!(cell_error(&e), CellError::NonPositiveArea { cell: 0, area } if area < 0.0),
        "{e}"
    );
    let e = bind(cells(vec![0, 1, 2, 3, 4, 99]));
    assert!(
        matches!(
            cell_error(&e),
            CellError::MissingNode {
                node: 99,
                count: 19,
                ..
            }
        ),
        "{e}"
    );
    let e = bind(cells(vec![0, 1, 2, 2, 4, 5]));
    assert_eq!(cell_error(&e), CellError::RepeatedNode { cell: 0, node: 2 });
    let mut c = cells(vec![0, 1, 2, 3, 4, 5]);
    c.cells[0].pressure = (-1.0).into();
    let e = bind(c);
    assert!(
        matches!(cell_error(&e), CellError::Field { field, .. } if field == "cells[0].pressure"),
        "{e}"
    );
    let mut c = cells(vec![0, 1, 2, 3, 4, 5]);
    c.stretch_stiffness = f64::NAN;
    assert!(matches!(cell_error(&bind(c)), CellError::Field { .. }));
    let mut c = cells(vec![0, 1, 2, 3, 4, 5]);
    c.cells.push(Cell {
        nodes: vec![13, 14, 15],
        pressure: 1.0.into(),
    });
    assert!(matches!(
        cell_error(&bind(c)),
        CellError::MixedSizes { cell: 1, .. }
    ));
}

#[test]
fn bad_actuators_links_and_contacts_are_named() {
    let e = bind(Actuators {
        actuators: vec![Actuator {
            nodes: [0, 42],
            length: None,
        }],
        stiffness: 10.0,
    });
    assert!(
        matches!(cell_error(&e), CellError::MissingNode { node: 42, .. }),
        "{e}"
    );
    let e = bind(Actuators {
        actuators: vec![Actuator {
            nodes: [0, 1],
            length: Some((-0.1).into()),
        }],
        stiffness: 10.0,
    });
    assert!(
        matches!(cell_error(&e), CellError::Field { field, .. } if field == "actuators[0].length"),
        "{e}"
    );
    let e = bind(Actuators {
        actuators: vec![],
        stiffness: -1.0,
    });
    assert!(matches!(cell_error(&e), CellError::Field { .. }));
    let e = bind(CellLinks {
        links: vec![CellLink {
            rings: [vec![0, 1, 2], vec![3, 4, 77]],
            rest_length: None,
        }],
        stiffness: 10.0,
    });
    assert!(
        matches!(cell_error(&e), CellError::MissingNode { node: 77, .. }),
        "{e}"
    );
    let e = bind(CellContact::new(
        vec![vec![0, 1, 2, 3, 4, 5], vec![6, 7, 8, 9]],
        0.01,
        100.0,
    ));
    assert!(
        matches!(cell_error(&e), CellError::SelfIntersecting { cell: 1, .. }),
        "{e}"
    );
    let e = bind(CellContact::new(vec![vec![0, 1, 2, 3, 4, 5]], -0.01, 100.0));
    assert!(
        matches!(cell_error(&e), CellError::Field { field, .. } if field == "thickness"),
        "{e}"
    );
}

#[test]
fn a_cell_is_planar_only() {
    let mut b = ModelBuilder::new(3).unwrap();
    for p in [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        b.add_node(&p, 1.0).unwrap();
    }
    b.add(cells(vec![0, 1, 2]));
    let e = b.build().unwrap_err();
    assert!(e.to_string().contains("cells"), "{e}");
}

#[test]
fn links_of_mixed_ring_sizes_are_named() {
    let e = bind(CellLinks {
        links: vec![CellLink {
            rings: [vec![0, 1, 2, 3, 4, 5], vec![6, 7, 8]],
            rest_length: None,
        }],
        stiffness: 10.0,
    });
    assert_eq!(
        cell_error(&e),
        CellError::LinkRingSize {
            link: 0,
            found: 3,
            expected: 6
        }
    );
}
