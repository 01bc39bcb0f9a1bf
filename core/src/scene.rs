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
    /// Energies by registered type name.
    pub energies: Vec<Box<dyn Energy>>,
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
        Self::from_json(&text, &path.display().to_string())
    }
    /// Builds the model the scene describes and returns it with how to run it.
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

    /// Builds the model the scene describes.
    pub fn build_model(mut self) -> Result<Model> {
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
        for e in self.energies.drain(..) {
            b.add_energy(e);
        }
        b.build()
    }
}
