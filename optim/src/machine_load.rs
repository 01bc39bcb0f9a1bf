//! How much of the machine other processes take: the CPU time all cores
//! spent busy (`/proc/stat`) less this process's own (`/proc/self/stat`)
//! over an interval, in cores. A virtual machine's steal time — cycles the
//! hypervisor gave to other guests — counts as other processes' too.
//!
//! Linux only. Elsewhere, and where `/proc/stat` lists a different number
//! of cores than this process may use (a container limited to some of the
//! host's cores), the load is unknown and nothing adapts to it.

/// Intervals shorter than this many clock ticks summed over the cores
/// (10 ms each at Linux's `USER_HZ` of 100: a quarter of a second on two
/// cores) are too coarse to tell one core's use from another's.
const MIN_TICKS: u64 = 50;

/// CPU clock ticks at one moment (Linux's `USER_HZ` units; only
/// differences and ratios are used).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CpuTicks {
    /// Every core's non-idle time.
    busy: u64,
    /// Every core's time, idle included.
    total: u64,
    /// This process's user and system time, all its threads.
    own: u64,
    /// Cores `/proc/stat` lists (and this process may use).
    cores: usize,
}

impl CpuTicks {
    /// The counters now, or `None` where they cannot be read or do not
    /// describe the cores this process runs on.
    pub(crate) fn now() -> Option<Self> {
        if !cfg!(target_os = "linux") {
            return None;
        }
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let own = std::fs::read_to_string("/proc/self/stat").ok()?;
        let cores = std::thread::available_parallelism().ok()?.get();
        Self::parse(&stat, &own, cores)
    }

    /// Reads the aggregate `cpu` line of `/proc/stat` (`user nice system
    /// idle iowait irq softirq steal …`; guest time is already inside
    /// `user` and `nice`) and the `utime`, `stime` fields of
    /// `/proc/self/stat` (the 14th and 15th; the command name before them
    /// is in parentheses and may hold spaces). `None` when either is
    /// malformed or `/proc/stat` lists other than `cores` cores.
    fn parse(stat: &str, own: &str, cores: usize) -> Option<Self> {
        let mut fields = stat.lines().next()?.split_whitespace();
        if fields.next()? != "cpu" {
            return None;
        }
        let v: Vec<u64> = fields
            .take(8)
            .map(|s| s.parse().ok())
            .collect::<Option<_>>()?;
        if v.len() < 5 {
            return None;
        }
        let listed = stat
            .lines()
            .filter(|l| {
                l.strip_prefix("cpu")
                    .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            })
            .count();
        if listed != cores {
            return None;
        }
        let total: u64 = v.iter().sum();
        let idle = v[3] + v[4];
        let after_name = &own[own.rfind(')')? + 1..];
        let f: Vec<&str> = after_name.split_whitespace().collect();
        let utime: u64 = f.get(11)?.parse().ok()?;
        let stime: u64 = f.get(12)?.parse().ok()?;
        Some(Self {
            busy: total.checked_sub(idle)?,
            total,
            own: utime + stime,
            cores,
        })
    }

    /// Cores' worth of CPU time other processes took from `self` to
    /// `later`, or `None` when the interval is too short to tell
    /// ([`MIN_TICKS`]) or the counters went backwards.
    pub(crate) fn others_until(&self, later: &Self) -> Option<f64> {
        let total = later.total.checked_sub(self.total)?;
        if total < MIN_TICKS || later.cores != self.cores {
            return None;
        }
        let busy = later.busy.checked_sub(self.busy)?;
        let own = later.own.checked_sub(self.own)?;
        Some(busy.saturating_sub(own) as f64 / total as f64 * self.cores as f64)
    }
}

/// How many of `simulators` trial rollouts to run at once on `cores` cores
/// when other processes take `others` cores: as many as the cores left can
/// give three quarters of one each, at least one and at most all. Two
/// concurrent trials beside one busy process on two cores each get about
/// two thirds of a core, and the second trial (a larger damping, wasted
/// whenever the first is accepted) then costs more than it saves: whole
/// Puppy runs took 3.67 s per iteration on two simulators against 3.41 s
/// on one (`docs/benchmarks.md`).
pub(crate) fn concurrent_trials(simulators: usize, cores: usize, others: Option<f64>) -> usize {
    match others {
        Some(o) => {
            let fit = ((cores as f64 - o) / 0.75).floor();
            (fit.max(1.0) as usize).min(simulators)
        }
        None => simulators,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  100 10 50 800 20 0 5 15 0 0\ncpu0 50 5 25 400 10 0 2 7 0 0\ncpu1 50 5 25 400 10 0 3 8 0 0\nintr 1 2 3\n";
    const OWN: &str = "4242 (my (odd) name) R 1 2 3 0 -1 4194304 10 0 0 0 70 30 0 0 20 0 3 0 99";

    #[test]
    fn reads_the_aggregate_line_and_this_process_s_times() {
        let t = CpuTicks::parse(STAT, OWN, 2).unwrap();
        assert_eq!(
            t,
            CpuTicks {
                busy: 100 + 10 + 50 + 5 + 15,
                total: 1000,
                own: 100,
                cores: 2
            }
        );
        // A container seeing more of the host's cores than it may use.
        assert_eq!(CpuTicks::parse(STAT, OWN, 4), None);
        assert_eq!(CpuTicks::parse("intr 1 2\n", OWN, 2), None);
        assert_eq!(CpuTicks::parse(STAT, "4242 (name) R 1 2", 2), None);
        assert_eq!(
            CpuTicks::parse("cpu  1 2 x 4 5\ncpu0\ncpu1\n", OWN, 2),
            None
        );
    }

    #[test]
    fn others_are_the_busy_time_this_process_did_not_take() {
        let a = CpuTicks {
            busy: 1000,
            total: 5000,
            own: 400,
            cores: 2,
        };
        // 1 s on 2 cores (200 ticks): busy 150 ticks, 100 of them ours.
        let b = CpuTicks {
            busy: 1150,
            total: 5200,
            own: 500,
            cores: 2,
        };
        assert!((a.others_until(&b).unwrap() - 0.5).abs() < 1e-12);
        // Idle but for us.
        let c = CpuTicks { own: 550, ..b };
        assert_eq!(a.others_until(&c), Some(0.0));
        // Too short an interval, or counters going backwards.
        let d = CpuTicks { total: 5040, ..b };
        assert_eq!(a.others_until(&d), None);
        assert_eq!(b.others_until(&a), None);
    }

    #[test]
    fn trials_run_one_at_a_time_while_other_processes_hold_the_cores() {
        assert_eq!(concurrent_trials(2, 2, None), 2);
        assert_eq!(concurrent_trials(2, 2, Some(0.05)), 2);
        assert_eq!(concurrent_trials(2, 2, Some(0.45)), 2);
        // `yes > /dev/null` beside two trials takes about 0.67 cores, beside one 1.
        assert_eq!(concurrent_trials(2, 2, Some(0.67)), 1);
        assert_eq!(concurrent_trials(2, 2, Some(1.0)), 1);
        assert_eq!(concurrent_trials(2, 8, Some(1.0)), 2);
        assert_eq!(concurrent_trials(1, 2, Some(0.0)), 1);
        // More simulators than cores: as many trials as there are cores.
        assert_eq!(concurrent_trials(3, 2, Some(0.0)), 2);
        assert_eq!(concurrent_trials(3, 2, None), 3);
        assert_eq!(concurrent_trials(4, 2, Some(3.0)), 1);
    }

    #[test]
    fn the_counters_of_this_machine_are_read_on_linux() {
        if cfg!(target_os = "linux") && CpuTicks::now().is_none() {
            // Only a container whose `/proc/stat` lists the host's cores
            // may refuse them; then its core count must differ.
            let stat = std::fs::read_to_string("/proc/stat").unwrap();
            let listed = stat.lines().filter(|l| l.starts_with("cpu")).count() - 1;
            let cores = std::thread::available_parallelism().unwrap().get();
            assert_ne!(
                listed, cores,
                "/proc/stat lists {listed} cores, as many as we may use, yet was not read"
            );
        }
    }
}
