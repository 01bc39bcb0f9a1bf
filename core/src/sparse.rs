//! Sparse matrices: patterns built from index pairs (with where each pair
//! landed: assembly and the permuted factorization both build a pattern
//! once and then scatter values into it), matrices from triplets, and the
//! products the sensitivity sweeps need.

use crate::error::{CoreError, Result};
use faer::sparse::{Pair, SparseColMat, SymbolicSparseColMat, Triplet};

/// The sparse matrix type of the derivative blocks (column-major, f64).
pub type SparseMat = SparseColMat<usize, f64>;

/// Builds an `r × c` sparse matrix from triplets (duplicates summed).
pub(crate) fn from_triplets(
    r: usize,
    c: usize,
    t: &[Triplet<usize, usize, f64>],
) -> Result<SparseMat> {
    SparseColMat::try_new_from_triplets(r, c, t).map_err(|e| CoreError::LinearSolve {
        what: "triplet assembly",
        detail: format!("{e:?}"),
    })
}

/// `scale · A` as triplets.
pub(crate) fn triplets_of(a: &SparseMat, scale: f64) -> Vec<Triplet<usize, usize, f64>> {
    let mut t = Vec::with_capacity(a.val().len());
    let cp = a.symbolic().col_ptr();
    let ri = a.symbolic().row_idx();
    for j in 0..a.ncols() {
        let range = cp[j]..cp[j + 1];
        for (&r, &v) in ri[range.clone()].iter().zip(&a.val()[range]) {
            t.push(Triplet::new(r, j, scale * v));
        }
    }
    t
}

/// `y += A x`.
pub fn mul_add(a: &SparseMat, x: &[f64], y: &mut [f64]) {
    let cp = a.symbolic().col_ptr();
    let ri = a.symbolic().row_idx();
    let v = a.val();
    for j in 0..a.ncols() {
        let xj = x[j];
        if xj != 0.0 {
            for k in cp[j]..cp[j + 1] {
                y[ri[k]] += v[k] * xj;
            }
        }
    }
}

/// `y += Aᵀ x`.
pub fn tr_mul_add(a: &SparseMat, x: &[f64], y: &mut [f64]) {
    let cp = a.symbolic().col_ptr();
    let ri = a.symbolic().row_idx();
    let v = a.val();
    for (j, yj) in y.iter_mut().enumerate().take(a.ncols()) {
        let mut s = 0.0;
        for k in cp[j]..cp[j + 1] {
            s += v[k] * x[ri[k]];
        }
        *yj += s;
    }
}

/// A symmetric rank-one term `w u uᵀ` with a sparse vector `u` (pairs of
/// index and value).
#[derive(Debug, Clone, PartialEq)]
pub struct RankOne {
    /// The weight `w`.
    pub weight: f64,
    /// The nonzero entries of `u`, as `(index, value)`.
    pub vector: Vec<(usize, f64)>,
}

impl RankOne {
    /// `y += w u (uᵀ x)` (the term is symmetric: also its transposed product).
    pub fn mul_add(&self, x: &[f64], y: &mut [f64]) {
        let dot: f64 = self.vector.iter().map(|&(i, u)| u * x[i]).sum();
        let s = self.weight * dot;
        if s != 0.0 {
            for &(i, u) in &self.vector {
                y[i] += s * u;
            }
        }
    }
}

/// A sparse matrix plus symmetric rank-one terms, `A + Σ w_j u_j u_jᵀ`: a
/// block whose dense part would not fit as entries (the Hessian of an
/// ideal-gas cavity couples every node of its surface, see
/// [`crate::SplitHessian`]) applied as products instead.
#[derive(Debug, Clone)]
pub struct SparsePlusLowRank {
    /// The sparse part `A`.
    pub sparse: SparseMat,
    /// The rank-one terms (empty for most models).
    pub rank_one: Vec<RankOne>,
}

impl SparsePlusLowRank {
    /// `y += (A + Σ w u uᵀ) x`.
    pub fn mul_add(&self, x: &[f64], y: &mut [f64]) {
        mul_add(&self.sparse, x, y);
        for t in &self.rank_one {
            t.mul_add(x, y);
        }
    }
    /// `y += (A + Σ w u uᵀ)ᵀ x`.
    pub fn tr_mul_add(&self, x: &[f64], y: &mut [f64]) {
        tr_mul_add(&self.sparse, x, y);
        for t in &self.rank_one {
            t.mul_add(x, y);
        }
    }
    /// Rows.
    pub fn nrows(&self) -> usize {
        self.sparse.nrows()
    }
    /// Columns.
    pub fn ncols(&self) -> usize {
        self.sparse.ncols()
    }
}

/// The `n × n` column-major pattern of `pairs` (duplicates merged, rows
/// sorted within each column) and, for each pair, the index of its entry.
pub(crate) fn pattern_of(
    n: usize,
    pairs: &[Pair<usize, usize>],
) -> Result<(SymbolicSparseColMat<usize>, Vec<usize>)> {
    let (pattern, _) = SymbolicSparseColMat::try_new_from_indices(n, n, pairs).map_err(|e| {
        CoreError::LinearSolve {
            what: "sparsity pattern",
            detail: format!("{e:?}"),
        }
    })?;
    let (cp, ri) = (pattern.col_ptr(), pattern.row_idx());
    let entries = pairs
        .iter()
        .map(|p| {
            let (lo, hi) = (cp[p.col], cp[p.col + 1]);
            lo + ri[lo..hi]
                .binary_search(&p.row)
                .expect("every pair is in the pattern built from the pairs")
        })
        .collect();
    Ok((pattern, entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pair_finds_its_entry_and_duplicates_share_one() {
        let pairs = [(2, 0), (0, 0), (2, 0), (1, 1), (2, 1), (2, 2)].map(|(r, c)| Pair::new(r, c));
        let (p, e) = pattern_of(3, &pairs).unwrap();
        assert_eq!(p.row_idx().len(), 5);
        for (pair, &k) in pairs.iter().zip(&e) {
            let col = (0..3).find(|&c| p.col_ptr()[c + 1] > k).unwrap();
            assert_eq!((p.row_idx()[k], col), (pair.row, pair.col));
        }
        assert_eq!(e[0], e[2]);
        assert!(pattern_of(2, &pairs).is_err());
    }

    #[test]
    fn products_and_triplets_agree_with_dense() {
        let t = [(0, 0, 2.0), (2, 0, -1.0), (1, 2, 3.0), (2, 0, 0.5)]
            .map(|(r, c, v)| Triplet::new(r, c, v));
        let a = from_triplets(3, 3, &t).unwrap();
        let dense = [[2.0, 0.0, 0.0], [0.0, 0.0, 3.0], [-0.5, 0.0, 0.0]];
        let x = [1.0, -2.0, 0.5];
        let (mut y, mut z) = ([0.0; 3], [0.0; 3]);
        mul_add(&a, &x, &mut y);
        tr_mul_add(&a, &x, &mut z);
        for i in 0..3 {
            assert_eq!(y[i], (0..3).map(|j| dense[i][j] * x[j]).sum::<f64>());
            assert_eq!(z[i], (0..3).map(|j| dense[j][i] * x[j]).sum::<f64>());
        }
        let b = from_triplets(3, 3, &triplets_of(&a, 2.0)).unwrap();
        assert_eq!(b.val(), a.val().iter().map(|v| 2.0 * v).collect::<Vec<_>>());
    }
}
