//! What can go wrong while writing output.

use std::path::PathBuf;
use thiserror::Error;

/// Writing an output file failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum VizError {
    /// File system error, with the path.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// An energy reported a shape whose sizes or indices do not agree.
    #[error("energies[{entry}] ({energy}) reports a malformed shape: {problem}")]
    Shape {
        /// The scene entry of the energy.
        entry: usize,
        /// The energy's scene type.
        energy: String,
        /// What is wrong.
        problem: String,
    },
    /// A writer refused the data (VTK, plotting).
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl From<pliant_core::pvd::SeriesError> for VizError {
    fn from(e: pliant_core::pvd::SeriesError) -> Self {
        match e {
            pliant_core::pvd::SeriesError::Io { path, source } => VizError::Io { path, source },
            pliant_core::pvd::SeriesError::Format { path, message } => {
                VizError::Format { path, message }
            }
        }
    }
}

/// The I/O error of `path`.
pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> VizError + '_ {
    move |source| VizError::Io {
        path: path.to_path_buf(),
        source,
    }
}
