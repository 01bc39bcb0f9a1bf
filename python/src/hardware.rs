//! Hardware export (`pliant export`) from Python.

use crate::errors::{PliantError, guard};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(export, m)?)?;
    Ok(())
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
