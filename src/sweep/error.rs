//! What can go wrong while reading, running or gathering a sweep.

use std::path::PathBuf;

/// A sweep that cannot be read, a point that cannot be set up, or an
/// output that cannot be written. A point whose run fails is not an error
/// of the sweep: its `result.json` says why and the others go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// A sweep spec that is not valid JSON of the schema.
    #[error("{origin}: {}{message}", if field.is_empty() { String::new() } else { format!("at `{field}`: ") })]
    Parse {
        /// File path or `<memory>`.
        origin: String,
        /// The field path (empty for the document).
        field: String,
        /// What was wrong.
        message: String,
    },
    /// A field whose value cannot work.
    #[error("sweep `{sweep}` at `{field}`: {message}")]
    Spec {
        /// The sweep's name.
        sweep: String,
        /// The field path.
        field: String,
        /// What was wrong.
        message: String,
    },
    /// A parameter's pointer does not address a number of its document.
    #[error("sweep `{sweep}`: parameters[{index}] `{pointer}` in {document}: {message}")]
    Pointer {
        /// The sweep's name.
        sweep: String,
        /// The parameter's index.
        index: usize,
        /// The JSON pointer.
        pointer: String,
        /// The document's path.
        document: String,
        /// What was wrong.
        message: String,
    },
    /// A point index outside the design (`--task-id`).
    #[error("sweep `{sweep}` has {points} points (0 … {}); there is no point {index}", points.saturating_sub(1))]
    NoSuchPoint {
        /// The sweep's name.
        sweep: String,
        /// The index asked for.
        index: usize,
        /// Points in the design.
        points: usize,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file the sweep reads could not be read.
    #[error(transparent)]
    Core(#[from] pliant_core::CoreError),
}
