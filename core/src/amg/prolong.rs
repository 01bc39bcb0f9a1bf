//! Prolongators of smoothed aggregation: the tentative one fits the
//! near-null space (rigid motions) on each aggregate, the smoothed one
//! `P = (I − ω D⁻¹ A) T` widens it by one Jacobi step (Vaněk, Mandel and
//! Brezina 1996, §4).

use super::aggregate::Nodes;
use super::block_csr::BlockCsr;
use super::csr::Csr;

/// A column of an aggregate's near-null space whose part orthogonal to the
/// columns before it is below this fraction of its norm is dropped (the
/// rotation about the axis through a two-node aggregate, all rotations of
/// a one-node aggregate).
const RANK_TOL: f64 = 1e-8;

/// The tentative prolongator with the coarse level's nodes (one per
/// aggregate, owning its kept near-null-space columns) and the coarse
/// near-null space (the factors `R` of the aggregates' QR).
pub(crate) struct Tentative {
    pub(crate) t: Csr,
    pub(crate) coarse: Nodes,
    pub(crate) coarse_b: Vec<f64>,
}

/// `T` from the aggregates `agg` (of each node, `n_agg` in all) and the
/// near-null space `b` (row-major, `k` columns, one row per unknown): on
/// each aggregate `B_a = Q_a R_a` (Gram–Schmidt, twice), `T` holds the
/// `Q_a` and the coarse near-null space the `R_a`.
pub(crate) fn tentative(
    nodes: &Nodes,
    agg: &[usize],
    n_agg: usize,
    b: &[f64],
    k: usize,
) -> Tentative {
    let n = nodes.ptr[nodes.len()];
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n_agg];
    for (node, &a) in agg.iter().enumerate() {
        members[a].push(node);
    }
    // Per fine unknown: its aggregate's first coarse column and its values.
    let mut row_cols: Vec<(usize, usize)> = vec![(0, 0); n];
    let mut row_vals: Vec<f64> = vec![0.0; n * k];
    let mut coarse_ptr = vec![0usize];
    let mut coarse_b = Vec::new();
    for m in &members {
        let unknowns: Vec<usize> = m
            .iter()
            .flat_map(|&node| nodes.ptr[node]..nodes.ptr[node + 1])
            .collect();

        // Columns of B_a, then orthonormalized in place.
        let mut q: Vec<Vec<f64>> = Vec::with_capacity(k);
        let mut r = vec![vec![0.0; k]; k];
        for c in 0..k {
            let mut v: Vec<f64> = unknowns.iter().map(|&u| b[u * k + c]).collect();
            let norm0 = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            for _ in 0..2 {
                for (qi, qv) in q.iter().enumerate() {
                    let d: f64 = qv.iter().zip(&v).map(|(a, b)| a * b).sum();
                    r[qi][c] += d;
                    for (x, y) in v.iter_mut().zip(qv) {
                        *x -= d * y;
                    }
                }
            }
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > RANK_TOL * norm0 && norm > 0.0 {
                r[q.len()][c] = norm;
                v.iter_mut().for_each(|x| *x /= norm);
                q.push(v);
            }
        }
        let base = *coarse_ptr.last().unwrap_or(&0);
        let kept = q.len();
        for (local, &u) in unknowns.iter().enumerate() {
            row_cols[u] = (base, kept);
            for (qi, qv) in q.iter().enumerate() {
                row_vals[u * k + qi] = qv[local];
            }
        }
        for row in r.iter().take(kept) {
            coarse_b.extend_from_slice(row);
        }
        coarse_ptr.push(base + kept);
    }
    let mut ptr = Vec::with_capacity(n + 1);
    ptr.push(0);
    let (mut idx, mut val) = (Vec::new(), Vec::new());
    for u in 0..n {
        let (base, kept) = row_cols[u];
        for qi in 0..kept {
            idx.push((base + qi) as u32);
            val.push(row_vals[u * k + qi]);
        }
        ptr.push(idx.len());
    }
    let n_coarse = *coarse_ptr.last().unwrap_or(&0);
    Tentative {
        t: Csr {
            n_cols: n_coarse,
            ptr,
            idx,
            val,
        },
        coarse: Nodes { ptr: coarse_ptr },
        coarse_b,
    }
}

/// `P = T − ω D⁻¹ A T` with `ω = 4 / (3 ρ(D⁻¹ A))`; `inv_diag` is `D⁻¹`;
/// all by node blocks.
pub(crate) fn smooth(a: &BlockCsr, t: &BlockCsr, inv_diag: &[f64], rho: f64) -> BlockCsr {
    let omega = 4.0 / (3.0 * rho);
    let scale: Vec<f64> = inv_diag.iter().map(|d| -(omega * d)).collect();
    let mut p = a.mul(t);
    // T's blocks lie among A T's (A has its diagonal blocks).
    p.scale_rows_and_add(&scale, t);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tentative_prolongator_reproduces_the_near_null_space() {
        // Four 2-D nodes in a row, two aggregates; modes: x, y translations
        // and the rotation about the origin.
        let nodes = Nodes {
            ptr: vec![0, 2, 4, 6, 8],
        };
        let pos = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.5], [3.0, 0.0]];
        let k = 3;
        let mut b = vec![0.0; 8 * k];
        for (i, p) in pos.iter().enumerate() {
            b[(2 * i) * k] = 1.0;
            b[(2 * i + 1) * k + 1] = 1.0;
            b[(2 * i) * k + 2] = -p[1];
            b[(2 * i + 1) * k + 2] = p[0];
        }
        let tent = tentative(&nodes, &[0, 0, 1, 1], 2, &b, k);
        assert_eq!(tent.coarse.ptr, vec![0, 3, 6]);
        // T R = B on the fine level.
        for u in 0..8 {
            for c in 0..k {
                let mut s = 0.0;
                for l in tent.t.ptr[u]..tent.t.ptr[u + 1] {
                    s += tent.t.val[l] * tent.coarse_b[tent.t.idx[l] as usize * k + c];
                }
                assert!((s - b[u * k + c]).abs() < 1e-14, "row {u} column {c}");
            }
        }
        // Columns of T are orthonormal.
        let tt = tent.t.transpose().mul(&tent.t);
        for i in 0..6 {
            for l in tt.ptr[i]..tt.ptr[i + 1] {
                let want = if tt.idx[l] as usize == i { 1.0 } else { 0.0 };
                assert!((tt.val[l] - want).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn a_single_node_aggregate_keeps_only_independent_modes() {
        // One 2-D node: the rotation is a combination of the translations.
        let nodes = Nodes { ptr: vec![0, 2] };
        let b = vec![1.0, 0.0, -0.5, 0.0, 1.0, 2.0];
        let tent = tentative(&nodes, &[0], 1, &b, 3);
        assert_eq!(tent.coarse.ptr, vec![0, 2]);
    }
}
