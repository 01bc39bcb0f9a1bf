//! Newton directions by conjugate gradients on the exact Hessian,
//! preconditioned with a kept factorization or a multigrid hierarchy (see
//! [`super::Directions`]).

use super::inf_norm;
use crate::amg::Amg;
use crate::linsolve::Factor;
use faer::sparse::SparseColMatRef;

/// An approximate inverse of the Hessian, symmetric positive definite.
pub(crate) trait Preconditioner {
    /// `z ≈ H⁻¹ r`.
    fn apply(&self, r: &[f64]) -> Vec<f64>;
}

/// A kept factorization as PCG's preconditioner, in single precision
/// ([`Factor::precondition`]).
impl Preconditioner for Factor {
    fn apply(&self, r: &[f64]) -> Vec<f64> {
        self.precondition(r)
    }
}

/// A kept factorization applied in double precision ([`Factor::solve`]):
/// the retry of a solve whose single-precision preconditioner was not
/// positive definite.
pub(crate) struct Exact<'a>(pub(crate) &'a Factor);

impl Preconditioner for Exact<'_> {
    fn apply(&self, r: &[f64]) -> Vec<f64> {
        self.0.solve(r)
    }
}

/// A hierarchy as PCG's preconditioner, its products in parallel (Newton
/// directions choose the way by timing instead: `multigrid::Timed`).
impl Preconditioner for Amg {
    fn apply(&self, r: &[f64]) -> Vec<f64> {
        Amg::apply(self, r, true)
    }
}

/// `y = H x` for the Hessian `H` of `x.len()` unknowns given as the lower
/// triangle of `a`: `a` itself, or, when `a` has extra rows (the rank-one
/// terms of [`crate::SplitHessian`] energies, `a = [H_s V; Vᵀ D]` with `D`
/// diagonal), its Schur complement `H = H_s − V D⁻¹ Vᵀ`.
pub(crate) fn hessian_mul(a: SparseColMatRef<'_, usize, f64>, x: &[f64], y: &mut [f64]) {
    let n = x.len();
    y.fill(0.0);
    let (cp, ri, v) = (a.symbolic().col_ptr(), a.symbolic().row_idx(), a.val());
    // t = Vᵀ x, one entry per extra unknown.
    let mut t = vec![0.0; a.ncols().saturating_sub(n)];
    for j in 0..n.min(a.ncols()) {
        let xj = x[j];
        let mut yj = 0.0;
        for k in cp[j]..cp[j + 1] {
            let r = ri[k];
            if r == j {
                yj += v[k] * xj;
            } else if r < n {
                y[r] += v[k] * xj;
                yj += v[k] * x[r];
            } else {
                t[r - n] += v[k] * xj;
            }
        }
        y[j] += yj;
    }
    if t.is_empty() {
        return;
    }
    // Column n + k holds only its diagonal d_k: t_k ← t_k / d_k.
    for (k, tk) in t.iter_mut().enumerate() {
        *tk /= v[cp[n + k]];
    }
    for j in 0..n {
        for k in cp[j]..cp[j + 1] {
            if ri[k] >= n {
                y[j] -= v[k] * t[ri[k] - n];
            }
        }
    }
}

/// Why a PCG solve gave no direction.
pub(crate) enum PcgFailure {
    /// `pᵀ H p ≤ 0`: the Hessian is not positive definite along `p`. The
    /// iterate reached before, if any step was taken, is a descent direction
    /// (Steihaug's truncated CG: it lowers the quadratic model, whose
    /// curvature is positive on the directions taken).
    NegativeCurvature(Option<Vec<f64>>),
    /// The residual did not reach the target within the iteration budget.
    Stalled,
    /// The preconditioner was not positive definite at a residual (or gave
    /// a non-finite value): no conjugate direction can follow.
    NotDefinite,
}

/// Solves `H d = −g` (`h` computes `y = H x`) by conjugate gradients
/// preconditioned with `m`
/// (a factorization of a nearby Hessian, or a multigrid hierarchy) until
/// `‖H d + g‖∞ ≤ target`, in at most `max_iterations`. Returns the
/// direction and the iterations taken (counted also on failure through
/// `iterations`).
pub(crate) fn pcg(
    h: &dyn Fn(&[f64], &mut [f64]),
    g: &[f64],
    m: &dyn Preconditioner,
    target: f64,
    max_iterations: usize,
    iterations: &mut usize,
) -> std::result::Result<Vec<f64>, PcgFailure> {
    let n = g.len();
    let mut d = vec![0.0; n];
    let mut r: Vec<f64> = g.iter().map(|v| -v).collect();
    let mut z = m.apply(&r);
    let mut p = z.clone();
    let mut rz: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
    if !(rz > 0.0 && rz.is_finite()) {
        return Err(PcgFailure::NotDefinite);
    }
    let mut hp = vec![0.0; n];
    for _ in 0..max_iterations {
        *iterations += 1;
        h(&p, &mut hp);
        let php: f64 = p.iter().zip(&hp).map(|(a, b)| a * b).sum();
        if php.is_nan() || php <= 0.0 {
            let taken = d.iter().any(|&v| v != 0.0) && !php.is_nan();
            return Err(PcgFailure::NegativeCurvature(taken.then_some(d)));
        }
        let alpha = rz / php;
        for i in 0..n {
            d[i] += alpha * p[i];
            r[i] -= alpha * hp[i];
        }
        if inf_norm(&r) <= target {
            return Ok(d);
        }
        z = m.apply(&r);
        let rz_new: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
        if !(rz_new > 0.0 && rz_new.is_finite()) {
            // The preconditioner is not positive definite at `r` (a
            // multigrid hierarchy far from the current Hessian): no
            // conjugate direction can follow.
            return Err(PcgFailure::NotDefinite);
        }
        let beta = rz_new / rz;
        rz = rz_new;
        for i in 0..n {
            p[i] = z[i] + beta * p[i];
        }
    }
    Err(PcgFailure::Stalled)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Multiplies by `sign`.
    struct Scale(f64);

    impl Preconditioner for Scale {
        fn apply(&self, r: &[f64]) -> Vec<f64> {
            r.iter().map(|v| self.0 * v).collect()
        }
    }

    #[test]
    fn an_indefinite_preconditioner_stops_the_solve() {
        let h = |x: &[f64], y: &mut [f64]| {
            for (i, (xi, yi)) in x.iter().zip(y.iter_mut()).enumerate() {
                *yi = (i + 1) as f64 * xi;
            }
        };
        let g = [1.0, -2.0, 0.5];
        let mut it = 0;
        let solved = pcg(&h, &g, &Scale(1.0), 1e-12, 10, &mut it);
        let d = solved
            .ok()
            .expect("converges with a positive preconditioner");
        for (i, di) in d.iter().enumerate() {
            assert!((di + g[i] / (i + 1) as f64).abs() < 1e-12);
        }
        let mut it = 0;
        assert!(matches!(
            pcg(&h, &g, &Scale(-1.0), 1e-12, 10, &mut it),
            Err(PcgFailure::NotDefinite)
        ));
        assert!(matches!(
            pcg(&h, &g, &Scale(f64::NAN), 1e-12, 10, &mut it),
            Err(PcgFailure::NotDefinite)
        ));
        // Out of budget is another failure.
        assert!(matches!(
            pcg(&h, &g, &Scale(1e-3), 1e-12, 1, &mut it),
            Err(PcgFailure::Stalled)
        ));
    }
}
