//! Sparse Cholesky with faer: the symbolic analysis (AMD ordering,
//! supernodal structure) is computed once per sparsity pattern and reused for
//! every numeric factorization (all Newton iterations of all steps).
//!
//! Parallelism is chosen per pattern: faer's parallel supernodal
//! factorization only pays off for large factors, and on small systems
//! (robots with a few thousand DOFs) the thread hand-offs cost more than the
//! arithmetic — measured with `cargo bench --bench fem_newton` (1,080 tets:
//! 0.8 ms sequential vs 1.9 ms on 2 threads; 10,368 tets: 36 vs 42 ms). The
//! choice depends on the pattern alone, never on timing.

use crate::error::{CoreError, Result};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::cholesky::{
    LltRef, SymbolicCholesky, SymmetricOrdering, factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMat, SymbolicSparseColMat};
use faer::{Conj, Mat, MatMut, MatRef, Par, Side};
use std::sync::Arc;

/// Factors with at least this many stored entries in `L` use faer's
/// parallel kernels (with the global parallelism); smaller ones run
/// sequentially.
pub const PARALLEL_MIN_FACTOR_ENTRIES: usize = 4_000_000;

/// A symbolic Cholesky analysis shared by all numeric factorizations.
#[derive(Debug, Clone)]
pub struct LinearSolver {
    symbolic: Arc<SymbolicCholesky<usize>>,
    par: Par,
}

/// A numeric `LLᵀ` factorization of a symmetric positive definite matrix.
#[derive(Debug, Clone)]
pub struct Factor {
    symbolic: Arc<SymbolicCholesky<usize>>,
    values: Vec<f64>,
    par: Par,
}

impl LinearSolver {
    /// Analyses the lower-triangular pattern `pattern` (ordering, elimination tree).
    pub fn new(pattern: &SymbolicSparseColMat<usize>) -> Result<Self> {
        let symbolic = factorize_symbolic_cholesky(
            pattern.as_ref(),
            Side::Lower,
            SymmetricOrdering::Amd,
            Default::default(),
        )
        .map_err(|e| CoreError::LinearSolve(format!("symbolic Cholesky: {e:?}")))?;
        let par = if symbolic.len_val() >= PARALLEL_MIN_FACTOR_ENTRIES {
            faer::get_global_parallelism()
        } else {
            Par::Seq
        };
        Ok(Self {
            symbolic: Arc::new(symbolic),
            par,
        })
    }
    /// Number of stored entries of the factor `L`.
    pub fn factor_entries(&self) -> usize {
        self.symbolic.len_val()
    }
    /// Factorizes `a` (lower triangle read). Fails with the pivot index when
    /// `a` is not positive definite.
    pub fn factor(&self, a: &SparseColMat<usize, f64>) -> Result<Factor> {
        let mut values = vec![0.0; self.symbolic.len_val()];
        let mut buf = MemBuffer::try_new(
            self.symbolic
                .factorize_numeric_llt_scratch::<f64>(self.par, Default::default()),
        )
        .map_err(|e| CoreError::LinearSolve(format!("numeric Cholesky: {e:?}")))?;
        self.symbolic
            .factorize_numeric_llt(
                &mut values,
                a.as_ref(),
                Side::Lower,
                Default::default(),
                self.par,
                MemStack::new(&mut buf),
                Default::default(),
            )
            .map_err(|e| CoreError::LinearSolve(format!("numeric Cholesky: {e:?}")))?;
        Ok(Factor {
            symbolic: self.symbolic.clone(),
            values,
            par: self.par,
        })
    }
}

impl Factor {
    fn solve_in_place(&self, rhs: MatMut<'_, f64>) {
        let mut buf = MemBuffer::new(
            self.symbolic
                .solve_in_place_scratch::<f64>(rhs.ncols(), self.par),
        );
        LltRef::new(&self.symbolic, &self.values).solve_in_place_with_conj(
            Conj::No,
            rhs,
            self.par,
            MemStack::new(&mut buf),
        );
    }
    /// Solves `A x = b`.
    pub fn solve(&self, b: &[f64]) -> Vec<f64> {
        let mut x = b.to_vec();
        let n = x.len();
        self.solve_in_place(MatMut::from_column_major_slice_mut(&mut x, n, 1));
        x
    }
    /// Solves `A X = B` for a column-major block of right-hand sides.
    pub fn solve_mat(&self, b: MatRef<'_, f64>) -> Mat<f64> {
        let mut x = b.to_owned();
        self.solve_in_place(x.as_mut());
        x
    }
}
