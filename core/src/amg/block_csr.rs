//! Sparse matrices by dense node blocks, for the Galerkin products of the
//! multigrid setup (`A T`, `A P` and `Pᵀ (A P)`).
//!
//! A level's matrices couple nodes, not single unknowns: every unknown of
//! a node has the same columns (a Hessian couples whole nodes; an
//! aggregate's coarse unknowns come together). Gustavson's product by
//! scalar rows finds, marks and sorts each column once per row, once for
//! every unknown of the node; by node blocks it does so once per node, and
//! the arithmetic is a small dense product per pair of blocks. Each entry
//! of `A B` is summed over the same terms in the same order as the scalar
//! product's (over `A`'s columns in ascending order), so both give the
//! same values.

use super::aggregate::Nodes;
use super::csr::Csr;
use rayon::prelude::*;

/// Row nodes per parallel task of a product (the result does not depend on
/// it: each row node is summed on one thread, in a fixed order).
const NODES_PER_TASK: usize = 128;

/// A sparse matrix whose rows and columns are grouped into nodes
/// ([`Nodes`]), stored as dense blocks: block `b` couples row node `I`
/// (`ptr[I] ≤ b < ptr[I + 1]`) with column node `idx[b]` (ascending within
/// the row) and holds its `r_I × c_J` entries row-major at
/// `val[off[b]..off[b + 1]]`. Entries absent from the scalar matrix it was
/// made from are stored as zeros.
#[derive(Debug, Clone)]
pub(crate) struct BlockCsr {
    rows: Nodes,
    cols: Nodes,
    ptr: Vec<usize>,
    idx: Vec<u32>,
    off: Vec<usize>,
    val: Vec<f64>,
}

/// Unknowns of node `i`.
fn size(nodes: &Nodes, i: usize) -> usize {
    nodes.ptr[i + 1] - nodes.ptr[i]
}

/// `acc += a b` for a row-major `r × s` block `a` and `s × c` block `b`
/// into a row-major `r × c` block `acc`; `C` is `c` when it is known at
/// compile time (the loops then unroll), 0 otherwise.
#[inline(always)]
fn block_mul_add<const C: usize>(acc: &mut [f64], a: &[f64], b: &[f64], r: usize, s: usize) {
    let c = if C > 0 { C } else { b.len() / s.max(1) };
    for i in 0..r {
        let out = &mut acc[i * c..(i + 1) * c];
        for t in 0..s {
            let x = a[i * s + t];
            let row = &b[t * c..(t + 1) * c];
            for (o, y) in out.iter_mut().zip(row) {
                *o += x * y;
            }
        }
    }
}

impl BlockCsr {
    /// The scalar matrix `a` by blocks of `rows` × `cols` nodes (which must
    /// cover its rows and columns).
    pub(crate) fn from_csr(a: &Csr, rows: &Nodes, cols: &Nodes) -> BlockCsr {
        let col_node = cols.of_unknowns();
        let mut ptr = Vec::with_capacity(rows.len() + 1);
        ptr.push(0);
        let (mut idx, mut off, mut val) = (Vec::new(), vec![0usize], Vec::new());
        let mut mark = vec![usize::MAX; cols.len()];
        let mut row_nodes: Vec<u32> = Vec::new();
        for node in 0..rows.len() {
            let (first, last) = (rows.ptr[node], rows.ptr[node + 1]);
            row_nodes.clear();
            for k in a.ptr[first]..a.ptr[last] {
                let j = col_node[a.idx[k] as usize];
                if mark[j] != node {
                    mark[j] = node;
                    row_nodes.push(j as u32);
                }
            }
            row_nodes.sort_unstable();
            let r = last - first;
            // Where each column node's block starts in this block row.
            for &j in &row_nodes {
                mark[j as usize] = val.len();
                val.resize(val.len() + r * size(cols, j as usize), 0.0);
                idx.push(j);
                off.push(val.len());
            }
            for (local, i) in (first..last).enumerate() {
                for k in a.ptr[i]..a.ptr[i + 1] {
                    let col = a.idx[k] as usize;
                    let j = col_node[col];
                    let c = size(cols, j);
                    val[mark[j] + local * c + (col - cols.ptr[j])] = a.val[k];
                }
            }
            // Marks now hold value offsets: reset them so that a later
            // node's test above cannot match a stale one.
            for &j in &row_nodes {
                mark[j as usize] = usize::MAX;
            }
            ptr.push(idx.len());
        }
        BlockCsr {
            rows: rows.clone(),
            cols: cols.clone(),
            ptr,
            idx,
            off,
            val,
        }
    }

    /// The scalar matrix (every stored block entry, zeros included).
    pub(crate) fn to_csr(&self) -> Csr {
        let n = self.rows.ptr[self.rows.len()];
        let mut ptr = Vec::with_capacity(n + 1);
        ptr.push(0);
        let (mut idx, mut val) = (Vec::with_capacity(self.val.len()), Vec::new());
        val.reserve(self.val.len());
        for node in 0..self.rows.len() {
            for local in 0..size(&self.rows, node) {
                for b in self.ptr[node]..self.ptr[node + 1] {
                    let j = self.idx[b] as usize;
                    let c = size(&self.cols, j);
                    let row = &self.val[self.off[b] + local * c..self.off[b] + (local + 1) * c];
                    idx.extend((self.cols.ptr[j]..self.cols.ptr[j + 1]).map(|u| u as u32));
                    val.extend_from_slice(row);
                }
                ptr.push(idx.len());
            }
        }
        Csr {
            n_cols: self.cols.ptr[self.cols.len()],
            ptr,
            idx,
            val,
        }
    }

    /// The transpose (each block transposed).
    pub(crate) fn transpose(&self) -> BlockCsr {
        let nc = self.cols.len();
        let mut count = vec![0usize; nc + 1];
        for &j in &self.idx {
            count[j as usize + 1] += 1;
        }
        for j in 0..nc {
            count[j + 1] += count[j];
        }
        let ptr = count.clone();
        let blocks = self.idx.len();
        // Block slots in the transpose, then their value offsets.
        let mut slot_of = vec![0usize; blocks];
        let mut idx = vec![0u32; blocks];
        let mut next = count;
        for i in 0..self.rows.len() {
            for b in self.ptr[i]..self.ptr[i + 1] {
                let j = self.idx[b] as usize;
                slot_of[b] = next[j];
                idx[next[j]] = i as u32;
                next[j] += 1;
            }
        }
        let mut len = vec![0usize; blocks];
        for (b, &s) in slot_of.iter().enumerate() {
            len[s] = self.off[b + 1] - self.off[b];
        }
        let mut off = Vec::with_capacity(blocks + 1);
        off.push(0);
        for l in len {
            off.push(off.last().copied().unwrap_or(0) + l);
        }
        let mut val = vec![0.0; self.val.len()];
        for i in 0..self.rows.len() {
            let r = size(&self.rows, i);
            for b in self.ptr[i]..self.ptr[i + 1] {
                let c = size(&self.cols, self.idx[b] as usize);
                let (src, dst) = (self.off[b], off[slot_of[b]]);
                for a in 0..r {
                    for t in 0..c {
                        val[dst + t * r + a] = self.val[src + a * c + t];
                    }
                }
            }
        }
        BlockCsr {
            rows: self.cols.clone(),
            cols: self.rows.clone(),
            ptr,
            idx,
            off,
            val,
        }
    }

    /// `A ← S A + B` for the diagonal `S` (`scale`, an entry per row
    /// unknown) and `B` over the same nodes, each of whose blocks is one of
    /// `A`'s (panics otherwise: a caller's broken invariant).
    pub(crate) fn scale_rows_and_add(&mut self, scale: &[f64], b: &BlockCsr) {
        debug_assert_eq!(self.rows.ptr, b.rows.ptr);
        for i in 0..self.rows.len() {
            let first = self.rows.ptr[i];
            let r = size(&self.rows, i);
            for k in self.ptr[i]..self.ptr[i + 1] {
                let c = size(&self.cols, self.idx[k] as usize);
                let block = &mut self.val[self.off[k]..self.off[k + 1]];
                for (row, s) in block
                    .chunks_exact_mut(c.max(1))
                    .zip(&scale[first..first + r])
                {
                    row.iter_mut().for_each(|v| *v *= s);
                }
            }
            let (mut k, end) = (self.ptr[i], self.ptr[i + 1]);
            for l in b.ptr[i]..b.ptr[i + 1] {
                while k < end && self.idx[k] < b.idx[l] {
                    k += 1;
                }
                assert!(
                    k < end && self.idx[k] == b.idx[l],
                    "a block of B outside A's pattern"
                );
                let src = &b.val[b.off[l]..b.off[l + 1]];
                for (v, w) in self.val[self.off[k]..self.off[k + 1]].iter_mut().zip(src) {
                    *v += w;
                }
            }
        }
    }

    /// `A B` (Gustavson's product by block rows; `A`'s column nodes must be
    /// `B`'s row nodes). Row nodes in parallel, each summed in a fixed
    /// order, so the result does not depend on the thread count.
    pub(crate) fn mul(&self, b: &BlockCsr) -> BlockCsr {
        debug_assert_eq!(self.cols.ptr, b.rows.ptr);
        let n = self.rows.len();
        type Chunk = (Vec<usize>, Vec<u32>, Vec<usize>, Vec<f64>);
        let chunks: Vec<Chunk> = (0..n.div_ceil(NODES_PER_TASK))
            .into_par_iter()
            .map_init(
                || (vec![usize::MAX; b.cols.len()], vec![0usize; b.cols.len()]),
                |(mark, pos), task| {
                    let nodes = task * NODES_PER_TASK..((task + 1) * NODES_PER_TASK).min(n);
                    let (mut blocks, mut idx, mut lens, mut val) =
                        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                    let mut acc: Vec<f64> = Vec::new();
                    let mut cols: Vec<u32> = Vec::new();
                    for i in nodes {
                        let r = size(&self.rows, i);
                        cols.clear();
                        acc.clear();
                        for ab in self.ptr[i]..self.ptr[i + 1] {
                            let j = self.idx[ab] as usize;
                            let s = size(&self.cols, j);
                            let a = &self.val[self.off[ab]..self.off[ab + 1]];
                            for bb in b.ptr[j]..b.ptr[j + 1] {
                                let k = b.idx[bb] as usize;
                                let c = size(&b.cols, k);
                                if mark[k] != i {
                                    mark[k] = i;
                                    pos[k] = acc.len();
                                    acc.resize(acc.len() + r * c, 0.0);
                                    cols.push(k as u32);
                                }
                                let out = &mut acc[pos[k]..pos[k] + r * c];
                                let bv = &b.val[b.off[bb]..b.off[bb + 1]];
                                match c {
                                    6 => block_mul_add::<6>(out, a, bv, r, s),
                                    3 => block_mul_add::<3>(out, a, bv, r, s),
                                    _ => block_mul_add::<0>(out, a, bv, r, s),
                                }
                            }
                        }
                        cols.sort_unstable();
                        blocks.push(cols.len());
                        for &k in &cols {
                            let k = k as usize;
                            let c = size(&b.cols, k);
                            idx.push(k as u32);
                            lens.push(r * c);
                            val.extend_from_slice(&acc[pos[k]..pos[k] + r * c]);
                        }
                    }
                    (blocks, idx, lens, val)
                },
            )
            .collect();
        let mut ptr = Vec::with_capacity(n + 1);
        ptr.push(0);
        let total: usize = chunks.iter().map(|c| c.1.len()).sum();
        let entries: usize = chunks.iter().map(|c| c.3.len()).sum();
        let (mut idx, mut off, mut val) = (
            Vec::with_capacity(total),
            Vec::with_capacity(total + 1),
            Vec::with_capacity(entries),
        );
        off.push(0);
        for (blocks, i, lens, v) in chunks {
            for count in blocks {
                ptr.push(ptr.last().copied().unwrap_or(0) + count);
            }
            for l in lens {
                off.push(off.last().copied().unwrap_or(0) + l);
            }
            idx.extend(i);
            val.extend(v);
        }
        BlockCsr {
            rows: self.rows.clone(),
            cols: b.cols.clone(),
            ptr,
            idx,
            off,
            val,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::csr::tests::random;

    /// Nodes covering `n` unknowns (the last one takes what is left): of
    /// `size` unknowns each when `size > 0`, else of 1 to `max` unknowns
    /// drawn from a seed.
    fn nodes(n: usize, size: usize, max: usize, seed: u64) -> Nodes {
        let mut rng = crate::derivcheck::Rng::new(seed);
        let mut ptr = vec![0];
        while *ptr.last().unwrap() < n {
            let k = if size > 0 {
                size
            } else {
                (1 + (rng.uniform() * max as f64) as usize).min(max)
            };
            ptr.push((ptr.last().unwrap() + k).min(n));
        }
        Nodes { ptr }
    }

    /// Entry `(i, j)` of a scalar matrix (0 when not stored).
    fn entry(m: &Csr, i: usize, j: usize) -> f64 {
        (m.ptr[i]..m.ptr[i + 1])
            .find(|&k| m.idx[k] as usize == j)
            .map_or(0.0, |k| m.val[k])
    }

    #[test]
    fn blocks_hold_the_scalar_matrix_and_give_it_back() {
        // Scattered entries: blocks fill the missing ones with zeros.
        let a = random(23, 17, 0.2, 5);
        let (rows, cols) = (nodes(23, 0, 6, 1), nodes(17, 0, 3, 2));
        let back = BlockCsr::from_csr(&a, &rows, &cols).to_csr();
        assert!(back.nnz() >= a.nnz());
        for i in 0..23 {
            for j in 0..17 {
                assert_eq!(entry(&back, i, j), entry(&a, i, j), "({i}, {j})");
            }
        }
        let t = BlockCsr::from_csr(&a, &rows, &cols).transpose().to_csr();
        for i in 0..23 {
            for j in 0..17 {
                assert_eq!(entry(&t, j, i), entry(&a, i, j), "({i}, {j})");
            }
        }
    }

    #[test]
    fn rows_scale_and_a_matrix_within_the_pattern_adds() {
        let (rows, cols) = (nodes(40, 0, 6, 3), nodes(30, 0, 6, 4));
        let a = BlockCsr::from_csr(&random(40, 30, 0.3, 6), &rows, &cols);
        // B: the first block of every block row of A, other values.
        let mut b = a.clone();
        b.val
            .iter_mut()
            .enumerate()
            .for_each(|(k, v)| *v = k as f64);
        let (mut ptr, mut idx, mut off) = (vec![0], Vec::new(), vec![0]);
        let mut val = Vec::new();
        for i in 0..rows.len() {
            if let Some(k) = (b.ptr[i]..b.ptr[i + 1]).next() {
                idx.push(b.idx[k]);
                val.extend_from_slice(&b.val[b.off[k]..b.off[k + 1]]);
                off.push(val.len());
            }
            ptr.push(idx.len());
        }
        let b = BlockCsr {
            ptr,
            idx,
            off,
            val,
            ..b
        };
        let scale: Vec<f64> = (0..40).map(|u| 0.5 - u as f64).collect();
        let mut got = a.clone();
        got.scale_rows_and_add(&scale, &b);
        let (a, b, got) = (a.to_csr(), b.to_csr(), got.to_csr());
        for i in 0..40 {
            for j in 0..30 {
                let want = entry(&a, i, j) * scale[i] + entry(&b, i, j);
                assert_eq!(entry(&got, i, j), want, "({i}, {j})");
            }
        }
    }

    #[test]
    fn block_products_equal_scalar_products() {
        // Uniform nodes (a mesh's Hessian by 3 × 3 blocks times a
        // prolongator by 3 × 6, and that prolongator's transpose times the
        // product), then mixed sizes (1 to 6 unknowns, every kernel);
        // products in parallel. (size, max) of rows, inner and columns:
        let cases = [
            [(3, 3), (3, 3), (6, 6)],
            [(6, 6), (3, 3), (6, 6)],
            [(0, 3), (0, 5), (0, 2)],
            [(0, 6), (0, 6), (0, 6)],
        ];
        for (case, [r, k, c]) in cases.into_iter().enumerate() {
            let seed = case as u64;
            let (m, s, n) = (900, 702, 402);
            let (rows, mid, cols) = (
                nodes(m, r.0, r.1, 10 + seed),
                nodes(s, k.0, k.1, 20 + seed),
                nodes(n, c.0, c.1, 30 + seed),
            );
            // Block-complete scalar matrices, as the hierarchy's are.
            let a = BlockCsr::from_csr(&random(m, s, 0.01, 40 + seed), &rows, &mid).to_csr();
            let b = BlockCsr::from_csr(&random(s, n, 0.01, 50 + seed), &mid, &cols).to_csr();
            let want = a.mul(&b);
            let got = BlockCsr::from_csr(&a, &rows, &mid)
                .mul(&BlockCsr::from_csr(&b, &mid, &cols))
                .to_csr();
            assert_eq!(got.ptr, want.ptr, "case {case}");
            assert_eq!(got.idx, want.idx, "case {case}");
            assert_eq!(
                got.val, want.val,
                "case {case}: the same sums in the same order"
            );
        }
    }
}
