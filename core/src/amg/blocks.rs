//! The finest level's operator in 3 × 3 node blocks: a mesh node's three
//! coordinates couple to each neighbour's three, so one 32-bit column index
//! per block instead of per entry: 76 instead of 108 bytes per 9 entries
//! streamed by a product (about 30 % less; products are bound by memory
//! bandwidth on large meshes). Entries a block lacks are stored as zeros.
//! The blocks are kept twice: in double precision for the Hessian
//! products of conjugate gradients, and rounded to single precision for
//! the V-cycle's smoother (40 instead of 76 bytes per block).

use super::csr::{Csr, Entry, LowerMap};
use faer::sparse::SparseColMatRef;
use rayon::prelude::*;

/// Block rows per parallel task (results do not depend on it).
const BLOCK_ROWS_PER_TASK: usize = 256;

/// Where an entry of a block that the matrix does not store comes from.
const ABSENT: u32 = u32::MAX;

/// A symmetric matrix over node triples `3I, 3I + 1, 3I + 2`, by block rows.
#[derive(Debug, Clone)]
pub(crate) struct Blocks3 {
    ptr: Vec<usize>,
    idx: Vec<u32>,
    val: Vec<[f64; 9]>,
    /// `val` rounded to single precision.
    single: Vec<[f32; 9]>,
    /// Per block entry, its index in the lower triangle it is refreshed
    /// from ([`ABSENT`]: zero).
    source: Vec<[u32; 9]>,
}

impl Blocks3 {
    /// The blocks of `a` (whose unknowns come in node triples, `a.n_rows()`
    /// a multiple of 3), with `map` the entries' sources in the lower
    /// triangle `a` was made from ([`Csr::from_lower`]).
    pub(crate) fn from_csr(a: &Csr, map: &LowerMap) -> Blocks3 {
        let nb = a.n_rows() / 3;
        let mut ptr = Vec::with_capacity(nb + 1);
        ptr.push(0);
        let (mut idx, mut val, mut source) = (Vec::new(), Vec::new(), Vec::new());
        let mut cols: Vec<u32> = Vec::new();
        for block in 0..nb {
            cols.clear();
            for r in 3 * block..3 * block + 3 {
                cols.extend(a.idx[a.ptr[r]..a.ptr[r + 1]].iter().map(|&c| c / 3));
            }
            cols.sort_unstable();
            cols.dedup();
            let first = idx.len();
            idx.extend_from_slice(&cols);
            val.resize(idx.len(), [0.0; 9]);
            source.resize(idx.len(), [ABSENT; 9]);
            for (a_row, r) in (3 * block..3 * block + 3).enumerate() {
                for k in a.ptr[r]..a.ptr[r + 1] {
                    let c = a.idx[k];
                    let slot = first + cols.binary_search(&(c / 3)).unwrap_or(0);
                    let e = 3 * a_row + (c % 3) as usize;
                    val[slot][e] = a.val[k];
                    source[slot][e] = map.source[k];
                }
            }
            ptr.push(idx.len());
        }
        let mut single = vec![[0.0; 9]; val.len()];
        round_into(&val, &mut single);
        Blocks3 {
            ptr,
            idx,
            val,
            single,
            source,
        }
    }

    /// Takes the values of the lower triangle `a` (the pattern it was made
    /// from: the caller checks).
    pub(crate) fn refresh(&mut self, a: SparseColMatRef<'_, usize, f64>) {
        let v = a.val();
        for (b, s) in self.val.iter_mut().zip(&self.source) {
            for (e, &k) in b.iter_mut().zip(s) {
                *e = if k == ABSENT { 0.0 } else { v[k as usize] };
            }
        }
        round_into(&self.val, &mut self.single);
    }

    /// The diagonal.
    pub(crate) fn diagonal(&self) -> Vec<f64> {
        let nb = self.ptr.len() - 1;
        let mut d = vec![0.0; 3 * nb];
        for block in 0..nb {
            if let Some(k) =
                (self.ptr[block]..self.ptr[block + 1]).find(|&k| self.idx[k] as usize == block)
            {
                for a in 0..3 {
                    d[3 * block + a] = self.val[k][4 * a];
                }
            }
        }
        d
    }

    /// `y = A x`, block rows in parallel when `parallel`, else on this
    /// thread; the same result either way (each row summed in its stored
    /// order).
    pub(crate) fn mul_vec(&self, x: &[f64], y: &mut [f64], parallel: bool) {
        self.product(&self.val, x, y, parallel);
    }

    /// [`Blocks3::mul_vec`] with the entries rounded to single precision
    /// (summed in double).
    pub(crate) fn mul_single(&self, x: &[f64], y: &mut [f64], parallel: bool) {
        self.product(&self.single, x, y, parallel);
    }

    fn product<T: Entry>(&self, val: &[[T; 9]], x: &[f64], y: &mut [f64], parallel: bool) {
        let row = |block: usize, out: &mut [f64]| {
            let mut s = [0.0; 3];
            for k in self.ptr[block]..self.ptr[block + 1] {
                let c = 3 * self.idx[k] as usize;
                let (b, xs) = (&val[k], &x[c..c + 3]);
                for a in 0..3 {
                    s[a] += b[3 * a].widen() * xs[0]
                        + b[3 * a + 1].widen() * xs[1]
                        + b[3 * a + 2].widen() * xs[2];
                }
            }
            out.copy_from_slice(&s);
        };
        let task = |(c, ys): (usize, &mut [f64])| {
            for (k, out) in ys.chunks_mut(3).enumerate() {
                row(c * BLOCK_ROWS_PER_TASK + k, out);
            }
        };
        if parallel {
            y.par_chunks_mut(3 * BLOCK_ROWS_PER_TASK)
                .enumerate()
                .for_each(task);
        } else {
            y.chunks_mut(3 * BLOCK_ROWS_PER_TASK)
                .enumerate()
                .for_each(task);
        }
    }
}

/// Rounds blocks to single precision.
fn round_into(val: &[[f64; 9]], single: &mut [[f32; 9]]) {
    for (s, b) in single.iter_mut().zip(val) {
        *s = b.map(|v| v as f32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::sparse::{SparseColMat, Triplet};

    #[test]
    fn blocks_multiply_and_refresh_as_the_rows_they_hold() {
        // Two nodes (6 unknowns), a lower triangle with gaps in the blocks.
        let lower = [
            (0, 0, 4.0),
            (1, 0, 0.5),
            (1, 1, 5.0),
            (2, 2, 6.0),
            (3, 0, -1.0),
            (5, 1, -0.25),
            (3, 3, 7.0),
            (4, 3, 0.3),
            (4, 4, 8.0),
            (5, 5, 9.0),
        ];
        let trip: Vec<Triplet<usize, usize, f64>> = lower
            .iter()
            .map(|&(r, c, v)| Triplet::new(r, c, v))
            .collect();
        let mut a = SparseColMat::try_new_from_triplets(6, 6, &trip).unwrap();
        let (rows, map) = Csr::from_lower(a.as_ref(), 6);
        let mut blocks = Blocks3::from_csr(&rows, &map);
        let x = [1.0, -2.0, 0.5, 3.0, -1.5, 2.5];
        let (mut want, mut got) = ([0.0; 6], [0.0; 6]);
        rows.mul_vec(&x, &mut want);
        blocks.mul_vec(&x, &mut got, true);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-14 * w.abs().max(1.0), "{g} vs {w}");
        }
        assert_eq!(blocks.diagonal(), rows.diagonal());
        blocks.mul_single(&x, &mut got, true);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-6 * w.abs().max(1.0), "{g} vs {w}");
        }
        a.val_mut().iter_mut().for_each(|v| *v *= -3.0);
        blocks.refresh(a.as_ref());
        blocks.mul_vec(&x, &mut got, false);
        for (g, w) in got.iter().zip(&want) {
            assert!(
                (g + 3.0 * w).abs() <= 1e-14 * w.abs().max(1.0),
                "{g} vs {}",
                -3.0 * w
            );
        }
        blocks.mul_single(&x, &mut got, false);
        for (g, w) in got.iter().zip(&want) {
            assert!((g + 3.0 * w).abs() <= 1e-6 * w.abs().max(1.0));
        }
    }
}
