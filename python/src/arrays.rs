//! Rows of numbers as 2-D numpy arrays.

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;

/// `rows` (each `cols` long) as a `(rows, cols)` array, filled once.
pub(crate) fn two<'py>(
    py: Python<'py>,
    rows: &[Vec<f64>],
    cols: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    PyArray1::from_vec(py, flat).reshape([rows.len(), cols])
}
