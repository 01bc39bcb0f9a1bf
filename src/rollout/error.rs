//! What can go wrong while building or differentiating a rollout.

use pliant_core::CoreError;
use pliant_optim::OptimError;

/// A rollout spec that cannot be built, or a rollout that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RolloutError {
    /// The spec is not valid JSON of the schema.
    #[error("{origin}: {}{message}", if field.is_empty() { String::new() } else { format!("at `{field}`: ") })]
    Parse {
        /// File path or `<memory>`.
        origin: String,
        /// The field path (empty for the document).
        field: String,
        /// What was wrong.
        message: String,
    },
    /// A field whose value does not fit the scene.
    #[error("rollout spec at `{field}`: {message}")]
    Spec {
        /// The field path.
        field: String,
        /// What was wrong.
        message: String,
    },
    /// A name the scene does not have.
    #[error("rollout spec at `{field}`: {what} `{name}` does not exist (known: {})", known.join(", "))]
    Unknown {
        /// The field path.
        field: String,
        /// What kind of name.
        what: &'static str,
        /// The name.
        name: String,
        /// The names that exist.
        known: Vec<String>,
    },
    /// Sizes that disagree (`z`, targets).
    #[error("{what}: {found} given, expected {expected}")]
    Size {
        /// What was counted.
        what: &'static str,
        /// The size found.
        found: usize,
        /// The size expected.
        expected: usize,
    },
    /// A value that is NaN or infinite.
    #[error("{what} is {value}: give a finite number")]
    NonFinite {
        /// Which value.
        what: String,
        /// The value.
        value: f64,
    },
    /// Building the scene or stepping it failed.
    #[error(transparent)]
    Core(#[from] CoreError),
    /// The rollout or its differentiation failed.
    #[error(transparent)]
    Optim(#[from] OptimError),
}

impl RolloutError {
    /// The field path the error is about, if any (`controls[0].channel`).
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::Parse { field, .. } | Self::Spec { field, .. } | Self::Unknown { field, .. } => {
                Some(field)
            }
            Self::Core(CoreError::Scene { field, .. }) => Some(field),
            _ => None,
        }
    }
}
