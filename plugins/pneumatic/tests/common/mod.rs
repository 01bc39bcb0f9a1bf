//! Shared fixtures: a box-shaped closed surface.

#![allow(dead_code)]

use pliant_core::{ModelBuilder, Result};

/// The corners of the box `[0, a] × [0, b] × [0, c]` (m), bottom face first.
pub fn box_corners(a: f64, b: f64, c: f64) -> Vec<[f64; 3]> {
    vec![
        [0.0, 0.0, 0.0],
        [a, 0.0, 0.0],
        [a, b, 0.0],
        [0.0, b, 0.0],
        [0.0, 0.0, c],
        [a, 0.0, c],
        [a, b, c],
        [0.0, b, c],
    ]
}

/// The box's twelve triangles, normals outward.
pub fn box_triangles() -> Vec<[usize; 3]> {
    vec![
        [0, 2, 1],
        [0, 3, 2],
        [4, 5, 6],
        [4, 6, 7],
        [0, 1, 5],
        [0, 5, 4],
        [1, 2, 6],
        [1, 6, 5],
        [2, 3, 7],
        [2, 7, 6],
        [3, 0, 4],
        [3, 4, 7],
    ]
}

/// A model builder holding `x` as nodes of mass `m` (kg).
pub fn builder(x: &[[f64; 3]], m: f64) -> Result<ModelBuilder> {
    let mut b = ModelBuilder::new(3)?;
    for p in x {
        b.add_node(p, m)?;
    }
    Ok(b)
}
