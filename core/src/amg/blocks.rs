//! The finest level's operator in 3 × 3 node blocks: a mesh node's three
//! coordinates couple to each neighbour's three, so one 32-bit column index
//! per block instead of per entry: 76 instead of 108 bytes per 9 entries
//! streamed by a product (about 30 % less; products are bound by memory
//! bandwidth on large meshes). Entries a block lacks are stored as zeros.
//! The blocks are kept twice: in double precision for the Hessian
//! products of conjugate gradients, and rounded to single precision for
//! the V-cycle's smoother (40 instead of 76 bytes per block).
//!
//! The matrix is symmetric, so where the node numbering keeps couplings
//! near the diagonal (a mesh numbered layer by layer) only the blocks on
//! and below the diagonal are stored, and a product applies each
//! off-diagonal block twice, `y_I += A_IJ x_J` and `y_J += A_IJᵀ x_I`: half
//! the entries streamed. The block rows are cut into chunks that depend
//! only on the matrix (not on the number of threads); a chunk adds the
//! transposed blocks that reach rows before its own into a spill buffer,
//! added to those rows afterwards in chunk order, so every sum runs in the
//! same order whichever thread runs which chunk. A numbering whose
//! couplings reach far back (spill buffers longer than the matrix) keeps
//! every block instead.

use super::csr::{Csr, Entry, LowerMap};
use faer::sparse::SparseColMatRef;
use rayon::prelude::*;

/// Block rows per parallel task of a product of the full layout (results do
/// not depend on it).
const BLOCK_ROWS_PER_TASK: usize = 256;

/// The symmetric layout cuts the block rows into at most this many chunks
/// (fewer, of [`MIN_CHUNK`] rows, on small matrices): each chunk's spill
/// buffer spans its couplings' reach back, so few long chunks spill less.
const MAX_CHUNKS: usize = 32;

/// Fewest block rows per chunk of the symmetric layout.
const MIN_CHUNK: usize = 256;

/// Where an entry of a block that the matrix does not store comes from.
const ABSENT: u32 = u32::MAX;

/// Which blocks are stored.
#[derive(Debug, Clone)]
enum Layout {
    /// Every block of every block row.
    Full,
    /// The blocks on and below the diagonal, the block rows cut into
    /// chunks of `chunk` rows; chunk `c` reaches back to block row
    /// `reach[c]` (its lowest block column).
    Lower { chunk: usize, reach: Vec<usize> },
}

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
    layout: Layout,
}

impl Blocks3 {
    /// The blocks of `a` (whose unknowns come in node triples, `a.n_rows()`
    /// a multiple of 3, each row's columns sorted), with `map` the entries'
    /// sources in the lower triangle `a` was made from ([`Csr::from_lower`]).
    pub(crate) fn from_csr(a: &Csr, map: &LowerMap) -> Blocks3 {
        let nb = a.n_rows() / 3;
        let layout = layout_of(a, nb);
        let lower = matches!(layout, Layout::Lower { .. });
        let mut ptr = Vec::with_capacity(nb + 1);
        ptr.push(0);
        let (mut idx, mut val, mut source) = (Vec::new(), Vec::new(), Vec::new());
        // A block column's slot within the current block row (`ABSENT`:
        // none yet); reset after each row.
        let mut slot_of = vec![ABSENT; nb];
        let mut cols: Vec<u32> = Vec::new();
        let kept = |c: u32, block: usize| !lower || (c / 3) as usize <= block;
        for block in 0..nb {
            cols.clear();
            for r in 3 * block..3 * block + 3 {
                for &c in &a.idx[a.ptr[r]..a.ptr[r + 1]] {
                    let cb = c / 3;
                    if kept(c, block) && slot_of[cb as usize] == ABSENT {
                        slot_of[cb as usize] = 0;
                        cols.push(cb);
                    }
                }
            }
            cols.sort_unstable();
            for (k, &cb) in cols.iter().enumerate() {
                slot_of[cb as usize] = k as u32;
            }
            let first = idx.len();
            idx.extend_from_slice(&cols);
            val.resize(idx.len(), [0.0; 9]);
            source.resize(idx.len(), [ABSENT; 9]);
            for (a_row, r) in (3 * block..3 * block + 3).enumerate() {
                for k in a.ptr[r]..a.ptr[r + 1] {
                    let c = a.idx[k];
                    if !kept(c, block) {
                        continue;
                    }
                    let slot = first + slot_of[(c / 3) as usize] as usize;
                    let e = 3 * a_row + (c % 3) as usize;
                    val[slot][e] = a.val[k];
                    source[slot][e] = map.source[k];
                }
            }
            for &cb in &cols {
                slot_of[cb as usize] = ABSENT;
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
            layout,
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
    /// thread; the same result either way (see the module doc).
    pub(crate) fn mul_vec(&self, x: &[f64], y: &mut [f64], parallel: bool) {
        self.product(&self.val, x, y, parallel);
    }

    /// [`Blocks3::mul_vec`] with the entries rounded to single precision:
    /// the V-cycle's smoother. With every block stored, `x` is rounded too
    /// and the rows are summed in single precision (1.4–2.5× faster than
    /// widening each entry to double on a scattered 12,100-node lattice of
    /// 155,104 blocks, one thread, two runs of a throwaway timing test on
    /// 2026-12-01: 0.50 against 0.72 ms, 0.48 against 1.23 ms; relative
    /// error ~10⁻⁷, as the entries' own rounding); the lower layout sums
    /// in double.
    pub(crate) fn mul_single(&self, x: &[f64], y: &mut [f64], parallel: bool) {
        match self.layout {
            Layout::Full => self.product_full_single(x, y, parallel),
            Layout::Lower { .. } => self.product(&self.single, x, y, parallel),
        }
    }

    /// Every block stored, in single precision throughout: each block row
    /// summed in its stored order.
    fn product_full_single(&self, x: &[f64], y: &mut [f64], parallel: bool) {
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let (x3, _) = x32.as_chunks::<3>();
        let row = |block: usize, out: &mut [f64]| {
            let (lo, hi) = (self.ptr[block], self.ptr[block + 1]);
            let mut s = [0.0f32; 3];
            for (b, &c) in self.single[lo..hi].iter().zip(&self.idx[lo..hi]) {
                let xs = x3[c as usize];
                for a in 0..3 {
                    s[a] += b[3 * a] * xs[0] + b[3 * a + 1] * xs[1] + b[3 * a + 2] * xs[2];
                }
            }
            for (o, v) in out.iter_mut().zip(s) {
                *o = f64::from(v);
            }
        };
        by_block_rows(y, parallel, row);
    }

    fn product<T: Entry>(&self, val: &[[T; 9]], x: &[f64], y: &mut [f64], parallel: bool) {
        match &self.layout {
            Layout::Full => self.product_full(val, x, y, parallel),
            Layout::Lower { chunk, reach } => {
                self.product_lower(val, x, y, parallel, *chunk, reach)
            }
        }
    }

    /// Every block stored: each block row summed in its stored order.
    fn product_full<T: Entry>(&self, val: &[[T; 9]], x: &[f64], y: &mut [f64], parallel: bool) {
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
        by_block_rows(y, parallel, row);
    }

    /// The blocks on and below the diagonal, each off-diagonal one applied
    /// as itself and as its transpose. Chunk `c` writes its own rows and a
    /// spill buffer over rows `reach[c]..` its first; the spills are then
    /// added in chunk order. Row `I`'s sum: its stored blocks in order,
    /// then the transposed blocks of later rows of its chunk in row order,
    /// then the later chunks' spills.
    fn product_lower<T: Entry>(
        &self,
        val: &[[T; 9]],
        x: &[f64],
        y: &mut [f64],
        parallel: bool,
        chunk: usize,
        reach: &[usize],
    ) {
        let spill_len: Vec<usize> = (reach.iter().enumerate())
            .map(|(c, &lo)| 3 * (c * chunk - lo))
            .collect();
        let mut spill = vec![0.0; spill_len.iter().sum()];
        let mut spills: Vec<&mut [f64]> = Vec::with_capacity(reach.len());
        let mut rest = spill.as_mut_slice();
        for &len in &spill_len {
            let (head, tail) = rest.split_at_mut(len);
            spills.push(head);
            rest = tail;
        }
        let task = |(c, (ys, sp)): (usize, (&mut [f64], &mut &mut [f64]))| {
            self.chunk(val, x, c * chunk, reach[c], ys, sp);
        };
        if parallel {
            y.par_chunks_mut(3 * chunk)
                .zip(spills.par_iter_mut())
                .enumerate()
                .for_each(task);
        } else {
            y.chunks_mut(3 * chunk)
                .zip(spills.iter_mut())
                .enumerate()
                .for_each(task);
        }
        for (sp, &lo) in spills.iter().zip(reach) {
            for (yi, si) in y[3 * lo..3 * lo + sp.len()].iter_mut().zip(sp.iter()) {
                *yi += si;
            }
        }
    }

    /// One chunk of [`Blocks3::product_lower`]: block rows `start..start +
    /// ys.len() / 3` into `ys` (zeroed here), the transposed blocks
    /// reaching rows `lo..start` into `sp`.
    fn chunk<T: Entry>(
        &self,
        val: &[[T; 9]],
        x: &[f64],
        start: usize,
        lo: usize,
        ys: &mut [f64],
        sp: &mut [f64],
    ) {
        ys.fill(0.0);
        for i in start..start + ys.len() / 3 {
            let xi = [x[3 * i], x[3 * i + 1], x[3 * i + 2]];
            let mut s = [0.0; 3];
            for k in self.ptr[i]..self.ptr[i + 1] {
                let j = self.idx[k] as usize;
                let (b, xj) = (&val[k], &x[3 * j..3 * j + 3]);
                for a in 0..3 {
                    s[a] += b[3 * a].widen() * xj[0]
                        + b[3 * a + 1].widen() * xj[1]
                        + b[3 * a + 2].widen() * xj[2];
                }
                if j != i {
                    let out = if j >= start {
                        &mut ys[3 * (j - start)..3 * (j - start) + 3]
                    } else {
                        &mut sp[3 * (j - lo)..3 * (j - lo) + 3]
                    };
                    for a in 0..3 {
                        out[a] += b[a].widen() * xi[0]
                            + b[3 + a].widen() * xi[1]
                            + b[6 + a].widen() * xi[2];
                    }
                }
            }
            for a in 0..3 {
                ys[3 * (i - start) + a] += s[a];
            }
        }
    }
}

/// Runs `row(block, out)` for every block row, `out` its three entries of
/// `y`, in tasks of [`BLOCK_ROWS_PER_TASK`] rows on the pool when
/// `parallel` (each row written by one call: the same result either way).
fn by_block_rows(y: &mut [f64], parallel: bool, row: impl Fn(usize, &mut [f64]) + Sync) {
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

/// The layout for `a`'s `nb` block rows: the lower blocks in chunks when
/// the chunks' spill buffers together hold at most `nb` block rows (the
/// numbering keeps couplings near the diagonal), every block otherwise.
fn layout_of(a: &Csr, nb: usize) -> Layout {
    let chunk = MIN_CHUNK.max(nb.div_ceil(MAX_CHUNKS));
    let reach: Vec<usize> = (0..nb.div_ceil(chunk))
        .map(|c| {
            let (start, end) = (c * chunk, ((c + 1) * chunk).min(nb));
            (3 * start..3 * end)
                .filter_map(|r| a.idx[a.ptr[r]..a.ptr[r + 1]].iter().min())
                .map(|&col| (col / 3) as usize)
                .min()
                .unwrap_or(start)
                .min(start)
        })
        .collect();
    let spilled: usize = reach
        .iter()
        .enumerate()
        .map(|(c, &lo)| c * chunk - lo)
        .sum();
    if spilled <= nb {
        Layout::Lower { chunk, reach }
    } else {
        Layout::Full
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

    /// The lower triangle of a symmetric matrix over an `m³` lattice of
    /// nodes, each coupled to its 26 neighbours, numbered layer by layer
    /// (or by `perm`, node `id` numbered `perm[id]`).
    fn lattice(m: usize, perm: Option<&[usize]>) -> SparseColMat<usize, f64> {
        let id = |i: usize, j: usize, k: usize| {
            let n = (i * m + j) * m + k;
            perm.map_or(n, |p| p[n])
        };
        let near = |i: usize, d: usize| (i + d).checked_sub(1).filter(|&v| v < m);
        let mut trip = Vec::new();
        for (i, j, k) in
            (0..m).flat_map(|i| (0..m).flat_map(move |j| (0..m).map(move |k| (i, j, k))))
        {
            let a = id(i, j, k);
            for (di, dj, dk) in
                (0..3).flat_map(|x| (0..3).flat_map(move |y| (0..3).map(move |z| (x, y, z))))
            {
                let (Some(ii), Some(jj), Some(kk)) = (near(i, di), near(j, dj), near(k, dk)) else {
                    continue;
                };
                let b = id(ii, jj, kk);
                for (r, c) in (0..3).flat_map(|r| (0..3).map(move |c| (r, c))) {
                    let (row, col) = (3 * b + r, 3 * a + c);
                    if row < col {
                        continue;
                    }
                    let v = if row == col {
                        60.0
                    } else {
                        -0.1 - 0.01 * ((row.min(col) * 7 + row.max(col) * 3) % 11) as f64
                    };
                    trip.push(Triplet::new(row, col, v));
                }
            }
        }
        let n = 3 * m * m * m;
        SparseColMat::try_new_from_triplets(n, n, &trip).unwrap()
    }

    /// `blocks`' products against the rows they hold: close to the rows'
    /// own (another summation order; single precision throughout where
    /// every block is stored), and bitwise the same on two threads and on
    /// this one.
    fn check_products(rows: &Csr, blocks: &Blocks3) {
        let x: Vec<f64> = (0..rows.n_rows())
            .map(|i| (i as f64 * 0.37).sin())
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut want = vec![0.0; x.len()];
        for single in [false, true] {
            if single {
                rows.single().mul_vec_on(&x, &mut want, false);
            } else {
                rows.mul_vec(&x, &mut want);
            }
            let (mut par, mut seq) = (vec![0.0; x.len()], vec![0.0; x.len()]);
            let mul = |parallel: bool, y: &mut [f64]| {
                if single {
                    blocks.mul_single(&x, y, parallel)
                } else {
                    blocks.mul_vec(&x, y, parallel)
                }
            };
            pool.install(|| mul(true, &mut par));
            mul(false, &mut seq);
            assert_eq!(par, seq, "single {single}");
            // Sums of 27 blocks' products, each entry below 60 and each
            // `|x_j| ≤ 1`, rounded to single precision (ε = 6·10⁻⁸).
            let full = matches!(blocks.layout, Layout::Full);
            let tol = if single && full { 1e-4 } else { 1e-12 };
            for (g, w) in par.iter().zip(&want) {
                assert!(
                    (g - w).abs() <= tol * (1.0 + w.abs()),
                    "single {single}: {g} vs {w}"
                );
            }
        }
    }

    #[test]
    fn a_layered_numbering_stores_the_lower_blocks_and_multiplies_as_every_block() {
        // 9³ nodes: three chunks of 256 block rows, each reaching back a
        // layer and a row (91 nodes) into the one before.
        let lower = lattice(9, None);
        let (rows, map) = Csr::from_lower(lower.as_ref(), lower.nrows());
        let blocks = Blocks3::from_csr(&rows, &map);
        let Layout::Lower { chunk, reach } = &blocks.layout else {
            panic!("a layered numbering keeps the lower blocks");
        };
        assert_eq!(
            (*chunk, reach.as_slice()),
            (256, [0, 256 - 91, 512 - 91].as_slice())
        );
        // About half the blocks of the full matrix: the diagonal ones and
        // one of each off-diagonal pair (the lattice's blocks are dense).
        assert_eq!(2 * blocks.idx.len() - 729, rows.nnz() / 9);
        check_products(&rows, &blocks);
        assert_eq!(blocks.diagonal(), rows.diagonal());
    }

    #[test]
    fn a_scattered_numbering_keeps_every_block() {
        // The same lattice numbered by a fixed shuffle: couplings reach
        // anywhere, so the chunks' spills would outgrow the matrix.
        let n = 9 * 9 * 9;
        let perm: Vec<usize> = (0..n).map(|i| (i * 331 + 17) % n).collect();
        let lower = lattice(9, Some(&perm));
        let (rows, map) = Csr::from_lower(lower.as_ref(), lower.nrows());
        let blocks = Blocks3::from_csr(&rows, &map);
        assert!(matches!(blocks.layout, Layout::Full));
        assert_eq!(blocks.idx.len(), rows.nnz() / 9);
        check_products(&rows, &blocks);
    }
}
