//! Compressed sparse rows: the matrices of the multigrid hierarchy (the
//! Hessian with both triangles, prolongators, Galerkin coarse operators).

use faer::sparse::{SparseColMat, SparseColMatRef, SymbolicSparseColMat};
use rayon::prelude::*;

/// Rows per parallel task of a product: results do not depend on it (every
/// row is summed on one thread, in a fixed order).
const ROWS_PER_TASK: usize = 512;

/// Matrices with fewer stored entries multiply on the calling thread
/// (rayon's task overhead outweighs the work).
const PARALLEL_MIN_NNZ: usize = 100_000;

/// A sparse matrix by rows, column indices sorted within each row (32-bit:
/// a product streams the indices with the values, and narrower indices are
/// a quarter less memory traffic). Entries are `f64`, or `f32` in the
/// V-cycle's single-precision copies ([`Csr::single`]).
#[derive(Debug, Clone)]
pub(crate) struct Csr<T = f64> {
    pub(crate) n_cols: usize,
    pub(crate) ptr: Vec<usize>,
    pub(crate) idx: Vec<u32>,
    pub(crate) val: Vec<T>,
}

/// A stored entry's precision: products read it and sum in `f64`.
pub(crate) trait Entry: Copy + Send + Sync {
    /// The entry in double precision.
    fn widen(self) -> f64;
}

impl Entry for f64 {
    fn widen(self) -> f64 {
        self
    }
}

impl Entry for f32 {
    fn widen(self) -> f64 {
        f64::from(self)
    }
}

impl<T: Entry> Csr<T> {
    /// Rows.
    pub(crate) fn n_rows(&self) -> usize {
        self.ptr.len() - 1
    }

    /// Stored entries.
    pub(crate) fn nnz(&self) -> usize {
        self.idx.len()
    }

    /// `y = A x`, rows in parallel when `parallel` and the matrix holds at
    /// least [`PARALLEL_MIN_NNZ`] entries, else on this thread; the same
    /// result either way (each row summed in its stored order, in `f64`).
    pub(crate) fn mul_vec_on(&self, x: &[f64], y: &mut [f64], parallel: bool) {
        let row = |i: usize| -> f64 {
            let (a, b) = (self.ptr[i], self.ptr[i + 1]);
            row_dot(&self.val[a..b], &self.idx[a..b], x)
        };
        if !parallel || self.nnz() < PARALLEL_MIN_NNZ {
            for (i, yi) in y.iter_mut().enumerate() {
                *yi = row(i);
            }
        } else {
            y.par_chunks_mut(ROWS_PER_TASK)
                .enumerate()
                .for_each(|(c, ys)| {
                    for (k, yi) in ys.iter_mut().enumerate() {
                        *yi = row(c * ROWS_PER_TASK + k);
                    }
                });
        }
    }
}

/// Partial sums a row's dot product keeps (see [`row_dot`]).
const LANES: usize = 4;

/// `Σ_k val[k] · x[idx[k]]` in `f64`, in a fixed order: entry `k` goes to
/// partial sum `k mod LANES`, the partial sums are added pairwise at the
/// end. A single running sum waits on each addition's latency; the
/// independent partial sums let the products of a row overlap (the
/// multigrid's prolongators and coarse operators, whose rows hold 20–200
/// entries, are latency-bound otherwise). The order depends on the row
/// alone, so results do not depend on threads.
fn row_dot<T: Entry>(val: &[T], idx: &[u32], x: &[f64]) -> f64 {
    let mut acc = [0.0; LANES];
    let (vc, ic) = (val.chunks_exact(LANES), idx.chunks_exact(LANES));
    let (vr, ir) = (vc.remainder(), ic.remainder());
    for (v, i) in vc.zip(ic) {
        for l in 0..LANES {
            acc[l] += v[l].widen() * x[i[l] as usize];
        }
    }
    for (l, (v, i)) in vr.iter().zip(ir).enumerate() {
        acc[l] += v.widen() * x[*i as usize];
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Where each entry of a [`Csr::from_lower`] matrix comes from in the
/// column-compressed lower triangle, to refresh the values of a new matrix
/// with the same pattern by a gather.
#[derive(Debug, Clone)]
pub(crate) struct LowerMap {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    pub(crate) source: Vec<u32>,
}

impl LowerMap {
    /// Whether `a` has the pattern this map was made from (over the
    /// unknowns it covers).
    pub(crate) fn fits(&self, a: SparseColMatRef<'_, usize, f64>) -> bool {
        let (cp, ri) = (a.symbolic().col_ptr(), a.symbolic().row_idx());
        let end = self.row_idx.len();
        cp.len() >= self.col_ptr.len()
            && cp[..self.col_ptr.len()] == self.col_ptr[..]
            && ri.len() >= end
            && ri[..end] == self.row_idx[..]
    }
}

impl Csr {
    /// The symmetric matrix whose lower triangle over its first `n` rows and
    /// columns is stored in `a` (column-compressed, as the assembler writes
    /// the Hessian), with both triangles; and the map that refreshes it from
    /// another matrix of the same pattern ([`Csr::refresh_from_lower`]).
    pub(crate) fn from_lower(a: SparseColMatRef<'_, usize, f64>, n: usize) -> (Csr, LowerMap) {
        let (cp, ri, v) = (a.symbolic().col_ptr(), a.symbolic().row_idx(), a.val());
        let mut count = vec![0usize; n + 1];
        for j in 0..n {
            for &r in &ri[cp[j]..cp[j + 1]] {
                if r < n {
                    count[r + 1] += 1;
                    if r != j {
                        count[j + 1] += 1;
                    }
                }
            }
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let ptr = count.clone();
        let mut next = count;
        let nnz = ptr[n];
        let (mut idx, mut source) = (vec![0u32; nnz], vec![0u32; nnz]);
        // Columns in increasing order: row r receives (r, j) for j < r in
        // order, then its diagonal and its upper part from column r itself.
        for j in 0..n {
            for k in cp[j]..cp[j + 1] {
                let r = ri[k];
                if r >= n {
                    continue;
                }
                idx[next[r]] = j as u32;
                source[next[r]] = k as u32;
                next[r] += 1;
                if r != j {
                    idx[next[j]] = r as u32;
                    source[next[j]] = k as u32;
                    next[j] += 1;
                }
            }
        }
        // Sorted already when each column's rows are; sort otherwise.
        for i in 0..n {
            let (s, e) = (ptr[i], ptr[i + 1]);
            if idx[s..e].windows(2).any(|w| w[0] > w[1]) {
                let mut row: Vec<(u32, u32)> = idx[s..e]
                    .iter()
                    .copied()
                    .zip(source[s..e].iter().copied())
                    .collect();
                row.sort_unstable();
                for (k, (c, src)) in row.into_iter().enumerate() {
                    idx[s + k] = c;
                    source[s + k] = src;
                }
            }
        }
        let val = source.iter().map(|&k| v[k as usize]).collect();
        (
            Csr {
                n_cols: n,
                ptr,
                idx,
                val,
            },
            LowerMap {
                col_ptr: cp[..=n].to_vec(),
                row_idx: ri[..cp[n]].to_vec(),
                source,
            },
        )
    }

    /// Takes the values of `a`, whose pattern must be the one `map` was made
    /// from (`false`, and nothing changed, when its column pointers differ).
    pub(crate) fn refresh_from_lower(
        &mut self,
        a: SparseColMatRef<'_, usize, f64>,
        map: &LowerMap,
    ) -> bool {
        if !map.fits(a) {
            return false;
        }
        let v = a.val();
        for (o, &k) in self.val.iter_mut().zip(&map.source) {
            *o = v[k as usize];
        }
        true
    }

    /// The diagonal (zero where none is stored).
    pub(crate) fn diagonal(&self) -> Vec<f64> {
        (0..self.n_rows())
            .map(|i| {
                (self.ptr[i]..self.ptr[i + 1])
                    .find(|&k| self.idx[k] as usize == i)
                    .map_or(0.0, |k| self.val[k])
            })
            .collect()
    }

    /// `y = A x`, rows in parallel (each summed in its stored order).
    pub(crate) fn mul_vec(&self, x: &[f64], y: &mut [f64]) {
        self.mul_vec_on(x, y, true);
    }

    /// The entries rounded to single precision (the smoother's and the
    /// transfer operators' copies: products stream half the bytes per
    /// value).
    pub(crate) fn single(&self) -> Csr<f32> {
        Csr {
            n_cols: self.n_cols,
            ptr: self.ptr.clone(),
            idx: self.idx.clone(),
            val: self.val.iter().map(|&v| v as f32).collect(),
        }
    }

    /// Rounds the entries into `single`, a copy made by [`Csr::single`].
    pub(crate) fn round_into(&self, single: &mut Csr<f32>) {
        for (s, &v) in single.val.iter_mut().zip(&self.val) {
            *s = v as f32;
        }
    }

    /// The transpose.
    pub(crate) fn transpose(&self) -> Csr {
        let n = self.n_rows();
        let mut count = vec![0usize; self.n_cols + 1];
        for &c in &self.idx {
            count[c as usize + 1] += 1;
        }
        for j in 0..self.n_cols {
            count[j + 1] += count[j];
        }
        let ptr = count.clone();
        let mut next = count;
        let (mut idx, mut val) = (vec![0u32; self.nnz()], vec![0.0; self.nnz()]);
        for i in 0..n {
            for k in self.ptr[i]..self.ptr[i + 1] {
                let c = self.idx[k] as usize;
                idx[next[c]] = i as u32;
                val[next[c]] = self.val[k];
                next[c] += 1;
            }
        }
        Csr {
            n_cols: n,
            ptr,
            idx,
            val,
        }
    }

    /// `A B` (Gustavson's row-by-row product; rows in parallel, each
    /// accumulated in a fixed order, so the result does not depend on the
    /// thread count). The hierarchy multiplies by node blocks
    /// (`super::block_csr`); this scalar product is what tests check those
    /// against.
    #[cfg(test)]
    pub(crate) fn mul(&self, b: &Csr) -> Csr {
        let n = self.n_rows();
        // Scratch per rayon job, not per chunk (a chunk's scratch would
        // cost n · n_cols / ROWS_PER_TASK in all); marks are global row
        // numbers, so reused scratch needs no clearing and the result does
        // not depend on how chunks share it.
        let chunks: Vec<(Vec<usize>, Vec<u32>, Vec<f64>)> = (0..n.div_ceil(ROWS_PER_TASK))
            .into_par_iter()
            .map_init(
                || (vec![usize::MAX; b.n_cols], vec![0.0; b.n_cols]),
                |(mark, acc), c| {
                    let rows = c * ROWS_PER_TASK..((c + 1) * ROWS_PER_TASK).min(n);
                    let (mut lens, mut idx, mut val) = (Vec::new(), Vec::new(), Vec::new());
                    let mut cols: Vec<u32> = Vec::new();
                    for i in rows {
                        cols.clear();
                        for k in self.ptr[i]..self.ptr[i + 1] {
                            let (j, a) = (self.idx[k] as usize, self.val[k]);
                            for l in b.ptr[j]..b.ptr[j + 1] {
                                let c = b.idx[l];
                                let cu = c as usize;
                                if mark[cu] != i {
                                    mark[cu] = i;
                                    acc[cu] = 0.0;
                                    cols.push(c);
                                }
                                acc[cu] += a * b.val[l];
                            }
                        }
                        cols.sort_unstable();
                        lens.push(cols.len());
                        for &c in &cols {
                            idx.push(c);
                            val.push(acc[c as usize]);
                        }
                    }
                    (lens, idx, val)
                },
            )
            .collect();
        let mut ptr = Vec::with_capacity(n + 1);
        ptr.push(0);
        let total: usize = chunks.iter().map(|c| c.1.len()).sum();
        let (mut idx, mut val) = (Vec::with_capacity(total), Vec::with_capacity(total));
        for (lens, i, v) in chunks {
            for l in lens {
                ptr.push(ptr.last().copied().unwrap_or(0) + l);
            }
            idx.extend(i);
            val.extend(v);
        }
        Csr {
            n_cols: b.n_cols,
            ptr,
            idx,
            val,
        }
    }

    /// The lower triangle, column-compressed (for the sparse Cholesky of the
    /// coarsest level); `A` must be square. Entries are averaged with
    /// their mirror so round-off asymmetry of a Galerkin product is removed.
    pub(crate) fn lower(&self) -> SparseColMat<usize, f64> {
        let n = self.n_rows();
        // Row j's entries at columns ≥ j are column j's lower part (A = Aᵀ).
        let t = self.transpose();
        let mut col_ptr = vec![0usize; n + 1];
        let (mut row_idx, mut values) = (Vec::new(), Vec::new());
        for j in 0..n {
            for k in self.ptr[j]..self.ptr[j + 1] {
                let r = self.idx[k] as usize;
                if r >= j {
                    // A_rj from row r (the transpose's row j holds it).
                    let row = &t.idx[t.ptr[j]..t.ptr[j + 1]];
                    let mirror = row
                        .binary_search(&(r as u32))
                        .map_or(self.val[k], |l| t.val[t.ptr[j] + l]);
                    row_idx.push(r);
                    values.push(0.5 * (self.val[k] + mirror));
                }
            }
            col_ptr[j + 1] = row_idx.len();
        }
        let symbolic = SymbolicSparseColMat::new_checked(n, n, col_ptr, None, row_idx);
        SparseColMat::new(symbolic, values)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use faer::sparse::Triplet;

    fn dense(m: &Csr) -> Vec<Vec<f64>> {
        let mut d = vec![vec![0.0; m.n_cols]; m.n_rows()];
        for (i, row) in d.iter_mut().enumerate() {
            for k in m.ptr[i]..m.ptr[i + 1] {
                row[m.idx[k] as usize] += m.val[k];
            }
        }
        d
    }

    /// A random `rows × cols` matrix holding about `density` of its
    /// entries, values in `[−0.5, 0.5)`.
    pub(crate) fn random(rows: usize, cols: usize, density: f64, seed: u64) -> Csr {
        let mut rng = crate::derivcheck::Rng::new(seed);
        let mut ptr = vec![0];
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        for _ in 0..rows {
            let cs: Vec<u32> = (0..cols as u32)
                .filter(|_| rng.uniform() < density)
                .collect();
            for c in cs {
                idx.push(c);
                val.push(rng.uniform() - 0.5);
            }
            ptr.push(idx.len());
        }
        Csr {
            n_cols: cols,
            ptr,
            idx,
            val,
        }
    }

    #[test]
    fn products_and_transposes_match_dense_arithmetic() {
        let a = random(7, 5, 0.3, 1);
        let b = random(5, 6, 0.3, 2);
        let (da, db, dab) = (dense(&a), dense(&b), dense(&a.mul(&b)));
        for i in 0..7 {
            for j in 0..6 {
                let want: f64 = (0..5).map(|k| da[i][k] * db[k][j]).sum();
                assert!((dab[i][j] - want).abs() < 1e-14);
            }
        }
        let dt = dense(&a.transpose());
        for i in 0..7 {
            for j in 0..5 {
                assert_eq!(dt[j][i], da[i][j]);
            }
        }
        let x: Vec<f64> = (0..5).map(|k| k as f64 - 1.5).collect();
        let mut y = vec![0.0; 7];
        a.mul_vec(&x, &mut y);
        for i in 0..7 {
            let want: f64 = (0..5).map(|k| da[i][k] * x[k]).sum();
            assert!((y[i] - want).abs() < 1e-14);
        }
    }

    #[test]
    fn the_lower_triangle_round_trips_to_the_full_symmetric_matrix() {
        // A 4×4 symmetric matrix given by its lower triangle.
        let lower = [
            (0, 0, 4.0),
            (1, 0, -1.0),
            (3, 0, 0.5),
            (1, 1, 5.0),
            (2, 1, -2.0),
            (2, 2, 6.0),
            (3, 3, 7.0),
        ];
        let trip: Vec<Triplet<usize, usize, f64>> = lower
            .iter()
            .map(|&(r, c, v)| Triplet::new(r, c, v))
            .collect();
        let a = SparseColMat::try_new_from_triplets(4, 4, &trip).unwrap();
        let (mut full, map) = Csr::from_lower(a.as_ref(), 4);
        let d = dense(&full);
        for &(r, c, v) in &lower {
            assert_eq!(d[r][c], v);
            assert_eq!(d[c][r], v);
        }
        assert_eq!(full.nnz(), 10);
        assert_eq!(full.diagonal(), vec![4.0, 5.0, 6.0, 7.0]);
        let back = full.lower();
        assert_eq!(back.compute_nnz(), 7);
        let (again, _) = Csr::from_lower(back.as_ref(), 4);
        assert_eq!(dense(&again), d);
        // New values on the same pattern by the map.
        let mut doubled = a.clone();
        doubled.val_mut().iter_mut().for_each(|v| *v *= 2.0);
        assert!(full.refresh_from_lower(doubled.as_ref(), &map));
        let dd = dense(&full);
        for &(r, c, v) in &lower {
            assert_eq!(dd[r][c], 2.0 * v);
            assert_eq!(dd[c][r], 2.0 * v);
        }
        // Another pattern is refused.
        let other = SparseColMat::try_new_from_triplets(4, 4, &trip[..3]).unwrap();
        assert!(!full.refresh_from_lower(other.as_ref(), &map));
    }
}
