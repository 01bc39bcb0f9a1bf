//! Multigrid on spring lattices: mesh-independent convergence, exact
//! solutions, thread-count determinism.

use super::aggregate::Nodes;
use super::packed::Packed;
use super::{Amg, Operator};
use crate::newton::pcg::{hessian_mul, pcg};
use faer::sparse::{SparseColMat, Triplet};

/// The Hessian `m/h² I + Σ k d dᵀ` (lower triangle) of an `n³`-node cubic
/// lattice of unit spacing with springs to the 13 forward neighbours (edges,
/// face and body diagonals), `k` = 1, `m/h²` = `mass`; with the rigid
/// motions of its nodes.
fn lattice(n: usize, mass: f64) -> (SparseColMat<usize, f64>, Nodes, Vec<f64>) {
    let id = |i: usize, j: usize, l: usize| (i * n + j) * n + l;
    let mut trip = Vec::new();
    let mut add = |a: usize, b: usize, v: f64| {
        let (r, c) = if a >= b { (a, b) } else { (b, a) };
        trip.push(Triplet::new(r, c, v));
    };
    let mut pos = vec![[0.0; 3]; n * n * n];
    for i in 0..n {
        for j in 0..n {
            for l in 0..n {
                let a = id(i, j, l);
                pos[a] = [i as f64, j as f64, l as f64];
                for x in 0..3 {
                    add(3 * a + x, 3 * a + x, mass);
                }
                for (di, dj, dl) in [
                    (1, 0, 0),
                    (0, 1, 0),
                    (0, 0, 1),
                    (1, 1, 0),
                    (1, -1, 0),
                    (1, 0, 1),
                    (1, 0, -1),
                    (0, 1, 1),
                    (0, 1, -1),
                    (1, 1, 1),
                    (1, 1, -1),
                    (1, -1, 1),
                    (1, -1, -1),
                ] {
                    let (ti, tj, tl) = (i as i64 + di, j as i64 + dj, l as i64 + dl);
                    if [ti, tj, tl].iter().any(|&t| t < 0 || t >= n as i64) {
                        continue;
                    }
                    let b = id(ti as usize, tj as usize, tl as usize);
                    let d = [di as f64, dj as f64, dl as f64];
                    let len2: f64 = d.iter().map(|x| x * x).sum();
                    for x in 0..3 {
                        for y in 0..3 {
                            let v = d[x] * d[y] / len2;
                            if 3 * a + x >= 3 * a + y {
                                add(3 * a + x, 3 * a + y, v);
                                add(3 * b + x, 3 * b + y, v);
                            }
                            add(3 * b + x, 3 * a + y, -v);
                        }
                    }
                }
            }
        }
    }
    let size = 3 * n * n * n;
    let a = SparseColMat::try_new_from_triplets(size, size, &trip).unwrap();
    let mut b = vec![0.0; size * 6];
    let c = (n as f64 - 1.0) / 2.0;
    for (node, p) in pos.iter().enumerate() {
        let p = [p[0] - c, p[1] - c, p[2] - c];
        let rot = [[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]];
        for ax in 0..3 {
            let row = &mut b[(3 * node + ax) * 6..(3 * node + ax + 1) * 6];
            row[ax] = 1.0;
            for r in 0..3 {
                row[3 + r] = rot[r][ax];
            }
        }
    }
    let nodes = Nodes {
        ptr: (0..=n * n * n).map(|i| 3 * i).collect(),
    };
    (a, nodes, b)
}

pub(crate) fn rhs(size: usize) -> Vec<f64> {
    (0..size)
        .map(|i| ((i * 7919) % 101) as f64 / 50.0 - 1.0)
        .collect()
}

/// Preconditioned CG iterations to reduce the residual 10⁸-fold.
fn iterations(n: usize, mass: f64) -> usize {
    let (a, nodes, b) = lattice(n, mass);
    let amg = Amg::build(a.as_ref(), nodes, b, 6).unwrap();
    assert!(amg.sizes().len() >= 2, "{:?}", amg.sizes());
    pcg_iterations(&a, &amg)
}

/// Iterations of CG preconditioned by `amg` to reduce the residual of
/// `a d = −g` 10⁸-fold.
fn pcg_iterations(a: &SparseColMat<usize, f64>, amg: &Amg) -> usize {
    let g = rhs(a.ncols());
    let target = 1e-8 * g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut it = 0;
    assert!(
        pcg(
            &|x, y| hessian_mul(a.as_ref(), x, y),
            &g,
            amg,
            target,
            200,
            &mut it
        )
        .is_ok()
    );
    it
}

#[test]
fn multigrid_converges_in_a_number_of_iterations_independent_of_the_mesh() {
    // A soft lattice with a small mass term: the condition number grows as
    // n², about 4× from 12³ to 24³ nodes (plain CG's iterations double).
    let small = iterations(12, 1e-3);
    let large = iterations(24, 1e-3);
    assert!(small <= 20, "{small} iterations at 12³");
    assert!(
        large <= small + 4,
        "{small} iterations at 12³, {large} at 24³"
    );
}

/// PCG with `amg` (its own Hessian products) solves `a d = −g` to the
/// direct solution within 1e-9 of its largest entry.
fn assert_solves_to_the_direct_solution(a: &SparseColMat<usize, f64>, amg: &Amg, g: &[f64]) {
    let mut it = 0;
    let d = pcg(
        &|x, y| assert!(amg.mul_fine(x, y, true)),
        g,
        amg,
        1e-12,
        200,
        &mut it,
    )
    .ok()
    .unwrap();
    let solver = crate::linsolve::LinearSolver::new(a.symbolic()).unwrap();
    let neg: Vec<f64> = g.iter().map(|v| -v).collect();
    let exact = solver.factor(a.as_ref()).unwrap().solve(&neg);
    let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (x, y) in d.iter().zip(&exact) {
        assert!((x - y).abs() <= 1e-9 * scale, "{x} vs {y}");
    }
}

#[test]
fn the_preconditioned_solution_is_the_direct_one() {
    let (a, nodes, b) = lattice(14, 1e-2);
    let amg = Amg::build(a.as_ref(), nodes, b, 6).unwrap();
    assert_solves_to_the_direct_solution(&a, &amg, &rhs(a.ncols()));
}

#[test]
fn a_v_cycle_is_bitwise_the_same_on_one_and_two_threads() {
    let (a, nodes, b) = lattice(16, 1e-2);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let amg = Amg::build(a.as_ref(), nodes.clone(), b.clone(), 6).unwrap();
            amg.apply(&rhs(a.ncols()), true)
        })
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn repeated_v_cycles_are_bitwise_the_same_whichever_way_the_products_ran() {
    // On two threads, so that parallel products split their rows.
    let (a, nodes, b) = lattice(16, 1e-2);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let amg = Amg::build(a.as_ref(), nodes, b, 6).unwrap();
        let r = rhs(a.ncols());
        let parallel = amg.apply(&r, true);
        assert_eq!(amg.apply(&r, false), parallel);
        let (mut y_par, mut y_seq) = (vec![0.0; r.len()], vec![0.0; r.len()]);
        assert!(amg.mul_fine(&r, &mut y_par, true));
        assert!(amg.mul_fine(&r, &mut y_seq, false));
        assert_eq!(y_par, y_seq);
    });
}

#[test]
fn an_indefinite_matrix_is_refused_with_an_error() {
    let (mut a, nodes, b) = lattice(14, 1e-2);
    // Flip the sign of the whole matrix: every diagonal entry is negative.
    for v in a.val_mut() {
        *v = -*v;
    }
    let err = Amg::build(a.as_ref(), nodes, b, 6).unwrap_err();
    assert!(err.to_string().contains("not positive"), "{err}");
}

#[test]
fn a_finest_level_by_rows_solves_and_refreshes_in_double_precision() {
    // Nodes paired into groups of six unknowns: not node triples, so the
    // finest level is stored by rows (exact and single-precision copies).
    let (mut a, nodes, b) = lattice(12, 1e-2);
    let pairs = Nodes {
        ptr: nodes.ptr.iter().step_by(2).copied().collect(),
    };
    assert_eq!(*pairs.ptr.last().unwrap(), a.ncols());
    let mut amg = Amg::build(a.as_ref(), pairs, b, 6).unwrap();
    assert!(amg.sizes().len() >= 2, "{:?}", amg.sizes());
    let g = rhs(a.ncols());
    assert_eq!(amg.apply(&g, true), amg.apply(&g, false));
    assert_solves_to_the_direct_solution(&a, &amg, &g);
    // A refreshed Hessian reaches the exact products (not the rounded ones).
    a.val_mut().iter_mut().for_each(|v| *v *= 3.0);
    amg.refresh(a.as_ref()).unwrap();
    let (mut got, mut want) = (vec![0.0; g.len()], vec![0.0; g.len()]);
    assert!(amg.mul_fine(&g, &mut got, false));
    hessian_mul(a.as_ref(), &g, &mut want);
    for (x, y) in got.iter().zip(&want) {
        assert!((x - y).abs() <= 1e-12 * y.abs().max(1.0), "{x} vs {y}");
    }
}

#[test]
fn a_3d_lattice_multiplies_by_node_blocks_on_every_level() {
    let (a, nodes, b) = lattice(20, 1e-2);
    let amg = Amg::build(a.as_ref(), nodes, b, 6).unwrap();
    assert!(amg.levels.len() >= 2, "{:?}", amg.sizes());
    assert!(matches!(amg.levels[0].a, Operator::Blocks(_)));
    for (l, level) in amg.levels.iter().enumerate() {
        if l > 0 {
            assert!(
                matches!(level.a, Operator::Coarse(Packed::Blocks(_))),
                "level {l}"
            );
        }
        assert!(matches!(level.p, Packed::Blocks(_)), "level {l}");
        assert!(matches!(level.r, Packed::Blocks(_)), "level {l}");
    }
    assert_solves_to_the_direct_solution(&a, &amg, &rhs(a.ncols()));
}

/// The trilinear prolongation from the `(n + 1)³`-node lattice of spacing
/// 2 to the `(2n + 1)³`-node lattice of spacing 1 (three unknowns a node).
fn trilinear(n: usize) -> super::csr::Csr {
    let (nf, nc) = (2 * n + 1, n + 1);
    let axis = |i: usize| -> Vec<(usize, f64)> {
        if i.is_multiple_of(2) {
            vec![(i / 2, 1.0)]
        } else {
            vec![(i / 2, 0.5), (i / 2 + 1, 0.5)]
        }
    };
    let mut ptr = vec![0];
    let (mut idx, mut val) = (Vec::new(), Vec::new());
    for i in 0..nf {
        for j in 0..nf {
            for l in 0..nf {
                let mut w = Vec::new();
                for &(a, wa) in &axis(i) {
                    for &(b, wb) in &axis(j) {
                        for &(c, wc) in &axis(l) {
                            w.push(((a * nc + b) * nc + c, wa * wb * wc));
                        }
                    }
                }
                w.sort_by_key(|e| e.0);
                for x in 0..3 {
                    for &(c, v) in &w {
                        idx.push((3 * c + x) as u32);
                        val.push(v);
                    }
                    ptr.push(idx.len());
                }
            }
        }
    }
    super::csr::Csr {
        n_cols: 3 * nc * nc * nc,
        ptr,
        idx,
        val,
    }
}

/// A geometric hierarchy of lattices: the `(2n + 1)³` lattice over the
/// rediscretized `(n + 1)³` lattice of spacing 2 (springs twice as stiff,
/// nodes eight times as heavy: `2 (K₁ + 4 m I)` in unit-spacing terms).
fn geometric(n: usize, mass: f64) -> (SparseColMat<usize, f64>, Amg) {
    let (a, _, _) = lattice(2 * n + 1, mass);
    let (coarse, _, _) = lattice(n + 1, 4.0 * mass);
    let (mut c, _) = super::csr::Csr::from_lower(coarse.as_ref(), coarse.ncols());
    c.val.iter_mut().for_each(|v| *v *= 2.0);
    let p = trilinear(n);
    let r = p.transpose();
    let level = super::GeometricLevel { p: &p, r: &r, a: c };
    let amg = Amg::build_geometric(a.as_ref(), a.ncols(), 3, vec![level]).unwrap();
    (a, amg)
}

#[test]
fn a_geometric_hierarchy_solves_to_the_direct_solution() {
    let (a, amg) = geometric(6, 1e-2);
    assert_eq!(amg.sizes(), &[3 * 13 * 13 * 13, 3 * 7 * 7 * 7]);
    assert_solves_to_the_direct_solution(&a, &amg, &rhs(a.ncols()));
}

#[test]
fn a_geometric_hierarchy_converges_in_a_number_of_iterations_independent_of_the_mesh() {
    let iterations = |n: usize| {
        let (a, amg) = geometric(n, 1e-3);
        pcg_iterations(&a, &amg)
    };
    let (small, large) = (iterations(5), iterations(10));
    assert!(small <= 25, "{small} iterations at 11³ nodes");
    assert!(
        large <= small + 5,
        "{small} iterations at 11³ nodes, {large} at 21³"
    );
}

#[test]
fn levels_that_do_not_chain_are_refused() {
    let (a, _, _) = lattice(9, 1e-2);
    let (coarse, _, _) = lattice(5, 4e-2);
    let (c, _) = super::csr::Csr::from_lower(coarse.as_ref(), coarse.ncols());
    // The prolongation of a 13³ lattice does not fit a 9³ one.
    let p = trilinear(6);
    let r = p.transpose();
    let level = super::GeometricLevel { p: &p, r: &r, a: c };
    let e = Amg::build_geometric(a.as_ref(), a.ncols(), 3, vec![level]).unwrap_err();
    assert!(e.to_string().contains("prolongation"), "{e}");
}

/// Three lattice levels (`4n + 1`, `2n + 1`, `n + 1` nodes a side) with
/// nodal mass `mass` on the finest, rediscretized as [`geometric`]'s: the
/// finest matrix, the two coarser operators, and the prolongations to the
/// next finer level.
#[allow(clippy::type_complexity)]
pub(crate) fn three_levels(
    n: usize,
    mass: f64,
) -> (
    SparseColMat<usize, f64>,
    [super::csr::Csr; 2],
    [super::csr::Csr; 2],
) {
    let (a, _, _) = lattice(4 * n + 1, mass);
    let coarse = |m: usize, scale: f64, mass: f64| {
        let (c, _, _) = lattice(m, mass);
        let (mut c, _) = super::csr::Csr::from_lower(c.as_ref(), c.ncols());
        c.val.iter_mut().for_each(|v| *v *= scale);
        c
    };
    let ops = [
        coarse(2 * n + 1, 2.0, 4.0 * mass),
        coarse(n + 1, 4.0, 16.0 * mass),
    ];
    (a, ops, [trilinear(2 * n), trilinear(n)])
}

/// [`three_levels`]' coarse operators `ops` with their prolongations `p`
/// and restrictions `r`, as the levels of a geometric hierarchy.
pub(crate) fn chained<'a>(
    ops: [super::csr::Csr; 2],
    p: &'a [super::csr::Csr; 2],
    r: &'a [super::csr::Csr; 2],
) -> Vec<super::GeometricLevel<'a>> {
    ops.into_iter()
        .zip(p.iter().zip(r))
        .map(|(a, (p, r))| super::GeometricLevel { p, r, a })
        .collect()
}

#[test]
fn a_rebuilt_geometric_hierarchy_is_the_one_built_anew() {
    let (a1, ops1, p) = three_levels(3, 1e-2);
    let (a2, ops2, _) = three_levels(3, 3e-3);
    let r = [p[0].transpose(), p[1].transpose()];
    let levels = |ops| chained(ops, &p, &r);
    let n = a1.ncols();
    let mut rebuilt = Amg::build_geometric(a1.as_ref(), n, 3, levels(ops1)).unwrap();
    assert_eq!(rebuilt.sizes().len(), 3);
    let before = rebuilt.apply(&rhs(n), false);
    rebuilt.mark_stale();
    assert!(rebuilt.is_stale());
    rebuilt
        .rebuild_geometric(a2.as_ref(), 3, levels(ops2.clone()))
        .unwrap();
    assert!(!rebuilt.is_stale());
    let anew = Amg::build_geometric(a2.as_ref(), n, 3, levels(ops2)).unwrap();
    let b = rhs(n);
    for par in [false, true] {
        let (x, y) = (rebuilt.apply(&b, par), anew.apply(&b, par));
        assert!(
            x.iter().zip(&y).all(|(u, v)| u.to_bits() == v.to_bits()),
            "the rebuilt hierarchy's V-cycle differs from the new one's (parallel: {par})"
        );
    }
    // The rebuild changed it (the masses differ by 3.3×).
    let after = rebuilt.apply(&b, false);
    let moved = before
        .iter()
        .zip(&after)
        .map(|(u, v)| (u - v).abs())
        .fold(0.0, f64::max);
    assert!(moved > 1e-6, "the V-cycle moved by {moved:e} only");
    // Levels that do not chain with the hierarchy's are refused.
    let (_, other, _) = three_levels(2, 1e-2);
    assert!(!rebuilt.can_rebuild(a2.as_ref(), &levels(other.clone())));
    assert!(
        rebuilt
            .rebuild_geometric(a2.as_ref(), 3, levels(other))
            .is_err()
    );
    // So is a Hessian of another pattern, and a hierarchy by aggregation.
    let (small, _, _) = three_levels(2, 1e-2);
    let (_, same, _) = three_levels(3, 1e-2);
    assert!(rebuilt.can_rebuild(a2.as_ref(), &levels(same.clone())));
    assert!(!rebuilt.can_rebuild(small.as_ref(), &levels(same.clone())));
    let (lat, nodes, modes) = lattice(13, 1e-2);
    assert_eq!(lat.ncols(), a2.ncols());
    let by_aggregation = Amg::build(lat.as_ref(), nodes, modes, 6).unwrap();
    assert!(!by_aggregation.can_rebuild(a2.as_ref(), &levels(same)));
}
