//! Algebraic multigrid by smoothed aggregation: the preconditioner of
//! [`crate::Directions::Amg`] for large meshes, whose Cholesky factors grow
//! faster than the mesh (a 3-D nested-dissection factor holds about
//! `n^(4/3)` entries and costs `n²` operations; one V-cycle costs a few
//! Hessian products, so PCG with it costs about `n` per iteration).
//!
//! Setup (Vaněk, Mandel and Brezina, Computing 56, 1996; Brezina's
//! rigid-body near-null space for elasticity):
//! 1. the unknowns are grouped by node (a mesh node's free coordinates);
//!    nodes `I`, `J` are strongly coupled when
//!    `‖A_IJ‖_F ≥ θ √(‖A_II‖_F ‖A_JJ‖_F)`;
//! 2. nodes are aggregated greedily (a root with its strong neighbours);
//! 3. the tentative prolongator `T` fits the near-null space `B` (the
//!    rigid motions of the nodes: 3 translations and 3 rotations in 3-D,
//!    2 and 1 in 2-D) exactly on each aggregate, `B_a = Q_a R_a`;
//! 4. `P = (I − ω D⁻¹ A) T`, `ω = 4 / (3 ρ(D⁻¹A))`, and the coarse
//!    operator is Galerkin's `A_c = Pᵀ A P` with near-null space `R`
//!    (the products by node blocks, `block_csr`);
//! 5. levels are added until at most [`COARSEST`] unknowns remain (or
//!    coarsening stalls, or [`MAX_LEVELS`] is reached), which a sparse
//!    Cholesky factorization solves.
//!
//! One application is a V-cycle with Chebyshev smoothing of degree
//! [`DEGREE`] on `D⁻¹A` before and after the coarse correction: a
//! symmetric positive definite operator, as conjugate gradients needs.
//! The V-cycle's products read the operators' entries rounded to single
//! precision (summed in double): they stream memory, and the rounded
//! operators are still symmetric (`R = Pᵀ` entry by entry). They stay
//! positive definite unless `D⁻¹A`'s condition number nears
//! `1/ε_single ≈ 10⁷`; PCG then reports a preconditioner that is not
//! positive definite and Newton factorizes the direction. Conjugate
//! gradients' own products with the Hessian ([`Amg::mul_fine`]) stay in
//! double precision, so the solution is that of the exact Hessian.
//! Every product sums each row in a fixed order, so results do not depend
//! on the number of threads, nor on whether a V-cycle's products ran in
//! parallel or on the calling thread (the caller decides, by timing whole
//! V-cycles with a `ParallelChoice`: parallel products lose beside another
//! busy process).

pub(crate) mod aggregate;
mod block_csr;
mod blocks;
pub(crate) mod csr;
pub(crate) mod modes;
mod packed;
pub(crate) mod prolong;
mod spectrum;

use crate::error::{CoreError, Result};
use crate::linsolve::{Factor, LinearSolver};
use aggregate::{Nodes, aggregate, strong_neighbours};
use block_csr::BlockCsr;
use blocks::Blocks3;
use csr::Csr;
use faer::sparse::SparseColMatRef;
use packed::Packed;
use spectrum::{checked_lambda_max, operator_lambda_max};

/// Levels stop coarsening at this many unknowns (solved directly).
pub(crate) const COARSEST: usize = 2_000;

/// Most levels of a hierarchy.
const MAX_LEVELS: usize = 12;

/// Strength-of-connection threshold θ: 0, every neighbour is strong (on the
/// 20³-cell block θ = 0.08 made smaller aggregates and took 2.2× the time:
/// 19.4 s against 9.0 s per simulated second, `cargo bench --bench
/// fem_block -- 20 --amg`, 2026-11-27).
const THETA: f64 = 0.0;

/// Degree of the Chebyshev smoother, before and after the coarse correction
/// (degrees 1, 2, 3, 4 took 12.0, 9.0, 9.6 and 10.3 s per simulated second
/// on the 20³-cell block, measured as [`THETA`]).
pub(crate) const DEGREE: usize = 2;

/// The Chebyshev smoother damps the eigenvalues of `D⁻¹A` in
/// `[λ_max / SMOOTH_RATIO, λ_max]`; the rest is the coarse levels' work.
const SMOOTH_RATIO: f64 = 30.0;

/// A level's operator. The V-cycle smooths with its entries rounded to
/// single precision (its products stream memory, and a preconditioner
/// need only be close: the rounded operator is still symmetric, and the
/// coarse operators are Galerkin products taken in double precision); the
/// double-precision entries are kept only on the finest level, for the
/// Hessian products of conjugate gradients ([`Amg::mul_fine`]).
enum Operator {
    /// The finest level by rows (its nodes are not all triples).
    Rows { exact: Csr, single: Csr<f32> },
    /// The finest level of a mesh whose free nodes all have three free
    /// coordinates, by 3 × 3 node blocks.
    Blocks(Blocks3),
    /// A coarse level (single precision only), by node blocks where its
    /// nodes have one size.
    Coarse(Packed),
}

impl Operator {
    /// `y = A x` with the single-precision entries.
    fn mul_single(&self, x: &[f64], y: &mut [f64], parallel: bool) {
        match self {
            Operator::Rows { single, .. } => single.mul_vec_on(x, y, parallel),
            Operator::Blocks(a) => a.mul_single(x, y, parallel),
            Operator::Coarse(a) => a.mul_vec_on(x, y, parallel),
        }
    }

    /// `y = A x` with the double-precision entries; `false` when they were
    /// not kept (a coarse level).
    fn mul_exact(&self, x: &[f64], y: &mut [f64], parallel: bool) -> bool {
        match self {
            Operator::Coarse(_) => return false,
            Operator::Rows { exact, .. } => exact.mul_vec_on(x, y, parallel),
            Operator::Blocks(a) => a.mul_vec(x, y, parallel),
        }
        true
    }
}

/// One level: its operator, `D⁻¹`, the prolongator to it from the next
/// coarser level and its transpose (both in single precision, as the
/// smoother's entries, by node blocks where the nodes of both levels have
/// one size each), and `λ_max(D⁻¹A)`.
struct Level {
    a: Operator,
    inv_diag: Vec<f64>,
    p: Packed,
    r: Packed,
    lambda_max: f64,
}

/// A smoothed-aggregation hierarchy (see the module doc).
pub(crate) struct Amg {
    levels: Vec<Level>,
    /// Refreshes the finest operator from a new Hessian.
    fine_map: csr::LowerMap,
    coarsest: Factor,
    /// Unknowns per level, finest first (the coarsest included).
    sizes: Vec<usize>,
    /// Stored entries of all operators over those of the finest.
    complexity: f64,
    /// Stored entries of the finest operator (both triangles; at least 1).
    fine_nnz: usize,
    /// Chebyshev degree of the smoother ([`DEGREE`] by aggregation,
    /// [`GEOMETRIC_DEGREE`] on a geometric hierarchy).
    degree: usize,
    /// See [`Amg::mark_stale`].
    stale: bool,
    /// Built by [`Amg::build_geometric`] (its prolongations fixed by
    /// meshes, so [`Amg::rebuild_geometric`] may keep them).
    geometric: bool,
}

/// A coarser level of a geometric hierarchy ([`Amg::build_geometric`]):
/// the prolongation `P` from its unknowns to the next finer level's (rows:
/// the finer unknowns) and its own operator, both triangles (a coarser
/// discretization of the same energies, not `Pᵀ A P`).
pub(crate) struct GeometricLevel<'a> {
    pub(crate) p: &'a Csr,
    /// `Pᵀ`, the restriction (kept with `P` by the caller: both are fixed
    /// by the meshes, the operator changes with the iterate).
    pub(crate) r: &'a Csr,
    pub(crate) a: Csr,
}

/// Chebyshev degree on geometric hierarchies. In the manta ray's Newton
/// solves on its refinements (`PLIANT_DIRECTIONS=geometric
/// PLIANT_MANTA_REFINE=3 cargo bench --bench shell -- scaling`,
/// 2026-12-01, V-cycles) degrees 2, 3, 4 and 6 took 45.6, 35.0, 32.8 and
/// 31.0 PCG iterations and 640, 411, 437 and 550 ms per step at 22,400
/// triangles; at 358,400 degree 3 took 44.8 iterations (12.9 s per step)
/// and degree 4 32.6 (10.1 s): 4 keeps the count flat.
pub(crate) const GEOMETRIC_DEGREE: usize = 4;

impl std::fmt::Debug for Amg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Amg")
            .field("sizes", &self.sizes)
            .field("complexity", &self.complexity)
            .finish()
    }
}

fn failure(detail: String) -> CoreError {
    CoreError::LinearSolve {
        what: "multigrid setup",
        detail,
    }
}

/// The sparse Cholesky factor of the coarsest level's operator `op`, or an
/// error when it is not positive definite.
fn coarsest_factor(op: &Csr) -> Result<Factor> {
    let lower = op.lower();
    let solver = LinearSolver::new(lower.symbolic())?;
    solver.factor(lower.as_ref()).map_err(|e| {
        failure(format!(
            "the coarsest level ({} unknowns) is not positive definite: {e}",
            op.n_rows()
        ))
    })
}

/// `D⁻¹` and `λ_max(D⁻¹A)` of level `level`'s operator `op`, or an error on
/// a diagonal entry that is not positive.
fn smoother_data(op: &Csr, level: usize) -> Result<(Vec<f64>, f64)> {
    let inv_diag = inverse_diagonal(op, level)?;
    let lambda = checked_lambda_max(op, &inv_diag, level)?;
    Ok((inv_diag, lambda))
}

/// Level `level` of a geometric hierarchy from its operator `op` (0: the
/// finest): the operator as the V-cycle stores it ([`level_operator`]),
/// `D⁻¹` and `λ_max(D⁻¹A)` ([`operator_lambda_max`]).
fn geometric_level(
    op: Csr,
    level: usize,
    size: Option<usize>,
    map: &csr::LowerMap,
) -> Result<(Operator, Vec<f64>, f64)> {
    let inv_diag = inverse_diagonal(&op, level)?;
    let op = level_operator(op, level == 0, size, map);
    let lambda = operator_lambda_max(&op, &inv_diag, level)?;
    Ok((op, inv_diag, lambda))
}

/// `D⁻¹` of level `level`'s operator `op`, or an error naming the first
/// diagonal entry that is not positive.
fn inverse_diagonal(op: &Csr, level: usize) -> Result<Vec<f64>> {
    let diag = op.diagonal();
    if let Some(i) = diag.iter().position(|&d| !(d > 0.0 && d.is_finite())) {
        return Err(failure(format!(
            "diagonal entry {i} of level {level} is {:e}, not positive",
            diag[i]
        )));
    }
    Ok(diag.iter().map(|d| 1.0 / d).collect())
}

/// A level's operator as the V-cycle stores it: on the finest level
/// (`finest`) by 3 × 3 node blocks where its nodes are triples (`map`
/// refreshes them), else by rows in both precisions; below it in single
/// precision, by node blocks where its nodes have one `size`.
fn level_operator(a: Csr, finest: bool, size: Option<usize>, map: &csr::LowerMap) -> Operator {
    match (finest, size) {
        (true, Some(3)) => Operator::Blocks(Blocks3::from_csr(&a, map)),
        (true, _) => Operator::Rows {
            single: a.single(),
            exact: a,
        },
        (false, _) => Operator::Coarse(Packed::new(&a, size, size)),
    }
}

impl Amg {
    /// Builds the hierarchy for the symmetric positive definite matrix whose
    /// lower triangle over its first `nodes`' unknowns is `a`, with the
    /// near-null space `b` (row-major, `k` columns, a row per unknown).
    /// Fails (a [`CoreError::LinearSolve`]) when a diagonal entry is not
    /// positive or the coarsest level is not positive definite: the caller
    /// then takes a factorization.
    pub(crate) fn build(
        a: SparseColMatRef<'_, usize, f64>,
        nodes: Nodes,
        b: Vec<f64>,
        k: usize,
    ) -> Result<Amg> {
        let n = nodes.ptr[nodes.len()];
        // Indices are 32-bit (see `Csr`).
        let lower_entries = a.symbolic().col_ptr().get(n).copied().unwrap_or(0);
        if n >= u32::MAX as usize || lower_entries >= u32::MAX as usize {
            return Err(failure(format!(
                "{n} unknowns and {lower_entries} Hessian entries exceed 32-bit indices"
            )));
        }
        let (mut op, fine_map) = Csr::from_lower(a, n);
        let (mut nodes, mut b) = (nodes, b);
        let mut levels = Vec::new();
        let mut sizes = vec![n];
        let fine_nnz = op.nnz().max(1);
        let mut total_nnz = op.nnz();
        while op.n_rows() > COARSEST && levels.len() + 1 < MAX_LEVELS {
            let (inv_diag, lambda) = smoother_data(&op, levels.len())?;
            let strong = strong_neighbours(&op, &nodes, THETA);
            let (agg, n_agg) = aggregate(&strong);
            let tent = prolong::tentative(&nodes, &agg, n_agg, &b, k);
            let n_coarse = tent.t.n_cols;
            if n_coarse == 0 || n_coarse * 10 > op.n_rows() * 9 {
                // Coarsening stalled: solve this level directly.
                break;
            }
            // Galerkin's product by node blocks (`block_csr`), each
            // intermediate dropped as soon as it is used.
            let a_blocks = BlockCsr::from_csr(&op, &nodes, &nodes);
            let p_blocks = {
                let t_blocks = BlockCsr::from_csr(&tent.t, &nodes, &tent.coarse);
                prolong::smooth(&a_blocks, &t_blocks, &inv_diag, lambda)
            };
            let ap = a_blocks.mul(&p_blocks);
            drop(a_blocks);
            let r_blocks = p_blocks.transpose();
            let p = p_blocks.to_csr();
            drop(p_blocks);
            let coarse = r_blocks.mul(&ap).to_csr();
            drop(ap);
            let r = r_blocks.to_csr();
            total_nnz += coarse.nnz();
            sizes.push(coarse.n_rows());
            let fine = std::mem::replace(&mut op, coarse);
            let (size, coarse_size) = (nodes.size(), tent.coarse.size());
            let fine = level_operator(fine, levels.is_empty(), size, &fine_map);
            levels.push(Level {
                a: fine,
                inv_diag,
                p: Packed::new(&p, size, coarse_size),
                r: Packed::new(&r, coarse_size, size),
                lambda_max: lambda,
            });
            nodes = tent.coarse;
            b = tent.coarse_b;
        }
        let coarsest = coarsest_factor(&op)?;
        Ok(Amg {
            levels,
            fine_map,
            coarsest,
            sizes,
            complexity: total_nnz as f64 / fine_nnz as f64,
            fine_nnz,
            degree: DEGREE,
            stale: false,
            geometric: false,
        })
    }

    /// A hierarchy over given coarser levels (geometric multigrid on nested
    /// meshes, finest first): the finest operator is the matrix whose lower
    /// triangle over its first `n` unknowns is `a`, grouped in nodes of
    /// `node_size` unknowns; each level of `coarse` brings its prolongation
    /// and its own operator; the last is factorized. V-cycles are smoothed
    /// by Chebyshev of degree [`GEOMETRIC_DEGREE`] (in Newton's solves on the
    /// manta ray a W-cycle took as many PCG iterations, 32.8 against 33.4
    /// per step at 22,400 triangles, at 1.6 times the time).
    /// Fails (a [`CoreError::LinearSolve`]) on sizes that do not chain, a
    /// diagonal entry that is not positive or a coarsest level that is not
    /// positive definite: the caller then takes a factorization.
    pub(crate) fn build_geometric(
        a: SparseColMatRef<'_, usize, f64>,
        n: usize,
        node_size: usize,
        coarse: Vec<GeometricLevel<'_>>,
    ) -> Result<Amg> {
        let lower_entries = a.symbolic().col_ptr().get(n).copied().unwrap_or(0);
        if n >= u32::MAX as usize || lower_entries >= u32::MAX as usize {
            return Err(failure(format!(
                "{n} unknowns and {lower_entries} Hessian entries exceed 32-bit indices"
            )));
        }
        let (mut op, fine_map) = Csr::from_lower(a, n);
        let fine_nnz = op.nnz().max(1);
        let (mut sizes, mut total_nnz) = (vec![n], op.nnz());
        let mut levels = Vec::new();
        let size = Some(node_size);
        for c in coarse {
            if c.p.n_rows() != op.n_rows()
                || c.p.n_cols != c.a.n_rows()
                || c.r.n_rows() != c.p.n_cols
                || c.r.n_cols != c.p.n_rows()
            {
                return Err(failure(format!(
                    "level {}: a prolongation of {} × {} between levels of {} and {} unknowns",
                    levels.len() + 1,
                    c.p.n_rows(),
                    c.p.n_cols,
                    op.n_rows(),
                    c.a.n_rows()
                )));
            }
            sizes.push(c.a.n_rows());
            total_nnz += c.a.nnz();
            let fine = std::mem::replace(&mut op, c.a);
            let (fine, inv_diag, lambda) = geometric_level(fine, levels.len(), size, &fine_map)?;
            levels.push(Level {
                a: fine,
                inv_diag,
                p: Packed::new(c.p, size, size),
                r: Packed::new(c.r, size, size),
                lambda_max: lambda,
            });
        }
        let coarsest = coarsest_factor(&op)?;
        Ok(Amg {
            levels,
            fine_map,
            coarsest,
            sizes,
            complexity: total_nnz as f64 / fine_nnz as f64,
            fine_nnz,
            degree: GEOMETRIC_DEGREE,
            stale: false,
            geometric: true,
        })
    }

    /// Rebuilds a geometric hierarchy ([`Amg::build_geometric`]) for the
    /// Hessian `a` and new coarse operators `coarse`, keeping what the
    /// meshes fix: the finest level's pattern (its entries refreshed from
    /// `a`, as [`Amg::refresh`]) and every level's prolongation and
    /// restriction (those of `coarse` are not read). The hierarchy is the
    /// one [`Amg::build_geometric`] would build from the same arguments.
    /// Fails as that would, and when [`Amg::can_rebuild`] says no; the
    /// coarse levels are then as they were (the finest may hold `a`'s
    /// entries).
    pub(crate) fn rebuild_geometric(
        &mut self,
        a: SparseColMatRef<'_, usize, f64>,
        node_size: usize,
        coarse: Vec<GeometricLevel<'_>>,
    ) -> Result<()> {
        if !self.can_rebuild(a, &coarse) {
            return Err(failure(format!(
                "a rebuild with coarse levels of {:?} unknowns, the hierarchy ({}) has {:?}{}",
                coarse.iter().map(|c| c.a.n_rows()).collect::<Vec<_>>(),
                if self.geometric {
                    "geometric"
                } else {
                    "by aggregation"
                },
                &self.sizes[1..],
                if self.fine_map.fits(a) {
                    ""
                } else {
                    ", and the Hessian's sparsity pattern changed"
                }
            )));
        }
        let total_nnz = self.fine_nnz + coarse.iter().map(|c| c.a.nnz()).sum::<usize>();
        let mut ops: Vec<Csr> = coarse.into_iter().map(|c| c.a).collect();
        let coarsest = coarsest_factor(&ops.pop().expect("at least one coarse level"))?;
        let mut new = Vec::with_capacity(ops.len());
        for (j, op) in ops.into_iter().enumerate() {
            new.push(geometric_level(op, j + 1, Some(node_size), &self.fine_map)?);
        }
        self.refresh(a)?;
        let fine = &self.levels[0];
        let fine_lambda = operator_lambda_max(&fine.a, &fine.inv_diag, 0)?;
        self.levels[0].lambda_max = fine_lambda;
        for (l, (op, inv_diag, lambda)) in self.levels[1..].iter_mut().zip(new) {
            l.a = op;
            l.inv_diag = inv_diag;
            l.lambda_max = lambda;
        }
        self.coarsest = coarsest;
        self.complexity = total_nnz as f64 / self.fine_nnz as f64;
        self.stale = false;
        Ok(())
    }

    /// Whether [`Amg::rebuild_geometric`] can rebuild this hierarchy for
    /// the Hessian `a` and the levels `coarse`: it was built by
    /// [`Amg::build_geometric`], `a` has its finest pattern, and `coarse`
    /// its coarser levels (their numbers of unknowns).
    pub(crate) fn can_rebuild(
        &self,
        a: SparseColMatRef<'_, usize, f64>,
        coarse: &[GeometricLevel<'_>],
    ) -> bool {
        self.geometric
            && self.fine_map.fits(a)
            && !self.levels.is_empty()
            && coarse.len() == self.levels.len()
            && coarse
                .iter()
                .zip(&self.sizes[1..])
                .all(|(c, &n)| c.a.n_rows() == n)
    }

    /// Marks the hierarchy for a rebuild before its next use (its coarse
    /// levels are from an older Hessian than its last solves wanted).
    pub(crate) fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// Whether [`Amg::mark_stale`] was called since it was built.
    pub(crate) fn is_stale(&self) -> bool {
        self.stale
    }

    /// Replaces the finest operator by `a` (a new Hessian over the same
    /// unknowns) and keeps the coarse levels: the smoother and [`Amg::mul_fine`]
    /// then use the current Hessian, the coarse correction the one the
    /// hierarchy was built from (a preconditioner need only be close).
    /// Fails as [`Amg::build`] on a diagonal entry that is not positive.
    pub(crate) fn refresh(&mut self, a: SparseColMatRef<'_, usize, f64>) -> Result<()> {
        let Some(fine) = self.levels.first_mut() else {
            return Ok(());
        };
        if !self.fine_map.fits(a) {
            return Err(failure("the Hessian's sparsity pattern changed".into()));
        }
        let diag = match &mut fine.a {
            Operator::Rows {
                exact: rows,
                single,
            } => {
                rows.refresh_from_lower(a, &self.fine_map);
                rows.round_into(single);
                rows.diagonal()
            }
            // Never: the finest level keeps its double-precision entries.
            Operator::Coarse(_) => {
                return Err(failure("the finest level lost its entries".into()));
            }
            Operator::Blocks(blocks) => {
                blocks.refresh(a);
                blocks.diagonal()
            }
        };
        if let Some(i) = diag.iter().position(|&d| !(d > 0.0 && d.is_finite())) {
            return Err(failure(format!(
                "diagonal entry {i} is {:e}, not positive",
                diag[i]
            )));
        }
        fine.inv_diag = diag.iter().map(|d| 1.0 / d).collect();
        Ok(())
    }

    /// `y = A x` with the finest operator (the Hessian it was built or last
    /// refreshed from), its rows in parallel when `parallel`; `false` (and `y` untouched) when the
    /// hierarchy has no level above its direct solve.
    pub(crate) fn mul_fine(&self, x: &[f64], y: &mut [f64], parallel: bool) -> bool {
        match self.levels.first() {
            Some(l) => l.a.mul_exact(x, y, parallel),
            None => false,
        }
    }

    /// Unknowns per level, finest first.
    pub(crate) fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Operator complexity: stored entries of all levels over the finest's.
    pub(crate) fn complexity(&self) -> f64 {
        self.complexity
    }

    /// One V-cycle for `A z = r` from `z = 0`, its products in parallel
    /// when `parallel` (the same result either way).
    pub(crate) fn apply(&self, r: &[f64], parallel: bool) -> Vec<f64> {
        self.cycle(0, r, parallel)
    }

    fn cycle(&self, l: usize, b: &[f64], par: bool) -> Vec<f64> {
        let Some(level) = self.levels.get(l) else {
            return self.coarsest.solve(b);
        };
        let n = b.len();
        let mut x = vec![0.0; n];
        level.chebyshev(b, &mut x, true, par, self.degree);
        let mut res = vec![0.0; n];
        level.residual(b, &x, &mut res, par);
        let mut rc = vec![0.0; level.r.n_rows()];
        level.r.mul_vec_on(&res, &mut rc, par);
        let xc = self.cycle(l + 1, &rc, par);
        level.p.mul_vec_on(&xc, &mut res, par);
        for (xi, c) in x.iter_mut().zip(&res) {
            *xi += c;
        }
        level.chebyshev(b, &mut x, false, par, self.degree);
        x
    }
}

impl Level {
    /// `y = b − A x`.
    fn residual(&self, b: &[f64], x: &[f64], y: &mut [f64], par: bool) {
        self.a.mul_single(x, y, par);
        for (yi, bi) in y.iter_mut().zip(b) {
            *yi = bi - *yi;
        }
    }

    /// `degree` steps of Chebyshev iteration on `D⁻¹A x = D⁻¹b` over
    /// `[λ_max / SMOOTH_RATIO, λ_max]` (Saad, "Iterative methods for sparse
    /// linear systems", Alg. 12.1); `zero` says `x` is zero on entry; the
    /// products in parallel when `par`.
    fn chebyshev(&self, b: &[f64], x: &mut [f64], zero: bool, par: bool, degree: usize) {
        let (hi, lo) = (self.lambda_max, self.lambda_max / SMOOTH_RATIO);
        let (theta, delta) = (0.5 * (hi + lo), 0.5 * (hi - lo));
        let sigma = theta / delta;
        let mut rho = 1.0 / sigma;
        let n = b.len();
        let mut r = vec![0.0; n];
        if zero {
            r.copy_from_slice(b);
        } else {
            self.residual(b, x, &mut r, par);
        }
        let mut d: Vec<f64> = r
            .iter()
            .zip(&self.inv_diag)
            .map(|(ri, di)| ri * di / theta)
            .collect();
        let mut ad = vec![0.0; n];
        for step in 0..degree {
            for (xi, di) in x.iter_mut().zip(&d) {
                *xi += di;
            }
            if step + 1 == degree {
                break;
            }
            self.a.mul_single(&d, &mut ad, par);
            for (ri, adi) in r.iter_mut().zip(&ad) {
                *ri -= adi;
            }
            let rho_next = 1.0 / (2.0 * sigma - rho);
            let (c1, c2) = (rho_next * rho, 2.0 * rho_next / delta);
            for ((di, ri), inv) in d.iter_mut().zip(&r).zip(&self.inv_diag) {
                *di = c1 * *di + c2 * ri * inv;
            }
            rho = rho_next;
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
