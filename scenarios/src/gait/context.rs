//! What a gait run reports: the context a run keeps and its summary.

use super::GaitSetup;
use pliant_cable::CableEnergy;
use pliant_core::Model;
use pliant_optim::{CentreOfMass, Heading, Motor, Trajectory};
use serde::Serialize;

/// What post-processing a gait needs besides the shooting problem.
pub struct GaitContext {
    /// A copy of the model (same layout) for post-processing.
    pub model: Model,
    /// Cables bound to `model`.
    pub cables: Vec<CableEnergy>,
    /// The motors, in gait order.
    pub motors: Vec<Motor>,
    /// COM targets per step.
    pub targets: Vec<Vec<f64>>,
    /// Settled initial state.
    pub x0: Vec<f64>,
    /// Horizontal centre of mass.
    pub com: CentreOfMass,
    /// The body's heading (only its [`Heading::angle_of`] is used).
    pub heading: Heading,
}

impl std::fmt::Debug for GaitContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GaitContext {{ motors: {:?} }}", self.motors)
    }
}

/// What a gait achieved.
#[derive(Debug, Clone, Serialize)]
pub struct GaitSummary {
    /// Problem name.
    pub name: String,
    /// Horizontal COM displacement over the cycles, m.
    pub displacement: [f64; 2],
    /// Average speed over the cycles, body lengths per minute (straight-line
    /// distance from the start to the end of the cycles, so for a turn the
    /// chord, not the path length; negative when it went backwards).
    pub body_lengths_per_minute: f64,
    /// Change of heading over the cycles, degrees (negative: turned right).
    pub heading_change_degrees: f64,
    /// The change of heading the target asks for, degrees
    /// ([`GaitSetup::heading_change_asked_degrees`]).
    pub heading_change_asked_degrees: f64,
    /// How much lower the centre of mass is at the end of the rollout than
    /// in the settled state it starts from, m (a robot that tips over drops;
    /// one that walks does not; NaN if it cannot be computed).
    pub com_drop: f64,
    /// Final objective.
    pub objective: f64,
    /// Mean Newton iterations per step of the final rollout.
    pub newton_per_step: f64,
}

impl std::fmt::Display for GaitSummary {
    /// `centre of mass moved (60.2, 0.1) mm over the cycles: 5.85 body
    /// lengths per minute; heading changed 1.5° (asked 0.0°)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "centre of mass moved ({:.1}, {:.1}) mm over the cycles: {:.2} body lengths per minute; heading changed {:.1}° (asked {:.1}°)",
            1e3 * self.displacement[0],
            1e3 * self.displacement[1],
            self.body_lengths_per_minute,
            self.heading_change_degrees,
            self.heading_change_asked_degrees
        )
    }
}

impl GaitContext {
    /// Speed and displacement of a rollout over its cyclic phase.
    pub fn summary(&self, setup: &GaitSetup, tr: &Trajectory, objective: f64) -> GaitSummary {
        let k0 = setup.gait.prep_steps;
        let a = self.com.of(&tr.x[k0]);
        let b = self.com.of(&tr.x[tr.steps()]);
        let d = [b[0] - a[0], b[1] - a[1]];
        let t = (tr.steps() - k0) as f64 * setup.h;
        let dist = (d[0] * d[0] + d[1] * d[1]).sqrt() * d[0].signum();
        let turn = self.heading.angle_of(&tr.x[tr.steps()]) - self.heading.angle_of(&tr.x[k0]);
        // Wrap to (−180°, 180°].
        let turn =
            (turn + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
        let dim = self.model.layout().dim();
        let com_drop = CentreOfMass::new(&self.model, &[dim - 1])
            .map(|h| h.of(&tr.x[0])[0] - h.of(&tr.x[tr.steps()])[0])
            .unwrap_or(f64::NAN);
        GaitSummary {
            name: setup.name.clone(),
            com_drop,
            displacement: d,
            heading_change_degrees: turn.to_degrees(),
            heading_change_asked_degrees: setup.heading_change_asked_degrees(),
            body_lengths_per_minute: dist / setup.robot.body_length / t * 60.0,
            objective,
            newton_per_step: tr.newton_iterations.iter().sum::<usize>() as f64 / tr.steps() as f64,
        }
    }
}
