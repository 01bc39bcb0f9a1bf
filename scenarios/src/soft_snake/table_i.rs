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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunVelocities {
    /// Mean over the whole gait (Table I's 15 s).
    pub whole: [f64; 2],
    /// Mean from [`STEADY_AFTER`] seconds after the gait starts to its
    /// end.
    pub steady: [f64; 2],
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
        })
    }
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
    RunVelocities::of_path(&path, info.gait_start, snake.duration).ok_or_else(|| {
        CoreError::degenerate(
            "duration",
            format!(
                "a {} s gait: Table I's steady velocity need a gait longer than the {STEADY_AFTER} s start-up",
                snake.duration
            ),
        )
    })
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
}
