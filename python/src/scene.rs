//! `pliant.Scene`: a scene read from a file, a dict or JSON text, checked
//! when read (errors carry the field path).

use crate::errors::{from_core, guard};
use crate::simulator::PySimulator;
use pliant::core::scene::Scene;
use pyo3::prelude::*;
use std::path::PathBuf;

/// A scene (the JSON schema of `pliant simulate`), validated on creation.
#[pyclass(module = "pliant._native", name = "Scene", frozen)]
pub(crate) struct PyScene {
    pub(crate) text: String,
    pub(crate) origin: String,
    pub(crate) base_dir: Option<PathBuf>,
    dim: usize,
    steps: usize,
    dt: f64,
    name: Option<String>,
    n_nodes: usize,
}

/// `json.dumps(obj)` (floats as their shortest round-trip repr, so a dict
/// gives the same numbers as a file).
pub(crate) fn dumps(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let json = obj.py().import("json")?;
    let kw = pyo3::types::PyDict::new(obj.py());
    kw.set_item("allow_nan", false)?;
    json.call_method("dumps", (obj,), Some(&kw))?.extract()
}

impl PyScene {
    pub(crate) fn parse(
        py: Python<'_>,
        text: String,
        origin: String,
        base_dir: Option<PathBuf>,
    ) -> PyResult<Self> {
        let sc = Scene::from_json(&text, &origin).map_err(|e| from_core(py, &e))?;
        Ok(Self {
            dim: sc.dim,
            steps: sc.steps,
            dt: sc.dt,
            name: sc.name.clone(),
            n_nodes: sc.nodes.len(),
            text,
            origin,
            base_dir,
        })
    }
    /// The parsed scene, its relative paths resolved against its directory.
    pub(crate) fn scene(&self, py: Python<'_>) -> PyResult<Scene> {
        let mut sc = Scene::from_json(&self.text, &self.origin).map_err(|e| from_core(py, &e))?;
        sc.base_dir = self.base_dir.clone();
        Ok(sc)
    }
}

#[pymethods]
impl PyScene {
    /// Reads a scene file (JSON); paths inside it are relative to it.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        guard(|| {
            let text = pliant::core::scene::read_limited(&path).map_err(|e| from_core(py, &e))?;
            Self::parse(
                py,
                text,
                path.display().to_string(),
                path.parent().map(PathBuf::from),
            )
        })
    }
    /// A scene from a dict of the file's schema; relative paths inside it
    /// resolve against `base_dir` (default: the working directory).
    #[staticmethod]
    #[pyo3(signature = (scene, base_dir=None))]
    fn from_dict(
        py: Python<'_>,
        scene: &Bound<'_, PyAny>,
        base_dir: Option<PathBuf>,
    ) -> PyResult<Self> {
        let text = dumps(scene)?;
        guard(|| Self::parse(py, text, "<dict>".into(), base_dir))
    }
    /// A scene from JSON text.
    #[staticmethod]
    #[pyo3(signature = (text, base_dir=None))]
    fn from_json(py: Python<'_>, text: String, base_dir: Option<PathBuf>) -> PyResult<Self> {
        guard(|| Self::parse(py, text, "<json>".into(), base_dir))
    }
    /// The scene as a dict (what `from_dict` takes).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (&self.text,))
    }
    /// Its name, if it has one.
    #[getter]
    fn name(&self) -> Option<String> {
        self.name.clone()
    }
    /// 2 or 3.
    #[getter]
    fn dim(&self) -> usize {
        self.dim
    }
    /// The steps it asks for.
    #[getter]
    fn steps(&self) -> usize {
        self.steps
    }
    /// Its step size, s.
    #[getter]
    fn dt(&self) -> f64 {
        self.dt
    }
    /// Number of nodes.
    #[getter]
    fn n_nodes(&self) -> usize {
        self.n_nodes
    }
    /// Builds the model and a simulator at the initial state.
    fn simulator(&self, py: Python<'_>) -> PyResult<PySimulator> {
        PySimulator::from_scene(py, self)
    }
    fn __repr__(&self) -> String {
        format!(
            "Scene({:?}, dim={}, nodes={}, dt={}, steps={})",
            self.name.as_deref().unwrap_or(&self.origin),
            self.dim,
            self.n_nodes,
            self.dt,
            self.steps
        )
    }
}
