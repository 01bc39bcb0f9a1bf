//! Errors of the optimization layer. Each variant carries what a caller
//! needs: the sizes that disagree, the value out of range, the name not
//! found, the step that failed.

use pliant_core::{CoreError, Invalid};

/// What went wrong while rolling out, differentiating or optimizing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
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
    /// Two sizes that must agree do not (keyframes, parameters, steps).
    #[error("{what}: {found} given, expected {expected}")]
    Size {
        /// What was counted.
        what: &'static str,
        /// The size found.
        found: usize,
        /// The size expected.
        expected: usize,
    },
    /// A value outside its range (a weight, a bound, a target).
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// A name the model does not have (a channel a motor drives).
    #[error("{what} `{name}` does not exist (known: {})", known.join(", "))]
    Unknown {
        /// What kind of name.
        what: &'static str,
        /// The name.
        name: String,
        /// The names that exist.
        known: Vec<String>,
    },
    /// Settings that do not fit together.
    #[error("{what}: {problem}")]
    Inconsistent {
        /// Where.
        what: String,
        /// What does not fit.
        problem: &'static str,
    },
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

impl OptimError {
    /// `what` and the setup do not fit together.
    pub fn inconsistent(what: impl Into<String>, problem: &'static str) -> Self {
        OptimError::Inconsistent {
            what: what.into(),
            problem,
        }
    }
}

/// Result with [`OptimError`].
pub type Result<T> = std::result::Result<T, OptimError>;
