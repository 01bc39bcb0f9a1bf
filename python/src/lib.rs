//! The native half of the `pliant` Python package (`pliant._native`):
//! scenes, simulators, differentiable rollouts, gait optimization,
//! hardware export, runtime plugins and sweep points, with numpy arrays in
//! and out. The pure-Python half (`python/pliant/`) adds the Ray sweep
//! backend and re-exports these names. SI units throughout.

mod errors;
mod rollout;
mod runs;
mod scene;
mod simulator;
mod sweep;

use pyo3::prelude::*;

/// The module `pliant._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    pliant::init();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<scene::PyScene>()?;
    m.add_class::<simulator::PySimulator>()?;
    m.add_class::<rollout::PyRollout>()?;
    runs::register(m)?;
    sweep::register(m)?;
    Ok(())
}
