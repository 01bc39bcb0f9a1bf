//! The JSON spec `pliant optimize` reads (robot, target, gait layout,
//! weights, solver), and the demo's spec.

use super::{GaitSetup, Target, Weights};
use crate::robots::RobotKind;
use crate::{Result, ScenarioError};
use serde::{Deserialize, Serialize};

/// A gait optimization as written in a file for `pliant optimize`: which
/// robot, what it should do, the gait layout, weights and solver. Omitted
/// fields take the paper's values (§IV).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimizeSpec {
    /// Name for outputs (default: robot and task).
    #[serde(default)]
    pub name: Option<String>,
    /// `"tripod"` or `"puppy"`.
    pub robot: RobotKind,
    /// Centre-of-mass target (default: straight at 8 body lengths/min).
    #[serde(default)]
    pub target: Option<Target>,
    /// Bilateral symmetry (Puppy only).
    #[serde(default)]
    pub symmetric: bool,
    /// Incline of the ground, degrees (uphill along +x).
    #[serde(default)]
    pub incline_degrees: f64,
    /// Steps of the preparatory phase (paper: 24).
    #[serde(default = "default_prep")]
    pub prep_steps: usize,
    /// Steps per cycle (paper: 72).
    #[serde(default = "default_cycle")]
    pub cycle_steps: usize,
    /// Copies of the cycle (paper: 2).
    #[serde(default = "default_cycles")]
    pub cycles: usize,
    /// Keyframes per cycle (paper: 4).
    #[serde(default = "default_keys")]
    pub keyframes: usize,
    /// Objective weights (default [`Weights::for_target`] of the target).
    #[serde(default)]
    pub weights: Option<Weights>,
    /// `"levenberg_marquardt"` (default), `"gauss_newton"` or `"lbfgs"`.
    #[serde(default)]
    pub method: MethodName,
    /// Iteration budget.
    #[serde(default = "default_iterations")]
    pub iterations: u64,
    /// Initial keyframe values (default [`GaitSetup::default_z0`]).
    #[serde(default)]
    pub z0: Option<Vec<f64>>,
}

fn default_prep() -> usize {
    24
}
fn default_cycle() -> usize {
    72
}
fn default_cycles() -> usize {
    2
}
fn default_keys() -> usize {
    4
}
fn default_iterations() -> u64 {
    10
}

impl OptimizeSpec {
    /// Checks what serde cannot: the name is a plain file name, the gait
    /// layout is consistent and bounded, the incline is a slope.
    pub fn validate(&self) -> Result<()> {
        if let Some(n) = &self.name {
            validate_name(n)?;
        }
        if self.cycle_steps == 0 || self.cycles == 0 {
            return Err(spec_err(
                "cycle_steps",
                "cycle_steps and cycles must be at least 1",
            ));
        }
        if self.keyframes == 0 || self.keyframes > self.cycle_steps {
            return Err(spec_err(
                "keyframes",
                &format!(
                    "{} keyframes per cycle: must be between 1 and cycle_steps ({})",
                    self.keyframes, self.cycle_steps
                ),
            ));
        }
        let steps = self
            .cycle_steps
            .checked_mul(self.cycles)
            .and_then(|c| c.checked_add(self.prep_steps));
        if steps.is_none_or(|n| n > MAX_STEPS) {
            return Err(spec_err(
                "cycles",
                &format!(
                    "prep_steps + cycle_steps × cycles must be at most {MAX_STEPS} steps \
                     (every iteration rolls the whole horizon out at least once)"
                ),
            ));
        }
        if !(self.incline_degrees.is_finite() && self.incline_degrees.abs() < 90.0) {
            return Err(spec_err(
                "incline_degrees",
                &format!(
                    "{}: must be a slope between −90 and 90 degrees",
                    self.incline_degrees
                ),
            ));
        }
        Ok(())
    }

    /// The gait setup it describes (after [`OptimizeSpec::validate`]).
    pub fn setup(&self) -> Result<GaitSetup> {
        self.validate()?;
        let mut s = match self.robot {
            RobotKind::Tripod => {
                if self.symmetric {
                    return Err(spec_err("symmetric", "the Tripod has no mirrored motors"));
                }
                GaitSetup::tripod_walk()?
            }
            RobotKind::Puppy => GaitSetup::puppy_walk(self.symmetric)?,
        };
        if let Some(t) = self.target {
            s.target = t;
        }
        if self.incline_degrees != 0.0 {
            let a = self.incline_degrees.to_radians();
            s.gravity = [-9.81 * a.sin(), 0.0, -9.81 * a.cos()];
        }
        s.gait.prep_steps = self.prep_steps;
        s.gait.cycle_steps = self.cycle_steps;
        s.gait.cycles = self.cycles;
        s.gait.keyframes = self.keyframes;
        s.weights = self.weights.unwrap_or(Weights::for_target(&s.target));
        if let Some(n) = &self.name {
            s.name = n.clone();
        }
        Ok(s)
    }
    /// The solver it names, with pliant's tolerances.
    pub fn method(&self) -> pliant_optim::Method {
        self.method.method()
    }
    /// Initial `z` for `setup` (default [`GaitSetup::default_z0`]).
    pub fn z0(&self, setup: &GaitSetup) -> Result<Vec<f64>> {
        let nz = setup.gait.nz();
        match &self.z0 {
            None => Ok(setup.default_z0()?),
            Some(z) if z.len() == nz => Ok(z.clone()),
            Some(z) => Err(pliant_optim::OptimError::Size {
                what: "spec z0 values (the gait's parameters)",
                found: z.len(),
                expected: nz,
            }
            .into()),
        }
    }
    /// Reads a spec from JSON text (`origin` names it in errors); fields are
    /// checked with their paths, and text after the document is refused.
    pub fn from_json(text: &str, origin: &str) -> Result<Self> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let spec: Self = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
            let path = e.path().to_string();
            ScenarioError::Spec {
                origin: origin.into(),
                field: if path == "." { String::new() } else { path },
                message: e.into_inner().to_string(),
            }
        })?;
        de.end().map_err(|e| ScenarioError::Spec {
            origin: origin.into(),
            field: String::new(),
            message: format!("unexpected text after the spec: {e}"),
        })?;
        Ok(spec)
    }
}

/// The built-in demo's gait: the Tripod on a short horizon (6 preparatory
/// steps, two cycles of 24) from the trot seed, 6
/// Levenberg–Marquardt iterations.
pub fn demo_spec() -> OptimizeSpec {
    OptimizeSpec {
        name: Some("demo_tripod".into()),
        robot: RobotKind::Tripod,
        target: None,
        symmetric: false,
        incline_degrees: 0.0,
        prep_steps: 6,
        cycle_steps: 24,
        cycles: 2,
        keyframes: 4,
        weights: None,
        method: MethodName::LevenbergMarquardt,
        iterations: 6,
        z0: None,
    }
}

/// The solvers a spec may name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MethodName {
    /// Levenberg–Marquardt (default; monotone, trials on spare simulators).
    #[default]
    LevenbergMarquardt,
    /// Gauss–Newton with Armijo backtracking (argmin `GaussNewtonLS`).
    GaussNewton,
    /// L-BFGS with Moré–Thuente line search (argmin).
    Lbfgs,
}

impl MethodName {
    /// The solver with pliant's tolerances.
    pub fn method(self) -> pliant_optim::Method {
        match self {
            MethodName::LevenbergMarquardt => {
                pliant_optim::Method::LevenbergMarquardt { tol: 1e-4 }
            }
            MethodName::GaussNewton => pliant_optim::Method::GaussNewton { tol: 1e-6 },
            MethodName::Lbfgs => pliant_optim::Method::Lbfgs {
                memory: 7,
                tol_grad: 1e-6,
            },
        }
    }
    /// Its name in specs.
    pub fn name(self) -> &'static str {
        match self {
            MethodName::LevenbergMarquardt => "levenberg_marquardt",
            MethodName::GaussNewton => "gauss_newton",
            MethodName::Lbfgs => "lbfgs",
        }
    }
}

impl std::fmt::Display for MethodName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Longest horizon a spec may ask for, steps (about 2 minutes of simulated
/// time at 33 ms; one rollout of the Puppy takes ~8 ms per step here).
pub(crate) const MAX_STEPS: usize = 4096;

/// Longest output name, characters.
const MAX_NAME: usize = 100;

/// A name is a single file name: not empty, no path separators, not `.` or
/// `..`, no control characters — so outputs stay inside `--out`.
pub(crate) fn validate_name(name: &str) -> Result<()> {
    let bad = if name.is_empty() {
        Some("is empty")
    } else if name.chars().count() > MAX_NAME {
        Some("is longer than 100 characters")
    } else if name.contains(['/', '\\']) {
        Some("contains a path separator")
    } else if name == "." || name == ".." || name.starts_with('.') {
        Some("starts with a dot")
    } else if name.chars().any(char::is_control) {
        Some("contains a control character")
    } else {
        None
    };
    match bad {
        Some(why) => Err(spec_err(
            "name",
            &format!("{name:?} {why}: a name is a plain file name (it names OUT/<name>/)"),
        )),
        None => Ok(()),
    }
}

fn spec_err(field: &str, message: &str) -> ScenarioError {
    ScenarioError::Spec {
        origin: "optimize spec".into(),
        field: field.into(),
        message: message.into(),
    }
}
