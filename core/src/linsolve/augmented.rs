//! The `LDLᵀ` factorization of an augmented (quasi-definite) matrix: the
//! Hessian's sparse part with one extra unknown per rank-one term (see
//! [`LinearSolver::new_augmented`]).

use super::LinearSolver;
use crate::error::{CoreError, Result};
use faer::dyn_stack::MemStack;
use faer::linalg::cholesky::ldlt::factor::LdltRegularization;
use faer::sparse::SparseColMatRef;
use faer::sparse::linalg::cholesky::{SymbolicCholeskyRaw, simplicial, supernodal};

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
    pub(super) fn factor_ldlt(
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
