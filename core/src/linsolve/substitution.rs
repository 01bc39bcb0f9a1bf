//! Forward and backward substitution with a supernodal `LLᵀ` factor, for
//! one right-hand side.
//!
//! With `A = L Lᵀ`, `A x = b` is `L y = b` then `Lᵀ x = y`. A supernode `s`
//! holds the columns `c₀ … c₁ − 1` of `L` as one dense column-major block of
//! `m × k` entries (`k = c₁ − c₀`): its `k × k` lower triangle `L_d` on top,
//! then `L_b`, the rows of its pattern `P_s` (faer's layout). Per supernode,
//! in order,
//!
//! - forward: `y_s = L_d⁻¹ b_s`, then `b[P_s] −= L_b y_s`;
//! - backward (in reverse order): `x_s = L_d⁻ᵀ (y_s − L_bᵀ x[P_s])`.
//!
//! faer's general solve (`SupernodalLltRef::solve_in_place_with_conj`) does
//! the same with its dense triangular solve and matrix product kernels,
//! whose dispatch costs more than the arithmetic on the small supernodes of
//! a robot's Hessian (the Puppy's 1,458 unknowns: a solve took as long as a
//! tenth of a factorization). These loops run the columns as contiguous
//! `axpy`s (forward) and dot products (backward), one sweep over the factor
//! each way; supernodes of [`DENSE_KERNEL_COLUMNS`] columns or more go
//! through faer's dense kernels, as in faer's own solve.

use faer::linalg::matmul::matmul;
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::sparse::linalg::cholesky::supernodal::SymbolicSupernodalCholesky;
use faer::traits::ComplexField;
use faer::{Accum, MatMut, MatRef, Par};
use std::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};

/// The arithmetic the substitution needs: `f64` and `f32` (the single-
/// precision preconditioner's copy).
pub(super) trait Real:
    ComplexField
    + Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + AddAssign
    + SubAssign
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
}

/// Supernodes of at least this many columns go through faer's dense
/// triangular solve and matrix–vector kernels (blocked, vectorized), which
/// win on the wide separators of 3-D meshes; narrower ones through the
/// loops below, which win where faer's dispatch costs more than the
/// arithmetic. Measured on 7-point Laplacians with nested dissection or
/// AMD (a temporary timing test, median of 5, 2026-12-02, idle machine),
/// µs per solve, this solve (its permutations included) against faer's:
/// 8³ 20.6 / 40.3, 12³ 98.0 / 172.9, 20³ 651 / 1,063, 30³ 8,867 / 10,313,
/// 200 × 200 (2-D) 2,973 / 6,645. With the loops alone the 30³ grid, whose
/// top separator has about 900 columns, was 1.07× slower than faer's.
pub(super) const DENSE_KERNEL_COLUMNS: usize = 32;

/// Solves `L Lᵀ x = b` in place (`x` holds `b` on entry), `L` given by its
/// supernodal structure and entries (`values`, faer's layout).
pub(super) fn solve_llt<T: Real>(
    symbolic: &SymbolicSupernodalCholesky<usize>,
    values: &[T],
    x: &mut [T],
) {
    let begin = symbolic.supernode_begin();
    let end = symbolic.supernode_end();
    let at = symbolic.col_ptr_for_val();
    let n_super = symbolic.n_supernodes();
    let widest = (0..n_super)
        .map(|s| symbolic.supernode(s).pattern().len())
        .max()
        .unwrap_or(0);
    let mut tmp = vec![T::ZERO; widest];
    for s in 0..n_super {
        let (c0, k) = (begin[s], end[s] - begin[s]);
        let pattern = symbolic.supernode(s).pattern();
        let m = k + pattern.len();
        let l = &values[at[s]..at[s + 1]];
        let tmp = &mut tmp[..pattern.len()];
        if k >= DENSE_KERNEL_COLUMNS {
            let (l_top, l_bot) = MatRef::from_column_major_slice(l, m, k).split_at_row(k);
            let mut x_top = MatMut::from_column_major_slice_mut(&mut x[c0..c0 + k], k, 1);
            solve_lower_triangular_in_place(l_top, x_top.as_mut(), Par::Seq);
            let t = MatMut::from_column_major_slice_mut(tmp, pattern.len(), 1);
            matmul(t, Accum::Replace, l_bot, x_top.as_ref(), T::ONE, Par::Seq);
            for (&i, &t) in pattern.iter().zip(tmp.iter()) {
                x[i] -= t;
            }
            continue;
        }
        tmp.fill(T::ZERO);
        let (top, _) = x.split_at_mut(c0 + k);
        let top = &mut top[c0..];
        for j in 0..k {
            let col = &l[j * m..(j + 1) * m];
            let yj = top[j] / col[j];
            top[j] = yj;
            for (t, &lij) in top[j + 1..].iter_mut().zip(&col[j + 1..k]) {
                *t -= lij * yj;
            }
            for (t, &lij) in tmp.iter_mut().zip(&col[k..]) {
                *t += lij * yj;
            }
        }
        for (&i, &t) in pattern.iter().zip(tmp.iter()) {
            x[i] -= t;
        }
    }
    for s in (0..n_super).rev() {
        let (c0, k) = (begin[s], end[s] - begin[s]);
        let pattern = symbolic.supernode(s).pattern();
        let m = k + pattern.len();
        let l = &values[at[s]..at[s + 1]];
        let tmp = &mut tmp[..pattern.len()];
        for (t, &i) in tmp.iter_mut().zip(pattern) {
            *t = x[i];
        }
        if k >= DENSE_KERNEL_COLUMNS {
            let (l_top, l_bot) = MatRef::from_column_major_slice(l, m, k).split_at_row(k);
            let mut x_top = MatMut::from_column_major_slice_mut(&mut x[c0..c0 + k], k, 1);
            let t = MatRef::from_column_major_slice(tmp, pattern.len(), 1);
            matmul(
                x_top.as_mut(),
                Accum::Add,
                l_bot.transpose(),
                t,
                T::ZERO - T::ONE,
                Par::Seq,
            );
            solve_upper_triangular_in_place(l_top.transpose(), x_top, Par::Seq);
            continue;
        }
        let top = &mut x[c0..c0 + k];
        for j in (0..k).rev() {
            let col = &l[j * m..(j + 1) * m];
            let sum = top[j] - dot(&col[k..], tmp) - dot(&col[j + 1..k], &top[j + 1..]);
            top[j] = sum / col[j];
        }
    }
}

/// `Σ aᵢ bᵢ` in four interleaved partial sums (a fixed order: the result
/// depends on the operands only).
#[inline]
fn dot<T: Real>(a: &[T], b: &[T]) -> T {
    let mut acc = [T::ZERO; 4];
    let (a4, a_rest) = a.split_at(a.len() / 4 * 4);
    let (b4, b_rest) = b.split_at(a4.len());
    for (ca, cb) in a4.chunks_exact(4).zip(b4.chunks_exact(4)) {
        for q in 0..4 {
            acc[q] += ca[q] * cb[q];
        }
    }
    let mut sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (&x, &y) in a_rest.iter().zip(b_rest) {
        sum += x * y;
    }
    sum
}
