//! How small a residual can get: the round-off floor and the resolution of
//! the state, both measured on the Hessian (given, with split energies, as
//! the augmented matrix of [`crate::SplitHessian`]: its first `free.len()`
//! rows are the DOFs, the rest the rank-one terms' extra unknowns).

use faer::sparse::SparseColMatRef;

/// The level below which a residual (in `Φ`'s gradient units) is
/// round-off: forces are computed from positions of magnitude `x_scale`
/// through stiffnesses up to `h_max` (the Hessian's largest entry), so each
/// carries an absolute error of order `ε · h_max · x_scale`; summed over
/// the `n` DOFs' couplings that grows like `√n`. The factor 64 covers the
/// few operations per term; a tolerance below this cannot be met reliably.
pub(crate) fn noise_floor(h_max: f64, x_scale: f64, n: usize) -> f64 {
    64.0 * f64::EPSILON * h_max * x_scale.max(f64::MIN_POSITIVE) * (n.max(1) as f64).sqrt()
}

/// The largest entry of the Hessian `h` over its first `free.len()`
/// unknowns (of the stored sparse part, and of each rank-one term `v vᵀ`:
/// `max |vᵢ|²`), and the resolution of the state, as a force (in `Φ`'s
/// gradient units): what
/// a relative rounding `ε` of the coordinates produces through the
/// couplings between them, `ε · max_ij |H_ij| · max(|x_i|, |x_j|)` over the
/// stored entries of the Hessian `h` (lower triangle over the free DOFs
/// `free` of `x`; a rank-one term `v vᵀ` counts as `max |vᵢ|²` over the
/// largest coordinate it couples). A residual below it is made of the
/// state's own rounding, so a Newton step cannot lower it further: a 10 m
/// rod of 1 mm edges (`EA/ℓ = 6.3·10⁵ N/m`) resolves forces to about
/// `10⁻⁹ N`, above the default tolerance, and spent one or two iterations
/// per step finding that out (2.9 instead of 1.6 Newton iterations per step
/// at 10,000 edges). The solve stops there at once instead. Each coupling
/// is weighed with the coordinates it couples, so a stiff contact acting
/// on small coordinates does not lend its stiffness to large, soft ones.
/// The solve trusts it only for the iterate right after the Hessian it
/// came from, not across reused factorizations.
///
/// One pass over the stored entries computes both (they are needed
/// together after every fresh Hessian): two passes took 7.7 % of the soft
/// snake's run time in a profile; fused, the snake runs 1.21–1.23 instead
/// of 1.24–1.27 s per simulated second (three interleaved rounds,
/// 2026-11-28).
pub(crate) fn hessian_floors(
    h: SparseColMatRef<'_, usize, f64>,
    x: &[f64],
    free: &[usize],
) -> (f64, f64) {
    let (cp, ri, v) = (h.symbolic().col_ptr(), h.symbolic().row_idx(), h.val());
    let n = free.len();
    let cols = n.min(h.ncols());
    // |x| per free DOF, in solve order (one gather instead of one per entry).
    let xa: Vec<f64> = free.iter().map(|&i| x[i].abs()).collect();
    // Per rank-one term: its largest entry and the largest coordinate it couples.
    let mut terms = vec![(0.0f64, 0.0f64); h.ncols().saturating_sub(n)];
    let (mut h_max, mut worst) = (0.0f64, 0.0f64);
    if h.ncols() == n {
        // No rank-one rows: every stored entry is a coupling of free DOFs.
        // Four running maxima of each kind, so that the pass is not one
        // chain of dependent `max`es (a maximum is exact whatever order the
        // entries are taken in, so this is the loop below, bit for bit).
        let (mut hm, mut wm) = ([0.0f64; 4], [0.0f64; 4]);
        for j in 0..cols {
            let xj = xa[j];
            let (rows, vals) = (&ri[cp[j]..cp[j + 1]], &v[cp[j]..cp[j + 1]]);
            let (r4, v4) = (rows.chunks_exact(4), vals.chunks_exact(4));
            let (rr, vr) = (r4.remainder(), v4.remainder());
            for (r, val) in r4.zip(v4) {
                for l in 0..4 {
                    let a = val[l].abs();
                    hm[l] = hm[l].max(a);
                    wm[l] = wm[l].max(a * xj.max(xa[r[l]]));
                }
            }
            for (l, (&r, val)) in rr.iter().zip(vr).enumerate() {
                let a = val.abs();
                hm[l] = hm[l].max(a);
                wm[l] = wm[l].max(a * xj.max(xa[r]));
            }
        }
        h_max = hm.into_iter().fold(0.0, f64::max);
        worst = wm.into_iter().fold(0.0, f64::max);
        return (h_max, f64::EPSILON * worst);
    }
    for j in 0..cols {
        let xj = xa[j];
        for k in cp[j]..cp[j + 1] {
            let (r, a) = (ri[k], v[k].abs());
            if r < n {
                h_max = h_max.max(a);
                worst = worst.max(a * xj.max(xa[r]));
            } else {
                h_max = h_max.max(a * a);
                let t = &mut terms[r - n];
                *t = (t.0.max(a), t.1.max(xj));
            }
        }
    }
    for (vm, xm) in terms {
        worst = worst.max(vm * vm * xm);
    }
    (h_max, f64::EPSILON * worst)
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::sparse::{SparseColMat, Triplet};

    /// The two quantities computed separately, as before they were fused.
    /// The largest entry of the Hessian over its first `n` unknowns: of the
    /// stored sparse part, and of each rank-one term `v vᵀ` (`max |vᵢ|²`).
    fn hessian_max(h: SparseColMatRef<'_, usize, f64>, n: usize) -> f64 {
        let (cp, ri, v) = (h.symbolic().col_ptr(), h.symbolic().row_idx(), h.val());
        let mut worst = 0.0f64;
        for j in 0..n.min(h.ncols()) {
            for k in cp[j]..cp[j + 1] {
                let a = v[k].abs();
                worst = worst.max(if ri[k] < n { a } else { a * a });
            }
        }
        worst
    }

    /// The state's resolution alone: the reference for [`hessian_floors`].
    fn state_resolution(h: SparseColMatRef<'_, usize, f64>, x: &[f64], free: &[usize]) -> f64 {
        let (cp, ri, v) = (h.symbolic().col_ptr(), h.symbolic().row_idx(), h.val());
        let n = free.len();
        // Per rank-one term: its largest entry and the largest coordinate it couples.
        let mut terms = vec![(0.0f64, 0.0f64); h.ncols().saturating_sub(n)];
        let mut worst = 0.0f64;
        for (j, &dj) in free.iter().enumerate().take(h.ncols()) {
            let xj = x[dj].abs();
            for k in cp[j]..cp[j + 1] {
                let r = ri[k];
                if r < n {
                    worst = worst.max(v[k].abs() * xj.max(x[free[r]].abs()));
                } else {
                    let t = &mut terms[r - n];
                    *t = (t.0.max(v[k].abs()), t.1.max(xj));
                }
            }
        }
        for (vm, xm) in terms {
            worst = worst.max(vm * vm * xm);
        }
        f64::EPSILON * worst
    }

    /// The fused pass gives exactly the separate passes' values, on a
    /// lower-triangular Hessian with two rank-one rows (split energies) and
    /// a constrained DOF between the free ones.
    #[test]
    fn the_fused_pass_equals_the_separate_ones() {
        let free = [0usize, 2, 3, 5, 6];
        let x = [0.3, -7.0, -1.2, 0.05, 2.5, -0.8, 4.0];
        let (n, aux) = (free.len(), 2);
        let mut t = vec![];
        for j in 0..n {
            for r in j..n + aux {
                if (r + 2 * j) % 3 != 1 || r == j {
                    let v = ((r * 7 + j * 13) % 11) as f64 - 5.5;
                    t.push(Triplet::new(r, j, v * if r >= n { 0.3 } else { 10.0 }));
                }
            }
        }
        let h = SparseColMat::try_new_from_triplets(n + aux, n + aux, &t).unwrap();
        let (h_max, res) = hessian_floors(h.as_ref(), &x, &free);
        assert_eq!(h_max, hessian_max(h.as_ref(), n));
        assert_eq!(res, state_resolution(h.as_ref(), &x, &free));
        assert!(h_max > 0.0 && res > 0.0);
        // Without the rank-one rows (the path of four running maxima),
        // columns of 1 to 5 stored entries.
        let t: Vec<_> = t.into_iter().filter(|e| e.row < n).collect();
        let h = SparseColMat::try_new_from_triplets(n, n, &t).unwrap();
        let (h_max, res) = hessian_floors(h.as_ref(), &x, &free);
        assert_eq!(h_max, hessian_max(h.as_ref(), n));
        assert_eq!(res, state_resolution(h.as_ref(), &x, &free));
        assert!(h_max > 0.0 && res > 0.0);
    }
}
