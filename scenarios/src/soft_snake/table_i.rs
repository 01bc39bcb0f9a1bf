//! The velocities Table I compares, from one run of the snake.
//!
//! The paper computes its velocity components "based on displacement data"
//! of 15 s runs (§IV-E) without saying over which window, nor at which
//! phase of the rotation its gaits start. Both matter to a 15 s mean: at
//! dt = 5 ms the rolling body reaches its steady rolling speed within one
//! or two cycles, and how long that takes depends on the start phase
//! (`docs/results.md`: 15 s means of 6.8–9.7 cm/s over six start phases
//! of planar rolling, each of whose cycles after the second rolls at
//! 9.5–9.7 cm/s). So a run reports both the mean over the whole gait and
//! the steady velocity: the mean from [`STEADY_AFTER`] seconds after the
//! gait starts to its end.

use super::{SoftSnake, mean_velocity};
use pliant_core::{CoreError, Result};

/// Start of the steady window, s after the gait starts: 2.5 cycles at the
/// paper's 0.5 Hz, past the start-up of every start phase measured.
pub const STEADY_AFTER: f64 = 5.0;

/// Centre-of-mass velocities of one run in the ground plane, m/s
/// (`[x, y]`: `x` along the body as it was dropped, `y` across it).
#[derive(Debug, Clone, PartialEq)]
pub struct RunVelocities {
    /// Mean over the whole gait (Table I's 15 s).
    pub whole: [f64; 2],
    /// Mean from [`STEADY_AFTER`] seconds after the gait starts to its
    /// end.
    pub steady: [f64; 2],
    /// Speed in the ground plane over each whole cycle of the gait
    /// ([`cycle_speeds`]; empty from [`RunVelocities::of_path`]).
    pub cycles: Vec<f64>,
}

impl RunVelocities {
    /// The velocities of a centre-of-mass path `(t, com)` of a gait that
    /// starts at `gait_start` and lasts `duration` seconds; `None` when the
    /// path does not cover the gait or the gait is not longer than
    /// [`STEADY_AFTER`].
    ///
    /// ```
    /// use pliant_scenarios::soft_snake::table_i::RunVelocities;
    /// // Still for the first 6 s of a 10 s gait, then 0.1 m/s along y.
    /// let path: Vec<(f64, [f64; 3])> = (0..=100)
    ///     .map(|k| {
    ///         let t = 0.1 * k as f64;
    ///         (t, [0.0, 0.1 * (t - 6.0).max(0.0), 0.0])
    ///     })
    ///     .collect();
    /// let v = RunVelocities::of_path(&path, 0.0, 10.0).unwrap();
    /// assert!((v.whole[1] - 0.04).abs() < 1e-12);
    /// assert!((v.steady[1] - 0.08).abs() < 1e-12);
    /// ```
    pub fn of_path(path: &[(f64, [f64; 3])], gait_start: f64, duration: f64) -> Option<Self> {
        if duration <= STEADY_AFTER {
            return None;
        }
        let end = gait_start + duration;
        let covers = |t: f64| path.iter().any(|p| (p.0 - t).abs() < 1e-6);
        if !(covers(gait_start) && covers(end)) {
            return None;
        }
        let whole = mean_velocity(path, gait_start, end)?;
        let steady = mean_velocity(path, gait_start + STEADY_AFTER, end)?;
        Some(Self {
            whole: [whole[0], whole[1]],
            steady: [steady[0], steady[1]],
            cycles: vec![],
        })
    }
}

/// Speed of the centre of mass in the ground plane over each whole cycle
/// of `period` seconds of a gait that starts at `gait_start` and lasts
/// `duration` seconds (m/s): the net displacement over the cycle, divided
/// by the period. A cycle the path does not cover is left out.
///
/// ```
/// use pliant_scenarios::soft_snake::table_i::cycle_speeds;
/// // Along x at 0.1 m/s from t = 2 s: over 2 s cycles from t = 1 s.
/// let path: Vec<(f64, [f64; 3])> = (0..=70)
///     .map(|k| {
///         let t = 0.1 * k as f64;
///         (t, [0.1 * (t - 2.0).max(0.0), 0.0, 0.03])
///     })
///     .collect();
/// let v = cycle_speeds(&path, 1.0, 6.0, 2.0);
/// assert_eq!(v.len(), 3);
/// assert!((v[0] - 0.05).abs() < 1e-12 && (v[2] - 0.1).abs() < 1e-12);
/// ```
pub fn cycle_speeds(
    path: &[(f64, [f64; 3])],
    gait_start: f64,
    duration: f64,
    period: f64,
) -> Vec<f64> {
    if period <= 0.0 {
        return vec![];
    }
    let cycles = (duration / period + 1e-9).floor() as usize;
    (0..cycles)
        .map_while(|k| {
            let t0 = gait_start + k as f64 * period;
            let covers = |t: f64| path.iter().any(|p| (p.0 - t).abs() < 1e-6);
            if !(covers(t0) && covers(t0 + period)) {
                return None;
            }
            mean_velocity(path, t0, t0 + period).map(|v| v[0].hypot(v[1]))
        })
        .collect()
}

/// Runs `snake` (drop, settle, gait) and returns its velocities, without
/// writing anything.
pub fn run_velocities(snake: &SoftSnake) -> Result<RunVelocities> {
    let (mut sim, info) = snake.build()?.simulator()?;
    let com = |sim: &pliant_core::Simulator| {
        let c = sim.model().center_of_mass(sim.q());
        (sim.time(), [c[0], c[1], c[2]])
    };
    let mut path = Vec::with_capacity(info.steps + 1);
    path.push(com(&sim));
    for _ in 0..info.steps {
        sim.step()?;
        path.push(com(&sim));
    }
    let period = 1.0 / snake.gait.frequency;
    let cycles = cycle_speeds(&path, info.gait_start, snake.duration, period);
    let v = RunVelocities::of_path(&path, info.gait_start, snake.duration).ok_or_else(|| {
        CoreError::degenerate(
            "duration",
            format!(
                "a {} s gait: Table I's steady velocity need a gait longer than the {STEADY_AFTER} s start-up",
                snake.duration
            ),
        )
    })?;
    Ok(RunVelocities { cycles, ..v })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(until: f64) -> Vec<(f64, [f64; 3])> {
        (0..=(until * 10.0).round() as usize)
            .map(|k| (0.1 * k as f64, [0.02 * k as f64, 0.0, 0.0]))
            .collect()
    }

    /// No velocities from a gait no longer than the start-up, or from a
    /// path that stops before the gait ends or starts after it begins.
    #[test]
    fn short_gaits_and_paths_give_no_velocities() {
        assert!(RunVelocities::of_path(&path(20.0), 1.0, STEADY_AFTER).is_none());
        assert!(RunVelocities::of_path(&path(10.0), 1.0, 12.0).is_none());
        let late: Vec<_> = path(20.0).into_iter().filter(|p| p.0 > 2.0).collect();
        assert!(RunVelocities::of_path(&late, 1.0, 12.0).is_none());
        let v = RunVelocities::of_path(&path(20.0), 1.0, 12.0).unwrap();
        assert!((v.whole[0] - 0.2).abs() < 1e-9 && (v.steady[0] - 0.2).abs() < 1e-9);
    }

    /// Whole cycles only, and none the path does not cover.
    #[test]
    fn cycle_speeds_count_whole_covered_cycles() {
        let p = path(10.0);
        assert_eq!(cycle_speeds(&p, 1.0, 7.9, 2.0).len(), 3);
        assert_eq!(cycle_speeds(&p, 1.0, 20.0, 2.0).len(), 4);
        assert!(cycle_speeds(&p, 1.0, 8.0, 0.0).is_empty());
        assert!(
            cycle_speeds(&p, 1.0, 8.0, 2.0)
                .iter()
                .all(|v| (v - 0.2).abs() < 1e-9)
        );
    }
}
