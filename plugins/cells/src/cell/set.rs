//! The bound cells as one element set: assembly of values and blocks
//! (split Hessians where the cells declare them), observables and
//! geometry for pictures.

use super::element::{CellEl, area_gradient, psi};
use pliant_core::element::{Block, NO_PARAM, variable_fallback};
use pliant_core::geometry::{CellKind, Cells as GeometryCells, Field, Point, Shape};
use pliant_core::parallel::parallel_allowed;
use pliant_core::{ElementSet, Energy, EvalState, SplitHessian};
use rayon::prelude::*;

/// The bound cells (one element per cell).
pub struct CellSet {
    pub(super) name: String,
    pub(super) cells: Vec<CellEl>,
    /// The Hessian's split form (every cell has the same ring size).
    pub(super) split: Option<SplitHessian>,
}

impl std::fmt::Debug for CellSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cells `{}`", self.cells.len(), self.name)
    }
}

impl CellSet {
    /// Number of cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }
    /// Whether there is no cell.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
    /// Each cell's enclosed area at state `q`, m².
    pub fn areas(&self, q: &[f64]) -> Vec<f64> {
        self.cells
            .iter()
            .map(|c| {
                let x: Vec<f64> = c.dofs.iter().map(|&d| q[d]).collect();
                let mut g = vec![0.0; x.len()];
                area_gradient(&x, &mut g)
            })
            .collect()
    }
    /// Each cell's initial area `V₀`, m².
    pub fn rest_areas(&self) -> Vec<f64> {
        self.cells.iter().map(|c| c.v0).collect()
    }
    fn local(c: &CellEl, q: &[f64]) -> Vec<f64> {
        c.dofs.iter().map(|&d| q[d]).collect()
    }
    fn stencil(&self) -> usize {
        self.cells.first().map_or(0, |c| c.dofs.len())
    }
}

impl ElementSet for CellSet {
    fn len(&self) -> usize {
        self.cells.len()
    }
    fn stencil_size(&self) -> usize {
        self.stencil()
    }
    fn param_size(&self) -> usize {
        1
    }
    fn uses_history(&self) -> bool {
        false
    }
    fn dofs(&self, i: usize, out: &mut [usize]) {
        out[..self.stencil()].copy_from_slice(&self.cells[i].dofs);
    }
    fn params(&self, i: usize, out: &mut [usize]) {
        out[0] = self.cells[i].param;
    }
    fn value(&self, s: &EvalState) -> f64 {
        pliant_core::parallel::deterministic_sum(self.cells.len(), |i| {
            let c = &self.cells[i];
            c.value(&Self::local(c, s.q), c.c_of(s.p))
        })
    }
    fn blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        let m = self.stencil();
        let stride = kind.stride(m, 1);
        let out = &mut out[..self.cells.len() * stride];
        if stride == 0 {
            return;
        }
        let block = |(o, c): (&mut [f64], &CellEl)| {
            let x = Self::local(c, s.q);
            let cc = c.c_of(s.p);
            match kind {
                Block::Gradient => c.gradient(&x, cc, o),
                Block::Hessian => c.hessian(&x, cc, o),
                Block::History => o.fill(0.0),
                Block::Param | Block::ParamGradient => {
                    if c.param == NO_PARAM {
                        o.fill(0.0);
                        return;
                    }
                    let mut g = vec![0.0; m];
                    let v = area_gradient(&x, &mut g);
                    if kind == Block::Param {
                        let f = (1.0 - c.v0 / v) / c.l_mean;
                        for (oi, gi) in o.iter_mut().zip(&g) {
                            *oi = f * gi;
                        }
                    } else {
                        o[0] = c.v0 * psi((v - c.v0) / c.v0) / c.l_mean;
                    }
                }
            }
        };
        // Each cell is a large element (a whole membrane): parallel from
        // two cells on, unless Newton keeps this assembly on its thread.
        if parallel_allowed() {
            out.par_chunks_mut(stride).zip(&self.cells).for_each(block);
        } else {
            out.chunks_mut(stride).zip(&self.cells).for_each(block);
        }
    }
    fn split_hessian(&self) -> Option<&SplitHessian> {
        self.split.as_ref()
    }
    fn split_blocks(&self, s: &EvalState, sparse: &mut [f64], rank_one: &mut [f64]) {
        let Some(split) = &self.split else { return };
        let (ne, nr) = (split.entries.len(), split.rank_one_stride(self.stencil()));
        let (sparse, rank_one) = (
            &mut sparse[..self.cells.len() * ne],
            &mut rank_one[..self.cells.len() * nr],
        );
        let block = |((sp, r1), c): ((&mut [f64], &mut [f64]), &CellEl)| {
            c.split_hessian(&Self::local(c, s.q), c.c_of(s.p), sp, r1);
        };
        if parallel_allowed() {
            sparse
                .par_chunks_mut(ne)
                .zip(rank_one.par_chunks_mut(nr))
                .zip(&self.cells)
                .for_each(block);
        } else {
            sparse
                .chunks_mut(ne)
                .zip(rank_one.chunks_mut(nr))
                .zip(&self.cells)
                .for_each(block);
        }
    }
    fn fallback_blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        let stride = kind.stride(self.stencil(), 1);
        for (c, o) in self.cells.iter().zip(out.chunks_mut(stride.max(1))) {
            let p = [c.c_of(s.p)];
            variable_fallback(c, &Self::local(c, s.q), &p, kind, o);
            if c.param == NO_PARAM && matches!(kind, Block::Param | Block::ParamGradient) {
                o.fill(0.0);
            }
        }
    }
}

impl Energy for CellSet {
    fn elements(&self) -> &dyn ElementSet {
        self
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let ratios: Vec<f64> = self
            .areas(s.q)
            .iter()
            .zip(&self.cells)
            .map(|(v, c)| v / c.v0)
            .collect();
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if ratios.is_empty() {
            return Vec::new();
        }
        vec![
            (format!("{}.min_area_ratio", self.name), lo),
            (format!("{}.max_area_ratio", self.name), hi),
        ]
    }
    /// Every membrane as a closed ring of segments in the plane `z = 0`,
    /// with its cell's area ratio `V/V₀` on each segment.
    fn geometry(&self, s: &EvalState) -> Vec<Shape> {
        let areas = self.areas(s.q);
        let (mut points, mut connectivity, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
        for (c, v) in self.cells.iter().zip(areas) {
            let first = points.len();
            let n = c.dofs.len() / 2;
            points.extend(
                c.dofs
                    .chunks_exact(2)
                    .map(|d| Point::At([s.q[d[0]], s.q[d[1]], 0.0])),
            );
            connectivity.extend((0..n).flat_map(|i| [first + i, first + (i + 1) % n]));
            ratio.extend(std::iter::repeat_n(v / c.v0, n));
        }
        vec![Shape::Cells(GeometryCells {
            name: format!("cells {}", self.name),
            kind: CellKind::Line,
            points,
            connectivity,
            fields: vec![Field::cells("area_ratio", "1", ratio)],
        })]
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
