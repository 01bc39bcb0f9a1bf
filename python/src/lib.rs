//! The native half of the `pliant` Python package (`pliant._native`):
//! scenes, simulators, differentiable rollouts, gait optimization,
//! hardware export, runtime plugins and sweep points, with numpy arrays in
//! and out. The pure-Python half (`python/pliant/`) adds the Ray sweep
//! backend and re-exports these names. SI units throughout.

mod arrays;
mod errors;
mod gait;
mod hardware;
mod plugins;
mod rollout;
mod scene;
mod simulator;
mod spec_source;
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
    gait::register(m)?;
    hardware::register(m)?;
    plugins::register(m)?;
    sweep::register(m)?;
    Ok(())
}
