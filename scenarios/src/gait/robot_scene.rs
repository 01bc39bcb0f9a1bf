//! The robot a gait drives, as a scene: any scene file with control
//! channels (a body from a mesh file, cables routed through it, motor
//! masses, ground and gravity) — or a paper robot, whose scene the scenario
//! code generates ([`GaitRobot::from_robot`]) so both go through the same
//! path: the scene's JSON is parsed and built into a fresh model for every
//! simulator a gait needs.

use crate::robots::Robot;
use crate::{Result, ScenarioError};
use pliant_core::region::{BoxSelector, HalfSpaceSelector, Selector};
use pliant_core::scene::{RunSettings, Scene, scene_json, to_pretty_json};
use pliant_core::{Integrator, Model, NewtonSettings, ParamKind};
use pliant_environment::Friction;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Which nodes mark the body's rear and front: the horizontal axis from the
/// centroid of `rear` to the centroid of `front` is the robot's heading
/// (for turning targets and the reported change of heading).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadingRegions {
    /// The rear nodes.
    pub rear: Selector,
    /// The front nodes.
    pub front: Selector,
}

/// A robot scene ready to be built into the models a gait rolls out.
#[derive(Debug, Clone)]
pub struct GaitRobot {
    /// Name (the scene's, else its file stem).
    pub name: String,
    /// The scene as JSON text.
    scene: String,
    /// The scene file (or `<robot>` for a generated one), for errors.
    origin: String,
    /// The spec that gave the body length and heading, for errors.
    spec_origin: String,
    /// A hash of the built model's rest positions and masses: a mesh file
    /// the scene reads changes it, so checkpoints of another body are not
    /// resumed.
    model_hash: u64,
    /// The scene file's directory (mesh and plugin paths are relative to it).
    base_dir: Option<PathBuf>,
    /// Body length, m: speeds are reported in body lengths per minute.
    pub body_length: f64,
    /// The body's rear and front.
    pub heading: HeadingRegions,
    /// Time integrator of the scene (what rollouts use).
    pub(crate) integrator: Integrator,
    /// Step of the scene, s (the setup's `h` starts from it).
    pub(crate) dt: f64,
    /// Newton settings of the scene (the setup's `newton` starts from them).
    pub(crate) newton: NewtonSettings,
    /// The scene's control channels, in order.
    controls: Vec<String>,
    /// Nodes of the built model.
    n_nodes: usize,
    /// DOFs of the built model.
    n_dofs: usize,
}

/// Lift of the paper robots' generated scenes above the ground, m (they
/// settle onto it before the gait starts).
pub(crate) const LIFT: f64 = 0.001;

impl GaitRobot {
    /// The scene `text` (JSON; `origin` names it in errors, `base_dir` is
    /// where its relative paths start). Builds the model once to check it
    /// and to read its controls. Without `body_length` the body's extent
    /// along x is used; without `heading`, the nodes within 5 % of the
    /// extent along x of the rearmost and of the frontmost node. The
    /// heading's rear and front must lie apart horizontally (by a tenth of
    /// the body length). `spec` (the spec file that gave `body_length` and
    /// `heading`) names those fields in errors.
    pub fn from_scene_text(
        text: String,
        origin: &str,
        base_dir: Option<PathBuf>,
        body_length: Option<f64>,
        heading: Option<HeadingRegions>,
        spec: &str,
    ) -> Result<Self> {
        let scene = parse(&text, origin, &base_dir)?;
        let name = scene.name.clone().unwrap_or_else(|| {
            std::path::Path::new(origin)
                .file_stem()
                .map_or_else(|| "robot".into(), |s| s.to_string_lossy().into_owned())
        });
        let (integrator, dt, newton) = (scene.integrator, scene.dt, scene.newton);
        let model = scene.build_model()?;
        let (lo, hi) = extent_x(&model);
        let body_length = body_length.unwrap_or(hi - lo);
        if !(body_length.is_finite() && body_length > 0.0) {
            return Err(ScenarioError::Spec {
                origin: spec.into(),
                field: "body_length".into(),
                message: format!("{body_length} m: a body length must be positive"),
            });
        }
        let heading = heading.unwrap_or_else(|| {
            let band = 0.05 * (hi - lo);
            let half = |x: f64, sign: f64| Selector {
                half_space: Some(HalfSpaceSelector {
                    point: point_at(x, model.layout().dim()),
                    normal: point_at(sign, model.layout().dim()),
                }),
                ..Default::default()
            };
            HeadingRegions {
                rear: half(lo + band, 1.0),
                front: half(hi - band, -1.0),
            }
        });
        let controls = model
            .params()
            .iter()
            .filter(|c| c.kind == ParamKind::Control)
            .map(|c| c.name.clone())
            .collect();
        let model_hash = [model.q0(), model.mass()]
            .iter()
            .flat_map(|v| v.iter())
            .fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
                (h ^ x.to_bits()).wrapping_mul(0x0000_0100_0000_01b3)
            });
        let robot = Self {
            name,
            origin: origin.into(),
            spec_origin: spec.into(),
            model_hash,
            base_dir,
            body_length,
            heading,
            integrator,
            dt,
            newton,
            controls,
            n_nodes: model.layout().n_nodes(),
            n_dofs: model.n_dofs(),
            scene: text,
        };
        let (rear, front) = robot.heading_nodes(&model)?;
        let centroid = |nodes: &[usize]| model.layout().centroid(nodes, model.q0());
        let (r, f) = (centroid(&rear), centroid(&front));
        let apart = (f[0] - r[0]).hypot(f[1] - r[1]);
        if apart.is_nan() || apart <= 0.1 * body_length {
            return Err(ScenarioError::Spec {
                origin: spec.into(),
                field: "heading".into(),
                message: format!(
                    "the rear and front centroids are {apart:.3e} m apart horizontally: \
                     the heading needs them at least a tenth of the body length \
                     ({body_length} m) apart"
                ),
            });
        }
        Ok(robot)
    }

    /// The scene's control channels, in order.
    pub fn controls(&self) -> &[String] {
        &self.controls
    }
    /// Nodes of the model.
    pub fn n_nodes(&self) -> usize {
        self.n_nodes
    }
    /// DOFs of the model.
    pub fn n_dofs(&self) -> usize {
        self.n_dofs
    }
    /// A hash of the built model (rest positions and masses).
    pub(crate) fn model_hash(&self) -> u64 {
        self.model_hash
    }

    /// A paper robot `LIFT` m above flat ground under gravity `g` (m/s²),
    /// as the scene [`Robot::gait_scene_text`] writes, with its body length
    /// and heading nodes.
    pub fn from_robot(robot: &Robot, g: [f64; 3], friction: Friction) -> Result<Self> {
        let text = robot.gait_scene_text(g, friction)?;
        Self::from_scene_text(
            text,
            &format!("<{}>", robot.name),
            None,
            Some(robot.length),
            Some(robot.heading_regions(LIFT)),
            &format!("<{}>", robot.name),
        )
    }

    /// The scene as JSON text.
    pub fn scene_text(&self) -> &str {
        &self.scene
    }

    /// A fresh model of the scene.
    pub fn model(&self) -> Result<Model> {
        Ok(parse(&self.scene, &self.origin, &self.base_dir)?.build_model()?)
    }

    /// The rear and front nodes of `model` (a model of this scene).
    pub fn heading_nodes(&self, model: &Model) -> Result<(Vec<usize>, Vec<usize>)> {
        let q0 = model.q0();
        let rear = self
            .heading
            .rear
            .resolve(model.layout(), q0, "heading.rear");
        let front = self
            .heading
            .front
            .resolve(model.layout(), q0, "heading.front");
        let wrap = |e: pliant_core::CoreError, field: &str| ScenarioError::Spec {
            origin: self.spec_origin.clone(),
            field: field.into(),
            message: e.to_string(),
        };
        Ok((
            rear.map_err(|e| wrap(e, "heading.rear"))?,
            front.map_err(|e| wrap(e, "heading.front"))?,
        ))
    }

    /// Tilts the ground by `degrees` (uphill along +x): every `gravity`
    /// energy's acceleration `g` is rotated about y, `g' = R_y(θ) g`, so
    /// 9.81 m/s² down becomes `(−9.81 sin θ, 0, −9.81 cos θ)`. Errors
    /// (field `incline_degrees` of the spec) if the scene has no gravity.
    pub fn incline(&mut self, degrees: f64) -> Result<()> {
        let spec_err = |message: String| ScenarioError::Spec {
            origin: self.spec_origin.clone(),
            field: "incline_degrees".into(),
            message,
        };
        let mut v: serde_json::Value =
            serde_json::from_str(&self.scene).map_err(|e| spec_err(e.to_string()))?;
        let (sin, cos) = degrees.to_radians().sin_cos();
        let mut found = 0;
        if let Some(energies) = v.get_mut("energies").and_then(|e| e.as_array_mut()) {
            for e in energies {
                if e.get("type").and_then(|t| t.as_str()) != Some("gravity") {
                    continue;
                }
                let g: Vec<f64> = serde_json::from_value(e["g"].clone())
                    .map_err(|err| spec_err(format!("the scene's gravity `g`: {err}")))?;
                if g.len() != 3 {
                    return Err(spec_err(
                        "an incline rotates a 3-D gravity; the scene's has {} components"
                            .replace("{}", &g.len().to_string()),
                    ));
                }
                e["g"] =
                    serde_json::json!([cos * g[0] + sin * g[2], g[1], -sin * g[0] + cos * g[2]]);
                found += 1;
            }
        }
        if found == 0 {
            return Err(spec_err(format!(
                "an incline rotates the scene's gravity, but {} has no `gravity` energy",
                self.origin
            )));
        }
        self.scene = to_pretty_json(&v) + "\n";
        Ok(())
    }
}

/// The gait scene of a paper robot on the table (gravity 9.81 m/s² down,
/// [`table_friction`](super::table_friction)): the text of
/// `examples/robots/<robot>.json`, which `"robot": "<robot>"` in a spec
/// stands for.
pub fn paper_gait_scene_text(kind: crate::robots::RobotKind) -> Result<String> {
    kind.build()?
        .gait_scene_text([0.0, 0.0, -9.81], super::table_friction())
}

fn point_at(x: f64, dim: usize) -> Vec<f64> {
    let mut p = vec![0.0; dim];
    p[0] = x;
    p
}

/// Smallest and largest x of the model's nodes at rest, m.
fn extent_x(model: &Model) -> (f64, f64) {
    let q0 = model.q0();
    (0..model.layout().n_nodes())
        .filter_map(|n| model.layout().node_dof(n, 0, "").ok())
        .map(|d| q0[d])
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        })
}

fn parse(text: &str, origin: &str, base_dir: &Option<PathBuf>) -> Result<Scene> {
    let mut scene = Scene::from_json(text, origin)?;
    scene.base_dir = base_dir.clone();
    Ok(scene)
}

impl Robot {
    /// The robot's gait scene as pretty JSON: the actuated robot
    /// ([`Robot::actuated`]) `LIFT` m above flat ground under gravity `g`
    /// (m/s²) with `friction`, one control channel per motor, BDF1 at the
    /// paper's h = 0.033 s with [`NewtonSettings::fast`], 2 s of standing.
    pub fn gait_scene_text(&self, g: [f64; 3], friction: Friction) -> Result<String> {
        let (model, _) = self.actuated(LIFT, g, friction)?;
        let settings = RunSettings {
            name: Some(self.name.to_string()),
            integrator: Integrator::Bdf1,
            dt: 0.033,
            steps: 61,
            newton: NewtonSettings::fast(),
        };
        Ok(to_pretty_json(&scene_json(&model, &settings)?) + "\n")
    }

    /// The end faces of the body above the legs (its 2 cm top slab), at the
    /// smallest and largest x, as selectors on the robot lifted by `lift` m.
    pub fn heading_regions(&self, lift: f64) -> HeadingRegions {
        let (eps, top) = (1e-6, 1.0);
        let extent = |a: usize| {
            self.mesh
                .nodes
                .iter()
                .fold(f64::NEG_INFINITY, |m, p| m.max(p[a]))
        };
        let (front_x, z) = (extent(0), extent(2) - 2.0 * H + lift - eps);
        HeadingRegions {
            rear: Selector {
                aabb: Some(BoxSelector {
                    min: vec![-top, -top, z],
                    max: vec![eps, top, top],
                }),
                ..Default::default()
            },
            front: Selector {
                aabb: Some(BoxSelector {
                    min: vec![front_x - eps, -top, z],
                    max: vec![top, top, top],
                }),
                ..Default::default()
            },
        }
    }
}

const H: f64 = crate::robots::VOXEL;
