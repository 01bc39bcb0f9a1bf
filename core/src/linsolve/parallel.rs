//! The switch that lets large factorizations use faer's parallel kernels
//! (off by default; see the module documentation of [`super`]).

use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

/// With [`set_parallel_factorization`] on, factors with at least this many
/// stored entries in `L` use faer's parallel kernels (with faer's global
/// parallelism); smaller ones always run sequentially.
pub const PARALLEL_MIN_FACTOR_ENTRIES: usize = 4_000_000;

static PARALLEL_FACTORIZATION: AtomicBool = AtomicBool::new(false);

/// Lets solvers created from now on factor and solve large systems (factors
/// of at least [`PARALLEL_MIN_FACTOR_ENTRIES`] entries) with faer's parallel
/// kernels. Off by default: results then depend on the number of threads
/// (faer's parallel sums run in another order), and on 2 cores it was
/// slower for whole runs (module documentation). Worth trying for large 3-D
/// meshes on a machine with many idle cores.
///
/// ```
/// use pliant_core::linsolve::{parallel_factorization, set_parallel_factorization};
/// assert!(!parallel_factorization());
/// set_parallel_factorization(true);
/// assert!(parallel_factorization());
/// set_parallel_factorization(false);
/// ```
pub fn set_parallel_factorization(on: bool) {
    PARALLEL_FACTORIZATION.store(on, AtomicOrdering::Relaxed);
}

/// Whether [`set_parallel_factorization`] is on.
pub fn parallel_factorization() -> bool {
    PARALLEL_FACTORIZATION.load(AtomicOrdering::Relaxed)
}
