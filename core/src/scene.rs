//! Scene files (JSON): a complete description of a model, its integrator and
//! how long to run it. Errors name the offending field by its path
//! (`energies[1].springs[3].nodes`) and say what was expected.
//!
//! ```json
//! {
//!   "dim": 3,
//!   "nodes": [[0, 0, 0], [0, 0, -0.1]],
//!   "mass": 0.01,
//!   "constraints": [{ "node": 0 }],
//!   "energies": [
//!     { "type": "gravity", "g": [0, 0, -9.81] },
//!     { "type": "spring", "springs": [{ "nodes": [0, 1], "stiffness": 100.0 }] }
//!   ],
//!   "integrator": "implicit_euler",
//!   "dt": 0.01,
//!   "steps": 100
//! }
//! ```

use crate::energy::Energy;
use crate::error::{CoreError, Result};
use crate::integrator::Integrator;
use crate::model::{Model, ModelBuilder};
use crate::motion::Motion;
use crate::newton::NewtonSettings;
use crate::params::ParamChannel;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Lumped nodal mass: one value for all nodes or one per node (kg).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MassSpec {
    /// Same mass on every node.
    Uniform(f64),
    /// One mass per node.
    PerNode(Vec<f64>),
}

/// A prescribed motion on a node's coordinates or on one DOF.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConstraintSpec {
    /// Node whose coordinates are constrained.
    #[serde(default)]
    pub node: Option<usize>,
    /// Or a raw DOF index (extra DOFs).
    #[serde(default)]
    pub dof: Option<usize>,
    /// Which axes of the node (default: all).
    #[serde(default)]
    pub axes: Option<Vec<usize>>,
    /// The motion (default: fixed), e.g. `{"type": "linear", "velocity": 0.1}`.
    #[serde(default)]
    pub motion: Option<Motion>,
}

/// An extra scalar DOF.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraDofSpec {
    /// Kind label (e.g. "twist").
    pub kind: String,
    /// Initial value.
    #[serde(default)]
    pub value: f64,
    /// Inertia (kg·m² for angles).
    pub inertia: f64,
}

/// A point mass added to a node (kg).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointMassSpec {
    /// Node.
    pub node: usize,
    /// Mass, kg.
    pub mass: f64,
}

fn default_dt() -> f64 {
    0.01
}
fn default_integrator() -> Integrator {
    Integrator::ImplicitEuler
}

/// How a scene asks to be run.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Optional name.
    pub name: Option<String>,
    /// Time integrator.
    pub integrator: Integrator,
    /// Step size, s.
    pub dt: f64,
    /// Number of steps.
    pub steps: usize,
    /// Newton settings.
    pub newton: NewtonSettings,
}

/// A scene file.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Optional name for outputs.
    #[serde(default)]
    pub name: Option<String>,
    /// 2 or 3.
    pub dim: usize,
    /// Node positions, m.
    pub nodes: Vec<Vec<f64>>,
    /// Nodal masses, kg.
    pub mass: MassSpec,
    /// Initial node velocities, m/s (default zero).
    #[serde(default)]
    pub velocities: Option<Vec<Vec<f64>>>,
    /// Extra scalar DOFs.
    #[serde(default)]
    pub extra_dofs: Vec<ExtraDofSpec>,
    /// Point masses.
    #[serde(default)]
    pub point_masses: Vec<PointMassSpec>,
    /// Prescribed motions.
    #[serde(default)]
    pub constraints: Vec<ConstraintSpec>,
    /// Parameter channels.
    #[serde(default)]
    pub params: Vec<ParamChannel>,
    /// Energies by type name (built-in, or from a loaded plugin), kept as
    /// JSON until the model is built so runtime energies can be resolved.
    pub energies: Vec<serde_json::Value>,
    /// Plugin libraries to load before building, relative to the scene file.
    #[serde(default)]
    pub plugins: Vec<std::path::PathBuf>,
    /// Directory of the scene file (plugin paths are relative to it).
    #[serde(skip)]
    pub base_dir: Option<std::path::PathBuf>,
    /// Time integrator.
    #[serde(default = "default_integrator")]
    pub integrator: Integrator,
    /// Step size, s.
    #[serde(default = "default_dt")]
    pub dt: f64,
    /// Number of steps to run.
    #[serde(default)]
    pub steps: usize,
    /// Newton settings.
    #[serde(default)]
    pub newton: NewtonSettings,
}

impl Scene {
    /// Parses a scene from JSON text; `origin` names it in errors.
    pub fn from_json(text: &str, origin: &str) -> Result<Self> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            CoreError::Scene {
                path: origin.to_string(),
                message: if path.is_empty() || path == "." {
                    inner.to_string()
                } else {
                    format!("at `{path}`: {inner}")
                },
            }
        })
    }
    /// Reads and parses a scene file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|source| CoreError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let mut scene = Self::from_json(&text, &path.display().to_string())?;
        scene.base_dir = path.parent().map(|p| p.to_path_buf());
        Ok(scene)
    }

    /// Loads the scene's plugins (paths relative to the scene file); loading a
    /// file that is already loaded is a no-op.
    pub fn load_plugins(&self) -> Result<()> {
        for (i, p) in self.plugins.iter().enumerate() {
            let path = match &self.base_dir {
                Some(d) if p.is_relative() => d.join(p),
                _ => p.clone(),
            };
            crate::plugin::load(&path).map_err(|e| CoreError::Scene {
                path: self.origin(),
                message: format!("at `plugins[{i}]`: {e}"),
            })?;
        }
        Ok(())
    }

    fn origin(&self) -> String {
        self.name.clone().unwrap_or_else(|| "scene".into())
    }

    /// Turns the scene's energy JSON into energies: a runtime (plugin) energy
    /// of that name if one is loaded, otherwise a built-in one.
    fn energy_objects(&self) -> Result<Vec<Box<dyn Energy>>> {
        let mut out = Vec::with_capacity(self.energies.len());
        for (i, v) in self.energies.iter().enumerate() {
            let name = v
                .get("type")
                .and_then(|t| t.as_str())
                .ok_or_else(|| CoreError::Scene {
                    path: self.origin(),
                    message: format!(
                        "at `energies[{i}]`: missing string field `type` naming the energy"
                    ),
                })?;
            if let Some(e) = crate::plugin::construct(name, &v.to_string()) {
                out.push(e.map_err(|e| CoreError::Scene {
                    path: self.origin(),
                    message: format!("at `energies[{i}]`: {e}"),
                })?);
                continue;
            }
            let e: Box<dyn Energy> = serde_path_to_error::deserialize(v).map_err(|e| {
                let path = e.path().to_string();
                let mut message = e.into_inner().to_string();
                if message.contains("unknown variant") {
                    let runtime: Vec<String> = crate::plugin::runtime_energies()
                        .into_iter()
                        .map(|r| r.name)
                        .collect();
                    if !runtime.is_empty() {
                        message.push_str(&format!(" (plugin energies: {})", runtime.join(", ")));
                    }
                }
                CoreError::Scene {
                    path: self.origin(),
                    message: if path.is_empty() || path == "." {
                        format!("at `energies[{i}]`: {message}")
                    } else {
                        format!("at `energies[{i}].{path}`: {message}")
                    },
                }
            })?;
            out.push(e);
        }
        Ok(out)
    }
    /// Loads the scene's plugins, builds the model it describes and returns it
    /// with how to run it.
    pub fn build(self) -> Result<(Model, RunSpec)> {
        let run = RunSpec {
            name: self.name.clone(),
            integrator: self.integrator,
            dt: self.dt,
            steps: self.steps,
            newton: self.newton,
        };
        Ok((self.build_model()?, run))
    }

    /// Builds the model and a simulator ready to step it; also returns the step count.
    pub fn into_simulator(self) -> Result<(crate::simulator::Simulator, usize)> {
        let (model, run) = self.build()?;
        let sim = crate::simulator::Simulator::new(model, run.integrator, run.dt, run.newton)?;
        Ok((sim, run.steps))
    }

    /// Loads the scene's plugins and builds the model it describes.
    pub fn build_model(self) -> Result<Model> {
        self.load_plugins()?;
        let energies = self.energy_objects()?;
        let err = |m: String| CoreError::Model(m);
        let mut b = ModelBuilder::new(self.dim)?;
        let n = self.nodes.len();
        let masses: Vec<f64> = match &self.mass {
            MassSpec::Uniform(m) => vec![*m; n],
            MassSpec::PerNode(v) => {
                if v.len() != n {
                    return Err(err(format!("`mass` has {} entries for {n} nodes", v.len())));
                }
                v.clone()
            }
        };
        for (i, (pos, m)) in self.nodes.iter().zip(&masses).enumerate() {
            b.add_node(pos, *m)
                .map_err(|e| err(format!("`nodes[{i}]`: {e}")))?;
        }
        if let Some(vel) = &self.velocities {
            if vel.len() != n {
                return Err(err(format!(
                    "`velocities` has {} entries for {n} nodes",
                    vel.len()
                )));
            }
            for (i, v) in vel.iter().enumerate() {
                if v.len() != self.dim {
                    return Err(err(format!(
                        "`velocities[{i}]` has {} components, expected {}",
                        v.len(),
                        self.dim
                    )));
                }
                for (a, &va) in v.iter().enumerate() {
                    let d = b.layout().node_dof(i, a, "velocities")?;
                    b.set_velocity(d, va)?;
                }
            }
        }
        for x in &self.extra_dofs {
            b.add_extra_dof(&x.kind, x.value, x.inertia);
        }
        for (k, pm) in self.point_masses.iter().enumerate() {
            b.add_point_mass(pm.node, pm.mass)
                .map_err(|e| err(format!("`point_masses[{k}]`: {e}")))?;
        }
        for (k, c) in self.constraints.iter().enumerate() {
            let ctx = format!("constraints[{k}]");
            match (c.node, c.dof) {
                (Some(node), None) => {
                    let axes = c.axes.clone().unwrap_or_else(|| (0..self.dim).collect());
                    for a in axes {
                        if a >= self.dim {
                            return Err(err(format!(
                                "`{ctx}.axes`: axis {a} does not exist in {}-D",
                                self.dim
                            )));
                        }
                        let d = b.layout().node_dof(node, a, &format!("`{ctx}.node`"))?;
                        b.constrain(d, c.motion.clone().unwrap_or(Motion::Fixed))?;
                    }
                }
                (None, Some(dof)) => b
                    .constrain(dof, c.motion.clone().unwrap_or(Motion::Fixed))
                    .map_err(|e| err(format!("`{ctx}.dof`: {e}")))?,
                _ => return Err(err(format!("`{ctx}`: give exactly one of `node` or `dof`"))),
            }
        }
        for c in &self.params {
            b.add_param(c.clone())?;
        }
        for e in energies {
            b.add_energy(e);
        }
        b.build()
    }
}
