//! Typed errors of the engine.

use thiserror::Error;

/// Everything that can go wrong while building or stepping a model.
#[derive(Debug, Error)]
pub enum CoreError {
    /// A model or energy refers to something that does not exist or is not allowed.
    #[error("invalid model: {0}")]
    Model(String),
    /// A node index is outside the model.
    #[error("{context}: node index {index} is out of range (the model has {count} nodes)")]
    NodeOutOfRange {
        /// Where the index appeared (energy name and element).
        context: String,
        /// The offending index.
        index: usize,
        /// How many nodes exist.
        count: usize,
    },
    /// A parameter channel name is not defined in the model.
    #[error("{context}: unknown parameter channel `{name}` (defined: {known})")]
    UnknownParam {
        /// Where the name appeared.
        context: String,
        /// The missing name.
        name: String,
        /// The channels that do exist.
        known: String,
    },
    /// A value that must be finite is not (NaN or infinite initial state, mass, ...).
    #[error("{what} is not finite ({value}) at index {index}")]
    NonFinite {
        /// What quantity.
        what: String,
        /// Index in that quantity.
        index: usize,
        /// The value found.
        value: f64,
    },
    /// Newton did not converge within its iteration budget.
    #[error(
        "Newton did not converge at step {step} (t = {time} s): after {iterations} iterations the free-DOF residual is {residual:.3e} N (tolerance {tolerance:.3e} N); {reason}"
    )]
    NewtonDiverged {
        /// Step index (1-based: the step being computed).
        step: usize,
        /// Time at the end of the step, in s.
        time: f64,
        /// Iterations performed.
        iterations: usize,
        /// Final residual norm (force units, N).
        residual: f64,
        /// Tolerance it had to reach.
        tolerance: f64,
        /// Why it stopped.
        reason: String,
    },
    /// The linear solver failed (matrix not positive definite even after regularisation).
    #[error("linear solve failed: {0}")]
    LinearSolve(String),
    /// A scene file could not be read or parsed.
    #[error("scene {path}: {message}")]
    Scene {
        /// File path (or `<memory>`).
        path: String,
        /// What was wrong and where.
        message: String,
    },
    /// An I/O error with the file it concerns.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Result alias of the engine.
pub type Result<T, E = CoreError> = std::result::Result<T, E>;
