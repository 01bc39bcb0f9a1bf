//! The sweep spec (JSON): a base document, the parameters varied by JSON
//! pointer, the design of experiments and what each point records.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What each point runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `base` is a scene: simulate it and record the last state's centre of
    /// mass, energies and observables.
    Simulate,
    /// `base` is a rollout spec ([`crate::rollout::RolloutSpec`]): record
    /// the objective, its terms and its gradient.
    Gradient,
    /// `base` is a gait spec (`pliant optimize`): optimize and record the
    /// objective, speed and heading.
    Optimize,
}

/// Which document a parameter's pointer addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// The base document itself.
    #[default]
    Base,
    /// The scene file the base names in its `scene` field (rollout and
    /// gait specs).
    Scene,
}

/// One varied parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// JSON pointer (RFC 6901) of a number in the document, e.g.
    /// `/energies/0/youngs_modulus`.
    pub path: String,
    /// Short name for tables and plots (default: the pointer).
    #[serde(default)]
    pub name: Option<String>,
    /// Which document (default: the base).
    #[serde(default, rename = "in")]
    pub target: Target,
    /// Explicit values (grid designs only).
    #[serde(default)]
    pub values: Option<Vec<f64>>,
    /// `[low, high]`: sampled by random and Latin-hypercube designs, or
    /// `levels` evenly spaced values for a grid.
    #[serde(default)]
    pub range: Option<[f64; 2]>,
    /// Grid levels over `range` (≥ 2).
    #[serde(default)]
    pub levels: Option<usize>,
    /// Sample/space the range logarithmically (moduli, stiffnesses).
    #[serde(default)]
    pub log: bool,
}

impl Parameter {
    /// Its name in tables.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.path)
    }
}

/// The design of experiments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Design {
    /// Every combination of the parameters' values (the first parameter
    /// varies slowest).
    Grid,
    /// `points` independent uniform samples of the ranges.
    Random {
        /// Number of points.
        points: usize,
        /// Seed.
        seed: u64,
    },
    /// A Latin hypercube: each range cut into `points` strata, each
    /// stratum sampled once per parameter, strata paired by seeded
    /// permutations (McKay et al. 1979).
    LatinHypercube {
        /// Number of points.
        points: usize,
        /// Seed.
        seed: u64,
    },
}

fn default_design() -> Design {
    Design::Grid
}

/// A sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Name: outputs go to `OUT/<name>/`.
    pub name: String,
    /// What each point runs.
    pub kind: Kind,
    /// The base document's file, relative to the sweep spec.
    pub base: PathBuf,
    /// The varied parameters.
    pub parameters: Vec<Parameter>,
    /// The design (default: grid).
    #[serde(default = "default_design")]
    pub design: Design,
    /// Simulate: the steps (default: the scene's); gradient: the rollout's
    /// steps (default: the rollout spec's); optimize: the iteration budget
    /// (default: the gait spec's).
    #[serde(default)]
    pub steps: Option<usize>,
    /// The recorded value the plot shows (default: the kind's main one:
    /// `com.x` for simulate, `objective` for gradient, `body_lengths_per_minute`
    /// for optimize).
    #[serde(default)]
    pub objective: Option<String>,
    /// Record only these values (default: all the kind records).
    #[serde(default)]
    pub record: Option<Vec<String>>,
}
