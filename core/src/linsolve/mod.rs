//! Sparse Cholesky with faer: the symbolic analysis (fill-reducing
//! ordering, supernodal structure) is computed once per sparsity pattern and
//! reused for every numeric factorization (all Newton iterations of all
//! steps). The ordering is faer's AMD or, for systems of at least 2,000
//! unknowns, METIS's nested dissection when its factor is smaller (3-D
//! meshes: 0.74× the entries of AMD's at 20³ cells, 0.62× at 30³; see
//! [`Ordering`]). A factor's memory and the factorization workspace are
//! recycled between factorizations of one pattern.
//!
//! The fill-reducing permutation `P` is applied by us, not by faer: the
//! pattern of `P A Pᵀ` and where each stored entry of `A` lands in it are
//! computed once, so a numeric factorization only scatters `A`'s values
//! (faer would rebuild the permuted structure at every factorization, 5 % of
//! a Puppy rollout). The analysis of `P A Pᵀ` uses the identity ordering;
//! the factorization reads the triangle its kind works on (faer's
//! supernodal factorization reads the lower one, its simplicial one, chosen
//! for small systems, the upper one), so faer copies nothing either.
//!
//! Factorizations and solves are sequential by default. faer's parallel
//! kernels sum in an order that depends on the thread count, so a parallel
//! factorization would make results depend on it (`tests/determinism.rs`
//! caught it on a 7·10⁶-entry factor); and on the project's 2-core machine
//! they were slower for whole runs at every size measured (the manta ray at
//! 13k and 130k triangles 1.4–1.8×, the 20³ FEM block 1.08×; bare 3-D
//! factorizations of 16–84·10⁶ entries gain 1.2–1.6× on an idle machine
//! and lose 6–13 % with another job running; `docs/benchmarks.md`). On a
//! machine with many idle cores, [`set_parallel_factorization`] lets factors
//! of at least [`PARALLEL_MIN_FACTOR_ENTRIES`] entries use faer's global
//! parallelism, at the price of that determinism.

use crate::error::{CoreError, Result};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::perm::PermRef;
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, SymbolicCholesky, SymbolicCholeskyRaw, SymmetricOrdering,
    factorize_symbolic_cholesky,
};
use faer::sparse::{Pair, SparseColMatRef, SymbolicSparseColMat, SymbolicSparseColMatRef};
use faer::{Par, Side};
use std::sync::Arc;

mod augmented;
mod factor;
mod parallel;
mod spare;
mod substitution;
#[cfg(test)]
mod tests;
mod trailing;

pub use factor::Factor;
pub use parallel::{
    PARALLEL_MIN_FACTOR_ENTRIES, parallel_factorization, set_parallel_factorization,
};
use spare::Spare;

/// The fill-reducing ordering a [`LinearSolver`] chose for its pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    /// faer's approximate minimum degree.
    Amd,
    /// METIS's nested dissection (`METIS_NodeND`).
    NestedDissection,
}

/// faer's supernodal threshold, a multiple of its internal flop-ratio
/// cut-off (40 at faer's default `SupernodalThreshold(1.0)`): 0.5 halves it
/// to 20, so more factorizations are supernodal (dense blocks, BLAS-3)
/// rather than simplicial. faer's default kept our models simplicial;
/// measured 2026-11-24 (release, this
/// 2-core machine), supernodal is faster on every model tried: the soft
/// snake (1413 DOFs) 4.6 → 2.3 s for 2.5 s simulated, the Tripod demo
/// 7.4 → 4.6 s, the manta ray 1.93 → 1.23 s per simulated second, the rod
/// examples 1.77 → 1.61 s.
const SUPERNODAL_FLOP_RATIO: f64 = 0.5;

/// A symbolic Cholesky analysis shared by all numeric factorizations.
#[derive(Debug, Clone)]
pub struct LinearSolver {
    /// Analysis of `P A Pᵀ` (identity ordering).
    symbolic: Arc<SymbolicCholesky<usize>>,
    permuted: Arc<Permuted>,
    par: Par,
    ordering: Ordering,
    spare: Arc<Spare>,
    /// Analyses of the same pattern with given unknowns ordered last
    /// ([`LinearSolver::with_last`]), the most recently used at the end.
    with_last: Arc<std::sync::Mutex<WithLast>>,
}

/// Analyses kept by the unknowns they order last.
type WithLast = Vec<(Vec<usize>, LinearSolver)>;

/// Analyses with unknowns ordered last that a [`LinearSolver`] keeps.
const WITH_LAST_KEPT: usize = 16;

/// The fill-reducing permutation and the pattern of `P A Pᵀ`.
#[derive(Debug)]
struct Permuted {
    /// `forward[i]`: the row/column of `A` at position `i` of `P A Pᵀ`.
    forward: Vec<usize>,
    /// The triangle of `P A Pᵀ` the factorization reads (`side`).
    pattern: SymbolicSparseColMat<usize>,
    side: Side,
    /// For each stored entry of `A`, its entry in `pattern`.
    entry_of: Vec<usize>,
    /// `A`'s pattern (to check that a matrix has it).
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    /// The last `n_aux` rows of `A` are the extra unknowns of rank-one
    /// terms (see [`LinearSolver::new_augmented`]).
    n_aux: usize,
}

impl LinearSolver {
    /// Analyses the lower-triangular pattern `pattern` (ordering, elimination
    /// tree), choosing the ordering whose factor has fewer entries: AMD, or
    /// for systems of at least 2,000 unknowns also nested dissection.
    pub fn new(pattern: SymbolicSparseColMatRef<'_, usize>) -> Result<Self> {
        Self::analyse(pattern, None, 0)
    }
    /// Analyses the pattern of an augmented matrix
    /// `A = [H_s  V; Vᵀ  D]` whose last `n_aux` rows and columns are extra
    /// unknowns with a diagonal `D` of `±1` (the rank-one terms of
    /// [`crate::SplitHessian`] energies, as the assembler writes them).
    /// Its factorizations are `LDLᵀ` and succeed when the Schur complement
    /// `H = H_s − V D⁻¹ Vᵀ` is positive definite (every pivot has the sign
    /// of its diagonal: `H_s` positive definite is enough, by the
    /// quasi-definite theorem); [`Factor::solve`] of a right-hand side of
    /// `H`'s size solves with `H`.
    pub fn new_augmented(
        pattern: SymbolicSparseColMatRef<'_, usize>,
        n_aux: usize,
    ) -> Result<Self> {
        if n_aux > pattern.ncols() {
            return Err(CoreError::LinearSolve {
                what: "symbolic Cholesky",
                detail: format!(
                    "{n_aux} extra unknowns in a {0}×{0} pattern",
                    pattern.ncols()
                ),
            });
        }
        Self::analyse(pattern, None, n_aux)
    }
    /// Analyses `pattern` with the given ordering (for comparisons; [`new`]
    /// chooses).
    ///
    /// [`new`]: Self::new
    pub fn with_ordering(
        pattern: SymbolicSparseColMatRef<'_, usize>,
        ordering: Ordering,
    ) -> Result<Self> {
        Self::analyse(pattern, Some(ordering), 0)
    }
    fn analyse(
        pattern: SymbolicSparseColMatRef<'_, usize>,
        only: Option<Ordering>,
        n_aux: usize,
    ) -> Result<Self> {
        let err = |e| CoreError::LinearSolve {
            what: "symbolic Cholesky",
            detail: format!("{e:?}"),
        };
        let params = CholeskySymbolicParams {
            supernodal_flop_ratio_threshold: SupernodalThreshold(SUPERNODAL_FLOP_RATIO),
            ..Default::default()
        };
        let n = pattern.ncols();
        // (ordering, forward permutation, simplicial?, factor entries)
        let mut best: Option<(Ordering, Vec<usize>, bool, usize)> = None;
        if only != Some(Ordering::NestedDissection) {
            let amd =
                factorize_symbolic_cholesky(pattern, Side::Lower, SymmetricOrdering::Amd, params)
                    .map_err(err)?;
            let forward = amd
                .perm()
                .map_or_else(|| (0..n).collect(), |p| p.arrays().0.to_vec());
            let simplicial = matches!(amd.raw(), SymbolicCholeskyRaw::Simplicial(_));
            best = Some((Ordering::Amd, forward, simplicial, amd.len_val()));
        }
        let try_nd = match only {
            None => n >= crate::ordering::NESTED_DISSECTION_MIN_DOFS,
            Some(o) => o == Ordering::NestedDissection,
        };
        if try_nd {
            let nd = crate::ordering::nested_dissection(pattern)?;
            let mut inv = vec![0; n];
            for (i, &f) in nd.iter().enumerate() {
                inv[f] = i;
            }
            let analysis = factorize_symbolic_cholesky(
                pattern,
                Side::Lower,
                SymmetricOrdering::Custom(PermRef::new_checked(&nd, &inv, n)),
                params,
            )
            .map_err(err)?;
            let entries = analysis.len_val();
            if best.as_ref().is_none_or(|b| entries < b.3) {
                let simplicial = matches!(analysis.raw(), SymbolicCholeskyRaw::Simplicial(_));
                best = Some((Ordering::NestedDissection, nd, simplicial, entries));
            }
        }
        let (ordering, forward, simplicial, _) = best.expect("at least one ordering analysed");
        Self::with_forward(pattern, forward, simplicial, ordering, n_aux)
    }
    /// The analysis of `pattern` in the order `forward` (`forward[i]`: the
    /// unknown at position `i`), simplicial or supernodal as told.
    fn with_forward(
        pattern: SymbolicSparseColMatRef<'_, usize>,
        forward: Vec<usize>,
        simplicial: bool,
        ordering: Ordering,
        n_aux: usize,
    ) -> Result<Self> {
        let err = |e| CoreError::LinearSolve {
            what: "symbolic Cholesky",
            detail: format!("{e:?}"),
        };
        let n = pattern.ncols();
        let mut inverse = vec![0; n];
        for (i, &f) in forward.iter().enumerate() {
            inverse[f] = i;
        }
        // Entry (r, j) of A's lower triangle is entry (inv r, inv j) of
        // P A Pᵀ, stored in its lower triangle.
        let (cp, ri) = (pattern.col_ptr(), pattern.row_idx());
        let mut pairs = Vec::with_capacity(ri.len());
        for j in 0..n {
            for &r in &ri[cp[j]..cp[j + 1]] {
                let (a, b) = (inverse[r], inverse[j]);
                pairs.push(Pair::new(a.max(b), a.min(b)));
            }
        }
        // With the identity ordering faer reads the pattern as an upper
        // triangle whatever `side` says: analyse the transpose's pattern.
        // faer's choice between its simplicial and supernodal
        // factorizations rests on a flop estimate that differs between the
        // identity and the chosen ordering; keep the one its analysis of
        // the chosen ordering made.
        let upper: Vec<Pair<usize, usize>> =
            pairs.iter().map(|p| Pair::new(p.col, p.row)).collect();
        let (upper, upper_entries) = crate::sparse::pattern_of(n, &upper)?;
        let kind = if simplicial {
            SupernodalThreshold::FORCE_SIMPLICIAL
        } else {
            SupernodalThreshold::FORCE_SUPERNODAL
        };
        let symbolic = factorize_symbolic_cholesky(
            upper.as_ref(),
            Side::Upper,
            SymmetricOrdering::Identity,
            CholeskySymbolicParams {
                supernodal_flop_ratio_threshold: kind,
                ..Default::default()
            },
        )
        .map_err(err)?;
        let par = if parallel_factorization() && symbolic.len_val() >= PARALLEL_MIN_FACTOR_ENTRIES {
            faer::get_global_parallelism()
        } else {
            Par::Seq
        };
        let (pattern, entry_of, side) = if simplicial {
            (upper, upper_entries, Side::Upper)
        } else {
            let (lower, lower_entries) = crate::sparse::pattern_of(n, &pairs)?;
            (lower, lower_entries, Side::Lower)
        };
        Ok(Self {
            symbolic: Arc::new(symbolic),
            permuted: Arc::new(Permuted {
                forward,
                pattern,
                side,
                entry_of,
                col_ptr: cp.to_vec(),
                row_idx: ri.to_vec(),
                n_aux,
            }),
            par,
            ordering,
            spare: Arc::default(),
            with_last: Arc::default(),
        })
    }
    /// This pattern analysed with the unknowns `last` (sorted, distinct,
    /// below the size) ordered last, the others by AMD of their own
    /// pattern (nested dissection is not tried: the blocks this serves are
    /// refreshed on robot-sized systems); supernodal, so that a factor can refresh their block
    /// (`linsolve/trailing.rs`). `None` for augmented or simplicial
    /// analyses, whose factors have no such block. The analysis is a
    /// function of `last` alone; the solver keeps the last
    /// [`WITH_LAST_KEPT`] it made.
    pub(crate) fn with_last(&self, last: &[usize]) -> Result<Option<Self>> {
        let pm = &self.permuted;
        let n = pm.forward.len();
        if pm.n_aux != 0
            || matches!(self.symbolic.raw(), SymbolicCholeskyRaw::Simplicial(_))
            || last.is_empty()
            || last.windows(2).any(|w| w[0] >= w[1])
            || last.last().is_some_and(|&l| l >= n)
        {
            return Ok(None);
        }
        let kept = |cache: &mut WithLast| {
            let at = cache.iter().position(|(k, _)| k == last)?;
            let hit = cache.remove(at);
            let solver = hit.1.clone();
            cache.push(hit);
            Some(solver)
        };
        if let Some(solver) = self.with_last.lock().ok().as_deref_mut().and_then(kept) {
            return Ok(Some(solver));
        }
        let mut is_last = vec![false; n];
        for &l in last {
            is_last[l] = true;
        }
        // The others in AMD's order of their own pattern (the rows and
        // columns of `last` removed), then `last`.
        let rest: Vec<usize> = (0..n).filter(|&f| !is_last[f]).collect();
        let mut index_in_rest = vec![usize::MAX; n];
        for (k, &f) in rest.iter().enumerate() {
            index_in_rest[f] = k;
        }
        let mut pairs = Vec::new();
        for j in 0..n {
            for &r in &pm.row_idx[pm.col_ptr[j]..pm.col_ptr[j + 1]] {
                let (a, b) = (index_in_rest[r], index_in_rest[j]);
                if a != usize::MAX && b != usize::MAX {
                    pairs.push(Pair::new(a.max(b), a.min(b)));
                }
            }
        }
        let (sub, _) = crate::sparse::pattern_of(rest.len(), &pairs)?;
        let err = |e| CoreError::LinearSolve {
            what: "symbolic Cholesky",
            detail: format!("{e:?}"),
        };
        let amd = factorize_symbolic_cholesky(
            sub.as_ref(),
            Side::Lower,
            SymmetricOrdering::Amd,
            CholeskySymbolicParams::default(),
        )
        .map_err(err)?;
        let forward: Vec<usize> = match amd.perm() {
            Some(p) => p.arrays().0.iter().map(|&k| rest[k]).collect(),
            None => rest,
        }
        .into_iter()
        .chain(last.iter().copied())
        .collect();
        let pattern = SymbolicSparseColMatRef::new_checked(n, n, &pm.col_ptr, None, &pm.row_idx);
        let solver = Self::with_forward(pattern, forward, false, Ordering::Amd, 0)?;
        if let Ok(mut cache) = self.with_last.lock() {
            if cache.len() >= WITH_LAST_KEPT {
                cache.remove(0);
            }
            cache.push((last.to_vec(), solver.clone()));
        }
        Ok(Some(solver))
    }
    /// The ordering chosen for this pattern: nested dissection when its
    /// factor has fewer entries than AMD's (systems of at least
    /// 2,000 unknowns), AMD otherwise.
    pub fn ordering(&self) -> Ordering {
        self.ordering
    }
    /// Entries of the Cholesky factor `L` (its memory in f64 values).
    pub fn factor_entries(&self) -> usize {
        self.symbolic.len_val()
    }
    /// Factorizes `a`, whose lower-triangular pattern must be the one
    /// analysed. Fails with the pivot index when `a` is not positive
    /// definite.
    pub fn factor(&self, a: SparseColMatRef<'_, usize, f64>) -> Result<Factor> {
        let pm = &self.permuted;
        if a.symbolic().col_ptr() != pm.col_ptr.as_slice()
            || a.symbolic().row_idx() != pm.row_idx.as_slice()
        {
            return Err(CoreError::LinearSolve {
                what: "numeric Cholesky",
                detail: format!(
                    "the matrix's pattern ({0}×{0}, {1} entries) is not the one analysed ({2}×{2}, {3} entries)",
                    a.ncols(),
                    a.val().len(),
                    pm.forward.len(),
                    pm.entry_of.len()
                ),
            });
        }
        let mut permuted = vec![0.0; pm.entry_of.len()];
        for (&k, &v) in pm.entry_of.iter().zip(a.val()) {
            permuted[k] = v;
        }
        let pa = SparseColMatRef::new(pm.pattern.as_ref(), &permuted);
        let err = |e: &dyn std::fmt::Debug| CoreError::LinearSolve {
            what: "numeric Cholesky",
            detail: format!("{e:?}"),
        };
        let mut values = self.spare.take_values(self.symbolic.len_val());
        let mut kept = self.spare.workspace.try_lock().ok();
        let need = if pm.n_aux == 0 {
            self.symbolic
                .factorize_numeric_llt_scratch::<f64>(self.par, Default::default())
        } else {
            self.symbolic
                .factorize_numeric_ldlt_scratch::<f64>(self.par, Default::default())
        };
        let mut fresh = None;
        let buf: &mut MemBuffer = match kept.as_deref_mut() {
            Some(slot) => {
                // The requirement depends on the analysis and the
                // parallelism only: the same for every factorization.
                if slot.as_ref().is_none_or(|(req, _)| *req != need) {
                    *slot = Some((need, MemBuffer::try_new(need).map_err(|e| err(&e))?));
                }
                &mut slot.as_mut().expect("allocated above").1
            }
            None => fresh.insert(MemBuffer::try_new(need).map_err(|e| err(&e))?),
        };
        let done = if pm.n_aux == 0 {
            self.symbolic
                .factorize_numeric_llt(
                    &mut values,
                    pa,
                    pm.side,
                    Default::default(),
                    self.par,
                    MemStack::new(buf),
                    Default::default(),
                )
                .map(|_| ())
                .map_err(|e| err(&e))
        } else {
            self.factor_ldlt(a, pa, &mut values, MemStack::new(buf))
        };
        if let Err(e) = done {
            self.spare.give_values(values);
            return Err(e);
        }
        Ok(Factor {
            symbolic: self.symbolic.clone(),
            permuted: self.permuted.clone(),
            values,
            single: Default::default(),
            par: self.par,
            spare: self.spare.clone(),
            trailing: None,
        })
    }
}
