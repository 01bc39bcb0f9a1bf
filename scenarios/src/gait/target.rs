//! What a gait aims for (a straight line, an arc, an incline) and the
//! weights of its objective terms.

use pliant_core::Invalid;
use serde::{Deserialize, Serialize};

/// Where the centre of mass should go.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Target {
    /// A straight line along +x at `speed` m/s, starting when the cycles start.
    Straight {
        /// m/s.
        speed: f64,
    },
    /// A circular arc of `angle` rad (> 0) and radius `radius` m (positive
    /// turns right, i.e. towards −y; negative left) covered at constant
    /// speed during the cycles.
    Arc {
        /// m.
        radius: f64,
        /// rad.
        angle: f64,
    },
}

/// Objective weights.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    /// COM tracking, 1/m² (per step).
    pub com: f64,
    /// Heading tracking, 1/rad² (per step): the body faces along the
    /// target path ([`pliant_optim::Heading`]). A 10° error costs as much
    /// as about 2.5 mm of COM error at the default weights.
    #[serde(default = "default_heading_weight")]
    pub heading: f64,
    /// Slack regularizer, J/m².
    pub slack: f64,
    /// Tautness aimed for by the slack regularizer, m.
    pub slack_epsilon: f64,
    /// Control smoothness, s²/m².
    pub smoothness: f64,
    /// `λ` of the Tikhonov term `½ λ ‖z − z₀‖²` (near the box centre; see
    /// [`pliant_optim::Shooting::with_regularization`]) that keeps `JᵀJ`
    /// invertible, 1/m².
    pub regularization: f64,
}

impl Weights {
    /// All weights finite and ≥ 0 (COM weight and `slack_epsilon` > 0).
    pub fn validate(&self) -> pliant_optim::Result<()> {
        let all = [
            ("com", self.com),
            ("heading", self.heading),
            ("slack", self.slack),
            ("slack_epsilon", self.slack_epsilon),
            ("smoothness", self.smoothness),
            ("regularization", self.regularization),
        ];
        for (name, v) in all {
            Invalid::non_negative(format!("weights.{name}"), v, "a weight")?;
        }
        Invalid::positive("weights.com", self.com, "a weight")?;
        Invalid::positive("weights.slack_epsilon", self.slack_epsilon, "m")?;
        Ok(())
    }
}

impl Default for Weights {
    fn default() -> Self {
        Self {
            com: 1e4,
            heading: default_heading_weight(),
            slack: 1e2,
            slack_epsilon: 1e-3,
            smoothness: 1e-4,
            regularization: 1e-2,
        }
    }
}

fn default_heading_weight() -> f64 {
    2.0
}

impl Weights {
    /// The default weights for `target`: a turn ([`Target::Arc`]) weights
    /// heading ten times more, since turning is mostly about heading (from
    /// the straight Puppy gait, 10 Levenberg–Marquardt iterations turn the
    /// Puppy 16.9° at this weight on the table of μ = 0.4, and on μ = 0.6
    /// 17.8° against 7.6° at the straight-walking one).
    pub fn for_target(target: &Target) -> Self {
        let mut w = Self::default();
        if let Target::Arc { .. } = target {
            w.heading *= 10.0;
        }
        w
    }
}
