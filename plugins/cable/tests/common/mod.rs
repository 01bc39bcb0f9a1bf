//! A small hand-built 3-D model for the cable tests: a 0.3 × 0.1 × 0.1 m bar
//! of three cubes, each split into six tetrahedra (Kuhn), with slightly
//! jittered nodes, and three channels: `u` and `u2` (contracted lengths, m)
//! and `tau` (tension, N).

#![allow(dead_code)]

use pliant_cable::{CableVertex, bind_points_in_tets, bind_points_on_triangles};
use pliant_core::derivcheck::Rng;
use pliant_core::{EnergySpec, Model, ModelBuilder, ParamChannel};

pub const CHANNELS: [&str; 3] = ["u", "u2", "tau"];

/// Node index of grid point `(i, j, k)`, `i < 4`, `j, k < 2`.
pub fn node(i: usize, j: usize, k: usize) -> usize {
    i + 4 * (j + 2 * k)
}

/// Nodes (m) and tetrahedra of the bar.
pub fn bar() -> (Vec<[f64; 3]>, Vec<[usize; 4]>) {
    let mut rng = Rng::new(11);
    let mut nodes = vec![[0.0; 3]; 16];
    for k in 0..2 {
        for j in 0..2 {
            for i in 0..4 {
                nodes[node(i, j, k)] = [
                    0.1 * i as f64 + rng.range(-2e-3, 2e-3),
                    0.1 * j as f64 + rng.range(-2e-3, 2e-3),
                    0.1 * k as f64 + rng.range(-2e-3, 2e-3),
                ];
            }
        }
    }
    let perms = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut tets = vec![];
    for c in 0..3 {
        for p in perms {
            let mut g = [c, 0, 0];
            let mut t = [node(g[0], g[1], g[2]); 4];
            for (s, &axis) in p.iter().enumerate() {
                g[axis] += 1;
                t[s + 1] = node(g[0], g[1], g[2]);
            }
            tets.push(t);
        }
    }
    (nodes, tets)
}

/// Surface triangles of the bar's face y = 0.
pub fn bottom_face() -> Vec<[usize; 3]> {
    (0..3)
        .flat_map(|i| {
            [
                [node(i, 0, 0), node(i + 1, 0, 0), node(i + 1, 0, 1)],
                [node(i, 0, 0), node(i + 1, 0, 1), node(i, 0, 1)],
            ]
        })
        .collect()
}

/// A cable through the inside of the bar: every vertex in a tetrahedron.
pub fn tet_vertices() -> Vec<CableVertex> {
    let (nodes, tets) = bar();
    let pts = [
        [0.02, 0.03, 0.04],
        [0.09, 0.06, 0.05],
        [0.16, 0.04, 0.07],
        [0.23, 0.05, 0.03],
        [0.28, 0.07, 0.06],
    ];
    let v = bind_points_in_tets(&pts, &nodes, &tets, 1e-9).unwrap();
    assert!(v.iter().all(|v| v.nodes.len() == 4));
    v
}

/// A cable straight from node to node (weight 1 each).
pub fn node_vertices() -> Vec<CableVertex> {
    [node(0, 0, 0), node(1, 1, 0), node(2, 1, 1), node(3, 0, 1)]
        .into_iter()
        .map(CableVertex::on_node)
        .collect()
}

/// Node, tetrahedron, surface triangle, node.
pub fn mixed_vertices() -> Vec<CableVertex> {
    let (nodes, tets) = bar();
    let mut v = vec![CableVertex::on_node(node(0, 1, 1))];
    v.extend(bind_points_in_tets(&[[0.12, 0.05, 0.05]], &nodes, &tets, 1e-9).unwrap());
    v.extend(bind_points_on_triangles(&[[0.2, 0.0, 0.04]], &nodes, &bottom_face(), 5e-3).unwrap());
    v.push(CableVertex::on_node(node(3, 1, 0)));
    v
}

/// A builder with the bar's nodes (10 g each) and the three channels.
pub fn builder() -> ModelBuilder {
    let (nodes, _) = bar();
    let mut b = ModelBuilder::new(3).unwrap();
    for x in &nodes {
        b.add_node(x, 0.01).unwrap();
    }
    for name in CHANNELS {
        b.add_param(ParamChannel::control(name, 0.0)).unwrap();
    }
    b
}

/// The bar model with the given energies.
pub fn model(energies: Vec<Box<dyn EnergySpec>>) -> Model {
    let mut b = builder();
    for e in energies {
        b.add_boxed(e);
    }
    b.build().unwrap()
}

/// `q0` moved randomly by up to `scale` (m) per DOF.
pub fn perturbed(m: &Model, seed: u64, scale: f64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    m.q0()
        .iter()
        .map(|x| x + rng.range(-scale, scale))
        .collect()
}
