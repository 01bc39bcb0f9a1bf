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
//!
//! One choice can serve calls of several kinds that cost different amounts
//! (Newton's value, gradient and Hessian assemblies: [`ParallelChoice::run_kind`]).
//! They then run the same way, so the pool is not woken for one kind and
//! left to sleep by the next, and each kind keeps its own means: the ways
//! are compared by the cost of the kinds' call mix (means weighted by how
//! often each kind is called), not by one mean over whatever kinds
//! happened to fall into a burst. One mean per way over the mix picked
//! sequential calls for 35–40 % of a quiet 100-cell stack run, whose
//! bursts caught mostly the cheap value calls, and cost 7–9 % (measured
//! 2026-11-29).

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

/// Moving means of one kind of call in seconds per call (`None`: not timed
/// yet) and its number of calls.
#[derive(Debug, Default, Clone, Copy)]
struct KindTimes {
    sequential: Option<f64>,
    parallel: Option<f64>,
    calls: u64,
}

/// The kinds' times, the way of the last call, the way of the current
/// burst, and the number of calls so far.
#[derive(Debug, Default)]
struct State {
    kinds: Vec<KindTimes>,
    last: Option<bool>,
    burst: bool,
    calls: u64,
}

impl State {
    /// The cost of the kinds' call mix run in parallel and sequentially:
    /// `Σ nₖ tₖ` over the kinds timed both ways (`None` if there are none).
    fn mix(&self) -> Option<(f64, f64)> {
        let timed = self
            .kinds
            .iter()
            .filter_map(|k| Some((k.parallel?, k.sequential?, k.calls as f64)));
        let mut any = false;
        let (mut p, mut s) = (0.0, 0.0);
        for (kp, ks, n) in timed {
            any = true;
            p += n * kp;
            s += n * ks;
        }
        any.then_some((p, s))
    }

    /// Whether the next call runs in parallel: until each way has been
    /// timed (on any kind), parallel first; then the way whose call mix is
    /// cheaper (parallel while no kind has been timed both ways), except
    /// in the last [`BURST`] calls of each [`PERIOD`], which run the way
    /// that was the dearer one when the burst began.
    fn next(&mut self) -> bool {
        let parallel_timed = self.kinds.iter().any(|k| k.parallel.is_some());
        let sequential_timed = self.kinds.iter().any(|k| k.sequential.is_some());
        if !(parallel_timed && sequential_timed) {
            return !parallel_timed;
        }
        let faster_parallel = self.mix().is_none_or(|(p, s)| p <= s);
        let phase = self.calls % PERIOD;
        if phase == PERIOD - BURST {
            self.burst = !faster_parallel;
        }
        if phase >= PERIOD - BURST {
            self.burst
        } else {
            faster_parallel
        }
    }

    /// Records a call of `kind` that took `seconds` (timed only when the
    /// call before it, of any kind, ran the same way).
    fn record(&mut self, kind: usize, parallel: bool, seconds: f64) {
        if self.kinds.len() <= kind {
            self.kinds.resize(kind + 1, KindTimes::default());
        }
        let times = &mut self.kinds[kind];
        times.calls += 1;
        if self.last == Some(parallel) {
            let mean = if parallel {
                &mut times.parallel
            } else {
                &mut times.sequential
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
        self.run_kind(0, f)
    }

    /// [`ParallelChoice::run`] for a call of kind `kind` (a small index; see
    /// the module doc).
    pub(crate) fn run_kind<R>(&self, kind: usize, f: impl FnOnce(bool) -> R) -> R {
        let parallel = self.lock().next();
        let start = Instant::now();
        let out = f(parallel);
        let seconds = start.elapsed().as_secs_f64();
        self.lock().record(kind, parallel, seconds);
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
                s.record(0, p, cost + warm);
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
    fn kinds_are_compared_by_the_cost_of_their_mix() {
        // Three cheap calls that run faster on this thread, then one dear
        // one that runs much faster in parallel: the mix is cheaper in
        // parallel, whichever kinds a burst happens to catch.
        for (dear_seq, parallel_wins) in [(20.0, true), (10.5, false)] {
            let mut s = State::default();
            let mut ways = Vec::new();
            for call in 0..16 * PERIOD {
                let kind = usize::from(call % 4 == 3);
                let p = s.next();
                let cost = match (kind, p) {
                    (0, true) => 1.0,
                    (0, false) => 0.8,
                    (_, true) => 10.0,
                    (_, false) => dear_seq,
                };
                s.record(kind, p, cost);
                ways.push(p);
            }
            let tail = &ways[ways.len() - PERIOD as usize..];
            let parallel = tail.iter().filter(|&&p| p).count() as u64;
            let expected = if parallel_wins { PERIOD - BURST } else { BURST };
            assert_eq!(
                parallel, expected,
                "dear call {dear_seq} s sequentially: {tail:?}"
            );
        }
    }

    #[test]
    fn run_passes_the_choice_and_returns_the_result() {
        let choice = ParallelChoice::default();
        let ways: Vec<bool> = (0..4).map(|_| choice.run(|p| p)).collect();
        assert_eq!(ways, [true, true, false, false]);
    }
}
