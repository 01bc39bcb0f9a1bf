//! Newton directions by conjugate gradients preconditioned with multigrid,
//! algebraic or geometric (see [`super::Directions::Amg`] and
//! [`super::Directions::Geometric`]).

use super::directions::AMG_REFRESH_ABOVE;
use super::pcg::{self, PcgFailure, Preconditioner, pcg};
use super::{AMG_MAX_ITERATIONS, NewtonStats};
use crate::amg::Amg;
use crate::error::Result;
use crate::parallel_choice::ParallelChoice;
use faer::sparse::SparseColMatRef;
use std::cell::Cell;

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
/// with the hierarchy `kept` (built by `build` when there is none; its finest
/// level refreshed with `h` otherwise; rebuilt and retried once when it
/// stalls; dropped for the next direction when the solve took more than
/// [`AMG_REFRESH_ABOVE`] iterations or failed). Negative curvature truncates
/// the solve (Steihaug: the partial solution is a descent direction).
/// The V-cycles' products run as `choice` decides (see `Timed`); it is
/// kept with the hierarchy but outlives it, so its timings accumulate over
/// rebuilds. `None` when no direction came out: the caller factorizes.
#[allow(clippy::too_many_arguments)]
pub(super) fn direction(
    h: SparseColMatRef<'_, usize, f64>,
    g: &[f64],
    build: &mut dyn FnMut(SparseColMatRef<'_, usize, f64>) -> Result<Amg>,
    target: f64,
    kept: &mut Option<Amg>,
    choice: &ParallelChoice,
    stats: &mut NewtonStats,
) -> Option<Vec<f64>> {
    let mut by_pcg = None;
    // The kept hierarchy gets the current Hessian on its finest
    // level; a new one is built when there is none, when that
    // fails, or when PCG stalls with a kept one.
    let mut fresh = false;
    if let Some(amg) = kept.as_mut()
        && amg.refresh(h).is_err()
    {
        *kept = None;
    }
    let mut took = 0;
    loop {
        if kept.is_none() {
            match build(h) {
                Ok(amg) => {
                    log::debug!(
                        "multigrid hierarchy: unknowns per level {:?}, operator complexity {:.2}",
                        amg.sizes(),
                        amg.complexity()
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
                *kept = None;
                continue;
            }
            Err(PcgFailure::Stalled | PcgFailure::NotDefinite) => {
                log::debug!("multigrid PCG did not reach its target in {took} iterations");
                None
            }
        };
        break;
    }
    if by_pcg.is_none() || took > AMG_REFRESH_ABOVE {
        *kept = None;
    }
    by_pcg
}
