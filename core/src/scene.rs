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

use crate::error::{CoreError, Result};
use crate::integrator::Integrator;
use crate::model::{Model, ModelBuilder};
use crate::motion::Motion;
use crate::newton::NewtonSettings;
use crate::params::ParamChannel;
use crate::region::Selector;
use crate::registry::spec_from_json;
use crate::simulator::Simulator;
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

/// A prescribed motion on a node's coordinates, on the nodes a selector
/// chooses, or on one DOF (exactly one of `node`, `select`, `dof`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConstraintSpec {
    /// Node whose coordinates are constrained.
    #[serde(default)]
    pub node: Option<usize>,
    /// Or every node a selector chooses (a region, a box, …).
    #[serde(default)]
    pub select: Option<Selector>,
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

/// A point mass (a motor, kg) added to a node, or spread equally over the
/// nodes a selector chooses (exactly one of `node`, `select`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointMassSpec {
    /// Node.
    #[serde(default)]
    pub node: Option<usize>,
    /// Or the nodes a selector chooses, sharing `mass`.
    #[serde(default)]
    pub select: Option<Selector>,
    /// Mass, kg.
    pub mass: f64,
}

/// A named region of a scene: the nodes a selector chooses, by that name.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionSpec {
    /// The region's name (unique among the model's regions).
    pub name: String,
    /// Its nodes.
    pub select: Selector,
}

fn default_integrator() -> Integrator {
    Integrator::ImplicitEuler
}

/// How a scene asks to be run.
#[derive(Debug, Clone)]
pub struct RunSettings {
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

/// A scene's model with how to run it.
#[derive(Debug)]
pub struct SceneModel {
    /// The model.
    pub model: Model,
    /// Integrator, step, steps, Newton settings.
    pub settings: RunSettings,
}

/// A scene ready to step: its simulator and how many steps it asks for.
#[derive(Debug)]
pub struct SceneSimulator {
    /// The simulator, at the scene's initial state.
    pub simulator: Simulator,
    /// Integrator, step, steps, Newton settings.
    pub settings: RunSettings,
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
    /// Named regions, selected once every energy declared its nodes (a
    /// body from a mesh file names its own: `"<body>"`, `"<body>.surface"`,
    /// `"<body>.<physical group>"`).
    #[serde(default)]
    pub regions: Vec<RegionSpec>,
    /// Regions reported as output groups: the centroid of each (`<name>.x`,
    /// `.y`, `.z`, m) joins the observables every step — `trajectory.csv`,
    /// the plots, the replay's readouts.
    #[serde(default)]
    pub outputs: Vec<String>,
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
    /// Step size, s (required: no default).
    pub dt: f64,
    /// Number of steps to run (required: no default).
    pub steps: usize,
    /// Newton settings, an object of named fields (each optional).
    #[serde(default, deserialize_with = "object_only")]
    pub newton: NewtonSettings,
}

/// Largest scene or spec file read, bytes (64 MiB: a 400k-tet mesh written
/// inline as JSON is about 40 MB; larger meshes belong in mesh files).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Reads a text file of at most [`MAX_FILE_BYTES`] (a device such as
/// `/dev/zero` or a huge file is refused after reading that much, not
/// read until memory runs out).
pub fn read_limited(path: &Path) -> Result<String> {
    use std::io::Read;
    let io = |source| CoreError::Io {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    if file.metadata().map_err(io)?.is_dir() {
        return Err(CoreError::File {
            path: path.display().to_string(),
            message: "is a directory, not a file".into(),
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(CoreError::File {
            path: path.display().to_string(),
            message: format!(
                "larger than {} MiB, the limit for scene and spec files (put large meshes in mesh files)",
                MAX_FILE_BYTES >> 20
            ),
        });
    }
    String::from_utf8(bytes).map_err(|e| CoreError::File {
        path: path.display().to_string(),
        message: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
    })
}

/// Deserializes a struct only from a JSON object (serde's derived structs
/// also accept an array read positionally, so `"newton": [1, 2]` would set
/// the first two fields). Use with `#[serde(deserialize_with = ...)]`.
pub fn object_only<'de, D, T>(d: D) -> std::result::Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Object<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Object<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object with named fields")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            map: A,
        ) -> std::result::Result<T, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    d.deserialize_map(Object(std::marker::PhantomData))
}

impl Scene {
    /// Parses a scene from JSON text; `origin` names it in errors. Text
    /// after the JSON document is an error.
    pub fn from_json(text: &str, origin: &str) -> Result<Self> {
        let scene: Self = crate::json::from_str(text, "scene").map_err(|e| CoreError::Scene {
            path: origin.to_string(),
            field: e.field,
            message: e.message,
        })?;
        Ok(scene)
    }
    /// Reads and parses a scene file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = read_limited(path)?;
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
                field: format!("plugins[{i}]"),
                message: e.to_string(),
            })?;
        }
        Ok(())
    }

    fn origin(&self) -> String {
        self.name.clone().unwrap_or_else(|| "scene".into())
    }

    /// Loads the scene's plugins, builds the model it describes and returns
    /// it with how to run it.
    pub fn build(self) -> Result<SceneModel> {
        let settings = RunSettings {
            name: self.name.clone(),
            integrator: self.integrator,
            dt: self.dt,
            steps: self.steps,
            newton: self.newton,
        };
        Ok(SceneModel {
            model: self.build_model()?,
            settings,
        })
    }

    /// Builds the model and a simulator ready to step it.
    pub fn into_simulator(self) -> Result<SceneSimulator> {
        let SceneModel { model, settings } = self.build()?;
        let s = &settings;
        let simulator = Simulator::new(model, s.integrator, s.dt, s.newton)?;
        Ok(SceneSimulator {
            simulator,
            settings,
        })
    }

    /// Loads the scene's plugins and builds the model it describes.
    pub fn build_model(self) -> Result<Model> {
        self.load_plugins()?;
        let origin = self.origin();
        let mut specs = Vec::with_capacity(self.energies.len());
        for (i, v) in self.energies.iter().enumerate() {
            specs.push(spec_from_json(v, &origin, &format!("energies[{i}]"))?);
        }
        let mut b = ModelBuilder::new(self.dim)?;
        b.set_base_dir(self.base_dir.clone());
        let n = self.nodes.len();
        let masses: Vec<f64> = match &self.mass {
            MassSpec::Uniform(m) => vec![*m; n],
            MassSpec::PerNode(v) => {
                if v.len() != n {
                    return Err(CoreError::Count {
                        field: "mass".into(),
                        found: v.len(),
                        expected: n,
                    });
                }
                v.clone()
            }
        };
        for (pos, m) in self.nodes.iter().zip(&masses) {
            b.add_node(pos, *m)?;
        }
        if let Some(vel) = &self.velocities {
            if vel.len() != n {
                return Err(CoreError::Count {
                    field: "velocities".into(),
                    found: vel.len(),
                    expected: n,
                });
            }
            for (i, v) in vel.iter().enumerate() {
                if v.len() != self.dim {
                    return Err(CoreError::Count {
                        field: format!("velocities[{i}]"),
                        found: v.len(),
                        expected: self.dim,
                    });
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
        for (k, r) in self.regions.iter().enumerate() {
            b.add_region(&r.name, r.select.clone(), &format!("regions[{k}].select"));
        }
        for (k, name) in self.outputs.iter().enumerate() {
            b.add_output(name, &format!("outputs[{k}]"));
        }
        for (k, pm) in self.point_masses.iter().enumerate() {
            let field = format!("point_masses[{k}]");
            match (pm.node, &pm.select) {
                (Some(node), None) => {
                    b.layout().node_dof(node, 0, &format!("{field}.node"))?;
                    b.add_point_mass(node, pm.mass)?;
                }
                (None, Some(sel)) => {
                    b.add_selection_mass(sel.clone(), pm.mass, &format!("{field}.select"))
                }
                _ => {
                    return Err(CoreError::inconsistent(
                        field,
                        "give exactly one of `node` or `select`",
                    ));
                }
            }
        }
        for (k, c) in self.constraints.iter().enumerate() {
            let field = format!("constraints[{k}]");
            let motion = c.motion.clone().unwrap_or(Motion::Fixed);
            if let Some(sel) = &c.select {
                if c.node.is_some() || c.dof.is_some() {
                    return Err(CoreError::inconsistent(
                        field,
                        "give exactly one of `node`, `select` or `dof`",
                    ));
                }
                b.constrain_selection(
                    sel.clone(),
                    c.axes.clone(),
                    motion,
                    &format!("{field}.select"),
                );
                continue;
            }
            match (c.node, c.dof) {
                (Some(node), None) => {
                    let axes = c.axes.clone().unwrap_or_else(|| (0..self.dim).collect());
                    for a in axes {
                        let d = b.layout().node_dof(node, a, &format!("{field}.node"))?;
                        b.constrain(d, motion.clone())?;
                    }
                }
                (None, Some(dof)) => {
                    let count = b.q0().len();
                    if dof >= count {
                        return Err(CoreError::DofOutOfRange {
                            field: format!("{field}.dof"),
                            index: dof,
                            count,
                        });
                    }
                    b.constrain(dof, motion)?;
                }
                _ => {
                    return Err(CoreError::inconsistent(
                        field,
                        "give exactly one of `node`, `select` or `dof`",
                    ));
                }
            }
        }
        for c in &self.params {
            b.add_param(c.clone())?;
        }
        for s in specs {
            b.add_boxed(s);
        }
        b.build()
    }
}

/// The scene of `model` (a model without extra DOFs or prescribed motions,
/// such as a robot assembled in code) with the run `settings`: node
/// positions, velocities and masses, parameter channels, every energy by
/// its registered name, and the Newton settings where they differ from the
/// defaults. Loading it rebuilds the same model (floats are written in
/// shortest round-trip form).
pub fn scene_json(model: &Model, settings: &RunSettings) -> Result<serde_json::Value> {
    use serde_json::json;
    let layout = model.layout();
    if layout.region_names().next().is_some() {
        // A body from a mesh file adds its nodes and regions when it is
        // declared: written out, they would be added twice.
        return Err(CoreError::Unsupported(
            "scene export: models with regions or bodies from mesh files are not supported yet",
        ));
    }
    if layout
        .dof_kinds()
        .iter()
        .any(|k| !matches!(k, crate::layout::DofKind::Position { .. }))
    {
        return Err(CoreError::Unsupported(
            "scene export: models with extra DOFs are not supported yet",
        ));
    }
    if model.constraints().iter().any(Option::is_some) {
        return Err(CoreError::Unsupported(
            "scene export: models with prescribed motions are not supported yet",
        ));
    }
    let dim = layout.dim();
    let n = layout.n_nodes();
    let (mut nodes, mut mass, mut vel) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for &d0 in layout.node_base() {
        nodes.push(model.q0()[d0..d0 + dim].to_vec());
        vel.push(model.v0()[d0..d0 + dim].to_vec());
        mass.push(model.mass()[d0]);
    }
    let energies = model
        .specs()
        .iter()
        .map(|e| crate::spec::to_json(e.as_ref()))
        .collect::<Result<Vec<_>>>()?;
    let mut scene = json!({
        "name": settings.name,
        "dim": dim,
        "nodes": nodes,
        "mass": mass,
        "params": model.params(),
        "energies": energies,
        "integrator": settings.integrator,
        "dt": settings.dt,
        "steps": settings.steps,
    });
    if model.v0().iter().any(|v| *v != 0.0) {
        scene["velocities"] = json!(vel);
    }
    if settings.newton != NewtonSettings::default() {
        scene["newton"] = json!(settings.newton);
    }
    Ok(scene)
}

/// Pretty JSON with every innermost array of numbers on one line
/// (`[0, 1, 10, 55]` instead of six lines), the rest indented.
pub fn to_pretty_json(v: &serde_json::Value) -> String {
    let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
    let b = pretty.as_bytes();
    let mut out = String::with_capacity(pretty.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' {
            let close = b[i + 1..]
                .iter()
                .position(|&c| c == b']')
                .map(|k| i + 1 + k);
            if let Some(j) = close
                && b[i + 1..j]
                    .iter()
                    .all(|c| c.is_ascii_digit() || b" \n\r\t,.-+eE".contains(c))
            {
                let items: Vec<&str> = pretty[i + 1..j]
                    .split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .collect();
                out.push('[');
                out.push_str(&items.join(", "));
                out.push(']');
                i = j + 1;
                continue;
            }
        }
        let Some(ch) = pretty[i..].chars().next() else {
            break;
        };
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}
