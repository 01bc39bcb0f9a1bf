//! Sweep points for the Python side: the points of a spec, one point run
//! (what a Ray task or `--task-id` does) and the gathering.

use crate::errors::{from_sweep, guard};
use crate::spec_source::text_of;
use pliant::sweep::Sweep;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sweep_points, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_run_point, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_gather, m)?)?;
    Ok(())
}

/// What `sweep_points` returns.
type Points = (String, Vec<String>, Vec<Vec<f64>>, String, Option<PathBuf>);

fn load(py: Python<'_>, text: &str, origin: &str, dir: Option<PathBuf>) -> PyResult<Sweep> {
    Sweep::from_json(text, origin, dir.as_deref()).map_err(|e| from_sweep(py, &e))
}

/// `(name, parameter labels, points, spec text, spec directory)` of a
/// sweep spec (dict or path): what a scheduler needs to dispatch it.
#[pyfunction]
#[pyo3(signature = (spec, base_dir=None))]
fn sweep_points(
    py: Python<'_>,
    spec: &Bound<'_, PyAny>,
    base_dir: Option<PathBuf>,
) -> PyResult<Points> {
    let (text, origin, dir) = text_of(py, spec, base_dir)?;
    guard(|| {
        let s = load(py, &text, &origin, dir.clone())?;
        let labels = s
            .spec()
            .parameters
            .iter()
            .map(|p| p.label().to_string())
            .collect();
        Ok((
            s.spec().name.clone(),
            labels,
            s.points().to_vec(),
            text,
            dir,
        ))
    })
}

/// Runs point `k` of the sweep (spec text and directory as
/// `sweep_points` returns them) into `out/<name>/point_KKKK/`, or reads
/// it back if it finished before: a dict with `index`, `parameters`,
/// `values` (name → number), `error` and `skipped`.
#[pyfunction]
fn sweep_run_point<'py>(
    py: Python<'py>,
    text: &str,
    dir: Option<PathBuf>,
    out: PathBuf,
    k: usize,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let s = load(py, text, "sweep spec", dir)?;
        let r = py
            .detach(|| s.run_point(&out, k))
            .map_err(|e| from_sweep(py, &e))?;
        let d = PyDict::new(py);
        d.set_item("index", r.index)?;
        d.set_item("parameters", r.parameters.clone())?;
        let values = PyDict::new(py);
        for (n, v) in &r.values {
            values.set_item(n, v)?;
        }
        d.set_item("values", values)?;
        d.set_item("error", r.error.clone())?;
        d.set_item("skipped", r.skipped)?;
        Ok(d)
    })
}

/// Gathers the points under `out/<name>/` into `results.csv` and the
/// plot: a dict with `csv`, `parquet`, `plot`, `finished` and `points`.
#[pyfunction]
fn sweep_gather<'py>(
    py: Python<'py>,
    text: &str,
    dir: Option<PathBuf>,
    out: PathBuf,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let s = load(py, text, "sweep spec", dir)?;
        let g = s.gather(&out).map_err(|e| from_sweep(py, &e))?;
        let d = PyDict::new(py);
        d.set_item("csv", &g.csv)?;
        d.set_item("parquet", &g.parquet)?;
        d.set_item("plot", &g.plot)?;
        d.set_item("finished", g.finished())?;
        d.set_item("points", g.points.len())?;
        Ok(d)
    })
}
