//! Wall-clock timing for benchmarks that print figures (the element
//! benches of the plugins): never for assertions in tests.

use std::time::Instant;

/// Nanoseconds per call of `f`: calls are batched until a batch takes at
/// least 50 ms, and the best of 5 batches is returned (the least disturbed
/// by other load on the machine).
///
/// ```
/// let ns = pliant_core::timing::ns_per_call(|| {
///     std::hint::black_box((0..100).sum::<u64>());
/// });
/// assert!(ns > 0.0);
/// ```
pub fn ns_per_call(mut f: impl FnMut()) -> f64 {
    let mut reps = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        if t.elapsed().as_secs_f64() > 0.05 {
            break;
        }
        reps *= 2;
    }
    (0..5)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed().as_secs_f64() * 1e9 / reps as f64
        })
        .fold(f64::INFINITY, f64::min)
}
