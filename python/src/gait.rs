//! Gait optimization (`pliant optimize`) from Python.

use crate::errors::{PliantError, from_core, guard};
use crate::spec_source::text_of;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(optimize, m)?)?;
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
            .detach(|| s.optimize(&out, checkpoints, None))
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
