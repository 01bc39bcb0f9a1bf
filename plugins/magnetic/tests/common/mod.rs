//! Shared fixtures: models from node lists, and an energy's gradient and
//! Hessian assembled densely.

#![allow(dead_code)]

use pliant_core::{Block, Energy, EvalState, ModelBuilder, Result};

/// A model builder of dimension `dim` holding `x` (its first `dim`
/// coordinates) as nodes of mass `m` (kg).
pub fn builder(dim: usize, x: &[[f64; 3]], m: f64) -> Result<ModelBuilder> {
    let mut b = ModelBuilder::new(dim)?;
    for p in x {
        b.add_node(&p[..dim], m)?;
    }
    Ok(b)
}

/// `q` and `p` at rest as an evaluation state.
pub fn state<'a>(q: &'a [f64], p: &'a [f64]) -> EvalState<'a> {
    EvalState::at_rest(q, p, 0.01, 0.0)
}

/// `∂E/∂q` of one energy (full DOF length).
pub fn gradient(e: &dyn Energy, s: &EvalState) -> Vec<f64> {
    let set = e.elements();
    let ns = set.stencil_size();
    let mut blocks = vec![0.0; set.len() * ns];
    set.blocks(s, Block::Gradient, &mut blocks);
    let mut g = vec![0.0; s.q.len()];
    let mut dofs = vec![0; ns];
    for i in 0..set.len() {
        set.dofs(i, &mut dofs);
        for (k, &d) in dofs.iter().enumerate() {
            g[d] += blocks[i * ns + k];
        }
    }
    g
}

/// `∂²E/∂q²` of one energy, dense row-major.
pub fn hessian(e: &dyn Energy, s: &EvalState) -> Vec<f64> {
    let set = e.elements();
    let (ns, n) = (set.stencil_size(), s.q.len());
    let mut blocks = vec![0.0; set.len() * ns * ns];
    set.blocks(s, Block::Hessian, &mut blocks);
    let mut h = vec![0.0; n * n];
    let mut dofs = vec![0; ns];
    for i in 0..set.len() {
        set.dofs(i, &mut dofs);
        for a in 0..ns {
            for b in 0..ns {
                h[dofs[a] * n + dofs[b]] += blocks[(i * ns + a) * ns + b];
            }
        }
    }
    h
}
