//! The actuator map of a gait spec: which control channels of the scene
//! are motors, which channels a motor drives together (a tendon pair), and
//! which motors mirror a partner (bilateral symmetry, cable paper §III-B.3).
//!
//! ```json
//! "actuators": {
//!   "motors": ["rear_right_front", {"name": "tail", "channels": ["tail_a", "tail_b"]}],
//!   "mirror": [["rear_left_front", "rear_right_front"]],
//!   "bounds": [-0.005, 0.015]
//! }
//! ```

use super::GaitRobot;
use crate::{Result, ScenarioError};
use pliant_optim::Motor;
use serde::{Deserialize, Serialize};

/// One motor of an actuator map: a control channel's name (the motor is
/// named after it), or a name and the channels it drives with one signal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    deny_unknown_fields,
    expecting = "a control channel's name or {\"name\": …, \"channels\": [...]}"
)]
pub enum MotorSpec {
    /// A motor driving one channel of the same name.
    Channel(String),
    /// A motor driving several channels.
    Group {
        /// The motor's name (outputs, mirror pairs).
        name: String,
        /// The control channels it drives.
        channels: Vec<String>,
    },
}

impl MotorSpec {
    fn name(&self) -> &str {
        match self {
            MotorSpec::Channel(c) => c,
            MotorSpec::Group { name, .. } => name,
        }
    }
    fn channels(&self) -> Vec<String> {
        match self {
            MotorSpec::Channel(c) => vec![c.clone()],
            MotorSpec::Group { channels, .. } => channels.clone(),
        }
    }
}

/// Which control channels a gait drives and how (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActuatorMap {
    /// The motors, in the order of the gait's parameters (default: one per
    /// control channel of the scene, in the scene's order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motors: Option<Vec<MotorSpec>>,
    /// `[mirrored, partner]` pairs of motor names: the first repeats the
    /// second's cycle half a period later, and only the partner's keyframes
    /// are optimized.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mirror: Vec<(String, String)>,
    /// Bounds on every keyframe value in the channels' units (m of
    /// contracted cable for length-controlled cables); must contain 0, the
    /// rest value. Default: the paper's `[−0.005, 0.015]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<(f64, f64)>,
}

/// The paper's bounds on contracted cable length, m (§IV).
pub(crate) const PAPER_BOUNDS: (f64, f64) = (-0.005, 0.015);

impl ActuatorMap {
    /// Every control channel a motor, `mirror` pairs by name.
    pub fn all_with_mirror(mirror: &[(&str, &str)]) -> Self {
        Self {
            motors: None,
            mirror: mirror
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            bounds: None,
        }
    }

    /// The bounds (default −5 to 15 mm of cable contraction, the paper's §IV bounds), checked.
    pub fn bounds(&self, origin: &str) -> Result<(f64, f64)> {
        let (lo, hi) = self.bounds.unwrap_or(PAPER_BOUNDS);
        if !(lo.is_finite() && hi.is_finite() && lo <= 0.0 && 0.0 <= hi && lo < hi) {
            return Err(err(
                origin,
                "actuators.bounds",
                format!(
                    "[{lo}, {hi}]: bounds must be finite, lo < hi, and contain 0 (the rest value)"
                ),
            ));
        }
        Ok((lo, hi))
    }

    /// The motors over `robot`'s control channels; `origin` (the spec)
    /// names the field in errors: a channel the scene does not have, a
    /// channel driven twice, duplicate or unknown motor names in `mirror`.
    pub fn motors(&self, robot: &GaitRobot, origin: &str) -> Result<Vec<Motor>> {
        let specs: Vec<MotorSpec> = match &self.motors {
            Some(m) => m.clone(),
            None => robot
                .controls()
                .iter()
                .map(|c| MotorSpec::Channel(c.clone()))
                .collect(),
        };
        if specs.is_empty() {
            return Err(err(
                origin,
                "actuators.motors",
                format!(
                    "no motors: the scene {} has no control channels to drive",
                    robot.name
                ),
            ));
        }
        let mut used: Vec<&str> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for (i, m) in specs.iter().enumerate() {
            if names.iter().any(|n| n == m.name()) {
                return Err(err(
                    origin,
                    &format!("actuators.motors[{i}]"),
                    format!("motor `{}` is named twice", m.name()),
                ));
            }
            names.push(m.name().to_string());
            let channels = m.channels();
            if channels.is_empty() {
                return Err(err(
                    origin,
                    &format!("actuators.motors[{i}].channels"),
                    "a motor drives at least one channel".into(),
                ));
            }
            for (j, c) in channels.iter().enumerate() {
                let field = match m {
                    MotorSpec::Channel(_) => format!("actuators.motors[{i}]"),
                    MotorSpec::Group { .. } => format!("actuators.motors[{i}].channels[{j}]"),
                };
                let Some(known) = robot.controls().iter().find(|k| *k == c) else {
                    return Err(err(
                        origin,
                        &field,
                        format!(
                            "`{c}` is not a control channel of the scene {}; its control channels: {}",
                            robot.name,
                            robot.controls().join(", ")
                        ),
                    ));
                };
                if used.contains(&known.as_str()) {
                    return Err(err(
                        origin,
                        &field,
                        format!("channel `{c}` is driven by two motors"),
                    ));
                }
                used.push(known);
            }
        }
        let index = |n: &str, field: String| {
            names.iter().position(|m| m == n).ok_or_else(|| {
                err(
                    origin,
                    &field,
                    format!("`{n}` is not a motor; the motors: {}", names.join(", ")),
                )
            })
        };
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for (i, (a, b)) in self.mirror.iter().enumerate() {
            let (ia, ib) = (
                index(a, format!("actuators.mirror[{i}][0]"))?,
                index(b, format!("actuators.mirror[{i}][1]"))?,
            );
            if ia == ib || pairs.iter().any(|&(x, _)| x == ia) {
                return Err(err(
                    origin,
                    &format!("actuators.mirror[{i}]"),
                    format!("`{a}` mirrors itself or more than one partner"),
                ));
            }
            pairs.push((ia, ib));
        }
        // A partner's keyframes are the optimized ones: it mirrors no one.
        for (i, (_, b)) in self.mirror.iter().enumerate() {
            let ib = names.iter().position(|m| m == b).unwrap_or(usize::MAX);
            if pairs.iter().any(|&(x, _)| x == ib) {
                return Err(err(
                    origin,
                    &format!("actuators.mirror[{i}][1]"),
                    format!(
                        "`{b}` is a partner and itself mirrors another motor: mirror pairs do not chain"
                    ),
                ));
            }
        }
        Ok(specs
            .iter()
            .enumerate()
            .map(|(i, m)| Motor {
                name: m.name().to_string(),
                channels: m.channels(),
                mirror_of: pairs.iter().find(|(a, _)| *a == i).map(|(_, b)| *b),
            })
            .collect())
    }
}

fn err(origin: &str, field: &str, message: String) -> ScenarioError {
    ScenarioError::Spec {
        origin: origin.into(),
        field: field.into(),
        message,
    }
}
