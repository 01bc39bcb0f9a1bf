//! Fill-reducing orderings for the sparse Cholesky factorization: faer's
//! approximate minimum degree (AMD) and METIS's nested dissection
//! (`METIS_NodeND`, METIS 5 built from source by `metis-sys`, Apache-2.0).
//!
//! AMD is cheap and best on robot-sized systems, chains and sheets; on 3-D
//! meshes nested dissection gives far smaller factors as they grow (an
//! n × n × n block of cells: separators of O(n²) nodes, so the factor holds
//! O(N^{4/3}) entries against AMD's faster growth). [`LinearSolver`] analyses
//! both and keeps the one whose factor has fewer entries — a choice that
//! depends on the pattern alone, never on timing (figures in
//! `docs/benchmarks.md`).
//!
//! [`LinearSolver`]: crate::linsolve::LinearSolver

use crate::error::{CoreError, Result};
use faer::sparse::SymbolicSparseColMatRef;

/// Systems with fewer unknowns than this are ordered by AMD alone (nested
/// dissection cannot beat it there, and its analysis costs more).
pub(crate) const NESTED_DISSECTION_MIN_DOFS: usize = 2_000;

/// METIS's random seed, fixed so that the ordering (and so every rounding in
/// the factorization) is the same in every run.
const METIS_SEED: i32 = 7;

/// METIS keeps its random generator in process-wide state (GKlib's `mt`
/// array): two orderings computed at once on different threads would race
/// on it and come out different. One at a time, each reseeded.
static METIS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// METIS (GKlib) installs its own SIGTERM and SIGABRT handlers for the
/// duration of a call; a termination signal arriving then ends the ordering
/// with an error (the analysis fails with a `LinearSolve` error naming
/// METIS's status) instead of reaching the program's handler.
///
/// The nested-dissection ordering of the symmetric matrix whose lower
/// triangle has the pattern `lower`: `forward[i]` is the row/column of the
/// matrix placed at position `i`.
pub(crate) fn nested_dissection(lower: SymbolicSparseColMatRef<'_, usize>) -> Result<Vec<usize>> {
    let n = lower.ncols();
    let err = |detail: String| CoreError::LinearSolve {
        what: "nested-dissection ordering",
        detail,
    };
    // The symmetric adjacency without the diagonal, in CSR (xadj, adjncy).
    let (cp, ri) = (lower.col_ptr(), lower.row_idx());
    let mut degree = vec![0usize; n];
    for j in 0..n {
        for &r in &ri[cp[j]..cp[j + 1]] {
            if r != j {
                degree[r] += 1;
                degree[j] += 1;
            }
        }
    }
    let edges: usize = degree.iter().sum();
    if n >= i32::MAX as usize || edges >= i32::MAX as usize {
        return Err(err(format!(
            "{n} unknowns and {edges} couplings exceed METIS's 32-bit indices"
        )));
    }
    if edges == 0 {
        return Ok((0..n).collect());
    }
    let mut xadj = Vec::with_capacity(n + 1);
    xadj.push(0i32);
    for d in &degree {
        xadj.push(xadj[xadj.len() - 1] + *d as i32);
    }
    let mut fill: Vec<usize> = xadj[..n].iter().map(|&x| x as usize).collect();
    let mut adjncy = vec![0i32; edges];
    for j in 0..n {
        for &r in &ri[cp[j]..cp[j + 1]] {
            if r != j {
                adjncy[fill[r]] = j as i32;
                fill[r] += 1;
                adjncy[fill[j]] = r as i32;
                fill[j] += 1;
            }
        }
    }
    let mut options = [0i32; metis_sys::METIS_NOPTIONS as usize];
    let mut nv = n as i32;
    let mut perm = vec![0i32; n];
    let mut iperm = vec![0i32; n];
    let _one_at_a_time = METIS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // SAFETY: METIS reads `xadj` (n + 1 entries) and `adjncy` (xadj[n]
    // entries, each in 0..n), a null vertex-weight pointer is allowed, and
    // it writes n entries to `perm` and `iperm`; all buffers outlive the
    // call and are not aliased; the lock above keeps other threads out of
    // METIS's global state.
    let status = unsafe {
        metis_sys::METIS_SetDefaultOptions(options.as_mut_ptr());
        options[metis_sys::moptions_et_METIS_OPTION_SEED as usize] = METIS_SEED;
        metis_sys::METIS_NodeND(
            &mut nv,
            xadj.as_mut_ptr(),
            adjncy.as_mut_ptr(),
            std::ptr::null_mut(),
            options.as_mut_ptr(),
            perm.as_mut_ptr(),
            iperm.as_mut_ptr(),
        )
    };
    if status != metis_sys::rstatus_et_METIS_OK {
        return Err(err(format!(
            "METIS_NodeND returned status {status} (-4: an error, or a signal such as SIGTERM during the call)"
        )));
    }
    // METIS: row i of the permuted matrix is row perm[i] of the original.
    let forward: Vec<usize> = perm.iter().map(|&p| p as usize).collect();
    let mut seen = vec![false; n];
    for &f in &forward {
        if f >= n || std::mem::replace(&mut seen[f], true) {
            return Err(err("METIS returned an invalid permutation".into()));
        }
    }
    Ok(forward)
}
