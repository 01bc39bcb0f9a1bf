//! A numeric factorization and its solves.

use super::substitution::{Real, solve_llt};
use super::trailing::Trailing;
use super::{Permuted, Spare};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::cholesky::{LdltRef, LltRef, SymbolicCholesky, SymbolicCholeskyRaw};
use faer::{Conj, Mat, MatMut, MatRef, Par};
use std::sync::{Arc, OnceLock};

/// A numeric `LLᵀ` factorization of a symmetric positive definite matrix.
#[derive(Debug, Clone)]
pub struct Factor {
    pub(super) symbolic: Arc<SymbolicCholesky<usize>>,
    pub(super) permuted: Arc<Permuted>,
    pub(super) values: Vec<f64>,
    /// The factor's entries rounded to single precision, made on the first
    /// [`Factor::precondition`] (see there).
    pub(super) single: OnceLock<Vec<f32>>,
    pub(super) par: Par,
    pub(super) spare: Arc<Spare>,
    /// The block of its last unknowns, when they were ordered last to be
    /// refreshed ([`Factor::refresh`]), with the values its owner recorded
    /// at the factorization.
    pub(super) trailing: Option<Box<(Trailing, Vec<f64>)>>,
}

impl Drop for Factor {
    fn drop(&mut self) {
        self.spare.give_values(std::mem::take(&mut self.values));
        if let Some(single) = self.single.take() {
            self.spare.give_single(single);
        }
    }
}

impl Factor {
    /// `≈ A⁻¹ b` with the factor's entries and the arithmetic in single
    /// precision: the preconditioner of PCG directions. A kept factor is
    /// applied there many times (12–13 solves per step on a 130k-triangle
    /// shell against one factorization), and those triangular solves stream
    /// the factor from memory, which single precision halves. A
    /// preconditioner needs no more than a few digits; the solve that makes
    /// a direction from a fresh factor, and every sensitivity solve, stay in
    /// double precision ([`Factor::solve`]). A PCG solve that stalls with
    /// it (an entry out of single range, a Hessian too ill-conditioned for
    /// single precision) is retried with the double-precision solve before
    /// Newton falls back to a factorization. The copy's buffer returns to
    /// the solver's pool with the factor.
    pub(crate) fn precondition(&self, b: &[f64]) -> Vec<f64> {
        let single = self.single.get_or_init(|| {
            let mut single = self.spare.take_single(self.values.len());
            for (s, &v) in single.iter_mut().zip(&self.values) {
                *s = v as f32;
            }
            single
        });
        let fwd = &self.permuted.forward;
        assert_eq!(b.len(), self.n(), "right-hand side of the factor's size");
        let mut y: Vec<f32> = fwd
            .iter()
            .map(|&f| b.get(f).map_or(0.0, |&v| v as f32))
            .collect();
        self.solve_in_place_with(
            single,
            MatMut::from_column_major_slice_mut(&mut y, fwd.len(), 1),
        );
        let mut x = vec![0.0; b.len()];
        for (&f, &v) in fwd.iter().zip(&y) {
            if let Some(o) = x.get_mut(f) {
                *o = f64::from(v);
            }
        }
        x
    }

    /// Keeps the block of the last `m` unknowns of the ordering for
    /// [`Factor::refresh`], with `at`, values the caller reads back by
    /// [`Factor::refreshable`] (the changing entries as factorized). A
    /// factor that is not supernodal `LLᵀ` keeps nothing.
    pub(crate) fn keep_trailing(&mut self, m: usize, at: Vec<f64>) {
        self.trailing = Trailing::of(self, m).map(|t| Box::new((t, at)));
    }
    /// The trailing block and the values recorded with it, if kept.
    pub(crate) fn refreshable(&self) -> Option<(&Trailing, &[f64])> {
        self.trailing.as_deref().map(|(t, at)| (t, at.as_slice()))
    }
    /// Makes this the factor of the matrix it factorized plus `delta`
    /// (`(row, column, value)`, the matrix's numbering, each symmetric pair
    /// once, every entry inside the trailing block; see
    /// `linsolve/trailing.rs`). `false`, the factor unchanged, when there
    /// is no trailing block or the updated block is not positive definite.
    pub(crate) fn refresh(&mut self, delta: &[(usize, usize, f64)]) -> bool {
        let Some(block) = self.trailing.take() else {
            return false;
        };
        let done = block.0.update(&mut self.values, delta);
        self.trailing = Some(block);
        if done && let Some(single) = self.single.take() {
            self.spare.give_single(single);
        }
        done
    }

    fn solve_in_place(&self, rhs: MatMut<'_, f64>) {
        self.solve_in_place_with(&self.values, rhs);
    }
    /// Solves in place with the factor's entries `values` (its own, or
    /// their single-precision copy).
    fn solve_in_place_with<T: Real>(&self, values: &[T], mut rhs: MatMut<'_, T>) {
        // One right-hand side of an `LLᵀ` supernodal factor: our own
        // substitution (see `substitution.rs`); the rest through faer.
        if let (0, SymbolicCholeskyRaw::Supernodal(symbolic), 1) =
            (self.permuted.n_aux, self.symbolic.raw(), rhs.ncols())
            && let Some(x) = rhs.as_mut().col_mut(0).try_as_col_major_mut()
        {
            solve_llt(symbolic, values, x.as_slice_mut());
            return;
        }
        let mut buf = MemBuffer::new(
            self.symbolic
                .solve_in_place_scratch::<T>(rhs.ncols(), self.par),
        );
        if self.permuted.n_aux == 0 {
            LltRef::new(&self.symbolic, values).solve_in_place_with_conj(
                Conj::No,
                rhs,
                self.par,
                MemStack::new(&mut buf),
            );
        } else {
            LdltRef::new(&self.symbolic, values).solve_in_place_with_conj(
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
    /// ([`super::LinearSolver::new_augmented`]) `b` and `x` are of the Hessian's
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
