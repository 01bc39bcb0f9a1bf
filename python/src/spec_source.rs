//! Specs and scenes given from Python as a file path or a dict.

use crate::errors::from_core;
use crate::scene::dumps;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::path::{Path, PathBuf};

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
