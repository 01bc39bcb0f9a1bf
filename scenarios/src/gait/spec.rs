//! The JSON spec `pliant optimize` reads (a robot scene and its actuator
//! map, target, gait layout, weights, solver), and the demo's spec.
//!
//! ```json
//! {"scene": "../robots/tripod.json",
//!  "actuators": {"motors": ["middle_leg_front", "middle_leg_back"]},
//!  "target": {"type": "straight", "speed": 0.0187},
//!  "iterations": 10}
//! ```

use super::{ActuatorMap, GaitRobot, GaitSetup, HeadingRegions, SETTLE_STEPS, Target, Weights};
use crate::robots::RobotKind;
use crate::{Result, ScenarioError};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A gait optimization as written in a file for `pliant optimize`: which
/// robot (a scene file, or a paper robot by name), which of its control
/// channels are motors, what it should do, the gait layout, weights and
/// solver. Omitted fields take the paper's values (§IV).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimizeSpec {
    /// Name for outputs, a plain file name (default: the scene's name, or
    /// its file stem, and the task, `_walk` or `_turn`; for a paper robot
    /// `tripod_walk`, `puppy_walk` or `puppy_walk_asymmetric`).
    #[serde(default)]
    pub name: Option<String>,
    /// The robot's scene file, relative to the spec file: a body, its
    /// actuators as control channels, ground and gravity
    /// ([`GaitRobot`]). Exactly one of `scene` and `robot`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene: Option<PathBuf>,
    /// A paper robot, `"tripod"` or `"puppy"`: shorthand for its generated
    /// scene (`examples/robots/<robot>.json`) with every cable motor driven.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robot: Option<RobotKind>,
    /// Which control channels are motors, tendon pairs, mirror pairs and
    /// bounds (default: every control channel, the paper's bounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actuators: Option<ActuatorMap>,
    /// The body's rear and front nodes, for the heading (default: the
    /// nodes within 5 % of the body length of its rear and front ends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<HeadingRegions>,
    /// Body length for speeds in body lengths per minute, m (default: the
    /// scene's extent along x).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_length: Option<f64>,
    /// Steps the robot settles with its motors at rest before the gait
    /// starts (default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle_steps: Option<usize>,
    /// Centre-of-mass target (default: straight at 8 body lengths/min; the
    /// Puppy's shorthand, 10).
    #[serde(default)]
    pub target: Option<Target>,
    /// Bilateral symmetry of the Puppy (`"robot": "puppy"` only; for a
    /// scene, name the pairs in `actuators.mirror`).
    #[serde(default)]
    pub symmetric: bool,
    /// Incline of the ground, degrees (uphill along +x): the scene's
    /// gravity is rotated about y.
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
    /// How Levenberg–Marquardt's damping follows its trials: `"nielsen"`
    /// (the default) or `"marquardt"` ([`pliant_optim::Damping`]); only
    /// with `levenberg_marquardt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping: Option<pliant_optim::Damping>,
    /// `false`: Levenberg–Marquardt's trials run until their cost passes
    /// the current one, never given up on the Gauss–Newton model's
    /// forecast of their remaining steps (default `true`;
    /// [`GaitSetup::forecast_cuts`]); only with `levenberg_marquardt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forecast_cuts: Option<bool>,
    /// Iteration budget.
    #[serde(default = "default_iterations")]
    pub iterations: u64,
    /// Initial keyframe values (default [`GaitSetup::default_z0`]).
    #[serde(default)]
    pub z0: Option<Vec<f64>>,
    /// Where the spec came from (its file), for errors.
    #[serde(skip)]
    pub origin: String,
    /// The spec file's directory: `scene` is relative to it.
    #[serde(skip)]
    pub base_dir: Option<PathBuf>,
    /// The scene's text when it is held in memory (a sweep point's scene,
    /// changed from the file's): read instead of the `scene` file, whose
    /// path still names it in errors and resolves the paths inside it.
    #[serde(skip)]
    pub scene_text: Option<String>,
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
    /// layout is consistent and bounded, a damping update and forecast cuts
    /// go with Levenberg–Marquardt, the incline is a slope.
    pub fn validate(&self) -> Result<()> {
        if let Some(n) = &self.name {
            validate_name(n).map_err(|e| match e {
                ScenarioError::Spec { field, message, .. } => self.err(&field, &message),
                other => other,
            })?;
        }
        if self.cycle_steps == 0 || self.cycles == 0 {
            return Err(self.err("cycle_steps", "cycle_steps and cycles must be at least 1"));
        }
        if self.keyframes == 0 || self.keyframes > self.cycle_steps {
            return Err(self.err(
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
            .and_then(|c| c.checked_add(self.prep_steps))
            .and_then(|c| c.checked_add(self.settle_steps.unwrap_or(SETTLE_STEPS)));
        if steps.is_none_or(|n| n > MAX_STEPS) {
            return Err(self.err(
                "cycles",
                &format!(
                    "settle_steps + prep_steps + cycle_steps × cycles must be at most \
                     {MAX_STEPS} steps (every iteration rolls the whole horizon out at least once)"
                ),
            ));
        }
        if self.damping.is_some() && self.method != MethodName::LevenbergMarquardt {
            return Err(self.err(
                "damping",
                &format!(
                    "a damping update is a Levenberg–Marquardt setting; method `{}` has none \
                     (remove `damping` or use `levenberg_marquardt`)",
                    self.method
                ),
            ));
        }
        if self.forecast_cuts.is_some() && self.method != MethodName::LevenbergMarquardt {
            return Err(self.err(
                "forecast_cuts",
                &format!(
                    "forecast cuts are a Levenberg–Marquardt setting; method `{}` has none \
                     (remove `forecast_cuts` or use `levenberg_marquardt`)",
                    self.method
                ),
            ));
        }
        if !(self.incline_degrees.is_finite() && self.incline_degrees.abs() < 90.0) {
            return Err(self.err(
                "incline_degrees",
                &format!(
                    "{}: must be a slope between −90 and 90 degrees",
                    self.incline_degrees
                ),
            ));
        }
        Ok(())
    }

    fn origin_or_default(&self) -> &str {
        if self.origin.is_empty() {
            "optimize spec"
        } else {
            &self.origin
        }
    }

    fn err(&self, field: &str, message: &str) -> ScenarioError {
        ScenarioError::Spec {
            origin: self.origin_or_default().into(),
            field: field.into(),
            message: message.into(),
        }
    }

    /// The robot scene of a `scene` spec, read relative to the spec file.
    fn robot_scene(&self, path: &std::path::Path) -> Result<GaitRobot> {
        let path = match &self.base_dir {
            Some(d) if path.is_relative() => d.join(path),
            _ => path.to_path_buf(),
        };
        let text = match &self.scene_text {
            Some(t) => t.clone(),
            None => pliant_core::scene::read_limited(&path)
                .map_err(|e| self.err("scene", &e.to_string()))?,
        };
        GaitRobot::from_scene_text(
            text,
            &path.display().to_string(),
            path.parent().map(|p| p.to_path_buf()),
            self.body_length,
            self.heading.clone(),
            self.origin_or_default(),
        )
    }

    /// The gait setup it describes (after [`OptimizeSpec::validate`]): a
    /// `robot` is its generated scene with its motors; a `scene` is read and
    /// built, and its actuator map checked against the scene's channels.
    pub fn setup(&self) -> Result<GaitSetup> {
        self.validate()?;
        let mut s = match (&self.scene, self.robot) {
            (Some(_), Some(_)) => {
                return Err(self.err("robot", "give a `scene` or a `robot`, not both"));
            }
            (None, None) => {
                return Err(self.err(
                    "scene",
                    "missing: name the robot's scene file (\"scene\": \"robot.json\") or a paper \
                     robot (\"robot\": \"tripod\" or \"puppy\")",
                ));
            }
            (None, Some(kind)) => {
                for (given, field) in [
                    (self.actuators.is_some(), "actuators"),
                    (self.heading.is_some(), "heading"),
                    (self.body_length.is_some(), "body_length"),
                ] {
                    if given {
                        return Err(self.err(
                            field,
                            "belongs to a `scene` spec: a paper robot brings its own (write \
                             \"scene\": \"examples/robots/<robot>.json\" to change it)",
                        ));
                    }
                }
                match kind {
                    RobotKind::Tripod => {
                        if self.symmetric {
                            return Err(self.err("symmetric", "the Tripod has no mirrored motors"));
                        }
                        GaitSetup::tripod_walk()?
                    }
                    RobotKind::Puppy => GaitSetup::puppy_walk(self.symmetric)?,
                }
            }
            (Some(path), None) => {
                if self.symmetric {
                    return Err(self.err(
                        "symmetric",
                        "for a scene, name the mirrored motors in `actuators.mirror`",
                    ));
                }
                let robot = self.robot_scene(path)?;
                let speed = 8.0 * robot.body_length / 60.0;
                // Default name: the scene's name (else its file stem) and
                // the task, a plain file name either way.
                let task = match self.target {
                    Some(Target::Arc { .. }) => "turn",
                    _ => "walk",
                };
                let mut name = format!("{}_{task}", robot.name);
                if validate_name(&name).is_err() {
                    let stem = path
                        .file_stem()
                        .map_or_else(|| "robot".into(), |s| s.to_string_lossy().into_owned());
                    name = format!("{stem}_{task}");
                    validate_name(&name)
                        .map_err(|_| self.err("name", "give the run a plain file name"))?;
                }
                GaitSetup::on_scene(
                    &name,
                    robot,
                    &self.actuators.clone().unwrap_or_default(),
                    speed,
                    self.origin_or_default(),
                )?
            }
        };
        if let Some(t) = self.target {
            s.target = t;
        }
        if self.incline_degrees != 0.0 {
            s.robot.incline(self.incline_degrees)?;
        }
        s.settle_steps = self.settle_steps.unwrap_or(SETTLE_STEPS);
        s.gait.prep_steps = self.prep_steps;
        s.gait.cycle_steps = self.cycle_steps;
        s.gait.cycles = self.cycles;
        s.gait.keyframes = self.keyframes;
        s.weights = self.weights.unwrap_or(Weights::for_target(&s.target));
        if let Some(n) = &self.name {
            s.name = n.clone();
        }
        if let Some(on) = self.forecast_cuts {
            s.forecast_cuts = on;
        }
        Ok(s)
    }
    /// The solver it names, with pliant's tolerances and its damping.
    pub fn method(&self) -> pliant_optim::Method {
        match self.method.method() {
            pliant_optim::Method::LevenbergMarquardt { tol, .. } => {
                pliant_optim::Method::LevenbergMarquardt {
                    tol,
                    damping: self.damping.unwrap_or_default(),
                }
            }
            other => other,
        }
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
        let spec: Self =
            pliant_core::json::from_str(text, "spec").map_err(|e| ScenarioError::Spec {
                origin: origin.into(),
                field: e.field,
                message: e.message,
            })?;
        let mut spec = spec;
        spec.origin = origin.into();
        Ok(spec)
    }
    /// Builds the set-up and optimizes it from the spec's start into
    /// `out/<name>/` with the spec's solver and budget (what `pliant
    /// optimize` runs, without its printing).
    pub fn optimize(
        &self,
        out: &std::path::Path,
        checkpoints: super::Checkpoints,
        progress: Option<pliant_optim::ProgressFn>,
    ) -> Result<super::GaitRun> {
        let setup = self.setup()?;
        let z0 = self.z0(&setup)?;
        super::optimize_gait(
            &setup,
            &z0,
            self.method(),
            self.iterations,
            out,
            checkpoints,
            progress,
        )
    }
    /// Reads a spec file; a `scene` in it is relative to the file.
    pub fn from_file(path: &std::path::Path) -> Result<Self> {
        let text = pliant_core::scene::read_limited(path)?;
        let mut spec = Self::from_json(&text, &path.display().to_string())?;
        spec.base_dir = path.parent().map(|p| p.to_path_buf());
        Ok(spec)
    }
}

/// The built-in demo's gait: the Tripod on a short horizon (6 preparatory
/// steps, two cycles of 24) from the trot seed, 6
/// Levenberg–Marquardt iterations.
pub fn demo_spec() -> OptimizeSpec {
    OptimizeSpec {
        name: Some("demo_tripod".into()),
        scene: None,
        robot: Some(RobotKind::Tripod),
        actuators: None,
        heading: None,
        body_length: None,
        settle_steps: None,
        target: None,
        symmetric: false,
        incline_degrees: 0.0,
        prep_steps: 6,
        cycle_steps: 24,
        cycles: 2,
        keyframes: 4,
        weights: None,
        method: MethodName::LevenbergMarquardt,
        damping: None,
        forecast_cuts: None,
        iterations: 6,
        z0: None,
        origin: "demo".into(),
        base_dir: None,
        scene_text: None,
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
            MethodName::LevenbergMarquardt => pliant_optim::Method::LevenbergMarquardt {
                tol: 1e-4,
                damping: pliant_optim::Damping::default(),
            },
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
