//! # pliant-optim
//!
//! Differentiable trajectories: rollouts that record what differentiation
//! needs, forward sensitivities and adjoints of whole rollouts, objectives,
//! control reparameterizations and argmin adapters (cable paper §III).
//!
//! The engine exposes, at every converged step, the factorized `∂g_k/∂x_k` and
//! the blocks `∂g_k/∂x_{k−1}`, `∂g_k/∂v_{k−1}`, `∂g_k/∂p_k`
//! ([`pliant_core::StepDerivatives`]); this crate builds the recurrences on
//! them. So far: [`forward`] sensitivities with respect to constant
//! parameters, checked against finite differences of whole rollouts.

pub mod forward;

pub use forward::{RolloutSensitivity, rollout_with_sensitivity};
