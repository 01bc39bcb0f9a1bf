//! Element Hessians that are sparse apart from a few rank-one terms.
//!
//! An energy of a global quantity of many DOFs — the pressure of a gas in a
//! cell or a cavity, `E = f(V(x))` — has the Hessian
//!
//! `∇²E = f′(V) ∇²V + f″(V) ∇V ∇Vᵀ`,
//!
//! where `∇²V` is sparse (the area or volume is a sum over segments or
//! triangles) but the rank-one term couples every DOF of the element with
//! every other. Written as a dense block, a 100-node cell is a 200 × 200
//! block and a cell stack's Hessian fills its Cholesky factor densely. An
//! element set that declares a [`SplitHessian`] gives its blocks as the
//! sparse part plus `rank` terms `w u uᵀ`; the engine keeps each term out of
//! the factorization by one extra unknown `y = √|w| uᵀ Δx` (the
//! quasi-definite augmented system
//! `[H_s  v; vᵀ  −sign w] [Δx; y] = [b; 0]`, `v = √|w| u`, whose Schur
//! complement is the full Hessian `H_s + w u uᵀ`), factorized by `LDLᵀ`.
//! The factor stays as sparse as the sparse part's.

/// The shape of a split element Hessian, the same for every element of a
/// set: the local entries `(row, column)` (stencil positions) of the sparse
/// part and the number of rank-one terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitHessian {
    /// Local entries of the sparse part. Off-diagonal entries are listed in
    /// both orders (the block is symmetric); an entry listed twice adds.
    pub entries: Vec<(usize, usize)>,
    /// Rank-one terms per element.
    pub rank: usize,
}

impl SplitHessian {
    /// Values per element of the rank-one data for a stencil of `ns` DOFs:
    /// each term is its weight `w` followed by its vector `u` (`ns`).
    pub fn rank_one_stride(&self, ns: usize) -> usize {
        self.rank * (1 + ns)
    }
    /// Adds one element's split Hessian (`sparse`: one value per entry,
    /// `rank_one`: [`SplitHessian::rank_one_stride`] values) to the dense
    /// row-major `ns × ns` block `dense`.
    pub fn add_to_dense(&self, ns: usize, sparse: &[f64], rank_one: &[f64], dense: &mut [f64]) {
        for (&(a, b), v) in self.entries.iter().zip(sparse) {
            dense[a * ns + b] += v;
        }
        for term in rank_one.chunks_exact(1 + ns).take(self.rank) {
            let (w, u) = (term[0], &term[1..]);
            for (a, ua) in u.iter().enumerate() {
                let s = w * ua;
                if s != 0.0 {
                    for (o, ub) in dense[a * ns..(a + 1) * ns].iter_mut().zip(u) {
                        *o += s * ub;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SplitHessian;

    #[test]
    fn a_split_hessian_adds_its_entries_and_its_rank_one_terms() {
        let s = SplitHessian {
            entries: vec![(0, 0), (1, 2), (2, 1), (1, 2)],
            rank: 1,
        };
        let mut dense = vec![0.0; 9];
        s.add_to_dense(3, &[1.0, 2.0, 2.0, 0.5], &[3.0, 1.0, 0.0, -1.0], &mut dense);
        #[rustfmt::skip]
        let want = [
            1.0 + 3.0, 0.0, -3.0,
            0.0,       0.0, 2.5,
            -3.0,      2.0, 3.0,
        ];
        assert_eq!(dense, want);
    }
}
