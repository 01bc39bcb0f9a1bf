//! Parallel or on the calling thread, whichever has lately been faster.
//!
//! A parallel loop over a bandwidth-bound operation (a sparse product) wins
//! on a quiet machine and loses beside another busy process: when one of
//! the pool's threads is preempted in the middle of its share, the others
//! finish theirs and wait for it. Measured on the 20³-cell block's
//! multigrid products (2 cores, `yes > /dev/null` beside it, 2026-11-27):
//! 2 threads 1.4× faster than 1 when quiet, 13–17 % slower when busy.
//!
//! [`ParallelChoice`] times each call and keeps a moving mean of the time per
//! call of both ways; it runs the faster one, and in the last [`BURST`] of
//! every [`PERIOD`] calls the other, to notice when the machine's load has
//! changed. A call that follows a call the other way is not timed: the
//! first parallel call after sequential ones pays for waking the pool's
//! sleeping threads and moving data into their caches (about 2 ms on a
//! 4 ms V-cycle of the 20³-cell block), which says nothing about the next
//! parallel call. It may only choose between ways that give bitwise the
//! same result (each row of a product summed in a fixed order): the choice
//! then changes how long a run takes, never what it computes.

use std::sync::Mutex;
use std::time::Instant;

/// Calls per period: the way not preferred runs in the last [`BURST`].
const PERIOD: u64 = 128;

/// Consecutive calls the other way per period (the first is not timed).
const BURST: u64 = 8;

/// Weight of the newest time in a way's moving mean: about the last 20
/// timed calls count. Parallel calls on a shared machine have a heavy tail
/// (a preempted thread holds up the others), so a shorter memory lets one
/// slow call send a period's calls the slower way; replayed on V-cycle
/// times of the 20³-cell block, weights 0.25 / 0.1 / 0.05 lost 9 / 5 / 2 %
/// against always running the faster way.
const WEIGHT: f64 = 0.05;

/// See the module doc.
#[derive(Debug, Default)]
pub(crate) struct ParallelChoice {
    state: Mutex<State>,
}

/// Moving means in seconds per call (`None`: not timed yet), the way of the
/// last call, the way of the current burst, and the number of calls so far.
#[derive(Debug, Default)]
struct State {
    sequential: Option<f64>,
    parallel: Option<f64>,
    last: Option<bool>,
    burst: bool,
    calls: u64,
}

impl State {
    /// Whether the next call runs in parallel: until each way has been
    /// timed, parallel first; then the faster way, except in the last
    /// [`BURST`] calls of each [`PERIOD`], which run the way that was the
    /// slower one when the burst began.
    fn next(&mut self) -> bool {
        let (Some(p), Some(s)) = (self.parallel, self.sequential) else {
            return self.parallel.is_none();
        };
        let phase = self.calls % PERIOD;
        if phase == PERIOD - BURST {
            self.burst = p > s;
        }
        if phase >= PERIOD - BURST {
            self.burst
        } else {
            p <= s
        }
    }

    /// Records a call that took `seconds` (timed only when the call before
    /// it ran the same way).
    fn record(&mut self, parallel: bool, seconds: f64) {
        if self.last == Some(parallel) {
            let mean = if parallel {
                &mut self.parallel
            } else {
                &mut self.sequential
            };
            *mean = Some(match *mean {
                None => seconds,
                Some(m) => m + WEIGHT * (seconds - m),
            });
        }
        self.last = Some(parallel);
        self.calls += 1;
    }
}

impl ParallelChoice {
    /// Runs `f(parallel)`, with `parallel` chosen as the module doc says,
    /// and times it. `f` must compute the same result either way.
    pub(crate) fn run<R>(&self, f: impl FnOnce(bool) -> R) -> R {
        let parallel = self.lock().next();
        let start = Instant::now();
        let out = f(parallel);
        let seconds = start.elapsed().as_secs_f64();
        self.lock().record(parallel, seconds);
        out
    }

    /// The state. The lock is never held while the timed call runs, so it
    /// cannot be poisoned by it; were it poisoned, the timings in it would
    /// still be usable.
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `calls` calls where parallel ones take `par` seconds and
    /// sequential ones `seq`, plus `switch` seconds for a call the other way
    /// than the one before; returns the ways chosen.
    fn run(s: &mut State, par: f64, seq: f64, switch: f64, calls: u64) -> Vec<bool> {
        (0..calls)
            .map(|_| {
                let p = s.next();
                let cost = if p { par } else { seq };
                let warm = if s.last.is_some_and(|l| l != p) {
                    switch
                } else {
                    0.0
                };
                s.record(p, cost + warm);
                p
            })
            .collect()
    }

    #[test]
    fn the_faster_way_runs_and_the_slower_one_in_a_burst_per_period() {
        for (par, seq, faster) in [(1.0, 2.0, true), (2.0, 1.0, false)] {
            let mut s = State::default();
            let c = run(&mut s, par, seq, 0.0, 4 * PERIOD);
            assert_eq!(&c[..4], &[true, true, false, false], "each way timed first");
            for (call, &p) in c.iter().enumerate().skip(4) {
                let in_burst = call as u64 % PERIOD >= PERIOD - BURST;
                assert_eq!(p != faster, in_burst, "call {call}: {c:?}");
            }
        }
    }

    #[test]
    fn the_cost_of_switching_ways_does_not_keep_the_faster_way_out() {
        // Sequential first (parallel is slow), then parallel is faster, but
        // each switch costs more than five of its calls: timed, the first
        // call of every burst would keep parallel looking slower.
        let mut s = State::default();
        run(&mut s, 3.0, 1.2, 5.0, 4 * PERIOD);
        let c = run(&mut s, 1.0, 1.2, 5.0, 8 * PERIOD);
        let tail = &c[c.len() - PERIOD as usize..];
        let parallel = tail.iter().filter(|&&p| p).count() as u64;
        assert_eq!(parallel, PERIOD - BURST, "{c:?}");
    }

    #[test]
    fn a_change_of_load_switches_the_way_within_a_few_periods() {
        let mut s = State::default();
        let count =
            |ways: &[bool], parallel: bool| ways.iter().filter(|&&p| p == parallel).count() as u64;
        // Quiet: parallel wins. Busy: parallel calls take twice as long as
        // sequential ones. Quiet again.
        let quiet = run(&mut s, 1.0, 1.5, 0.5, 4 * PERIOD);
        assert_eq!(count(&quiet[PERIOD as usize..], true), 3 * (PERIOD - BURST));
        let busy = run(&mut s, 3.0, 1.5, 0.5, 4 * PERIOD);
        assert_eq!(
            count(&busy[PERIOD as usize..], false),
            3 * (PERIOD - BURST),
            "{busy:?}"
        );
        let again = run(&mut s, 1.0, 1.5, 0.5, 8 * PERIOD);
        assert_eq!(
            count(&again[6 * PERIOD as usize..], true),
            2 * (PERIOD - BURST),
            "{again:?}"
        );
    }

    #[test]
    fn run_passes_the_choice_and_returns_the_result() {
        let choice = ParallelChoice::default();
        let ways: Vec<bool> = (0..4).map(|_| choice.run(|p| p)).collect();
        assert_eq!(ways, [true, true, false, false]);
    }
}
