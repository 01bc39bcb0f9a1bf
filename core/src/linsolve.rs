//! Sparse Cholesky with faer: the symbolic analysis is computed once per
//! sparsity pattern and reused for every numeric factorization (all Newton
//! iterations of all steps).

use crate::error::{CoreError, Result};
use faer::Side;
use faer::prelude::Solve;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMat, SymbolicSparseColMat};
use faer::{Mat, MatRef};

/// A symbolic Cholesky analysis shared by all numeric factorizations.
#[derive(Debug, Clone)]
pub struct LinearSolver {
    symbolic: SymbolicLlt<usize>,
}

/// A numeric `LLᵀ` factorization of a symmetric positive definite matrix.
#[derive(Debug, Clone)]
pub struct Factor {
    llt: Llt<usize, f64>,
}

impl LinearSolver {
    /// Analyses the lower-triangular pattern `pattern` (ordering, elimination tree).
    pub fn new(pattern: &SymbolicSparseColMat<usize>) -> Result<Self> {
        let symbolic = SymbolicLlt::try_new(pattern.as_ref(), Side::Lower)
            .map_err(|e| CoreError::LinearSolve(format!("symbolic Cholesky: {e:?}")))?;
        Ok(Self { symbolic })
    }
    /// Factorizes `a` (lower triangle read). Fails with the pivot index when
    /// `a` is not positive definite.
    pub fn factor(&self, a: &SparseColMat<usize, f64>) -> Result<Factor> {
        Llt::try_new_with_symbolic(self.symbolic.clone(), a.as_ref(), Side::Lower)
            .map(|llt| Factor { llt })
            .map_err(|e| CoreError::LinearSolve(format!("numeric Cholesky: {e:?}")))
    }
}

impl Factor {
    /// Solves `A x = b`.
    pub fn solve(&self, b: &[f64]) -> Vec<f64> {
        let rhs = MatRef::from_column_major_slice(b, b.len(), 1);
        let x: Mat<f64> = self.llt.solve(rhs);
        (0..b.len()).map(|i| x[(i, 0)]).collect()
    }
    /// Solves `A X = B` for a column-major block of right-hand sides.
    pub fn solve_mat(&self, b: MatRef<'_, f64>) -> Mat<f64> {
        self.llt.solve(b)
    }
}
