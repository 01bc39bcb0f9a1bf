//! pliant's errors as Python exceptions, with the fields a caller needs
//! (`field`, `origin`, `step`) as attributes; and the guard that keeps a
//! Rust panic from crossing into Python as anything but a `PliantError`.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

pyo3::create_exception!(
    _native,
    PliantError,
    PyException,
    "Base of every error pliant raises."
);
pyo3::create_exception!(
    _native,
    SceneError,
    PliantError,
    "A scene or spec that cannot be read: `origin` (file), `field` (JSON path, e.g. `energies[1].stiffness`)."
);
pyo3::create_exception!(
    _native,
    SimulationError,
    PliantError,
    "A step that failed: `step` (1-based), and `partial`, what was computed before it."
);
pyo3::create_exception!(
    _native,
    PliantIOError,
    PliantError,
    "A file that cannot be read or written."
);

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PliantError", py.get_type::<PliantError>())?;
    m.add("SceneError", py.get_type::<SceneError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("PliantIOError", py.get_type::<PliantIOError>())?;
    Ok(())
}

/// A `SceneError` with `origin` and `field` set.
pub(crate) fn scene_error(py: Python<'_>, message: String, origin: &str, field: &str) -> PyErr {
    let e = SceneError::new_err(message);
    let v = e.value(py);
    // Setting attributes on a fresh exception object cannot fail in
    // practice; if it did, the message still says everything.
    let _ = v.setattr("origin", origin);
    let _ = v.setattr("field", field);
    e
}

/// Any error of the engine as the Python exception that fits it.
pub(crate) fn from_core(py: Python<'_>, e: &pliant::core::CoreError) -> PyErr {
    use pliant::core::CoreError;
    match e {
        CoreError::Scene { path, field, .. } => scene_error(py, e.to_string(), path, field),
        CoreError::Io { .. } | CoreError::File { .. } => PliantIOError::new_err(e.to_string()),
        _ => PliantError::new_err(e.to_string()),
    }
}

/// A rollout spec's error (field path kept).
pub(crate) fn from_rollout(py: Python<'_>, e: &pliant::rollout::RolloutError) -> PyErr {
    use pliant::rollout::RolloutError;
    match e {
        RolloutError::Core(c) => from_core(py, c),
        RolloutError::Optim(pliant::optim::OptimError::Rollout { step, .. }) => {
            let err = SimulationError::new_err(e.to_string());
            let _ = err.value(py).setattr("step", *step);
            let _ = err.value(py).setattr("partial", py.None());
            err
        }
        RolloutError::Parse { origin, field, .. } => scene_error(py, e.to_string(), origin, field),
        RolloutError::Spec { field, .. } | RolloutError::Unknown { field, .. } => {
            scene_error(py, e.to_string(), "rollout spec", field)
        }
        _ => PliantError::new_err(e.to_string()),
    }
}

/// A sweep's error.
pub(crate) fn from_sweep(py: Python<'_>, e: &pliant::sweep::SweepError) -> PyErr {
    use pliant::sweep::SweepError;
    match e {
        SweepError::Parse { origin, field, .. } => scene_error(py, e.to_string(), origin, field),
        SweepError::Spec { field, .. } => scene_error(py, e.to_string(), "sweep spec", field),
        SweepError::Pointer { index, .. } => scene_error(
            py,
            e.to_string(),
            "sweep spec",
            &format!("parameters[{index}].path"),
        ),
        SweepError::Io { .. } => PliantIOError::new_err(e.to_string()),
        SweepError::Core(c) => from_core(py, c),
        _ => PliantError::new_err(e.to_string()),
    }
}

/// Runs `f`, turning a panic (a bug) into a `PliantError` that says so.
pub(crate) fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(PliantError::new_err(format!(
                "internal error in pliant (a bug, please report it): {what}"
            )))
        }
    }
}
