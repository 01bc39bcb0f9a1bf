//! Deterministic element loops: every element writes its own block, and sums
//! run over fixed chunks in a fixed order, so results are bitwise the same
//! for any number of threads — and whether they run in parallel or on the
//! calling thread, which `on_calling_thread` decides for a stretch of
//! code (Newton's loop times both ways and runs the faster; see
//! `newton::ways`).

use rayon::prelude::*;
use std::cell::Cell;

thread_local! {
    /// Whether loops started on this thread stay on it (see
    /// [`on_calling_thread`]).
    static SEQUENTIAL: Cell<bool> = const { Cell::new(false) };
}

/// Whether a loop started on this thread now may run in parallel: `false`
/// while Newton keeps its assemblies on its thread, because that has lately
/// been faster (beside another busy process). Plugins with their own rayon
/// loops over elements ask this first; their results must not depend on
/// the answer.
pub fn parallel_allowed() -> bool {
    !SEQUENTIAL.with(Cell::get)
}

/// Runs `f` with the element loops started on this thread kept on it
/// (`sequential`) or allowed to go parallel, and restores the setting
/// from before the call (also when `f` panics). Loops that `f` hands to
/// other threads (`rayon::ThreadPool::install`) are not affected.
pub(crate) fn on_calling_thread<R>(sequential: bool, f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SEQUENTIAL.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SEQUENTIAL.with(|s| s.replace(sequential)));
    f()
}

/// Whether a loop over `len` elements runs in parallel.
pub(crate) fn goes_parallel(len: usize) -> bool {
    len >= PAR_MIN_LEN && parallel_allowed()
}

/// Fewest elements per parallel task: below this, rayon's task overhead
/// outweighs the work of small element loops (results do not depend on it).
pub const PAR_MIN_LEN: usize = 2048;

/// `f(block, index)` for each index `0..len` and its `stride`-long block of
/// `out`, in parallel for at least [`PAR_MIN_LEN`] items (unless
/// [`parallel_allowed`] says no) and on the calling thread otherwise: a
/// rayon call from outside its pool hands even an unsplit loop to a worker
/// and parks the caller, which costs more than a small loop. Each block is
/// written by exactly one call.
pub fn for_each_block(
    out: &mut [f64],
    stride: usize,
    len: usize,
    f: impl Fn(&mut [f64], usize) + Sync + Send,
) {
    let out = &mut out[..len * stride];
    if stride == 0 {
        return;
    }
    if !goes_parallel(len) {
        out.chunks_mut(stride)
            .enumerate()
            .for_each(|(i, o)| f(o, i));
    } else {
        out.par_chunks_mut(stride)
            .enumerate()
            .with_min_len(PAR_MIN_LEN)
            .for_each(|(i, o)| f(o, i));
    }
}

/// `f(blocks, first)` for consecutive batches of `batch` indices (the last
/// may be shorter) and their `stride`-long blocks of `out`; parallel as
/// [`for_each_block`].
pub(crate) fn for_each_batch(
    out: &mut [f64],
    stride: usize,
    len: usize,
    batch: usize,
    f: impl Fn(&mut [f64], usize) + Sync + Send,
) {
    let out = &mut out[..len * stride];
    if stride == 0 || len == 0 {
        return;
    }
    if !goes_parallel(len) {
        out.chunks_mut(stride * batch)
            .enumerate()
            .for_each(|(c, o)| f(o, c * batch));
    } else {
        out.par_chunks_mut(stride * batch)
            .enumerate()
            .with_min_len(PAR_MIN_LEN / batch)
            .for_each(|(c, o)| f(o, c * batch));
    }
}

/// Indices per chunk of [`deterministic_sum`].
pub(crate) const SUM_CHUNK: usize = 512;

/// `Σ f(i)` over `0..len`, in fixed-size chunks summed in order: the result
/// does not depend on the number of threads.
pub fn deterministic_sum(len: usize, f: impl Fn(usize) -> f64 + Sync + Send) -> f64 {
    deterministic_chunk_sum(len, |lo, hi| (lo..hi).map(&f).sum::<f64>())
}

/// [`deterministic_sum`] with the sum over each chunk `lo..hi` (at most
/// [`SUM_CHUNK`] long) given by `chunk`, which must add its terms in order.
pub(crate) fn deterministic_chunk_sum(
    len: usize,
    chunk: impl Fn(usize, usize) -> f64 + Sync + Send,
) -> f64 {
    const CHUNK: usize = SUM_CHUNK;
    let chunk_sum = |c: usize| chunk(c * CHUNK, ((c + 1) * CHUNK).min(len));
    let chunks = len.div_ceil(CHUNK);
    // The same chunks either way; small loops stay on this thread.
    let partial: Vec<f64> = if !goes_parallel(len) {
        (0..chunks).map(chunk_sum).collect()
    } else {
        (0..chunks).into_par_iter().map(chunk_sum).collect()
    };
    partial.iter().sum()
}

/// [`deterministic_chunk_sum`] whose chunks also write per-index blocks of
/// `stride` values: `chunk(blocks, lo, hi)` fills `out[lo·stride..hi·stride]`
/// (given as `blocks`) and returns the sum of its terms, added in order. The
/// chunks are [`deterministic_chunk_sum`]'s, so the sum is bitwise the one it
/// gives for the same terms, whatever the thread count.
pub(crate) fn chunk_sum_with_blocks(
    out: &mut [f64],
    stride: usize,
    len: usize,
    chunk: impl Fn(&mut [f64], usize, usize) -> f64 + Sync + Send,
) -> f64 {
    if stride == 0 {
        return deterministic_chunk_sum(len, |lo, hi| chunk(&mut [], lo, hi));
    }
    const CHUNK: usize = SUM_CHUNK;
    let out = &mut out[..len * stride];
    let run = |(c, o): (usize, &mut [f64])| chunk(o, c * CHUNK, ((c + 1) * CHUNK).min(len));
    let partial: Vec<f64> = if !goes_parallel(len) {
        out.chunks_mut(stride * CHUNK)
            .enumerate()
            .map(run)
            .collect()
    } else {
        out.par_chunks_mut(stride * CHUNK)
            .enumerate()
            .map(run)
            .collect()
    };
    partial.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_blocks_do_not_depend_on_the_thread_count() {
        let n = 3 * PAR_MIN_LEN + 17;
        let f = |i: usize| ((i as f64) * 0.37).sin() * 1e-3 + 1.0 / (i as f64 + 1.0);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut out = vec![0.0; 2 * n];
                for_each_block(&mut out, 2, n, |o, i| {
                    o[0] = f(i);
                    o[1] = -f(i);
                });
                (deterministic_sum(n, f), out)
            })
        };
        let (s1, b1) = run(1);
        let (s2, b2) = run(2);
        assert_eq!(s1.to_bits(), s2.to_bits());
        assert_eq!(b1, b2);
        assert_eq!(b1[2 * 5], f(5));
        // Kept on the calling thread (this one, not a pool's): the same bits.
        let kept = || {
            let mut out = vec![0.0; 2 * n];
            for_each_block(&mut out, 2, n, |o, i| {
                o[0] = f(i);
                o[1] = -f(i);
            });
            (deterministic_sum(n, f), out)
        };
        assert!(parallel_allowed() && goes_parallel(n));
        let (s0, b0) = on_calling_thread(true, || {
            assert!(!parallel_allowed() && !goes_parallel(n));
            kept()
        });
        assert!(parallel_allowed());
        assert_eq!(s0.to_bits(), s2.to_bits());
        assert_eq!(b0, b2);
    }

    #[test]
    fn the_setting_is_restored_after_a_panic_and_nests() {
        let caught = std::panic::catch_unwind(|| on_calling_thread(true, || panic!("in f")));
        assert!(caught.is_err());
        assert!(parallel_allowed());
        on_calling_thread(true, || {
            on_calling_thread(false, || assert!(parallel_allowed()));
            assert!(!parallel_allowed());
        });
        assert!(parallel_allowed());
    }
}
