//! A factor whose last unknowns' block can be refreshed without a new
//! factorization.
//!
//! Order a set `V` of `m` unknowns last. With `A = L Lᵀ` and the rest `I`,
//!
//! ```text
//! A_VV = L_VI L_VIᵀ + L_VV L_VVᵀ,
//! ```
//!
//! so a change `Δ` confined to `A_VV` leaves `L_II` and `L_VI` as they are
//! and only asks for the dense Cholesky factor of
//! `S + Δ`, `S = L_VV L_VVᵀ` (the Schur complement of `A_II`, formed once
//! per factorization): `m³/3` operations instead of a sparse factorization.
//! Newton uses it to keep a factorization of a robot's Hessian while the
//! node-local blocks of its ground contact and friction change between
//! iterations ([`crate::NewtonSettings::local_updates`]); the entries of `L`
//! outside `L_VV` stay the exact factor of the matrix that was factorized.
//!
//! Only supernodal `LLᵀ` factors carry such a block (faer's layout: a
//! supernode holds its columns as a dense column-major block whose rows are
//! its own columns, then its pattern). The columns of `V` are the last of
//! the ordering, so every stored row of a column in `V` is in `V` too.

use super::Factor;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::matmul::matmul;
use faer::sparse::linalg::cholesky::SymbolicCholeskyRaw;
use faer::{Accum, Mat, Par};

/// The trailing block of a factor and what updating it needs.
#[derive(Debug, Clone)]
pub(crate) struct Trailing {
    /// Size `m` of the block.
    m: usize,
    /// Position in the block (`u32::MAX` outside) of every unknown of the
    /// factorized matrix, in the matrix's own numbering.
    local: Vec<u32>,
    /// For each stored entry of `L_VV`: its index in the factor's values,
    /// its row and its column in the block (row ≥ column).
    entries: Vec<(usize, u32, u32)>,
    /// `S = L_VV L_VVᵀ` of the factorization, column-major `m × m`.
    base: Mat<f64>,
}

impl Trailing {
    /// The block of the last `m` columns of `factor`'s ordering, or `None`
    /// when the factor is not a supernodal `LLᵀ` one or `m` is 0.
    pub(crate) fn of(factor: &Factor, m: usize) -> Option<Self> {
        let SymbolicCholeskyRaw::Supernodal(symbolic) = factor.symbolic.raw() else {
            return None;
        };
        let pm = &factor.permuted;
        let n = pm.forward.len();
        if m == 0 || m > n || pm.n_aux != 0 {
            return None;
        }
        let first = n - m;
        let mut local = vec![u32::MAX; n];
        for (i, &f) in pm.forward.iter().enumerate().skip(first) {
            local[f] = (i - first) as u32;
        }
        let begin = symbolic.supernode_begin();
        let end = symbolic.supernode_end();
        let at = symbolic.col_ptr_for_val();
        let mut entries = Vec::new();
        let mut l_vv = Mat::<f64>::zeros(m, m);
        for s in 0..symbolic.n_supernodes() {
            let (c0, c1) = (begin[s], end[s]);
            if c1 <= first {
                continue;
            }
            let pattern = symbolic.supernode(s).pattern();
            let rows = c1 - c0 + pattern.len();
            for c in c0.max(first)..c1 {
                let col = at[s] + (c - c0) * rows;
                let j = (c - first) as u32;
                // The diagonal block's rows from `c` down, then the pattern.
                let own = (c..c1).map(|r| (r - c0, r));
                let below = pattern.iter().enumerate().map(|(k, &r)| (c1 - c0 + k, r));
                for (offset, r) in own.chain(below) {
                    let i = (r - first) as u32;
                    entries.push((col + offset, i, j));
                    l_vv[(i as usize, j as usize)] = factor.values[col + offset];
                }
            }
        }
        let mut base = Mat::<f64>::zeros(m, m);
        matmul(
            base.as_mut(),
            Accum::Replace,
            l_vv.as_ref(),
            l_vv.transpose(),
            1.0,
            Par::Seq,
        );
        Some(Self {
            m,
            local,
            entries,
            base,
        })
    }

    /// Writes into `values` (the factor's entries) the factor of the
    /// matrix factorized with `delta` added: `(row, column, value)` in the
    /// matrix's own numbering, each symmetric pair once; entries outside the
    /// block are skipped (the caller keeps them out). `false`, with
    /// `values` unchanged, when `S + Δ` is not positive definite.
    pub(crate) fn update(&self, values: &mut [f64], delta: &[(usize, usize, f64)]) -> bool {
        let mut s = self.base.clone();
        for &(r, c, v) in delta {
            let (i, j) = (self.local[r], self.local[c]);
            if i == u32::MAX || j == u32::MAX {
                continue;
            }
            let (i, j) = (i.max(j) as usize, i.min(j) as usize);
            s[(i, j)] += v;
            if i != j {
                s[(j, i)] += v;
            }
        }
        let need = cholesky_in_place_scratch::<f64>(self.m, Par::Seq, Default::default());
        let Ok(mut buf) = MemBuffer::try_new(need) else {
            return false;
        };
        if cholesky_in_place(
            s.as_mut(),
            Default::default(),
            Par::Seq,
            MemStack::new(&mut buf),
            Default::default(),
        )
        .is_err()
        {
            return false;
        }
        for &(k, i, j) in &self.entries {
            values[k] = s[(i as usize, j as usize)];
        }
        true
    }

    /// Whether the unknown `r` (the matrix's numbering) is in the block.
    pub(crate) fn contains(&self, r: usize) -> bool {
        self.local.get(r).is_some_and(|&i| i != u32::MAX)
    }
}
