//! Rolling-gait optimization: the nine pressure schedules as periodic
//! keyframes ([`pliant_optim::Gait`]: zero-tangent Hermite splines through
//! `keyframes` values per cycle and muscle, a preparatory ramp from 0), the
//! mean sideways velocity of the centre of mass as the objective, pressures
//! bounded by `[0, p_max]` — the 3 bar ceiling — and rollouts starting
//! from the snake at rest on the ground after its drop.

use super::{SoftSnake, newton};
use crate::Result;
use pliant_core::{Integrator, Simulator};
use pliant_optim::{AverageVelocity, CentreOfMass, Gait as Keyframes, Motor, Objective, Shooting};

/// A rolling-gait optimization problem and its starting point.
#[derive(Debug)]
pub struct RollingProblem {
    /// The shooting problem (its rollouts start at rest after the drop).
    pub shooting: Shooting,
    /// The hand-made gait of [`SoftSnake::gait`] sampled at the keyframes:
    /// the starting point `z₀` (Pa, muscle by muscle).
    pub hand_made: Vec<f64>,
    /// The keyframe layout (motors `p11 … p33`).
    pub keyframes: Keyframes,
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
/// `keyframes` per 2 s cycle and muscle, `cycles` cycles after the
/// `snake.gait.ramp` preparatory ramp; the objective drives the mean
/// velocity along `+y` towards `target` (m/s, beyond reach: the residual
/// then rewards every extra cm/s).
pub fn rolling_problem(snake: &SoftSnake, keyframes: usize, cycles: usize, target: f64) -> Result<RollingProblem> {
    // Drop and settle with no pressure.
    let mut still = snake.clone();
    still.gait.kind = super::gait::GaitKind::Still;
    still.duration = 0.0;
    let (mut settle, info) = still.build()?.simulator()?;
    for _ in 0..info.steps {
        settle.step()?;
    }
    let (x0, v0) = (settle.q().to_vec(), settle.v().to_vec());
    let scene = snake.build()?;
    let channels = scene.info.body.channels.clone();
    let sim = Simulator::new(scene.model, Integrator::ImplicitEuler, snake.dt, newton())?;
    let period = 1.0 / snake.gait.frequency;
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
        prep_steps: (snake.gait.ramp / snake.dt).round() as usize,
        cycle_steps: (period / snake.dt).round() as usize,
        cycles,
        bounds: Some((0.0, snake.gait.peak_pressure)),
    };
    let map = layout.control_map(sim.model())?;
    let steps = layout.steps();
    let duration = steps as f64 * snake.dt;
    let com = CentreOfMass::new(sim.model(), &[1])?;
    let objective: Vec<Box<dyn Objective>> = vec![Box::new(AverageVelocity::new(sim.model(), &[1], vec![target], 1e4)?)];
    let shooting = Shooting::new(sim, map, objective)?.with_initial_state(x0, v0)?;
    let ramp = snake.gait.ramp;
    let hand_made = (0..3)
        .flat_map(|i| (0..3).map(move |j| (i, j)))
        .flat_map(|(i, j)| {
            (0..keyframes).map(move |k| snake.gait.pressure(i, j, ramp + k as f64 * period / keyframes as f64))
        })
        .collect();
    Ok(RollingProblem {
        shooting,
        hand_made,
        keyframes: layout,
        steps,
        duration,
        com,
    })
}
