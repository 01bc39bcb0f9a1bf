//! The single-precision copies the V-cycle multiplies with below the finest
//! level (coarse operators, prolongators and restrictions): by dense
//! `R × C` blocks where the rows and the columns come in node groups of
//! one size (a 3-D mesh node's 3 coordinates, an aggregate's 6 rigid
//! modes), else by rows.
//!
//! A block stores one 32-bit column index for `R · C` entries: 4.1 bytes
//! per entry streamed by a 6 × 6 block instead of 8 by rows (a value and
//! an index). The coarse operators of a tetrahedral block hold about 230
//! entries per row and are read four times per V-cycle, the prolongators
//! once each way: the products stream memory, so fewer bytes are faster.
//! Entries a block lacks are stored as zeros; a matrix whose blocks would
//! be less than [`MIN_FILL`] full stays by rows.

use super::csr::Csr;
use rayon::prelude::*;

/// Block rows per parallel task (results do not depend on it).
const BLOCK_ROWS_PER_TASK: usize = 128;

/// Matrices with fewer stored entries multiply on the calling thread.
const PARALLEL_MIN_NNZ: usize = 100_000;

/// Blocks are used when the matrix's entries fill at least this share of
/// them (at a half, a block's bytes per stored entry equal a row's).
const MIN_FILL: f64 = 0.6;

/// A level's matrix in single precision, by rows or by blocks.
pub(crate) enum Packed {
    Rows(Csr<f32>),
    Blocks(Blocks),
}

impl Packed {
    /// `a` rounded to single precision, by `r × c` blocks when its rows come
    /// in groups of `r` and its columns in groups of `c` (`None`: groups of
    /// different sizes), a kernel exists for `(r, c)` and the blocks would
    /// be at least [`MIN_FILL`] full; else by rows.
    pub(crate) fn new(a: &Csr, r: Option<usize>, c: Option<usize>) -> Packed {
        match (r, c) {
            (Some(r), Some(c)) if kernel(r, c) && a.n_rows() % r == 0 && a.n_cols % c == 0 => {
                let b = Blocks::from_csr(a, r, c);
                if a.nnz() as f64 >= MIN_FILL * (b.idx.len() * r * c) as f64 {
                    Packed::Blocks(b)
                } else {
                    Packed::Rows(a.single())
                }
            }
            _ => Packed::Rows(a.single()),
        }
    }

    /// Rows.
    pub(crate) fn n_rows(&self) -> usize {
        match self {
            Packed::Rows(a) => a.n_rows(),
            Packed::Blocks(b) => b.r * (b.ptr.len() - 1),
        }
    }

    /// `y = A x` (summed in `f64`), rows in parallel when `parallel` and
    /// the matrix is large; the same result either way.
    pub(crate) fn mul_vec_on(&self, x: &[f64], y: &mut [f64], parallel: bool) {
        match self {
            Packed::Rows(a) => a.mul_vec_on(x, y, parallel),
            Packed::Blocks(b) => match (b.r, b.c) {
                (3, 6) => b.product::<3, 6>(x, y, parallel),
                (6, 3) => b.product::<6, 3>(x, y, parallel),
                (6, 6) => b.product::<6, 6>(x, y, parallel),
                (2, 3) => b.product::<2, 3>(x, y, parallel),
                (3, 2) => b.product::<3, 2>(x, y, parallel),
                (3, 3) => b.product::<3, 3>(x, y, parallel),
                _ => unreachable!("blocks are built only for the kernels' sizes"),
            },
        }
    }
}

/// Whether a block product is compiled for `r × c` blocks: the 3-D
/// hierarchy's (node triples, six rigid modes) and the 2-D one's (pairs,
/// three modes).
fn kernel(r: usize, c: usize) -> bool {
    matches!((r, c), (3, 6) | (6, 3) | (6, 6) | (2, 3) | (3, 2) | (3, 3))
}

/// A matrix by dense `r × c` blocks (row-major within a block), block rows
/// compressed, block columns sorted within each.
pub(crate) struct Blocks {
    r: usize,
    c: usize,
    ptr: Vec<usize>,
    idx: Vec<u32>,
    val: Vec<f32>,
}

impl Blocks {
    fn from_csr(a: &Csr, r: usize, c: usize) -> Blocks {
        let nb = a.n_rows() / r;
        let mut ptr = Vec::with_capacity(nb + 1);
        ptr.push(0);
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        let mut cols: Vec<u32> = Vec::new();
        for block in 0..nb {
            let rows = r * block..r * block + r;
            cols.clear();
            for i in rows.clone() {
                cols.extend(a.idx[a.ptr[i]..a.ptr[i + 1]].iter().map(|&j| j / c as u32));
            }
            cols.sort_unstable();
            cols.dedup();
            let first = idx.len();
            idx.extend_from_slice(&cols);
            val.resize(idx.len() * r * c, 0.0);
            for (ar, i) in rows.enumerate() {
                for k in a.ptr[i]..a.ptr[i + 1] {
                    let j = a.idx[k];
                    let slot = first + cols.binary_search(&(j / c as u32)).unwrap_or(0);
                    val[slot * r * c + ar * c + (j as usize % c)] = a.val[k] as f32;
                }
            }
            ptr.push(idx.len());
        }
        Blocks {
            r,
            c,
            ptr,
            idx,
            val,
        }
    }

    /// `y = A x` for `R × C` blocks: each row summed over its blocks in
    /// stored order, within a block over its columns.
    fn product<const R: usize, const C: usize>(&self, x: &[f64], y: &mut [f64], parallel: bool) {
        let row = |block: usize, out: &mut [f64]| {
            let mut s = [0.0; R];
            for k in self.ptr[block]..self.ptr[block + 1] {
                let col = C * self.idx[k] as usize;
                let xs: &[f64; C] = x[col..col + C].try_into().expect("C columns");
                let b: &[f32] = &self.val[k * R * C..(k + 1) * R * C];
                for (a, sa) in s.iter_mut().enumerate() {
                    let mut t = 0.0;
                    for (bj, xj) in b[a * C..a * C + C].iter().zip(xs) {
                        t += f64::from(*bj) * xj;
                    }
                    *sa += t;
                }
            }
            out.copy_from_slice(&s);
        };
        let task = |(t, ys): (usize, &mut [f64])| {
            for (k, out) in ys.chunks_mut(R).enumerate() {
                row(t * BLOCK_ROWS_PER_TASK + k, out);
            }
        };
        if parallel && self.val.len() >= PARALLEL_MIN_NNZ {
            y.par_chunks_mut(R * BLOCK_ROWS_PER_TASK)
                .enumerate()
                .for_each(task);
        } else {
            y.chunks_mut(R * BLOCK_ROWS_PER_TASK)
                .enumerate()
                .for_each(task);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::csr::tests::random;

    #[test]
    fn blocks_multiply_as_the_rows_they_pack() {
        for (r, c) in [(3, 6), (6, 3), (6, 6), (2, 3), (3, 2), (3, 3)] {
            let a = random(12 * r, 9 * c, 0.7, (r * 10 + c) as u64);
            let packed = Packed::new(&a, Some(r), Some(c));
            assert!(matches!(packed, Packed::Blocks(_)), "{r} × {c}");
            assert_eq!(packed.n_rows(), a.n_rows());
            let x: Vec<f64> = (0..a.n_cols).map(|i| (i as f64 * 0.37).sin()).collect();
            let (mut got, mut want) = (vec![0.0; a.n_rows()], vec![0.0; a.n_rows()]);
            packed.mul_vec_on(&x, &mut got, false);
            a.single().mul_vec_on(&x, &mut want, false);
            for (g, w) in got.iter().zip(&want) {
                // The same single-precision entries, summed in another order.
                assert!(
                    (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
                    "{r} × {c}: {g} vs {w}"
                );
            }
        }
    }

    #[test]
    fn a_large_block_product_is_bitwise_the_same_in_parallel() {
        // Above `PARALLEL_MIN_NNZ`, on two threads: the rows split.
        let a = random(3 * 600, 6 * 40, 0.7, 3);
        let packed = Packed::new(&a, Some(3), Some(6));
        assert!(matches!(packed, Packed::Blocks(_)));
        let x: Vec<f64> = (0..a.n_cols).map(|i| (i as f64 * 0.37).sin()).collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let (mut par, mut seq) = (vec![0.0; a.n_rows()], vec![0.0; a.n_rows()]);
        pool.install(|| packed.mul_vec_on(&x, &mut par, true));
        packed.mul_vec_on(&x, &mut seq, false);
        assert_eq!(par, seq);
    }

    #[test]
    fn sparse_blocks_mixed_groups_and_other_sizes_stay_by_rows() {
        let sparse = random(36, 36, 0.05, 7);
        assert!(matches!(
            Packed::new(&sparse, Some(6), Some(6)),
            Packed::Rows(_)
        ));
        let dense = random(36, 36, 0.9, 8);
        assert!(matches!(
            Packed::new(&dense, None, Some(6)),
            Packed::Rows(_)
        ));
        assert!(matches!(
            Packed::new(&dense, Some(4), Some(4)),
            Packed::Rows(_)
        ));
        assert!(matches!(
            Packed::new(&dense, Some(6), Some(6)),
            Packed::Blocks(_)
        ));
    }
}
