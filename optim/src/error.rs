//! Errors of the optimization layer.

use pliant_core::CoreError;

/// What went wrong while rolling out, differentiating or optimizing.
#[derive(Debug, thiserror::Error)]
pub enum OptimError {
    /// The engine failed outside a rollout (model, state, solver).
    #[error(transparent)]
    Core(#[from] CoreError),
    /// A step of a rollout failed; the steps before it were computed.
    #[error("rollout step {step}: {source}")]
    Rollout {
        /// 1-based step index.
        step: usize,
        /// The engine's error.
        source: CoreError,
    },
    /// Inconsistent input: sizes, names, counts.
    #[error("{0}")]
    Input(String),
    /// The optimizer (argmin) failed.
    #[error("optimizer: {0}")]
    Solver(String),
    /// Reading or writing files (checkpoints, outputs).
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// Result with [`OptimError`].
pub type Result<T> = std::result::Result<T, OptimError>;
