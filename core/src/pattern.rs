//! Sparse patterns built from index pairs, with where each pair landed:
//! assembly and the permuted factorization both build a pattern once and
//! then scatter values into it by these precomputed entries.

use crate::error::{CoreError, Result};
use faer::sparse::{Pair, SymbolicSparseColMat};

/// The `n × n` column-major pattern of `pairs` (duplicates merged, rows
/// sorted within each column) and, for each pair, the index of its entry.
pub(crate) fn pattern_of(
    n: usize,
    pairs: &[Pair<usize, usize>],
) -> Result<(SymbolicSparseColMat<usize>, Vec<usize>)> {
    let (pattern, _) = SymbolicSparseColMat::try_new_from_indices(n, n, pairs)
        .map_err(|e| CoreError::LinearSolve(format!("sparsity pattern: {e:?}")))?;
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
}
