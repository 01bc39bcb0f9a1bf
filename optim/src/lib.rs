//! # pliant-optim
//!
//! Differentiable trajectories (cable paper §III): rollouts that record what
//! differentiation needs ([`trajectory`]), forward sensitivities and adjoints
//! of whole rollouts ([`gradient`], and [`forward`] for constant
//! parameters), objectives in residual form ([`objective`], [`heading`]), control
//! reparameterizations ([`controls`]), the shooting problem with argmin
//! adapters ([`shooting`]) and optimization runs with progress and
//! checkpoints ([`mod@optimize`]).
//!
//! To write your own optimization script instead of calling [`optimize()`]:
//! implement [`Objective`], choose a [`ControlMap`] and hand the
//! [`Shooting`] problem to argmin's `Executor` with any solver, observer and
//! checkpoint. The root crate's examples `examples/argmin_reach.rs` (your
//! objective, L-BFGS, a printing/CSV observer, a file checkpoint),
//! `examples/argmin_reach_gradient_free.rs` (the same task by Nelder–Mead,
//! to compare) and `examples/argmin_design.rs` (a design parameter, Young's
//! modulus, with its gradient checked against finite differences) show how;
//! `docs/guide.md` ("Writing your own optimization script") lists them.
//!
//! The engine exposes, at every converged step, the factorized `∂g_k/∂x_k` and
//! the blocks `∂g_k/∂x_{k−1}`, `∂g_k/∂v_{k−1}`, `∂g_k/∂p_k`
//! ([`pliant_core::StepDerivatives`]); this crate builds the recurrences on
//! them. SI units throughout.

#![warn(missing_docs)]

pub mod controls;
pub mod error;
pub mod forward;
pub mod gradient;
pub mod gradient_check;
pub mod heading;
pub mod levenberg_marquardt;
mod machine_load;
pub mod objective;
pub mod optimize;
pub mod shooting;
pub mod trajectory;

pub use controls::{ControlMap, Gait, Motor};
pub use error::{OptimError, Result};
pub use forward::{RolloutSensitivity, rollout_with_sensitivity};
pub use gradient_check::GradientCheck;
pub use heading::Heading;
pub use levenberg_marquardt::{Damping, Forecast, LevenbergMarquardt};
pub use objective::{
    AverageVelocity, CentreOfMass, ComPath, ControlSmoothness, Objective, Residuals, StepView,
};
pub use optimize::{
    IterationRecord, Method, OptimizeResult, OptimizeSettings, ProgressFn, history_path, optimize,
};
pub use shooting::{BoundHandling, Shooting, ShootingStats};
pub use trajectory::{Memory, Trajectory, rollout};

/// Locks `m`; a lock poisoned by a panic elsewhere still gives its data
/// (the caches and statistics behind these locks stay consistent).
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
