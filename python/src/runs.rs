//! Gait optimization (`pliant optimize`), hardware export (`pliant
//! export`) and runtime plugins from Python.

use crate::errors::{PliantError, from_core, guard};
use crate::scene::dumps;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::{Path, PathBuf};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(optimize, m)?)?;
    m.add_function(wrap_pyfunction!(export, m)?)?;
    m.add_function(wrap_pyfunction!(load_plugin, m)?)?;
    m.add_function(wrap_pyfunction!(energies, m)?)?;
    Ok(())
}

fn scenario_error(py: Python<'_>, e: &pliant::scenarios::ScenarioError) -> PyErr {
    use pliant::scenarios::ScenarioError;
    match e {
        ScenarioError::Spec { origin, field, .. } => {
            crate::errors::scene_error(py, e.to_string(), origin, field)
        }
        ScenarioError::Core(c) => from_core(py, c),
        _ => PliantError::new_err(e.to_string()),
    }
}

/// Optimizes a gait spec (a dict or a spec file, the schema of `pliant
/// optimize`) into `out/<name>/`, resuming a checkpoint there unless
/// `fresh`. Returns a dict: `objective`, `initial_objective`,
/// `iterations`, `termination`, `z`, `body_lengths_per_minute`,
/// `displacement` (m), `heading_change_degrees`, `files`.
#[pyfunction]
#[pyo3(signature = (spec, out="out".into(), iterations=None, fresh=false, base_dir=None))]
fn optimize<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    out: PathBuf,
    iterations: Option<u64>,
    fresh: bool,
    base_dir: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let (text, origin, dir) = text_of(py, spec, base_dir)?;
    guard(|| {
        let mut s = pliant::gait::OptimizeSpec::from_json(&text, &origin)
            .map_err(|e| scenario_error(py, &e))?;
        s.base_dir = dir;
        if let Some(n) = iterations {
            s.iterations = n;
        }
        let checkpoints = if fresh {
            pliant::gait::Checkpoints::Fresh
        } else {
            pliant::gait::Checkpoints::Resume
        };
        let run = py
            .detach(|| {
                let setup = s.setup()?;
                let z0 = s.z0(&setup)?;
                pliant::gait::optimize_gait(
                    &setup,
                    &z0,
                    s.method(),
                    s.iterations,
                    &out,
                    checkpoints,
                    None,
                )
            })
            .map_err(|e| scenario_error(py, &e))?;
        let (r, sm) = (&run.result, &run.summary);
        let d = PyDict::new(py);
        d.set_item("name", &sm.name)?;
        d.set_item("objective", r.objective)?;
        d.set_item("initial_objective", r.initial_objective)?;
        d.set_item("iterations", r.iterations)?;
        d.set_item("termination", &r.termination)?;
        d.set_item("z", numpy::PyArray1::from_slice(py, &r.z))?;
        d.set_item("body_lengths_per_minute", sm.body_lengths_per_minute)?;
        d.set_item("displacement", sm.displacement.to_vec())?;
        d.set_item("heading_change_degrees", sm.heading_change_degrees)?;
        d.set_item("dir", out.join(&sm.name))?;
        d.set_item("files", run.files.clone())?;
        Ok(d)
    })
}

/// Exports a run's optimized controls (`run`: an optimize output
/// directory) through a hardware profile and backend; `clip` saturates
/// at the limits instead of failing. Returns a dict: `output`, `plot`,
/// `channels`, `samples`, `rate_hz`, `violations`.
#[pyfunction]
#[pyo3(signature = (run, profile, backend="csv", rate=None, out=None, clip=false))]
fn export<'py>(
    py: Python<'py>,
    run: PathBuf,
    profile: PathBuf,
    backend: &str,
    rate: Option<f64>,
    out: Option<PathBuf>,
    clip: bool,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let r = py
            .detach(|| {
                let profile = pliant::hardware::HardwareProfile::from_file(&profile)?;
                let opts = pliant::hardware::ExportOptions {
                    rate_hz: rate,
                    limits: if clip {
                        pliant::hardware::LimitPolicy::Clip
                    } else {
                        pliant::hardware::LimitPolicy::Fail
                    },
                };
                pliant::hardware::export(&run, &profile, backend, opts, out.as_deref())
            })
            .map_err(|e| PliantError::new_err(e.to_string()))?;
        let d = PyDict::new(py);
        d.set_item("output", &r.output)?;
        d.set_item("plot", &r.plot)?;
        d.set_item("channels", r.channels.clone())?;
        d.set_item("samples", r.samples)?;
        d.set_item("rate_hz", r.rate_hz)?;
        d.set_item(
            "violations",
            r.violations
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>(),
        )?;
        Ok(d)
    })
}

/// Loads a runtime energy plugin (a shared library built against this
/// pliant's ABI); returns the energy types it registered.
#[pyfunction]
fn load_plugin(path: PathBuf) -> PyResult<Vec<String>> {
    guard(|| pliant::core::plugin::load(&path).map_err(|e| PliantError::new_err(e.to_string())))
}

/// Every energy type a scene may use: `(name, summary)` pairs.
#[pyfunction]
fn energies() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = pliant::core::registry::builtin()
        .into_iter()
        .map(|e| (e.name.to_string(), e.summary.to_string()))
        .collect();
    v.extend(
        pliant::core::plugin::runtime_energies()
            .into_iter()
            .map(|e| (e.name.to_string(), e.summary.to_string())),
    );
    v
}

/// A spec given as a dict or a path: its JSON text, origin and directory.
pub(crate) fn text_of(
    py: Python<'_>,
    spec: &Bound<'_, PyAny>,
    base_dir: Option<PathBuf>,
) -> PyResult<(String, String, Option<PathBuf>)> {
    if spec.is_instance_of::<PyString>() || spec.hasattr("__fspath__")? {
        let path: PathBuf = spec.extract()?;
        let text = pliant::core::scene::read_limited(&path).map_err(|e| from_core(py, &e))?;
        Ok((
            text,
            path.display().to_string(),
            path.parent().map(Path::to_path_buf),
        ))
    } else {
        Ok((dumps(spec)?, "<dict>".into(), base_dir))
    }
}
