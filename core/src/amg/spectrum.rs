//! The largest eigenvalue of a level's Jacobi-scaled operator,
//! `λ_max(D⁻¹A)`, that its Chebyshev smoother needs: power iterations from
//! a fixed start, raised by a margin because they approach it from below.

use super::{Operator, failure};
use crate::amg::csr::Csr;
use crate::error::Result;
use crate::parallel::goes_parallel;

/// Power iterations estimating `λ_max(D⁻¹A)` (the estimate is then raised
/// by 10 % for aggregation, by [`GEOMETRIC_MARGIN`] for geometric levels, as
/// a power iteration approaches it from below).
const POWER_ITERATIONS: usize = 15;

/// The factor raising a geometric level's power-iteration estimate of
/// `λ_max(D⁻¹A)`. With 1.1, on the manta ray's generated 21,840-triangle
/// mesh with the generated meshes of half and a quarter the cells as
/// levels, fresh hierarchies gave V-cycles that are not positive definite
/// (PCG stopped after 2–4 iterations, Chebyshev smoothing amplifying
/// eigenvalues above the interval it damps) and 40 directions over 30
/// flapping steps were factorized instead; with 1.2 and more, none. PCG
/// iterations per step:
/// 39.3 (1.2), 38.7 (1.3), 39.0 (1.5) there, 42.8, 42.4, 41.2 against
/// 41.5 (1.1) on the nested 22,400-triangle refinement (`PLIANT_DIRECTIONS=
/// geometric PLIANT_MANTA_STEPS=30 cargo bench --bench shell -- scaling`,
/// 2026-12-02): the margin costs nothing measurable.
const GEOMETRIC_MARGIN: f64 = 1.5;

/// `λ_max(D⁻¹A)` of a symmetric positive definite `A`, by power iteration
/// (Rayleigh quotients `xᵀAx / xᵀDx`) from a fixed start, raised by 10 %.
fn lambda_max(a: &Csr, inv_diag: &[f64]) -> f64 {
    1.1 * lambda_max_of(|x, y| a.mul_vec(x, y), inv_diag)
}

/// The largest Rayleigh quotient `xᵀAx / xᵀDx` met in [`POWER_ITERATIONS`]
/// power iterations of `D⁻¹A` (whose products `mul` gives) from a fixed
/// start: a lower bound of `λ_max(D⁻¹A)`.
fn lambda_max_of(mul: impl Fn(&[f64], &mut [f64]), inv_diag: &[f64]) -> f64 {
    let n = inv_diag.len();
    // A fixed, non-smooth start (no thread- or run-dependent randomness).
    let mut x: Vec<f64> = (0..n)
        .map(|i| 1.0 + ((i.wrapping_mul(2_654_435_761) % 1000) as f64) / 1000.0)
        .collect();
    let mut ax = vec![0.0; n];
    let mut lambda: f64 = 0.0;
    for _ in 0..POWER_ITERATIONS {
        mul(&x, &mut ax);
        let xax: f64 = x.iter().zip(&ax).map(|(a, b)| a * b).sum();
        let xdx: f64 = x.iter().zip(inv_diag).map(|(a, d)| a * a / d).sum();
        lambda = lambda.max(xax / xdx);
        let mut norm: f64 = 0.0;
        for ((xi, axi), d) in x.iter_mut().zip(&ax).zip(inv_diag) {
            *xi = axi * d;
            norm = norm.max(xi.abs());
        }
        if norm == 0.0 || !norm.is_finite() {
            break;
        }
        x.iter_mut().for_each(|v| *v /= norm);
    }
    lambda
}

/// `λ_max(D⁻¹A)` of a level, or an error when it is not positive and finite
/// (the matrix is indefinite although its diagonal is positive).
pub(super) fn checked_lambda_max(a: &Csr, inv_diag: &[f64], level: usize) -> Result<f64> {
    checked(lambda_max(a, inv_diag), level)
}

/// `lambda` when it is positive and finite, else the error of
/// [`checked_lambda_max`].
fn checked(lambda: f64, level: usize) -> Result<f64> {
    if lambda > 0.0 && lambda.is_finite() {
        Ok(lambda)
    } else {
        Err(failure(format!(
            "level {level}'s largest eigenvalue estimate is {lambda:e}: the matrix is not positive definite"
        )))
    }
}

/// `λ_max(D⁻¹A)` of a level's operator as the V-cycle stores it, by
/// [`lambda_max_of`]'s power iterations with the V-cycle's own products
/// (single precision, by node blocks where it has them; in parallel on
/// large levels, the same result either way), raised by
/// [`GEOMETRIC_MARGIN`] and checked as
/// [`checked_lambda_max`].
pub(super) fn operator_lambda_max(op: &Operator, inv_diag: &[f64], level: usize) -> Result<f64> {
    let par = goes_parallel(inv_diag.len());
    checked(
        GEOMETRIC_MARGIN * lambda_max_of(|x, y| op.mul_single(x, y, par), inv_diag),
        level,
    )
}
