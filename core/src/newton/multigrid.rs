//! Newton directions by conjugate gradients preconditioned with multigrid,
//! algebraic or geometric (see [`super::Directions::Amg`] and
//! [`super::Directions::Geometric`]).

use super::directions::AMG_REFRESH_ABOVE;
use super::pcg::{self, PcgFailure, Preconditioner, pcg};
use super::{AMG_MAX_ITERATIONS, NewtonStats};
use crate::amg::{Amg, GeometricLevel};
use crate::error::Result;
use crate::parallel_choice::ParallelChoice;
use faer::sparse::SparseColMatRef;
use std::cell::Cell;

/// Builds a hierarchy for a Hessian, given the one it replaces (if any).
pub(super) type Build<'a> =
    dyn FnMut(SparseColMatRef<'_, usize, f64>, Option<Amg>) -> Result<Amg> + 'a;

/// A hierarchy as PCG's preconditioner, each V-cycle's products in
/// parallel or on the calling thread as `choice` decides by timing (one
/// choice per V-cycle: a choice per product paid for waking the pool's
/// sleeping threads in every parallel product after a sequential one).
/// `way` holds the last V-cycle's choice, which PCG's Hessian products
/// follow. The result is the same either way.
struct Timed<'a> {
    amg: &'a Amg,
    choice: &'a ParallelChoice,
    way: &'a Cell<bool>,
}

impl Preconditioner for Timed<'_> {
    fn apply(&self, r: &[f64]) -> Vec<f64> {
        self.choice.run(|parallel| {
            self.way.set(parallel);
            self.amg.apply(r, parallel)
        })
    }
}

/// Solves `H d = −g` for the Hessian `h` to the residual `target`
/// with the hierarchy `kept` (built by `build` when there is none; its
/// finest level refreshed with `h` otherwise; rebuilt and retried once
/// when it stalls; rebuilt for the next direction when the solve took
/// more than [`AMG_REFRESH_ABOVE`] iterations, dropped when it failed).
/// `build` gets the hierarchy it replaces, if any, to keep what does not
/// change. Negative curvature truncates
/// the solve (Steihaug: the partial solution is a descent direction).
/// The V-cycles' products run as `choice` decides (see `Timed`); it is
/// kept with the hierarchy but outlives it, so its timings accumulate over
/// rebuilds. `None` when no direction came out: the caller factorizes.
#[allow(clippy::too_many_arguments)]
pub(super) fn direction(
    h: SparseColMatRef<'_, usize, f64>,
    g: &[f64],
    build: &mut Build<'_>,
    target: f64,
    kept: &mut Option<Amg>,
    choice: &ParallelChoice,
    stats: &mut NewtonStats,
) -> Option<Vec<f64>> {
    let mut by_pcg = None;
    // The kept hierarchy gets the current Hessian on its finest
    // level; a new one is built (given the one it replaces) when
    // there is none, when that fails, when the last direction marked
    // the kept one stale, or when PCG stalls with a kept one.
    let mut fresh = false;
    let mut replaced = kept.take_if(|amg| amg.is_stale());
    if let Some(amg) = kept.as_mut()
        && amg.refresh(h).is_err()
    {
        *kept = None;
    }
    let mut took = 0;
    loop {
        if kept.is_none() {
            let started = std::time::Instant::now();
            match build(h, replaced.take()) {
                Ok(amg) => {
                    log::debug!(
                        "multigrid hierarchy: unknowns per level {:?}, operator complexity {:.2}, built in {:.1} ms",
                        amg.sizes(),
                        amg.complexity(),
                        1e3 * started.elapsed().as_secs_f64()
                    );
                    stats.amg_setups += 1;
                    *kept = Some(amg);
                    fresh = true;
                }
                Err(e) => {
                    log::debug!("multigrid not built ({e}); the direction is factorized");
                    break;
                }
            }
        }
        let Some(amg) = kept.as_ref() else {
            break;
        };
        let before = stats.pcg_iterations;
        let way = Cell::new(true);
        let mul = |v: &[f64], y: &mut [f64]| {
            if !amg.mul_fine(v, y, way.get()) {
                pcg::hessian_mul(h, v, y);
            }
        };
        let solved = pcg(
            &mul,
            g,
            &Timed {
                amg,
                choice,
                way: &way,
            },
            target,
            AMG_MAX_ITERATIONS,
            &mut stats.pcg_iterations,
        );
        took = stats.pcg_iterations - before;
        log::trace!(
            "multigrid PCG: {took} iterations to {:.2e} of the gradient, hierarchy {}",
            target / super::inf_norm(g),
            if fresh { "new" } else { "kept" }
        );
        by_pcg = match solved {
            Ok(d) => Some(d),
            // Truncated at negative curvature (an indefinite Hessian
            // in a buckling or landing step): the partial solution
            // is a descent direction; Newton's line search takes it.
            Err(PcgFailure::NegativeCurvature(partial)) => {
                log::debug!("multigrid PCG met negative curvature after {took} iterations");
                partial
            }
            Err(PcgFailure::Stalled | PcgFailure::NotDefinite) if !fresh => {
                // A hierarchy from an older Hessian (before a
                // contact landed): rebuild and try once more.
                replaced = kept.take();
                continue;
            }
            Err(PcgFailure::Stalled | PcgFailure::NotDefinite) => {
                log::debug!("multigrid PCG did not reach its target in {took} iterations");
                None
            }
        };
        break;
    }
    if by_pcg.is_none() {
        *kept = None;
    } else if took > AMG_REFRESH_ABOVE
        && let Some(amg) = kept.as_mut()
    {
        amg.mark_stale();
    }
    by_pcg
}

/// The geometric hierarchy for the Hessian `h` (lower triangle over its
/// first `n` unknowns, nodes of `node_size`) and the coarse `levels`:
/// `replaced` rebuilt ([`Amg::rebuild_geometric`]: its prolongations and
/// the finest level's pattern kept) and taken when there is one, else a
/// new one (also when `replaced` cannot be rebuilt for these: another
/// pattern, other levels, a hierarchy by aggregation). A failed rebuild
/// leaves `replaced` for another try.
pub(super) fn geometric(
    replaced: &mut Option<Amg>,
    h: SparseColMatRef<'_, usize, f64>,
    n: usize,
    node_size: usize,
    levels: Vec<GeometricLevel<'_>>,
) -> Result<Amg> {
    match replaced.as_mut() {
        Some(amg) if amg.can_rebuild(h, &levels) => {
            amg.rebuild_geometric(h, node_size, levels)?;
            Ok(replaced.take().expect("the hierarchy just rebuilt"))
        }
        _ => {
            *replaced = None;
            Amg::build_geometric(h, n, node_size, levels)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::tests::{chained, rhs, three_levels};
    use std::cell::RefCell;

    #[test]
    fn a_solve_over_the_refresh_limit_has_the_next_direction_rebuild_the_hierarchy() {
        let (a, ops, p) = three_levels(3, 1e-2);
        // The same lattice with far lighter nodes: the hierarchy built for
        // `a` (its coarse levels heavy) preconditions it poorly.
        let (light, _, _) = three_levels(3, 1e-7);
        let r = [p[0].transpose(), p[1].transpose()];
        let n = a.ncols();
        let g = rhs(n);
        let size = g.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        // What each build was given: whether a hierarchy to replace.
        let given = RefCell::new(Vec::new());
        let mut build = |h: SparseColMatRef<'_, usize, f64>, replaced: Option<Amg>| {
            given.borrow_mut().push(replaced.is_some());
            let mut replaced = replaced;
            geometric(&mut replaced, h, n, 3, chained(ops.clone(), &p, &r))
        };
        let (mut kept, choice, mut stats) =
            (None, ParallelChoice::default(), NewtonStats::default());
        let mut solve = |h: SparseColMatRef<'_, usize, f64>,
                         target: f64,
                         kept: &mut Option<Amg>,
                         stats: &mut NewtonStats| {
            let before = stats.pcg_iterations;
            let d = direction(h, &g, &mut build, target, kept, &choice, stats);
            assert!(d.is_some(), "no direction to {target:e}");
            stats.pcg_iterations - before
        };
        // Loose solves keep the hierarchy as it is.
        assert!(solve(a.as_ref(), 1e-1 * size, &mut kept, &mut stats) <= AMG_REFRESH_ABOVE);
        assert!(solve(a.as_ref(), 1e-1 * size, &mut kept, &mut stats) <= AMG_REFRESH_ABOVE);
        assert_eq!(*given.borrow(), [false]);
        assert!(kept.as_ref().is_some_and(|k| !k.is_stale()));
        // A tight one with the light lattice takes more than the limit:
        // kept, marked for a rebuild.
        let took = solve(light.as_ref(), 1e-10 * size, &mut kept, &mut stats);
        assert!(took > AMG_REFRESH_ABOVE, "{took} iterations");
        assert!(kept.as_ref().is_some_and(Amg::is_stale));
        assert_eq!(*given.borrow(), [false]);
        // The next direction rebuilds it from the one it replaces.
        solve(a.as_ref(), 1e-1 * size, &mut kept, &mut stats);
        assert_eq!(*given.borrow(), [false, true]);
        assert!(kept.as_ref().is_some_and(|k| !k.is_stale()));
        assert_eq!(stats.amg_setups, 2);
    }
}
