//! Orderings, factorizations and solves against dense arithmetic.

use super::*;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Mat, MatRef};

/// Lower triangle of the 7-point Laplacian on an `nx × ny × nz` grid
/// plus `shift·I` (symmetric positive definite when `shift > 0`), with an
/// off-diagonal weight varying per edge so that a wrong permutation
/// shows.
fn grid(nx: usize, ny: usize, nz: usize, shift: f64) -> SparseColMat<usize, f64> {
    let id = |i: usize, j: usize, k: usize| (i * ny + j) * nz + k;
    let mut t = Vec::new();
    for i in 0..nx {
        for j in 0..ny {
            for k in 0..nz {
                let me = id(i, j, k);
                t.push(Triplet::new(me, me, 6.0 + shift));
                let w = -1.0 + 0.01 * (me % 7) as f64;
                for (ok, other) in [
                    (i + 1 < nx, id(i + 1, j, k)),
                    (j + 1 < ny, id(i, (j + 1).min(ny - 1), k)),
                    (k + 1 < nz, id(i, j, (k + 1).min(nz - 1))),
                ] {
                    if ok {
                        t.push(Triplet::new(other, me, w));
                    }
                }
            }
        }
    }
    SparseColMat::try_new_from_triplets(nx * ny * nz, nx * ny * nz, &t).unwrap()
}

/// `A x` for `A` stored as its lower triangle.
fn sym_mul(a: &SparseColMat<usize, f64>, x: &[f64]) -> Vec<f64> {
    let (cp, ri, v) = (a.symbolic().col_ptr(), a.symbolic().row_idx(), a.val());
    let mut y = vec![0.0; x.len()];
    for j in 0..a.ncols() {
        for k in cp[j]..cp[j + 1] {
            let r = ri[k];
            y[r] += v[k] * x[j];
            if r != j {
                y[j] += v[k] * x[r];
            }
        }
    }
    y
}

#[test]
fn permuted_factorization_solves_the_original_system() {
    let mut kinds = Vec::new();
    for (nx, ny, nz) in [(5, 4, 3), (16, 15, 14)] {
        let a = grid(nx, ny, nz, 0.1);
        let n = a.ncols();
        // The factorization kind is the one faer's own AMD analysis
        // picks; the two sizes exercise both kinds (if a faer upgrade
        // moves its heuristic, pick other sizes).
        let kind =
            |s: &SymbolicCholesky<usize>| matches!(s.raw(), SymbolicCholeskyRaw::Supernodal(_));
        let amd = factorize_symbolic_cholesky(
            a.symbolic(),
            Side::Lower,
            SymmetricOrdering::Amd,
            Default::default(),
        )
        .unwrap();
        let by_amd = LinearSolver::with_ordering(a.symbolic(), Ordering::Amd).unwrap();
        assert_eq!(kind(&by_amd.symbolic), kind(&amd));
        assert_eq!(by_amd.symbolic.len_val(), amd.len_val());
        kinds.push(kind(&by_amd.symbolic));
        let by_nd = LinearSolver::with_ordering(a.symbolic(), Ordering::NestedDissection).unwrap();
        let auto = LinearSolver::new(a.symbolic()).unwrap();
        // The automatic choice is the smaller factor (AMD alone below
        // 2,000 unknowns).
        let smallest = if n < crate::ordering::NESTED_DISSECTION_MIN_DOFS {
            by_amd.factor_entries()
        } else {
            by_amd.factor_entries().min(by_nd.factor_entries())
        };
        assert_eq!(auto.factor_entries(), smallest);
        for solver in [by_amd, by_nd, auto] {
            let f = solver.factor(a.as_ref()).unwrap();
            let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
            let x = f.solve(&b);
            let r = sym_mul(&a, &x);
            let err = r
                .iter()
                .zip(&b)
                .fold(0.0f64, |m, (r, b)| m.max((r - b).abs()));
            assert!(err < 1e-12, "residual {err}");
            // The single-precision preconditioner: the same solve to its
            // precision.
            let xs = f.precondition(&b);
            let scale = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let gap = xs
                .iter()
                .zip(&x)
                .fold(0.0f64, |m, (p, q)| m.max((p - q).abs()));
            assert!(gap < 1e-5 * scale && gap > 0.0, "single vs double: {gap:e}");
            // Several right-hand sides at once (faer's supernodal solve)
            // give the same columns as one at a time (our substitution on
            // a supernodal factor, `substitution.rs`), to rounding: the
            // two sum in other orders.
            let b2: Vec<f64> = (0..2 * n).map(|i| (i as f64 * 0.11).cos()).collect();
            let xm = f.solve_mat(MatRef::from_column_major_slice(&b2, n, 2));
            for c in 0..2 {
                let xc = f.solve(&b2[c * n..(c + 1) * n]);
                for i in 0..n {
                    assert!((xm[(i, c)] - xc[i]).abs() <= 1e-14 * xc[i].abs().max(1.0));
                }
            }
        }
    }
    assert_eq!(kinds, [false, true], "simplicial, then supernodal");
}

#[test]
fn nested_dissection_is_chosen_on_3d_grids_and_is_deterministic() {
    let a = grid(20, 20, 20, 0.1);
    let amd = LinearSolver::with_ordering(a.symbolic(), Ordering::Amd).unwrap();
    let auto = LinearSolver::new(a.symbolic()).unwrap();
    assert_eq!(auto.ordering(), Ordering::NestedDissection);
    assert!(
        (auto.factor_entries() as f64) < 0.9 * amd.factor_entries() as f64,
        "nested dissection {} entries, AMD {}",
        auto.factor_entries(),
        amd.factor_entries()
    );
    let again = LinearSolver::new(a.symbolic()).unwrap();
    assert_eq!(auto.permuted.forward, again.permuted.forward);
    // A chain (a tridiagonal matrix) has no fill under AMD: it stays.
    let t: Vec<Triplet<usize, usize, f64>> = (0..3000)
        .flat_map(|i| {
            let mut v = vec![Triplet::new(i, i, 4.0)];
            if i + 1 < 3000 {
                v.push(Triplet::new(i + 1, i, -1.0));
            }
            v
        })
        .collect();
    let chain = SparseColMat::try_new_from_triplets(3000, 3000, &t).unwrap();
    assert_eq!(
        LinearSolver::new(chain.symbolic()).unwrap().ordering(),
        Ordering::Amd
    );
}

#[test]
fn indefinite_and_mismatched_matrices_are_errors() {
    let a = grid(4, 4, 2, 0.1);
    let solver = LinearSolver::new(a.symbolic()).unwrap();
    // 6 − 8 < 0 on the diagonal: not positive definite.
    let b = grid(4, 4, 2, -8.0);
    assert!(solver.factor(b.as_ref()).is_err());
    let c = grid(3, 4, 2, 0.1);
    let e = solver.factor(c.as_ref()).unwrap_err().to_string();
    assert!(e.contains("not the one analysed (32×32"), "{e}");
}

/// The augmented lower triangle of `S + Σ_k w_k u_k u_kᵀ` for the grid
/// Laplacian `S` (shift `shift`) and dense-ish vectors `u_k` over the
/// DOFs in `support[k]`, with the full Hessian as a dense matrix.
fn augmented(
    dims: (usize, usize, usize),
    shift: f64,
    terms: &[(f64, Vec<usize>)],
) -> (SparseColMat<usize, f64>, usize, Vec<f64>) {
    let s = grid(dims.0, dims.1, dims.2, shift);
    let n = s.ncols();
    let mut dense = vec![0.0; n * n];
    let mut t = Vec::new();
    let (cp, ri, v) = (s.symbolic().col_ptr(), s.symbolic().row_idx(), s.val());
    for j in 0..n {
        for k in cp[j]..cp[j + 1] {
            t.push(Triplet::new(ri[k], j, v[k]));
            dense[ri[k] * n + j] += v[k];
            if ri[k] != j {
                dense[j * n + ri[k]] += v[k];
            }
        }
    }
    for (k, (w, support)) in terms.iter().enumerate() {
        let u: Vec<f64> = support
            .iter()
            .map(|&i| 0.3 + 0.1 * (i % 5) as f64)
            .collect();
        for (&i, ui) in support.iter().zip(&u) {
            t.push(Triplet::new(n + k, i, w.abs().sqrt() * ui));
            for (&j, uj) in support.iter().zip(&u) {
                dense[i * n + j] += w * ui * uj;
            }
        }
        t.push(Triplet::new(
            n + k,
            n + k,
            if *w < 0.0 { 1.0 } else { -1.0 },
        ));
    }
    let m = n + terms.len();
    (
        SparseColMat::try_new_from_triplets(m, m, &t).unwrap(),
        n,
        dense,
    )
}

#[test]
fn an_augmented_factorization_solves_with_the_schur_complement() {
    // Positive, negative and zero weights, overlapping supports; a
    // small (simplicial) and a larger (supernodal) factorization.
    let terms = vec![
        (40.0, (0..60).collect::<Vec<_>>()),
        (-0.02, (30..45).collect()),
        (0.0, (100..120).collect()),
        (7.0, (50..120).step_by(3).collect()),
    ];
    let mut kinds = Vec::new();
    for dims in [(6, 5, 4), (16, 15, 14)] {
        let (a, n, dense) = augmented(dims, 0.1, &terms);
        let solver = LinearSolver::new_augmented(a.symbolic(), terms.len()).unwrap();
        kinds.push(matches!(
            solver.symbolic.raw(),
            SymbolicCholeskyRaw::Supernodal(_)
        ));
        let f = solver.factor(a.as_ref()).unwrap();
        assert_eq!(f.n(), n);
        let b: Vec<f64> = (0..n).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
        let x = f.solve(&b);
        let worst = (0..n)
            .map(|i| {
                let r: f64 = (0..n).map(|j| dense[i * n + j] * x[j]).sum::<f64>() - b[i];
                r.abs()
            })
            .fold(0.0, f64::max);
        assert!(worst < 1e-10, "{dims:?}: residual {worst:e}");
        // The product the Newton solver uses is the same Schur complement.
        let mut y = vec![0.0; n];
        crate::newton::hessian_mul(a.as_ref(), &x, &mut y);
        let gap = y
            .iter()
            .zip(&b)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max);
        assert!(gap < 1e-10, "{dims:?}: H x − b = {gap:e}");
        // The single-precision preconditioner (LDLᵀ): the same solve to its
        // precision.
        let xs = f.precondition(&b);
        let scale = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let off = xs
            .iter()
            .zip(&x)
            .fold(0.0f64, |m, (p, q)| m.max((p - q).abs()));
        assert!(
            off < 1e-4 * scale && off > 0.0,
            "{dims:?}: single vs double {off:e}"
        );
        // Several right-hand sides at once.
        let bm = Mat::from_fn(n, 2, |i, j| b[i] * (j as f64 + 1.0));
        let xm = f.solve_mat(bm.as_ref());
        for i in 0..n {
            assert!((xm[(i, 1)] - 2.0 * x[i]).abs() < 1e-9 * (1.0 + x[i].abs()));
        }
    }
    assert_eq!(
        kinds,
        [false, true],
        "both factorization kinds are exercised"
    );
}

#[test]
fn an_augmented_matrix_whose_schur_complement_is_indefinite_is_an_error() {
    for dims in [(6, 5, 4), (16, 15, 14)] {
        // A strongly negative rank-one term makes S + w u uᵀ indefinite
        // though S is positive definite; a negative S (shift −8) stays
        // indefinite with a positive term.
        for (shift, w) in [(0.1, -50.0), (-8.0, 1.0)] {
            let terms = vec![(w, (0..60).collect::<Vec<_>>())];
            let (a, _, _) = augmented(dims, shift, &terms);
            let solver = LinearSolver::new_augmented(a.symbolic(), 1).unwrap();
            let e = solver.factor(a.as_ref()).unwrap_err().to_string();
            assert!(
                e.contains("not positive definite"),
                "{dims:?} {shift} {w}: {e}"
            );
        }
    }
    let (a, _, _) = augmented((3, 3, 3), 0.1, &[]);
    assert!(LinearSolver::new_augmented(a.symbolic(), 1000).is_err());
}

#[test]
fn substitution_agrees_with_faers_solve_on_narrow_and_wide_supernodes() {
    use faer::dyn_stack::{MemBuffer, MemStack};
    use faer::sparse::linalg::cholesky::LltRef;
    // A 3-D grid under nested dissection: wide separators (faer's dense
    // kernels in `substitution.rs`) and narrow supernodes (its loops).
    let a = grid(14, 13, 12, 0.1);
    let n = a.ncols();
    let f = LinearSolver::new(a.symbolic())
        .unwrap()
        .factor(a.as_ref())
        .unwrap();
    let SymbolicCholeskyRaw::Supernodal(sym) = f.symbolic.raw() else {
        panic!("a supernodal factor");
    };
    let widths: Vec<usize> = sym
        .supernode_begin()
        .iter()
        .zip(sym.supernode_end())
        .map(|(b, e)| e - b)
        .collect();
    assert!(
        widths
            .iter()
            .any(|&w| w >= substitution::DENSE_KERNEL_COLUMNS)
    );
    assert!(
        widths
            .iter()
            .any(|&w| w < substitution::DENSE_KERNEL_COLUMNS)
    );
    let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() + 0.1).collect();
    let faer_solve = |values: &[f64], y: &mut [f64]| {
        let mut buf = MemBuffer::new(f.symbolic.solve_in_place_scratch::<f64>(1, Par::Seq));
        LltRef::new(&f.symbolic, values).solve_in_place_with_conj(
            faer::Conj::No,
            faer::MatMut::from_column_major_slice_mut(y, n, 1),
            Par::Seq,
            MemStack::new(&mut buf),
        );
    };
    let mut theirs = b.clone();
    faer_solve(&f.values, &mut theirs);
    let mut ours = b.clone();
    substitution::solve_llt(sym, &f.values, &mut ours);
    let scale = theirs.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (o, t) in ours.iter().zip(&theirs) {
        assert!((o - t).abs() <= 1e-13 * scale, "{o} against {t}");
    }
    // Single precision (the preconditioner's copy), to its precision.
    let single: Vec<f32> = f.values.iter().map(|&v| v as f32).collect();
    let mut ours32: Vec<f32> = b.iter().map(|&v| v as f32).collect();
    substitution::solve_llt(sym, &single, &mut ours32);
    for (o, t) in ours32.iter().zip(&theirs) {
        assert!((f64::from(*o) - t).abs() <= 1e-4 * scale, "{o} against {t}");
    }
}

/// `a` with `delta` (`(row, column, value)`, row ≥ column) added to its
/// stored entries.
fn plus(a: &SparseColMat<usize, f64>, delta: &[(usize, usize, f64)]) -> SparseColMat<usize, f64> {
    let mut b = a.clone();
    let (cp, ri) = (
        a.symbolic().col_ptr().to_vec(),
        a.symbolic().row_idx().to_vec(),
    );
    for &(r, c, v) in delta {
        let k = (cp[c]..cp[c + 1])
            .find(|&k| ri[k] == r)
            .expect("stored entry");
        b.val_mut()[k] += v;
    }
    b
}

#[test]
fn a_refreshed_trailing_block_is_the_factor_of_the_changed_matrix() {
    // A supernodal 3-D grid; the unknowns of one corner layer ordered last
    // and changed on their diagonals and couplings, as contacts do.
    let a = grid(9, 8, 7, 0.1);
    let n = a.ncols();
    let base = LinearSolver::new(a.symbolic()).unwrap();
    assert!(matches!(
        base.symbolic.raw(),
        SymbolicCholeskyRaw::Supernodal(_)
    ));
    let last: Vec<usize> = (0..n).filter(|i| i % 7 == 0 && *i < 8 * 7 * 3).collect();
    let solver = base
        .with_last(&last)
        .unwrap()
        .expect("a supernodal analysis");
    // The same analysis again comes from the solver's store.
    let again = base.with_last(&last).unwrap().unwrap();
    assert!(Arc::ptr_eq(&solver.symbolic, &again.symbolic));
    assert_eq!(&solver.permuted.forward[n - last.len()..], last.as_slice());
    let mut delta: Vec<(usize, usize, f64)> = last
        .iter()
        .enumerate()
        .map(|(k, &i)| (i, i, 0.5 + 0.1 * k as f64))
        .collect();
    // And an off-diagonal entry between two of them that the grid couples.
    let (cp, ri) = (a.symbolic().col_ptr(), a.symbolic().row_idx());
    let coupled = last
        .iter()
        .find_map(|&c| {
            ri[cp[c]..cp[c + 1]]
                .iter()
                .find(|&&r| r != c && last.contains(&r))
                .map(|&r| (r, c))
        })
        .expect("two coupled unknowns among the last");
    delta.push((coupled.0, coupled.1, -0.3));
    let mut f = solver.factor(a.as_ref()).unwrap();
    f.keep_trailing(last.len(), vec![]);
    assert!(f.refresh(&delta));
    let changed = plus(&a, &delta);
    let fresh = base.factor(changed.as_ref()).unwrap();
    let b: Vec<f64> = (0..n).map(|i| ((i * 37) % 11) as f64 - 5.0).collect();
    let (x, y) = (f.solve(&b), fresh.solve(&b));
    let scale = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (xi, yi) in x.iter().zip(&y) {
        assert!((xi - yi).abs() <= 1e-12 * scale, "{xi} against {yi}");
    }
    // And it solves the changed system, not the original one.
    let r = sym_mul(&changed, &x);
    assert!(r.iter().zip(&b).all(|(r, b)| (r - b).abs() < 1e-10));
    // A change that makes the block indefinite is refused, the factor kept.
    let before = f.values.clone();
    assert!(!f.refresh(&[(last[0], last[0], -1e3)]));
    assert_eq!(f.values, before);
}

#[test]
fn unknowns_last_are_refused_where_no_block_can_be_refreshed() {
    let small = grid(3, 3, 2, 0.1);
    let simplicial = LinearSolver::new(small.symbolic()).unwrap();
    assert!(matches!(
        simplicial.symbolic.raw(),
        SymbolicCholeskyRaw::Simplicial(_)
    ));
    assert!(simplicial.with_last(&[0, 1]).unwrap().is_none());
    let a = grid(9, 8, 7, 0.1);
    let base = LinearSolver::new(a.symbolic()).unwrap();
    assert!(base.with_last(&[]).unwrap().is_none());
    assert!(base.with_last(&[3, 2]).unwrap().is_none(), "unsorted");
    assert!(
        base.with_last(&[a.ncols()]).unwrap().is_none(),
        "out of range"
    );
    // A factor without a kept block refreshes nothing.
    let mut f = base.factor(a.as_ref()).unwrap();
    assert!(!f.refresh(&[(0, 0, 1.0)]));
}
