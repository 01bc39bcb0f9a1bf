//! The JSON form of a differentiable rollout: which scene, how many steps,
//! which channels the optimization variables `z` drive, and the objective
//! terms with their weights. `pliant gradient SPEC`, the Python package's
//! `pliant.Rollout` and sweeps all read it.

use serde::{Deserialize, Serialize};

/// Where the scene comes from: a file path (relative to the spec file) or
/// the scene document itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SceneSource {
    /// A scene file.
    File(std::path::PathBuf),
    /// An inline scene (the scene file's schema).
    Inline(serde_json::Value),
}

/// A channel driven by `z` through piecewise-linear keyframes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyframedControl {
    /// The scene's control channel.
    pub channel: String,
    /// Number of keyframes `n ≥ 2`, evenly spaced over the rollout
    /// (`t_j = j T/(n − 1)`, `T` = steps × dt): `z` holds their values and
    /// the channel is interpolated linearly between them at each step's
    /// end time.
    pub keyframes: usize,
}

/// Where an objective term is evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// At the last step only.
    #[default]
    Final,
    /// At every step `1 … K` (the same target each step).
    All,
}

/// One objective term `½ w Σ_k ‖r_k‖²` (`w` in 1/unit²). Every term reads
/// the state linearly, so its derivatives are exact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ObjectiveSpec {
    /// Centre of mass (node masses) along `axes` against `target`, m.
    Com {
        /// Coordinate axes (0 = x, 1 = y, 2 = z).
        axes: Vec<usize>,
        /// One target per axis, m.
        target: Vec<f64>,
        /// When (default: final).
        #[serde(default)]
        at: When,
        /// Weight, 1/m² (default 1).
        #[serde(default = "one")]
        weight: f64,
    },
    /// A node's position along `axes` against `target`, m.
    Node {
        /// Node index.
        node: usize,
        /// Coordinate axes.
        axes: Vec<usize>,
        /// One target per axis, m.
        target: Vec<f64>,
        /// When (default: final).
        #[serde(default)]
        at: When,
        /// Weight, 1/m² (default 1).
        #[serde(default = "one")]
        weight: f64,
    },
    /// An output group's centroid coordinate (the observable
    /// `<region>.x`, `.y` or `.z` of the scene's `outputs`) against
    /// `target`, m.
    Observable {
        /// The observable's name, e.g. `"tip.z"`.
        name: String,
        /// Target, m.
        target: f64,
        /// When (default: final).
        #[serde(default)]
        at: When,
        /// Weight, 1/m² (default 1).
        #[serde(default = "one")]
        weight: f64,
    },
    /// The centre of mass along `axes` following one target per step
    /// (cable paper eq. 5), m.
    ComPath {
        /// Coordinate axes.
        axes: Vec<usize>,
        /// `K` rows of one target per axis, m.
        targets: Vec<Vec<f64>>,
        /// Weight, 1/m² (default 1).
        #[serde(default = "one")]
        weight: f64,
    },
}

fn one() -> f64 {
    1.0
}

impl ObjectiveSpec {
    /// The term's weight.
    pub fn weight(&self) -> f64 {
        match self {
            Self::Com { weight, .. }
            | Self::Node { weight, .. }
            | Self::Observable { weight, .. }
            | Self::ComPath { weight, .. } => *weight,
        }
    }
    /// A short label for reports (`com`, `node 3`, `observable tip.z`, …).
    pub fn label(&self) -> String {
        match self {
            Self::Com { .. } => "com".into(),
            Self::Node { node, .. } => format!("node {node}"),
            Self::Observable { name, .. } => format!("observable {name}"),
            Self::ComPath { .. } => "com_path".into(),
        }
    }
}

/// A differentiable rollout: scene, horizon, variables and objective.
///
/// ```json
/// { "scene": "pma_lift.json", "steps": 100,
///   "controls": [{ "channel": "p", "keyframes": 5 }],
///   "design": [],
///   "objectives": [{ "type": "node", "node": 2, "axes": [2], "target": [0.2], "weight": 100 }] }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RolloutSpec {
    /// The scene.
    pub scene: SceneSource,
    /// Steps `K` (default: the scene's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<usize>,
    /// Control channels driven by keyframes in `z` (first in `z`, in this
    /// order, each its `keyframes` values).
    #[serde(default)]
    pub controls: Vec<KeyframedControl>,
    /// Design channels, one entry of `z` each, held over the rollout (after
    /// the keyframes, in this order).
    #[serde(default)]
    pub design: Vec<String>,
    /// Objective terms (may be empty when only states are wanted).
    #[serde(default)]
    pub objectives: Vec<ObjectiveSpec>,
    /// Directory of the spec file (a scene path is relative to it).
    #[serde(skip)]
    pub base_dir: Option<std::path::PathBuf>,
}

impl RolloutSpec {
    /// Parses a spec; `origin` names it in errors, which carry the field
    /// path (`objectives[1].weight`).
    pub fn from_json(text: &str, origin: &str) -> Result<Self, super::RolloutError> {
        let spec: Self =
            pliant_core::json::from_str(text, "spec").map_err(|e| super::RolloutError::Parse {
                origin: origin.into(),
                field: e.field,
                message: e.message,
            })?;
        Ok(spec)
    }
}
