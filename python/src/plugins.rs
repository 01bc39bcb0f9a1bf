//! Runtime energy plugins and the energy types a scene may use.

use crate::errors::{PliantError, guard};
use pyo3::prelude::*;
use std::path::PathBuf;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load_plugin, m)?)?;
    m.add_function(wrap_pyfunction!(energies, m)?)?;
    Ok(())
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
