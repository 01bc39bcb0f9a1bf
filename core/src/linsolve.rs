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
use faer::linalg::cholesky::ldlt::factor::LdltRegularization;
use faer::perm::PermRef;
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, LdltRef, LltRef, SymbolicCholesky, SymbolicCholeskyRaw,
    SymmetricOrdering, factorize_symbolic_cholesky, simplicial, supernodal,
};
use faer::sparse::{Pair, SparseColMatRef, SymbolicSparseColMat, SymbolicSparseColMatRef};
use faer::{Conj, Mat, MatMut, MatRef, Par, Side};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

/// The fill-reducing ordering a [`LinearSolver`] chose for its pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    /// faer's approximate minimum degree.
    Amd,
    /// METIS's nested dissection (`METIS_NodeND`).
    NestedDissection,
}

/// With [`set_parallel_factorization`] on, factors with at least this many
/// stored entries in `L` use faer's parallel kernels (with faer's global
/// parallelism); smaller ones always run sequentially.
pub const PARALLEL_MIN_FACTOR_ENTRIES: usize = 4_000_000;

static PARALLEL_FACTORIZATION: AtomicBool = AtomicBool::new(false);

/// Lets solvers created from now on factor and solve large systems (factors
/// of at least [`PARALLEL_MIN_FACTOR_ENTRIES`] entries) with faer's parallel
/// kernels. Off by default: results then depend on the number of threads
/// (faer's parallel sums run in another order), and on 2 cores it was
/// slower for whole runs (module documentation). Worth trying for large 3-D
/// meshes on a machine with many idle cores.
///
/// ```
/// use pliant_core::linsolve::{parallel_factorization, set_parallel_factorization};
/// assert!(!parallel_factorization());
/// set_parallel_factorization(true);
/// assert!(parallel_factorization());
/// set_parallel_factorization(false);
/// ```
pub fn set_parallel_factorization(on: bool) {
    PARALLEL_FACTORIZATION.store(on, AtomicOrdering::Relaxed);
}

/// Whether [`set_parallel_factorization`] is on.
pub fn parallel_factorization() -> bool {
    PARALLEL_FACTORIZATION.load(AtomicOrdering::Relaxed)
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
}

/// Memory kept between numeric factorizations of one pattern: a factor's
/// value buffer returns here when its [`Factor`] is dropped, and the
/// factorization workspace stays, so a Newton loop neither allocates nor
/// page-faults a fresh factor (hundreds of MB on large meshes) at every
/// factorization. Taken with `try_lock`: clones of a solver used on
/// several threads at once allocate instead of waiting.
#[derive(Default)]
struct Spare {
    values: std::sync::Mutex<Vec<Vec<f64>>>,
    workspace: std::sync::Mutex<Option<(faer::dyn_stack::StackReq, MemBuffer)>>,
}

impl std::fmt::Debug for Spare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Spare")
    }
}

impl Spare {
    /// A buffer of `len` values (contents unspecified).
    fn take_values(&self, len: usize) -> Vec<f64> {
        let recycled = self.values.try_lock().ok().and_then(|mut v| v.pop());
        match recycled {
            Some(v) if v.len() == len => v,
            _ => vec![0.0; len],
        }
    }
    /// Keeps one spare buffer.
    fn give_values(&self, v: Vec<f64>) {
        if let Ok(mut pool) = self.values.try_lock()
            && pool.is_empty()
        {
            pool.push(v);
        }
    }
}

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

/// A numeric `LLᵀ` factorization of a symmetric positive definite matrix.
#[derive(Debug, Clone)]
pub struct Factor {
    symbolic: Arc<SymbolicCholesky<usize>>,
    permuted: Arc<Permuted>,
    values: Vec<f64>,
    par: Par,
    spare: Arc<Spare>,
}

impl Drop for Factor {
    fn drop(&mut self) {
        self.spare.give_values(std::mem::take(&mut self.values));
    }
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
        })
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
            par: self.par,
            spare: self.spare.clone(),
        })
    }
}

impl LinearSolver {
    /// `LDLᵀ` of the permuted augmented matrix `pa` (the original `a`
    /// gives the signs of the extra unknowns' diagonal), without pivoting.
    /// By Sylvester's law of inertia `D` has as many negative entries as
    /// the augmented matrix has negative eigenvalues: the extra unknowns
    /// whose diagonal is `−1` (rank-one terms with `w > 0`) plus those of
    /// the Hessian (the Schur complement). So the Hessian is positive
    /// definite exactly when `D` has no zero entry and exactly that many
    /// negative ones; otherwise this is reported like a failed Cholesky.
    /// (When the sparse part `H_s` is itself positive definite every
    /// pivot has the sign of its row — the matrix is quasi-definite — but
    /// a positive definite Hessian does not need it: a gas's `f′(V) ∇²V`
    /// may make `H_s` indefinite.)
    fn factor_ldlt(
        &self,
        a: SparseColMatRef<'_, usize, f64>,
        pa: SparseColMatRef<'_, usize, f64>,
        values: &mut [f64],
        stack: &mut MemStack,
    ) -> Result<()> {
        let pm = &self.permuted;
        let n = pm.forward.len();
        let (cp, v) = (a.symbolic().col_ptr(), a.val());
        // Column `j ≥ n − n_aux` of the lower triangle holds its diagonal only.
        let expected = (n - pm.n_aux..n).filter(|&j| v[cp[j]] < 0.0).count();
        let regularization = LdltRegularization {
            dynamic_regularization_signs: None,
            dynamic_regularization_delta: 0.0,
            dynamic_regularization_epsilon: 0.0,
        };
        let err = |detail: String| CoreError::LinearSolve {
            what: "numeric LDLᵀ",
            detail,
        };
        let negative = match self.symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(sym) => {
                simplicial::factorize_simplicial_numeric_ldlt(
                    values,
                    pa,
                    regularization,
                    sym,
                    stack,
                )
                .map_err(|e| err(format!("not positive definite (singular): {e:?}")))?;
                let lcp = sym.col_ptr();
                (0..n).filter(|&j| values[lcp[j]] < 0.0).count()
            }
            SymbolicCholeskyRaw::Supernodal(sym) => {
                supernodal::factorize_supernodal_numeric_ldlt(
                    values,
                    pa,
                    regularization,
                    sym,
                    self.par,
                    stack,
                    Default::default(),
                )
                .map_err(|e| err(format!("not positive definite (singular): {e:?}")))?;
                let f = supernodal::SupernodalLdltRef::new(sym, values);
                (0..sym.n_supernodes())
                    .map(|s| {
                        let d = f.supernode(s).val();
                        (0..d.ncols()).filter(|&k| d[(k, k)] < 0.0).count()
                    })
                    .sum()
            }
        };
        if negative == expected {
            Ok(())
        } else {
            Err(err(format!(
                "not positive definite: {negative} negative pivot(s), {expected} expected from the rank-one terms"
            )))
        }
    }
}

impl Factor {
    fn solve_in_place(&self, rhs: MatMut<'_, f64>) {
        let mut buf = MemBuffer::new(
            self.symbolic
                .solve_in_place_scratch::<f64>(rhs.ncols(), self.par),
        );
        if self.permuted.n_aux == 0 {
            LltRef::new(&self.symbolic, &self.values).solve_in_place_with_conj(
                Conj::No,
                rhs,
                self.par,
                MemStack::new(&mut buf),
            );
        } else {
            LdltRef::new(&self.symbolic, &self.values).solve_in_place_with_conj(
                Conj::No,
                rhs,
                self.par,
                MemStack::new(&mut buf),
            );
        }
    }
    /// Unknowns of the systems it solves: the matrix's size, less the
    /// extra unknowns of an augmented matrix.
    pub fn n(&self) -> usize {
        self.permuted.forward.len() - self.permuted.n_aux
    }
    /// Solves `A x = b`; for an augmented matrix
    /// ([`LinearSolver::new_augmented`]) `b` and `x` are of the Hessian's
    /// size ([`Factor::n`]) and the Hessian is what is solved with.
    pub fn solve(&self, b: &[f64]) -> Vec<f64> {
        let fwd = &self.permuted.forward;
        assert_eq!(b.len(), self.n(), "right-hand side of the factor's size");
        let mut y: Vec<f64> = fwd
            .iter()
            .map(|&f| b.get(f).copied().unwrap_or(0.0))
            .collect();
        self.solve_in_place(MatMut::from_column_major_slice_mut(&mut y, fwd.len(), 1));
        let mut x = vec![0.0; b.len()];
        for (&f, &v) in fwd.iter().zip(&y) {
            if let Some(o) = x.get_mut(f) {
                *o = v;
            }
        }
        x
    }
    /// Solves `A X = B` for a column-major block of right-hand sides
    /// (`B` of [`Factor::n`] rows, as [`Factor::solve`]).
    pub(crate) fn solve_mat(&self, b: MatRef<'_, f64>) -> Mat<f64> {
        let fwd = &self.permuted.forward;
        let n = self.n();
        assert_eq!(b.nrows(), n, "right-hand sides of the factor's size");
        // y = P b, solve (P A Pᵀ) z = y, x = Pᵀ z.
        let mut y = Mat::from_fn(fwd.len(), b.ncols(), |i, j| {
            if fwd[i] < n { b[(fwd[i], j)] } else { 0.0 }
        });
        self.solve_in_place(y.as_mut());
        let mut x = Mat::zeros(n, b.ncols());
        for j in 0..b.ncols() {
            for (i, &f) in fwd.iter().enumerate() {
                if f < n {
                    x[(f, j)] = y[(i, j)];
                }
            }
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::sparse::{SparseColMat, Triplet};

    /// Lower triangle of the 7-point Laplacian on an `nx × ny × nz` grid
    /// plus `shift·I` (symmetric positive definite when `shift > 0`), with an
    /// off-diagonal weight varying per edge so that a wrong permutation
    /// shows.
    fn grid(nx: usize, ny: usize, nz: usize, shift: f64) -> SparseColMat<usize, f64> {
        let id = |i: usize, j: usize, k: usize| (i * ny + j) * nz + k;
        let mut t = Vec::new();
        for i in 0..nx {
            for j in 0..ny {
                for k in 0..nz {
                    let me = id(i, j, k);
                    t.push(Triplet::new(me, me, 6.0 + shift));
                    let w = -1.0 + 0.01 * (me % 7) as f64;
                    for (ok, other) in [
                        (i + 1 < nx, id(i + 1, j, k)),
                        (j + 1 < ny, id(i, (j + 1).min(ny - 1), k)),
                        (k + 1 < nz, id(i, j, (k + 1).min(nz - 1))),
                    ] {
                        if ok {
                            t.push(Triplet::new(other, me, w));
                        }
                    }
                }
            }
        }
        SparseColMat::try_new_from_triplets(nx * ny * nz, nx * ny * nz, &t).unwrap()
    }

    /// `A x` for `A` stored as its lower triangle.
    fn sym_mul(a: &SparseColMat<usize, f64>, x: &[f64]) -> Vec<f64> {
        let (cp, ri, v) = (a.symbolic().col_ptr(), a.symbolic().row_idx(), a.val());
        let mut y = vec![0.0; x.len()];
        for j in 0..a.ncols() {
            for k in cp[j]..cp[j + 1] {
                let r = ri[k];
                y[r] += v[k] * x[j];
                if r != j {
                    y[j] += v[k] * x[r];
                }
            }
        }
        y
    }

    #[test]
    fn permuted_factorization_solves_the_original_system() {
        let mut kinds = Vec::new();
        for (nx, ny, nz) in [(5, 4, 3), (16, 15, 14)] {
            let a = grid(nx, ny, nz, 0.1);
            let n = a.ncols();
            // The factorization kind is the one faer's own AMD analysis
            // picks; the two sizes exercise both kinds (if a faer upgrade
            // moves its heuristic, pick other sizes).
            let kind =
                |s: &SymbolicCholesky<usize>| matches!(s.raw(), SymbolicCholeskyRaw::Supernodal(_));
            let amd = factorize_symbolic_cholesky(
                a.symbolic(),
                Side::Lower,
                SymmetricOrdering::Amd,
                Default::default(),
            )
            .unwrap();
            let by_amd = LinearSolver::with_ordering(a.symbolic(), Ordering::Amd).unwrap();
            assert_eq!(kind(&by_amd.symbolic), kind(&amd));
            assert_eq!(by_amd.symbolic.len_val(), amd.len_val());
            kinds.push(kind(&by_amd.symbolic));
            let by_nd =
                LinearSolver::with_ordering(a.symbolic(), Ordering::NestedDissection).unwrap();
            let auto = LinearSolver::new(a.symbolic()).unwrap();
            // The automatic choice is the smaller factor (AMD alone below
            // 2,000 unknowns).
            let smallest = if n < crate::ordering::NESTED_DISSECTION_MIN_DOFS {
                by_amd.factor_entries()
            } else {
                by_amd.factor_entries().min(by_nd.factor_entries())
            };
            assert_eq!(auto.factor_entries(), smallest);
            for solver in [by_amd, by_nd, auto] {
                let f = solver.factor(a.as_ref()).unwrap();
                let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
                let x = f.solve(&b);
                let r = sym_mul(&a, &x);
                let err = r
                    .iter()
                    .zip(&b)
                    .fold(0.0f64, |m, (r, b)| m.max((r - b).abs()));
                assert!(err < 1e-12, "residual {err}");
                // Several right-hand sides at once give the same columns (to
                // rounding: faer's blocked kernels sum in another order).
                let b2: Vec<f64> = (0..2 * n).map(|i| (i as f64 * 0.11).cos()).collect();
                let xm = f.solve_mat(MatRef::from_column_major_slice(&b2, n, 2));
                for c in 0..2 {
                    let xc = f.solve(&b2[c * n..(c + 1) * n]);
                    for i in 0..n {
                        assert!((xm[(i, c)] - xc[i]).abs() <= 1e-14 * xc[i].abs().max(1.0));
                    }
                }
            }
        }
        assert_eq!(kinds, [false, true], "simplicial, then supernodal");
    }

    #[test]
    fn nested_dissection_is_chosen_on_3d_grids_and_is_deterministic() {
        let a = grid(20, 20, 20, 0.1);
        let amd = LinearSolver::with_ordering(a.symbolic(), Ordering::Amd).unwrap();
        let auto = LinearSolver::new(a.symbolic()).unwrap();
        assert_eq!(auto.ordering(), Ordering::NestedDissection);
        assert!(
            (auto.factor_entries() as f64) < 0.9 * amd.factor_entries() as f64,
            "nested dissection {} entries, AMD {}",
            auto.factor_entries(),
            amd.factor_entries()
        );
        let again = LinearSolver::new(a.symbolic()).unwrap();
        assert_eq!(auto.permuted.forward, again.permuted.forward);
        // A chain (a tridiagonal matrix) has no fill under AMD: it stays.
        let t: Vec<Triplet<usize, usize, f64>> = (0..3000)
            .flat_map(|i| {
                let mut v = vec![Triplet::new(i, i, 4.0)];
                if i + 1 < 3000 {
                    v.push(Triplet::new(i + 1, i, -1.0));
                }
                v
            })
            .collect();
        let chain = SparseColMat::try_new_from_triplets(3000, 3000, &t).unwrap();
        assert_eq!(
            LinearSolver::new(chain.symbolic()).unwrap().ordering(),
            Ordering::Amd
        );
    }

    #[test]
    fn indefinite_and_mismatched_matrices_are_errors() {
        let a = grid(4, 4, 2, 0.1);
        let solver = LinearSolver::new(a.symbolic()).unwrap();
        // 6 − 8 < 0 on the diagonal: not positive definite.
        let b = grid(4, 4, 2, -8.0);
        assert!(solver.factor(b.as_ref()).is_err());
        let c = grid(3, 4, 2, 0.1);
        let e = solver.factor(c.as_ref()).unwrap_err().to_string();
        assert!(e.contains("not the one analysed (32×32"), "{e}");
    }

    /// The augmented lower triangle of `S + Σ_k w_k u_k u_kᵀ` for the grid
    /// Laplacian `S` (shift `shift`) and dense-ish vectors `u_k` over the
    /// DOFs in `support[k]`, with the full Hessian as a dense matrix.
    fn augmented(
        dims: (usize, usize, usize),
        shift: f64,
        terms: &[(f64, Vec<usize>)],
    ) -> (SparseColMat<usize, f64>, usize, Vec<f64>) {
        let s = grid(dims.0, dims.1, dims.2, shift);
        let n = s.ncols();
        let mut dense = vec![0.0; n * n];
        let mut t = Vec::new();
        let (cp, ri, v) = (s.symbolic().col_ptr(), s.symbolic().row_idx(), s.val());
        for j in 0..n {
            for k in cp[j]..cp[j + 1] {
                t.push(Triplet::new(ri[k], j, v[k]));
                dense[ri[k] * n + j] += v[k];
                if ri[k] != j {
                    dense[j * n + ri[k]] += v[k];
                }
            }
        }
        for (k, (w, support)) in terms.iter().enumerate() {
            let u: Vec<f64> = support
                .iter()
                .map(|&i| 0.3 + 0.1 * (i % 5) as f64)
                .collect();
            for (&i, ui) in support.iter().zip(&u) {
                t.push(Triplet::new(n + k, i, w.abs().sqrt() * ui));
                for (&j, uj) in support.iter().zip(&u) {
                    dense[i * n + j] += w * ui * uj;
                }
            }
            t.push(Triplet::new(
                n + k,
                n + k,
                if *w < 0.0 { 1.0 } else { -1.0 },
            ));
        }
        let m = n + terms.len();
        (
            SparseColMat::try_new_from_triplets(m, m, &t).unwrap(),
            n,
            dense,
        )
    }

    #[test]
    fn an_augmented_factorization_solves_with_the_schur_complement() {
        // Positive, negative and zero weights, overlapping supports; a
        // small (simplicial) and a larger (supernodal) factorization.
        let terms = vec![
            (40.0, (0..60).collect::<Vec<_>>()),
            (-0.02, (30..45).collect()),
            (0.0, (100..120).collect()),
            (7.0, (50..120).step_by(3).collect()),
        ];
        let mut kinds = Vec::new();
        for dims in [(6, 5, 4), (16, 15, 14)] {
            let (a, n, dense) = augmented(dims, 0.1, &terms);
            let solver = LinearSolver::new_augmented(a.symbolic(), terms.len()).unwrap();
            kinds.push(matches!(
                solver.symbolic.raw(),
                SymbolicCholeskyRaw::Supernodal(_)
            ));
            let f = solver.factor(a.as_ref()).unwrap();
            assert_eq!(f.n(), n);
            let b: Vec<f64> = (0..n).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
            let x = f.solve(&b);
            let worst = (0..n)
                .map(|i| {
                    let r: f64 = (0..n).map(|j| dense[i * n + j] * x[j]).sum::<f64>() - b[i];
                    r.abs()
                })
                .fold(0.0, f64::max);
            assert!(worst < 1e-10, "{dims:?}: residual {worst:e}");
            // The product the Newton solver uses is the same Schur complement.
            let mut y = vec![0.0; n];
            crate::newton::hessian_mul(a.as_ref(), &x, &mut y);
            let gap = y
                .iter()
                .zip(&b)
                .map(|(p, q)| (p - q).abs())
                .fold(0.0, f64::max);
            assert!(gap < 1e-10, "{dims:?}: H x − b = {gap:e}");
            // Several right-hand sides at once.
            let bm = Mat::from_fn(n, 2, |i, j| b[i] * (j as f64 + 1.0));
            let xm = f.solve_mat(bm.as_ref());
            for i in 0..n {
                assert!((xm[(i, 1)] - 2.0 * x[i]).abs() < 1e-9 * (1.0 + x[i].abs()));
            }
        }
        assert_eq!(
            kinds,
            [false, true],
            "both factorization kinds are exercised"
        );
    }

    #[test]
    fn an_augmented_matrix_whose_schur_complement_is_indefinite_is_an_error() {
        for dims in [(6, 5, 4), (16, 15, 14)] {
            // A strongly negative rank-one term makes S + w u uᵀ indefinite
            // though S is positive definite; a negative S (shift −8) stays
            // indefinite with a positive term.
            for (shift, w) in [(0.1, -50.0), (-8.0, 1.0)] {
                let terms = vec![(w, (0..60).collect::<Vec<_>>())];
                let (a, _, _) = augmented(dims, shift, &terms);
                let solver = LinearSolver::new_augmented(a.symbolic(), 1).unwrap();
                let e = solver.factor(a.as_ref()).unwrap_err().to_string();
                assert!(
                    e.contains("not positive definite"),
                    "{dims:?} {shift} {w}: {e}"
                );
            }
        }
        let (a, _, _) = augmented((3, 3, 3), 0.1, &[]);
        assert!(LinearSolver::new_augmented(a.symbolic(), 1000).is_err());
    }
}
