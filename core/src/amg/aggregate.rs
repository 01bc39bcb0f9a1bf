//! Aggregation of the nodes of one level (Vaněk, Mandel and Brezina,
//! "Algebraic multigrid by smoothed aggregation for second and fourth order
//! elliptic problems", Computing 56, 1996, §3).

use super::csr::Csr;

/// The nodes of a level: node `I` owns the unknowns
/// `ptr[I]..ptr[I + 1]` (a mesh node's free coordinates on the finest level,
/// an aggregate's coarse unknowns below it).
#[derive(Debug, Clone)]
pub(crate) struct Nodes {
    pub(crate) ptr: Vec<usize>,
}

impl Nodes {
    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.ptr.len() - 1
    }

    /// The number of unknowns every node has, if they all have the same.
    pub(crate) fn size(&self) -> Option<usize> {
        let k = self.ptr.get(1).copied()?;
        (k > 0 && self.ptr.iter().enumerate().all(|(i, &p)| p == k * i)).then_some(k)
    }

    /// The node of every unknown.
    pub(crate) fn of_unknowns(&self) -> Vec<usize> {
        let mut of = vec![0; self.ptr.last().copied().unwrap_or(0)];
        for i in 0..self.len() {
            of[self.ptr[i]..self.ptr[i + 1]].fill(i);
        }
        of
    }
}

/// The strong neighbours of each node: `J ≠ I` with
/// `‖A_IJ‖_F ≥ θ √(‖A_II‖_F ‖A_JJ‖_F)` (block norms over the nodes'
/// unknowns), sorted.
pub(crate) fn strong_neighbours(a: &Csr, nodes: &Nodes, theta: f64) -> Vec<Vec<usize>> {
    let of = nodes.of_unknowns();
    let n = nodes.len();
    // Squared Frobenius norms of the blocks, per node row.
    let mut blocks: Vec<Vec<(usize, f64)>> = Vec::with_capacity(n);
    let mut diag = vec![0.0; n];
    let mut mark = vec![usize::MAX; n];
    let mut acc = vec![0.0; n];
    let mut cols = Vec::new();
    for node in 0..n {
        cols.clear();
        for i in nodes.ptr[node]..nodes.ptr[node + 1] {
            for k in a.ptr[i]..a.ptr[i + 1] {
                let other = of[a.idx[k] as usize];
                if mark[other] != node {
                    mark[other] = node;
                    acc[other] = 0.0;
                    cols.push(other);
                }
                acc[other] += a.val[k] * a.val[k];
            }
        }
        cols.sort_unstable();
        diag[node] = if mark[node] == node { acc[node] } else { 0.0 };
        blocks.push(cols.iter().map(|&c| (c, acc[c])).collect());
    }
    let theta2 = theta * theta;
    blocks
        .into_iter()
        .enumerate()
        .map(|(node, row)| {
            row.into_iter()
                .filter(|&(other, s)| {
                    other != node && s > 0.0 && s >= theta2 * (diag[node] * diag[other]).sqrt()
                })
                .map(|(other, _)| other)
                .collect()
        })
        .collect()
}

/// Greedy aggregation of the nodes (deterministic: nodes in order): first
/// every node whose strong neighbours are all free becomes the root of an
/// aggregate with them; then each remaining node joins an aggregate of a
/// strong neighbour from the first pass; what is still left forms
/// aggregates with its free strong neighbours. Returns the aggregate of
/// each node and the number of aggregates.
pub(crate) fn aggregate(strong: &[Vec<usize>]) -> (Vec<usize>, usize) {
    let n = strong.len();
    const FREE: usize = usize::MAX;
    let mut agg = vec![FREE; n];
    let mut count = 0;
    for node in 0..n {
        if agg[node] == FREE && strong[node].iter().all(|&j| agg[j] == FREE) {
            agg[node] = count;
            for &j in &strong[node] {
                agg[j] = count;
            }
            count += 1;
        }
    }
    let first = agg.clone();
    for node in 0..n {
        if agg[node] == FREE
            && let Some(&j) = strong[node].iter().find(|&&j| first[j] != FREE)
        {
            agg[node] = first[j];
        }
    }
    for node in 0..n {
        if agg[node] == FREE {
            agg[node] = count;
            for &j in &strong[node] {
                if agg[j] == FREE {
                    agg[j] = count;
                }
            }
            count += 1;
        }
    }
    (agg, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 1-D Laplacian over `n` scalar nodes.
    fn laplacian(n: usize) -> Csr {
        let mut ptr = vec![0];
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        for i in 0..n {
            if i > 0 {
                idx.push(i as u32 - 1);
                val.push(-1.0);
            }
            idx.push(i as u32);
            val.push(2.0);
            if i + 1 < n {
                idx.push(i as u32 + 1);
                val.push(-1.0);
            }
            ptr.push(idx.len());
        }
        Csr {
            n_cols: n,
            ptr,
            idx,
            val,
        }
    }

    #[test]
    fn a_chain_aggregates_into_triples_covering_every_node() {
        let a = laplacian(10);
        let nodes = Nodes {
            ptr: (0..=10).collect(),
        };
        let strong = strong_neighbours(&a, &nodes, 0.0);
        assert_eq!(strong[0], vec![1]);
        assert_eq!(strong[5], vec![4, 6]);
        let (agg, count) = aggregate(&strong);
        // Roots 0 ({0,1}), 3 ({2,3,4}), 6 ({5,6,7}), 9 ({8,9}).
        assert_eq!(agg, vec![0, 0, 1, 1, 1, 2, 2, 2, 3, 3]);
        assert_eq!(count, 4);
    }

    #[test]
    fn weak_couplings_are_not_strong() {
        let mut a = laplacian(3);
        // Weaken the coupling between nodes 1 and 2 (both triangles).
        for k in 0..a.nnz() {
            if a.val[k] == -1.0 && a.idx[k] != 0 && (a.ptr[1]..a.ptr[2]).contains(&k)
                || a.val[k] == -1.0 && (a.ptr[2]..a.ptr[3]).contains(&k)
            {
                a.val[k] = -1e-3;
            }
        }
        let nodes = Nodes {
            ptr: (0..=3).collect(),
        };
        let strong = strong_neighbours(&a, &nodes, 0.1);
        assert_eq!(strong, vec![vec![1], vec![0], vec![]]);
    }
}
