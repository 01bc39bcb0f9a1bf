//! Parameter channels: named scalars the energies read, each with a schedule
//! over time. Controls vary per step; design parameters are constant.

use crate::layout::ParamKind;
use crate::motion::piecewise_linear;
use serde::{Deserialize, Serialize};

/// One parameter channel of a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamChannel {
    /// Unique name energies refer to.
    pub name: String,
    /// Control (per step) or design (constant).
    pub kind: ParamKind,
    /// Value when no keyframes are given (units of the reading energy).
    #[serde(default)]
    pub value: f64,
    /// Optional piecewise-linear schedule `(t in s, value)` for controls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keyframes: Vec<(f64, f64)>,
}

impl ParamChannel {
    /// A control channel (varies per step) with constant value `value`.
    pub fn control(name: &str, value: f64) -> Self {
        Self {
            name: name.into(),
            kind: ParamKind::Control,
            value,
            keyframes: vec![],
        }
    }
    /// A design parameter (constant over a rollout) with value `value`.
    pub fn design(name: &str, value: f64) -> Self {
        Self {
            name: name.into(),
            kind: ParamKind::Design,
            value,
            keyframes: vec![],
        }
    }
    /// The same channel following piecewise-linear `(t in s, value)` keyframes.
    pub fn with_keyframes(mut self, keyframes: Vec<(f64, f64)>) -> Self {
        self.keyframes = keyframes;
        self
    }
    /// Value at time `t` (s).
    pub fn at(&self, t: f64) -> f64 {
        if self.keyframes.is_empty() || self.kind == ParamKind::Design {
            self.value
        } else {
            piecewise_linear(&self.keyframes, t)
        }
    }
}
