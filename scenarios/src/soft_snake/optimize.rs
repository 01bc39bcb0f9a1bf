//! Rolling-gait optimization: the nine pressure schedules as periodic
//! keyframes ([`pliant_optim::Gait`]: zero-tangent Hermite splines through
//! `keyframes` values per cycle), either free per muscle or — the rolling
//! symmetry ([`Keyframing::Rotational`]) — one shared waveform that every
//! muscle follows shifted by its angle about the axis (and by the
//! sections' phase shift), as the hand-made gait does; the
//! mean sideways velocity of the centre of mass as the objective, pressures
//! bounded by `[0, p_max]` — the 3 bar ceiling. Rollouts start from the
//! snake in steady rolling: after its drop, the ramp and one full cycle of
//! the hand-made gait, at the phase of the first keyframe, so the
//! objective measures rolling, not the start-up transient (ramping up to
//! a bent shape tips the body sideways by several centimetres, which
//! would dominate a short horizon).

use super::{SoftSnake, newton};
use crate::Result;
use pliant_core::{Integrator, Simulator};
use pliant_optim::{AverageVelocity, CentreOfMass, Gait as Keyframes, Motor, Objective, Shooting};

/// How the nine pressure schedules are parameterized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyframing {
    /// Every muscle its own keyframes (`9 n` values).
    Free,
    /// One waveform `W` of `n` keyframes (a multiple of 6) per cycle;
    /// muscle `j` of section `i` follows it shifted by its angle
    /// `ψ_ij − i Δ` (a whole number of keyframes): the pattern rotates
    /// about the body axis by construction.
    Rotational,
}

/// A rolling-gait optimization problem and its starting point.
#[derive(Debug)]
pub struct RollingProblem {
    /// The shooting problem (its rollouts start in steady rolling).
    pub shooting: Shooting,
    /// The hand-made gait of [`SoftSnake::gait`] sampled at the keyframes:
    /// the starting point `z₀` (Pa; muscle by muscle, or the waveform).
    pub hand_made: Vec<f64>,
    /// Steps of a rollout.
    pub steps: usize,
    /// Rollout duration, s.
    pub duration: f64,
    /// The centre of mass along `y`.
    com: CentreOfMass,
}

impl RollingProblem {
    /// Mean velocity along `y` (m/s) of the centre of mass over a rollout
    /// with keyframes `z` (Pa).
    pub fn speed(&self, z: &[f64]) -> Result<f64> {
        let traj = self.shooting.rollout_z(z)?;
        let (Some(a), Some(b)) = (traj.x.first(), traj.x.last()) else {
            return Ok(0.0);
        };
        Ok((self.com.of(b)[0] - self.com.of(a)[0]) / self.duration)
    }
}

/// Builds the problem for `snake` (its gait is the hand-made start):
/// `keyframes` per 2 s cycle and muscle, `cycles` cycles; the objective
/// drives the mean
/// velocity along `+y` towards `target` (m/s, beyond reach: the residual
/// then rewards every extra cm/s).
pub fn rolling_problem(
    snake: &SoftSnake,
    keyframing: Keyframing,
    keyframes: usize,
    cycles: usize,
    target: f64,
) -> Result<RollingProblem> {
    let period = 1.0 / snake.gait.frequency;
    let ramp_keys = snake.gait.ramp / period * keyframes as f64;
    if keyframing == Keyframing::Rotational
        && (keyframes == 0
            || !keyframes.is_multiple_of(6)
            || (ramp_keys - ramp_keys.round()).abs() > 1e-9)
    {
        return Err(pliant_core::CoreError::degenerate(
            "keyframes",
            format!(
                "{keyframes} keyframes: the rotational waveform needs a positive multiple of 6 (muscles sit π/3 apart) that also puts a keyframe at the end of the {} s ramp",
                snake.gait.ramp
            ),
        )
        .into());
    }
    if snake.gait.kind == super::gait::GaitKind::Still {
        return Err(pliant_core::CoreError::inconsistent(
            "gait.kind",
            "a rolling-gait problem starts from a rolling gait (planar or spatial), not `Still`",
        )
        .into());
    }
    // Drop, settle, ramp up and roll one cycle with the hand-made gait.
    let mut warm = snake.clone();
    warm.duration = snake.gait.ramp + period;
    let (mut warmup, info) = warm.build()?.simulator()?;
    for _ in 0..info.steps {
        warmup.step()?;
    }
    let (x0, v0) = (warmup.q().to_vec(), warmup.v().to_vec());
    let scene = snake.build()?;
    let channels = scene.info.body.channels.clone();
    let sim = Simulator::new(scene.model, Integrator::ImplicitEuler, snake.dt, newton())?;
    let layout = Keyframes {
        motors: channels
            .iter()
            .flatten()
            .map(|c| Motor {
                name: c.clone(),
                channels: vec![c.clone()],
                mirror_of: None,
            })
            .collect(),
        keyframes,
        prep_steps: 0,
        cycle_steps: (period / snake.dt).round() as usize,
        cycles,
        bounds: Some((0.0, snake.gait.peak_pressure)),
    };
    let free = layout.control_map(sim.model())?;
    let steps = layout.steps();
    let n = keyframes;
    let (map, hand_made) = match keyframing {
        Keyframing::Free => {
            let ramp = snake.gait.ramp;
            let hand = (0..3)
                .flat_map(|i| (0..3).map(move |j| (i, j)))
                .flat_map(|(i, j)| {
                    (0..n).map(move |k| {
                        snake.gait.pressure(
                            snake.mounting,
                            i,
                            j,
                            ramp + k as f64 * period / n as f64,
                        )
                    })
                })
                .collect();
            (free, hand)
        }
        Keyframing::Rotational => {
            // Muscle (i, j) at keyframe k reads W[(s k + shift_ij) mod n].
            let per_rad = n as f64 / std::f64::consts::TAU;
            let sense = if snake.gait.sense >= 0.0 { 1 } else { n - 1 };
            let ramp_keys = ramp_keys.round() as usize;
            let mut jac = vec![0.0; steps * 9 * n];
            for k in 0..steps {
                for (c, (i, j)) in (0..3).flat_map(|i| (0..3).map(move |j| (i, j))).enumerate() {
                    let angle = super::body::muscle_angle(snake.mounting, i, j)
                        - i as f64 * snake.gait.phase_shift(snake.mounting);
                    let shift =
                        (n as i64 - (angle * per_rad).round() as i64).rem_euclid(n as i64) as usize;
                    let row = free.block(k + 1);
                    for key in 0..n {
                        // The free map's weight on motor c, keyframe `key`.
                        let w = row[c * 9 * n + c * n + key];
                        if w != 0.0 {
                            let m = (sense * (key + ramp_keys) + shift) % n;
                            jac[(k * 9 + c) * n + m] += w;
                        }
                    }
                }
            }
            let map = pliant_optim::ControlMap::new(
                steps,
                free.channels().to_vec(),
                n,
                jac,
                layout.bounds,
            )?;
            let (pmax, pb) = (snake.gait.peak_pressure, snake.gait.amplitude);
            let hand = (0..n)
                .map(|m| pmax - pb * (1.0 - (m as f64 / per_rad).cos()))
                .collect();
            (map, hand)
        }
    };
    let duration = steps as f64 * snake.dt;
    let com = CentreOfMass::new(sim.model(), &[1])?;
    let objective: Vec<Box<dyn Objective>> = vec![Box::new(AverageVelocity::new(
        sim.model(),
        &[1],
        vec![target],
        1e4,
    )?)];
    let shooting = Shooting::new(sim, map, objective)?.with_initial_state(x0, v0)?;
    Ok(RollingProblem {
        shooting,
        hand_made,
        steps,
        duration,
        com,
    })
}
