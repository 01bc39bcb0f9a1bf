//! 3×3 matrices stored row-major as `[D; 9]` (`m[3i + j] = M_ij`), generic
//! over the scalar; and [`skew`], the cross-product matrix as rows.

use crate::scalar::Scalar;

/// Determinant.
#[inline]
pub fn det3<D: Scalar>(f: &[D; 9]) -> D {
    f[0] * (f[4] * f[8] - f[5] * f[7]) - f[1] * (f[3] * f[8] - f[5] * f[6])
        + f[2] * (f[3] * f[7] - f[4] * f[6])
}

/// Inverse, given the determinant `j` (the adjugate divided by `j`).
#[inline]
pub fn inv3<D: Scalar>(f: &[D; 9], j: D) -> [D; 9] {
    let c = [
        f[4] * f[8] - f[5] * f[7],
        f[2] * f[7] - f[1] * f[8],
        f[1] * f[5] - f[2] * f[4],
        f[5] * f[6] - f[3] * f[8],
        f[0] * f[8] - f[2] * f[6],
        f[2] * f[3] - f[0] * f[5],
        f[3] * f[7] - f[4] * f[6],
        f[1] * f[6] - f[0] * f[7],
        f[0] * f[4] - f[1] * f[3],
    ];
    c.map(|v| v / j)
}

/// `[v]×`, the matrix of `u ↦ v × u`, as rows (`[v]× u = v × u`;
/// `[v]×ᵀ = −[v]×`).
#[inline]
pub fn skew(v: &[f64; 3]) -> [[f64; 3]; 3] {
    [[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]]
}

/// A 3 × 3 matrix as rows.
pub type M3 = [[f64; 3]; 3];

/// The product `a b` of two 3 × 3 matrices.
#[inline]
pub fn mat_mul(a: &M3, b: &M3) -> M3 {
    std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

/// `aᵀ`.
#[inline]
pub fn transpose(a: &M3) -> M3 {
    std::array::from_fn(|i| std::array::from_fn(|j| a[j][i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_times_matrix_is_identity() {
        let f = [2.0, 0.3, -0.1, 0.5, 1.5, 0.2, -0.4, 0.1, 3.0];
        let j = det3(&f);
        let g = inv3(&f, j);
        for i in 0..3 {
            for k in 0..3 {
                let v: f64 = (0..3).map(|l| f[3 * i + l] * g[3 * l + k]).sum();
                assert!((v - if i == k { 1.0 } else { 0.0 }).abs() < 1e-14);
            }
        }
    }
}
