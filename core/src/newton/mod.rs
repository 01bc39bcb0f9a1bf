//! Newton's method on the incremental potential; see [`NewtonSettings`].

mod directions;
mod floors;
mod multigrid;
pub(crate) mod pcg;
mod potential;
mod settings;
mod start;
mod ways;

use directions::{AMG_MAX_FORCING, Mode};
pub use directions::{
    AMG_MAX_ITERATIONS, AMG_MIN_FACTOR_ENTRIES, AMG_MIN_FILL_PER_LOG2, AMG_REFRESH_ABOVE,
    Directions, GEOMETRIC_MIN_FACTOR_ENTRIES, PCG_MIN_FACTOR_ENTRIES, PCG_MIN_FILL,
};
pub(crate) use potential::{CoarseOperators, Potential};

pub use settings::{HessianStrategy, NewtonSettings};
pub use start::NewtonStart;

use floors::{hessian_floors, noise_floor};
#[cfg(test)]
pub(crate) use pcg::hessian_mul;
use pcg::pcg;

use crate::amg::Amg;
use crate::amg::modes::FreeNodes;
use crate::error::{CoreError, Result};
use crate::linsolve::{Factor, LinearSolver};
use crate::parallel_choice::ParallelChoice;
use faer::sparse::SparseColMatRef;
use serde::{Deserialize, Serialize};

/// Most PCG iterations for one Newton direction before a new
/// factorization is taken (see [`Directions`]).
pub const PCG_MAX_ITERATIONS: usize = 12;

/// The forcing term of a solve's first PCG direction: the linear residual
/// must fall below this fraction of the Newton residual.
const PCG_INITIAL_FORCING: f64 = 0.25;

/// A PCG direction that took more iterations than this asks for a new
/// factorization for the next direction: the kept one no longer resembles
/// the Hessian (contacts changed, the body moved on).
const PCG_REFRESH_ABOVE: usize = 3;

/// The Eisenstat–Walker forcing term, choice 2 (γ = 0.9, α = 2) with its
/// safeguard, capped at 0.5: the next linear solve need only be as accurate
/// as the last Newton step was effective (`ratio` = new / old residual).
fn forcing(eta: f64, ratio: f64) -> f64 {
    let mut next = 0.9 * ratio * ratio;
    let safeguard = 0.9 * eta * eta;
    if safeguard > 0.1 {
        next = next.max(safeguard);
    }
    next.min(0.5)
}

/// Most halvings of a failing time step (2¹² = 4096 sub-steps).
pub(crate) const MAX_STEP_HALVINGS: usize = 12;

/// What a Newton solve did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct NewtonStats {
    /// Iterations performed (accepted directions).
    pub iterations: usize,
    /// Hessian factorizations (fewer than iterations when
    /// [`NewtonSettings::reuse_below`] lets directions reuse one).
    #[serde(default)]
    pub factorizations: usize,
    /// Conjugate-gradient iterations (each one triangular solve with the
    /// kept factorization and one Hessian product; see
    /// [`Directions`]).
    #[serde(default)]
    pub pcg_iterations: usize,
    /// Multigrid hierarchies built (see [`Directions::Amg`]).
    #[serde(default)]
    pub amg_setups: usize,
    /// Iterations whose exact Hessian was indefinite and were PSD-projected
    /// (strategy `exact_then_project`).
    pub projected: usize,
    /// Iterations that needed a diagonal shift.
    pub shifted: usize,
    /// Factorizations tried with a diagonal shift, failed ones included
    /// (see [`NewtonSettings::carry_shift`]).
    #[serde(default)]
    pub shift_tries: usize,
    /// Factorizations of the energies' majorized Hessians, taken after a
    /// refused full step (see [`NewtonSettings::majorize`]).
    #[serde(default)]
    pub majorized: usize,
    /// Total line-search halvings.
    pub backtracks: usize,
    /// Final residual, N (∞-norm over free DOFs).
    pub residual: f64,
    /// The solve ended above the tolerance at the round-off floor of the
    /// problem (the tolerance asks for more than `f64` resolves): the
    /// residual was within the state's resolution
    /// `ε · max_ij |H_ij| · max(|x_i|, |x_j|)`,
    /// or (logged as a warning) it stopped falling within
    /// `64 ε · max|H| · max|x| · √n`, or a full Newton step no longer moved
    /// the state beyond its round-off. `false` means the tolerance was met.
    #[serde(default)]
    pub at_noise_floor: bool,
}

/// Why Newton stopped without converging.
#[derive(Debug, Clone)]
pub(crate) struct NewtonFailure {
    /// Statistics up to the failure.
    pub stats: NewtonStats,
    /// Tolerance it had to reach (N).
    pub tolerance: f64,
    /// Explanation.
    pub reason: String,
}

/// The largest Hessian entry and, in N, the residual's round-off floor and
/// the state's resolution (see [`noise_floor`], [`hessian_floors`]) for
/// the Hessian `h` at `x`.
fn floors_at(
    h: SparseColMatRef<'_, usize, f64>,
    x: &[f64],
    free: &[usize],
    fscale: f64,
) -> (f64, f64, f64) {
    let (h_max, resolution) = hessian_floors(h, x, free);
    let x_scale = free.iter().fold(0.0f64, |m, &i| m.max(x[i].abs()));
    (
        h_max,
        noise_floor(h_max, x_scale, free.len()) * fscale,
        resolution * fscale,
    )
}

/// ∞-norm; `∞` when any entry is not finite (NaN is never dropped).
fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m: f64, x| {
        if x.is_finite() {
            m.max(x.abs())
        } else {
            f64::INFINITY
        }
    })
}

/// Factorizes the Hessian following `strategy` (see [`HessianStrategy`]),
/// the energies' majorized one with `majorize` (see
/// [`NewtonSettings::majorize`]); `last_shift` carries the last successful
/// diagonal shift between iterations; `h_max` and `resolution` (see
/// [`hessian_floors`]) are those of the Hessian factorized (before
/// projection or shift).
#[allow(clippy::too_many_arguments)]
fn direction_factor(
    pot: &mut dyn Potential,
    x: &[f64],
    free: &[usize],
    solver: &LinearSolver,
    strategy: HessianStrategy,
    last_shift: &mut f64,
    stats: &mut NewtonStats,
    h_max: &mut f64,
    resolution: &mut f64,
    local: Option<&mut Vec<usize>>,
    majorize: bool,
) -> std::result::Result<Factor, String> {
    // With `local`, the DOFs of the node-local entries that are not zero
    // here are ordered last (with those ordered last before, while they
    // fit: contacts come and go within a few steps, and a new analysis
    // costs about a factorization), so that reuses of this factor can
    // refresh their block (see `refreshed`).
    let mut kept = None;
    if let Some(last_before) = local
        && let Some((pairs, values)) = pot.local_hessian(x, majorize)
    {
        let mut active: Vec<usize> = pairs
            .iter()
            .zip(values)
            .filter(|(_, v)| **v != 0.0)
            .flat_map(|(&(r, c), _)| [r, c])
            .collect();
        active.sort_unstable();
        active.dedup();
        let mut union = last_before.clone();
        union.extend(active.iter().copied());
        union.sort_unstable();
        union.dedup();
        let last = if local_block_fits(union.len(), solver.factor_entries()) {
            union
        } else {
            active
        };
        if local_block_fits(last.len(), solver.factor_entries())
            && let Some(s) = solver.with_last(&last).map_err(|e| e.to_string())?
        {
            kept = Some((s, last.len(), values.to_vec()));
            *last_before = last;
        }
    }
    let keep = |mut f: Factor, kept: &Option<(LinearSolver, usize, Vec<f64>)>| {
        if let Some((_, m, at)) = kept {
            f.keep_trailing(*m, at.clone());
        }
        f
    };
    let solver = kept.as_ref().map_or(solver, |k| &k.0);
    let mut h = pot
        .hessian(x, strategy == HessianStrategy::Project, majorize)
        .map_err(|e| e.to_string())?;
    (*h_max, *resolution) = hessian_floors(h, x, free);
    if let Ok(f) = solver.factor(h) {
        return Ok(keep(f, &kept));
    }
    if strategy == HessianStrategy::ExactThenProject {
        stats.projected += 1;
        h = pot.project_last().map_err(|e| e.to_string())?;
        if let Ok(f) = solver.factor(h) {
            return Ok(keep(f, &kept));
        }
    }
    stats.shifted += 1;
    let scale = h_max.max(1e-300);
    let mut shift = (1e-10 * scale).max(0.1 * *last_shift);
    for _ in 0..40 {
        stats.shift_tries += 1;
        let hs = pot.shifted(shift).map_err(|e| e.to_string())?;
        if let Ok(f) = solver.factor(hs) {
            *last_shift = shift;
            return Ok(keep(f, &kept));
        }
        shift *= 10.0;
    }
    Err("the Hessian could not be made positive definite".into())
}

/// Most DOFs a refreshable block of node-local entries may have: its dense
/// Cholesky factorization (`m³/3` operations per refresh) must stay well
/// below a sparse one, and its `m²` entries within the factor's.
const LOCAL_BLOCK_MAX_DOFS: usize = 384;

/// Whether a block of `m` DOFs is worth ordering last in a factor of
/// `factor_entries` entries (see [`LOCAL_BLOCK_MAX_DOFS`]).
fn local_block_fits(m: usize, factor_entries: usize) -> bool {
    m > 0 && m <= LOCAL_BLOCK_MAX_DOFS && m * m <= factor_entries
}

/// Refreshes the kept `factor` with the node-local entries at `x` (its
/// trailing block, see `linsolve/trailing.rs`): afterwards it is the factor
/// of the Hessian it was made from with those entries as they are at `x`.
/// `false` when it has no such block, the entries are not finite, or the
/// refreshed block is not positive definite.
fn refreshed(pot: &mut dyn Potential, x: &[f64], factor: &mut Factor) -> bool {
    let Some((block, at)) = factor.refreshable() else {
        return false;
    };
    let Some((pairs, now)) = pot.local_hessian(x, false) else {
        return false;
    };
    let mut delta = Vec::new();
    for ((&(r, c), &v), &a) in pairs.iter().zip(now).zip(at) {
        if !v.is_finite() {
            return false;
        }
        if v != a && block.contains(r) && block.contains(c) {
            delta.push((r, c, v - a));
        }
    }
    factor.refresh(&delta)
}

/// What a Newton solve leaves for the next one (the next time step).
#[derive(Debug, Default)]
pub(crate) struct NewtonCarry {
    /// The last factorization (see [`NewtonSettings::reuse_below`] and
    /// [`Directions::Pcg`]).
    pub factor: Option<Factor>,
    /// The last successful diagonal shift (see
    /// [`NewtonSettings::carry_shift`]); 0 before any.
    pub shift: f64,
    /// The multigrid hierarchy of [`Directions::Amg`].
    pub amg: Option<Amg>,
    /// Whether its V-cycles run their products in parallel, by timing; it
    /// outlives the hierarchies (rebuilt every hundred or so V-cycles on
    /// large meshes), so its timings accumulate.
    pub amg_choice: ParallelChoice,
    /// Whether its assemblies run their element loops in parallel, by
    /// timing (see [`ways`]).
    pub(crate) assembly_ways: ways::AssemblyWays,
    /// The DOFs last ordered last for refreshable node-local entries (see
    /// [`NewtonSettings::local_updates`]); a new factorization orders them
    /// last again with those active there.
    pub local_last: Vec<usize>,
}

/// Minimizes `pot` over the free DOFs `free` of `x`, in place. With
/// [`NewtonSettings::reuse_below`] > 0 it may start
/// from the factorization in `carry` (the last one of the previous solve,
/// e.g. the previous time step); it leaves its last factorization there,
/// and its last diagonal shift for [`NewtonSettings::carry_shift`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn minimize_with(
    pot: &mut dyn Potential,
    x: &mut [f64],
    free: &[usize],
    solver: &LinearSolver,
    settings: &NewtonSettings,
    carry: &mut NewtonCarry,
    nodes: Option<&FreeNodes>,
    mut coarse: Option<&mut dyn CoarseOperators>,
) -> std::result::Result<NewtonStats, NewtonFailure> {
    let mut chosen = ways::Chosen {
        pot,
        ways: &carry.assembly_ways,
    };
    let pot: &mut dyn Potential = &mut chosen;
    let nf = free.len();
    let mut stats = NewtonStats::default();
    let mut g = vec![0.0; nf];
    let fscale = pot.force_scale();
    let mut phi = pot.value_and_gradient(x, &mut g);
    let r0 = inf_norm(&g) * fscale;
    let tol = settings.abs_tol + settings.rel_tol * r0;
    let fail = |stats: NewtonStats, reason: String| NewtonFailure {
        stats,
        tolerance: tol,
        reason,
    };
    if !phi.is_finite() || !r0.is_finite() {
        return Err(fail(
            stats,
            "the potential is not finite at the initial guess".into(),
        ));
    }
    stats.residual = r0;
    let mut trial = x.to_vec();
    let mut local_shift = 0.0;
    let last_shift = if settings.carry_shift {
        &mut carry.shift
    } else {
        &mut local_shift
    };
    let mut g_trial = vec![0.0; nf];
    let mut factor: Option<Factor> = carry.factor.take();
    // Directions by PCG preconditioned with the kept factorization (see
    // `Directions`); the factorization is then
    // kept for the next solve as with `reuse_below`.
    let mode = settings.directions.mode(
        solver.factor_entries(),
        nf,
        nodes.is_some(),
        coarse.is_some(),
    );
    let pcg_mode = mode == Mode::Pcg;
    let geometric_mode = mode == Mode::Geometric;
    let amg_mode = mode == Mode::Amg || geometric_mode;
    if !amg_mode {
        carry.amg = None;
    }
    // A factorization taken where multigrid failed is not kept (it is what
    // multigrid avoids holding).
    let keep_factor = (settings.reuse_below > 0.0 || pcg_mode) && !amg_mode;
    // The Eisenstat–Walker forcing term (choice 2) and a request for a new
    // factorization after PCG failed or its direction was rejected.
    let mut eta = PCG_INITIAL_FORCING;
    let mut force_factor = false;
    let mut stale = false;
    // Whether the last iteration cut the residual by `reuse_below` or more
    // (a carried factorization gets one try).
    let mut fast = factor.is_some();
    // The residual's round-off floor (see [`noise_floor`]), from the last
    // fresh Hessian; and the stagnation count below it.
    let mut h_max = 0.0;
    let mut floor = 0.0;
    let mut resolution = 0.0;
    // The iteration whose Hessian gave `resolution`: it is trusted only for
    // the iterate right after (not across reused factorizations).
    let mut resolution_at: Option<usize> = None;
    let (mut best, mut stalled) = (r0, 0usize);
    // Whether the line search refused the last full step along a fresh
    // factorization's direction (the next one is then majorized, see
    // `NewtonSettings::majorize`).
    let mut refused = false;
    loop {
        if stats.residual <= tol {
            if keep_factor && !force_factor {
                carry.factor = factor;
            }
            return Ok(stats);
        }
        // Within the state's own resolution no step can lower the residual
        // (judged with the Hessian of the previous iterate).
        if resolution_at.map(|k| k + 1) == Some(stats.iterations) && stats.residual <= resolution {
            log::debug!(
                "Newton accepted a residual of {:.3e} N above the tolerance {tol:.3e} N: it is within the resolution of the state ({resolution:.3e} N, the rounding of the coordinates through their couplings)",
                stats.residual
            );
            stats.at_noise_floor = true;
            if keep_factor && !force_factor {
                carry.factor = factor;
            }
            return Ok(stats);
        }
        // Below the floor, the tolerance asks for more than the arithmetic
        // resolves: accept once the residual stops falling (3 iterations
        // without halving), or where the solve would otherwise fail.
        let at_floor = stats.residual <= floor;
        if at_floor && (stalled >= 3 || stats.iterations >= settings.max_iterations) {
            log::warn!(
                "Newton accepted a residual of {:.3e} N above the tolerance {tol:.3e} N: it is at the round-off floor of this problem ({floor:.3e} N), which the tolerance is below",
                stats.residual
            );
            stats.at_noise_floor = true;
            if keep_factor && !force_factor {
                carry.factor = factor;
            }
            return Ok(stats);
        }
        if stats.iterations >= settings.max_iterations {
            return Err(fail(stats, "iteration limit reached".into()));
        }
        let mut reuse =
            !pcg_mode && !amg_mode && settings.reuse_below > 0.0 && factor.is_some() && fast;
        if reuse
            && settings.local_updates
            && let Some(f) = factor.as_mut()
            && f.refreshable().is_some()
        {
            // A kept factor with a refreshable block: brought up to date
            // with the node-local entries here, or replaced.
            reuse = refreshed(pot, x, f);
        }
        let neg: Vec<f64> = g.iter().map(|v| -v).collect();
        let mut by_pcg: Option<Vec<f64>> = None;
        if pcg_mode
            && !force_factor
            && let Some(m) = factor.as_ref()
        {
            let h = pot
                .hessian(x, settings.hessian == HessianStrategy::Project, false)
                .map_err(|e| fail(stats, e.to_string()))?;
            (h_max, floor, resolution) = floors_at(h, x, free, fscale);
            resolution_at = Some(stats.iterations);
            // No need to solve beyond what the tolerance asks.
            let target = (eta * inf_norm(&g)).max(0.25 * tol / fscale);
            let before = stats.pcg_iterations;
            let mul = |v: &[f64], y: &mut [f64]| pcg::hessian_mul(h, v, y);
            let mut solved = pcg(
                &mul,
                &g,
                m,
                target,
                PCG_MAX_ITERATIONS,
                &mut stats.pcg_iterations,
            );
            if matches!(solved, Err(pcg::PcgFailure::NotDefinite)) {
                // Single precision may not resolve this Hessian: once more
                // with the exact solve before a factorization.
                solved = pcg(
                    &mul,
                    &g,
                    &pcg::Exact(m),
                    target,
                    PCG_MAX_ITERATIONS,
                    &mut stats.pcg_iterations,
                );
            }
            by_pcg = solved.ok();
            // A preconditioner this far from the Hessian costs more in
            // PCG iterations than a new factorization: take one for
            // the next direction (or the next step's first). A failed PCG
            // solve is followed by a factorization right away instead.
            stale = by_pcg.is_some() && stats.pcg_iterations - before > PCG_REFRESH_ABOVE;
        }
        if amg_mode && !force_factor && (geometric_mode || nodes.is_some()) {
            let h = pot
                .hessian(x, settings.hessian == HessianStrategy::Project, false)
                .map_err(|e| fail(stats, e.to_string()))?;
            (h_max, floor, resolution) = floors_at(h, x, free, fscale);
            resolution_at = Some(stats.iterations);
            let target = (eta.min(AMG_MAX_FORCING) * inf_norm(&g)).max(0.25 * tol / fscale);
            let at: &[f64] = x;
            let mut build =
                |h: SparseColMatRef<'_, usize, f64>, replaced: Option<Amg>| -> Result<Amg> {
                    match (coarse.as_deref_mut(), nodes) {
                        (Some(c), _) if geometric_mode => {
                            let node_size = c.node_size();
                            let mut replaced = replaced;
                            // The coarse levels' exact step Hessians; where the
                            // hierarchy cannot be built with them (a coarse
                            // level not positive definite: a coarser plate
                            // buckles where the finer one does not), the
                            // projected ones. A failure on the finest level
                            // fails twice and the direction is factorized.
                            let levels = c.operators(at, false)?;
                            match multigrid::geometric(&mut replaced, h, nf, node_size, levels) {
                                Ok(amg) => Ok(amg),
                                Err(e) => {
                                    log::debug!(
                                        "geometric multigrid with projected coarse levels ({e})"
                                    );
                                    let levels = c.operators(at, true)?;
                                    multigrid::geometric(&mut replaced, h, nf, node_size, levels)
                                }
                            }
                        }
                        (_, Some(free_nodes)) => {
                            // Aggregation keeps nothing of the hierarchy it
                            // replaces: freed before the new one is built.
                            drop(replaced);
                            let (groups, modes) = free_nodes.near_null_space(at);
                            Amg::build(h, groups, modes, free_nodes.modes())
                        }
                        _ => Err(CoreError::Unsupported(
                            "multigrid needs node coordinates or coarse models",
                        )),
                    }
                };
            by_pcg = multigrid::direction(
                h,
                &g,
                &mut build,
                target,
                &mut carry.amg,
                &carry.amg_choice,
                &mut stats,
            );
        }
        force_factor = std::mem::take(&mut stale);
        let pcg_direction = by_pcg.is_some();
        if !reuse && !pcg_direction {
            let majorize = settings.majorize && refused;
            factor = Some(
                direction_factor(
                    pot,
                    x,
                    free,
                    solver,
                    settings.hessian,
                    last_shift,
                    &mut stats,
                    &mut h_max,
                    &mut resolution,
                    (settings.local_updates
                        && settings.reuse_below > 0.0
                        && !pcg_mode
                        && !amg_mode)
                        .then_some(&mut carry.local_last),
                    majorize,
                )
                .map_err(|r| fail(stats, r))?,
            );
            stats.factorizations += 1;
            stats.majorized += usize::from(majorize);
            let x_scale = free.iter().fold(0.0f64, |m, &i| m.max(x[i].abs()));
            floor = noise_floor(h_max, x_scale, g.len()) * fscale;
            resolution *= fscale;
            resolution_at = Some(stats.iterations);
        }
        let mut d = match by_pcg {
            Some(d) => d,
            None => factor.as_ref().expect("factorized above").solve(&neg),
        };
        if amg_mode {
            factor = None;
        }
        // A fresh Newton step below the round-off of the state itself: the
        // residual is at the floor of floating-point arithmetic (stiff
        // systems, where forces of 1e-10 N are below the resolution of the
        // positions); nothing more can be gained.
        // Per DOF, against its own magnitude (floored at a thousandth of
        // the largest, so coordinates that happen to be zero do not demand
        // an exact zero step).
        let x_scale = free.iter().fold(0.0f64, |m, &i| m.max(x[i].abs()));
        if !reuse
            && free
                .iter()
                .zip(&d)
                .all(|(&i, di)| di.abs() <= 16.0 * f64::EPSILON * x[i].abs().max(1e-3 * x_scale))
        {
            if stats.residual > tol {
                log::warn!(
                    "Newton accepted a residual of {:.3e} N above the tolerance {tol:.3e} N: a full Newton step no longer moves the state beyond its round-off",
                    stats.residual
                );
                stats.at_noise_floor = true;
            }
            if keep_factor && !force_factor {
                carry.factor = factor;
            }
            return Ok(stats);
        }
        let mut slope: f64 = g.iter().zip(&d).map(|(a, b)| a * b).sum();
        if slope.is_nan() || slope >= 0.0 {
            // Not a descent direction (round-off in a near-singular system): steepest descent.
            d.copy_from_slice(&neg);
            slope = -g.iter().map(|v| v * v).sum::<f64>();
        }
        let mut alpha = 1.0;
        let mut accepted = false;
        // A reused (stale) Hessian gets a short line search and must lower
        // the residual; otherwise a fresh factorization is taken.
        let backtracks = if reuse {
            settings.max_backtracks.min(4)
        } else {
            settings.max_backtracks
        };
        for tried in 0..=backtracks {
            trial.copy_from_slice(x);
            for (k, &i) in free.iter().enumerate() {
                trial[i] += alpha * d[k];
            }
            // The full step is usually accepted: its gradient comes with its
            // value from one pass over the elements. A shorter one first
            // shows its value.
            let with_gradient = tried == 0;
            let phi_t = if with_gradient {
                pot.value_and_gradient(&trial, &mut g_trial)
            } else {
                pot.value(&trial)
            };
            if phi_t.is_finite() {
                let armijo = phi_t <= phi + 1e-4 * alpha * slope;
                // Near convergence Φ differences drown in round-off: accept a
                // step that does not raise Φ beyond round-off and lowers the residual.
                let scale = phi.abs().max(phi_t.abs());
                let roundoff = (phi_t - phi).abs() <= 1e-13 * scale;
                // When even the decrease the direction predicts, `|slope|`,
                // is below 1e-10 of |Φ|, Φ — a sum of terms that may cancel
                // to a small total, so its round-off can far exceed
                // 1e-13 |Φ| — cannot tell the step from its own round-off:
                // the residual decides (a full Newton step from 8.6e-7 N
                // to 1.1e-11 N was refused for a rise of 2.2e-19 in a Φ of
                // -1.05e-7, and Newton stalled at 8.6e-7 N).
                let unresolved = -slope <= 1e-10 * scale;
                if armijo || roundoff || unresolved {
                    if !with_gradient {
                        pot.gradient(&trial, &mut g_trial);
                    }
                    let r_t = inf_norm(&g_trial) * fscale;
                    if r_t.is_finite() && ((armijo && !reuse) || r_t < stats.residual) {
                        x.copy_from_slice(&trial);
                        std::mem::swap(&mut g, &mut g_trial);
                        phi = phi_t;
                        fast = r_t <= settings.reuse_below * stats.residual;
                        eta = forcing(eta, r_t / stats.residual);
                        stats.residual = r_t;
                        accepted = true;
                        break;
                    }
                }
            }
            alpha *= 0.5;
            stats.backtracks += 1;
        }
        if !reuse && !pcg_direction {
            refused = !accepted || alpha < 1.0;
        }
        if !accepted && (reuse || pcg_direction) {
            // The stale Hessian gave a poor direction: refactorize and retry.
            fast = false;
            force_factor = pcg_direction;
            continue;
        }
        stats.iterations += 1;
        if accepted {
            if stats.residual < 0.5 * best {
                (best, stalled) = (stats.residual, 0);
            } else {
                stalled += 1;
            }
        } else if stats.residual <= floor {
            log::warn!(
                "Newton accepted a residual of {:.3e} N above the tolerance {tol:.3e} N: no further decrease is possible at the round-off floor of this problem ({floor:.3e} N)",
                stats.residual
            );
            stats.at_noise_floor = true;
            if keep_factor && !force_factor {
                carry.factor = factor;
            }
            return Ok(stats);
        }
        if !accepted {
            return Err(fail(
                stats,
                "the line search found no decrease of the potential (a state with finite energy could not be reached along the Newton direction)".into(),
            ));
        }
    }
}
