//! The Hessian entries of node-local energies: energies whose elements each
//! act on the coordinates of one node (at most 3 DOFs) — ground contact and
//! friction, per-node forces and anchors. Newton refreshes these entries in
//! a kept factorization between iterations
//! ([`crate::NewtonSettings::local_updates`]): on a walking robot they are
//! what changes fastest (feet sticking, slipping, touching down), while
//! the body's elastic Hessian changes little within a time step.

use crate::assembly::NOT_FREE;
use crate::element::Block;
use crate::model::Model;
use crate::state::EvalState;

/// Node-local Hessian entries: `(row, column)` over the free DOFs (row ≥
/// column) and their values.
pub(crate) type LocalEntries<'a> = (&'a [(usize, usize)], &'a [f64]);

/// Largest stencil (DOFs) of a node-local element.
const NODE_DOFS: usize = 3;

/// The node-local energies' Hessian entries over the free DOFs.
#[derive(Debug, Clone, Default)]
pub(crate) struct LocalBlocks {
    /// Model indices of the node-local energies, with their element count
    /// and stencil size.
    energies: Vec<(usize, usize, usize)>,
    /// The distinct entries they write: `(row, column)` over the free DOFs,
    /// row ≥ column, in the order first written.
    pairs: Vec<(usize, usize)>,
    /// For each entry of each element block (energies in order, elements,
    /// row-major `ns × ns`), its index in `pairs` (`u32::MAX`: not stored:
    /// a fixed DOF or the upper triangle).
    pair_of: Vec<u32>,
    /// Element blocks of the last evaluation.
    blocks: Vec<f64>,
    /// Each pair's value at the last evaluation.
    values: Vec<f64>,
}

impl LocalBlocks {
    /// The node-local energies of `model` (elements of at most 3 DOFs, all
    /// distinct, Hessian not split) and the entries they write among the
    /// free DOFs (`free_dofs`: the global index of each, in solve order).
    pub(crate) fn new(model: &Model, free_dofs: &[usize]) -> Self {
        let mut free_of = vec![NOT_FREE; model.n_dofs()];
        for (k, &i) in free_dofs.iter().enumerate() {
            free_of[i] = k;
        }
        let mut out = Self::default();
        let mut index = std::collections::HashMap::new();
        let mut dofs = [0usize; NODE_DOFS];
        for (k, e) in model.energies().iter().enumerate() {
            let set = e.elements();
            let (n_el, ns) = (set.len(), set.stencil_size());
            if ns == 0 || ns > NODE_DOFS || set.split_hessian().is_some() {
                continue;
            }
            let start = out.pair_of.len();
            let mut distinct = true;
            for i in 0..n_el {
                let d = &mut dofs[..ns];
                set.dofs(i, d);
                distinct &= (0..ns).all(|a| (0..a).all(|b| d[a] != d[b]));
                for a in 0..ns {
                    for b in 0..ns {
                        let (fa, fb) = (free_of[d[a]], free_of[d[b]]);
                        let p = if fa != NOT_FREE && fb != NOT_FREE && fa >= fb {
                            *index.entry((fa, fb)).or_insert_with(|| {
                                out.pairs.push((fa, fb));
                                out.pairs.len() as u32 - 1
                            })
                        } else {
                            u32::MAX
                        };
                        out.pair_of.push(p);
                    }
                }
            }
            if distinct {
                out.energies.push((k, n_el, ns));
            } else {
                out.pair_of.truncate(start);
            }
        }
        out.blocks = vec![0.0; out.pair_of.len()];
        out.values = vec![0.0; out.pairs.len()];
        out
    }

    /// `scale ·` the node-local energies' Hessian at `s`: the entries
    /// (row ≥ column, free DOFs) and their values, each the sum of its
    /// elements' contributions in model order; `None` when the model has
    /// no node-local entry on a free DOF. With `majorize`, the blocks are
    /// those for a Newton direction ([`crate::Ctx::majorize`]).
    pub(crate) fn evaluate(
        &mut self,
        model: &Model,
        s: &EvalState,
        scale: f64,
        majorize: bool,
    ) -> Option<LocalEntries<'_>> {
        if self.pairs.is_empty() {
            return None;
        }
        let mut off = 0;
        for &(k, n_el, ns) in &self.energies {
            let len = n_el * ns * ns;
            let (set, out) = (
                model.energies()[k].elements(),
                &mut self.blocks[off..off + len],
            );
            if majorize {
                set.majorized_hessian_blocks(s, out);
            } else {
                set.blocks(s, Block::Hessian, out);
            }
            off += len;
        }
        self.values.fill(0.0);
        for (&p, &b) in self.pair_of.iter().zip(&self.blocks) {
            if p != u32::MAX {
                self.values[p as usize] += scale * b;
            }
        }
        Some((&self.pairs, &self.values))
    }
}
