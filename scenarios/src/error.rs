//! Errors of the scenario builders and the gait pipeline.

use pliant_cable::CableError;
use pliant_core::CoreError;
use pliant_fem::MeshError;
use pliant_optim::OptimError;
use std::path::PathBuf;

/// What went wrong while building a scenario, optimizing a gait or writing
/// its results.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// Building or stepping the model failed.
    #[error(transparent)]
    Core(#[from] CoreError),
    /// The optimization failed.
    #[error(transparent)]
    Optim(#[from] OptimError),
    /// A robot's mesh is unusable.
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// A cable could not be bound to its robot's mesh.
    #[error("cable `{cable}`: {source}")]
    Cable {
        /// The cable.
        cable: String,
        /// Why.
        source: CableError,
    },
    /// A spec (JSON) could not be read: the field and what was wrong.
    #[error("{origin}: {}{message}", if field.is_empty() { String::new() } else { format!("at `{field}`: ") })]
    Spec {
        /// File path or `<memory>`.
        origin: String,
        /// The field path (empty for the document).
        field: String,
        /// What was wrong.
        message: String,
    },
    /// The objective was not finite (a target out of reach of the
    /// arithmetic, or a diverged rollout); nothing is reported as a result.
    #[error(
        "the objective of `{name}` is {value} at the {stage} controls: not a result (check the target and weights)"
    )]
    NonFiniteObjective {
        /// The gait's name.
        name: String,
        /// `"initial"` or `"final"`.
        stage: &'static str,
        /// The value.
        value: f64,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Writing an output file (CSV, plot) failed.
    #[error("{}: {message}", path.display())]
    Output {
        /// The file.
        path: PathBuf,
        /// The writer's message.
        message: String,
    },
}

impl ScenarioError {
    pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        move |source| ScenarioError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
    pub(crate) fn output<E: std::fmt::Display>(
        path: &std::path::Path,
    ) -> impl FnOnce(E) -> Self + '_ {
        move |e| ScenarioError::Output {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }
}

/// Result with [`ScenarioError`].
pub type Result<T, E = ScenarioError> = std::result::Result<T, E>;
