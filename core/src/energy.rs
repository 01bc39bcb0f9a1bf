//! The one plugin interface: [`Energy`], a set of elements of one kind.
//!
//! An energy contributes a scalar `E(q, q_prev, p)` in joules. It is evaluated
//! at the integrator's evaluation point `q` (the new state for BDF1/implicit
//! Euler, the midpoint for implicit midpoint), may depend on the previous state
//! `q_prev` (history coupling: friction lagged on the last normal force, viscous
//! damping through the velocity `(q − q_prev)/h`) and on parameter channels `p`.
//!
//! Derivatives are returned as dense per-element blocks over the element's
//! stencil (see [`ElementSet`]); the engine scatters them into sparse matrices
//! with a sparsity pattern built once. By default every derivative comes from
//! the dual-number fallback of the element set; an energy overrides any of them
//! with an analytic version, which the derivative-check utility
//! ([`crate::derivcheck`]) compares with the fallback and finite differences.

use crate::element::ElementSet;
use crate::error::Result;
use crate::layout::Layout;

/// What an energy may read from the model when it is bound.
#[derive(Debug, Clone, Copy)]
pub struct BindInfo<'a> {
    /// DOF and parameter layout.
    pub layout: &'a Layout,
    /// Initial state `q0` (rest lengths default to initial lengths).
    pub q0: &'a [f64],
    /// Lumped mass per DOF (kg).
    pub mass: &'a [f64],
}

/// Everything an energy may read when it is evaluated.
#[derive(Debug, Clone, Copy)]
pub struct EvalState<'a> {
    /// Evaluation point, full DOF vector (m, rad).
    pub q: &'a [f64],
    /// Previous state (m, rad): `q_{k−1}` for implicit schemes.
    pub q_prev: &'a [f64],
    /// Parameter channel values at this step.
    pub p: &'a [f64],
    /// Time elapsed between `q_prev` and the evaluation point, in s: velocities
    /// are `(q − q_prev)/h`. For implicit midpoint this is half the step.
    pub h: f64,
    /// The integrator's step size, s.
    pub dt: f64,
    /// Time of the evaluation point, in s.
    pub t: f64,
}

/// A set of elements of one kind contributing an energy (J).
///
/// Implementors hold their scene data (node indices, material constants,
/// channel names) and resolve it in [`Energy::bind`]; after binding,
/// [`Energy::elements`] gives the element set whose stencils and fallback
/// derivatives the engine uses.
#[typetag::serde(tag = "type")]
pub trait Energy: Send + Sync + std::fmt::Debug {
    /// Resolves node indices and channel names against the model's layout and
    /// validates the data. Called once when the model is built.
    fn bind(&mut self, info: &BindInfo) -> Result<()>;

    /// The bound element set: stencils and dual-number fallback derivatives.
    fn elements(&self) -> &dyn ElementSet;

    /// Declares what the energy adds to the model before it is bound: extra
    /// scalar DOFs (rod twist, shell mid-edge), point masses, parameter
    /// channels. Called once by [`crate::ModelBuilder::build`], in model order,
    /// so an energy read from a scene file can allocate its own DOFs.
    fn declare(&mut self, _builder: &mut crate::model::ModelBuilder) -> Result<()> {
        Ok(())
    }

    /// Called at the start of every (sub)step with the state it starts from,
    /// for energies that keep lagged, non-differentiated quantities (reference
    /// frames, for instance). Compute them from committed data and `q_prev`
    /// only, so that calling it again for a retried step gives the same
    /// result. Most energies do nothing.
    fn begin_step(&mut self, _q_prev: &[f64], _p: &[f64], _dt: f64, _t: f64) {}

    /// Called after a (sub)step converged, with its new state: commit lagged
    /// quantities here. (If a later sub-step of a halved step fails, the
    /// simulator keeps its state but energies keep what they committed.)
    fn end_step(&mut self, _q: &[f64], _p: &[f64]) {}

    /// Quantities the energy carries from step to step (committed in
    /// [`Energy::end_step`]), such as rod reference frames, as a flat
    /// snapshot; empty for energies that carry nothing (the default).
    /// Rollouts record it per step so derivative blocks recomputed at a
    /// stored step see exactly what the step saw.
    fn carried_state(&self) -> Vec<f64> {
        Vec::new()
    }

    /// Restores a snapshot taken by [`Energy::carried_state`].
    fn restore_carried_state(&mut self, _snapshot: &[f64]) -> Result<()> {
        Ok(())
    }

    /// The simulator's state was set from outside to `q` (a new rollout):
    /// re-derive carried quantities for `q` from the bound (initial) data
    /// only, so that every run started from the same state behaves the
    /// same. Energies that carry nothing ignore it.
    fn reset(&mut self, _q: &[f64]) {}

    /// A counter that changes whenever [`Energy::begin_step`] changed the
    /// shape of the element set (number of elements or their stencils), as
    /// a contact energy does when its broad phase finds new candidate pairs.
    /// The simulator then rebuilds the sparsity pattern and the symbolic
    /// factorization before the step. Energies with a fixed element set keep
    /// the default.
    fn structure_version(&self) -> u64 {
        0
    }

    /// Total energy, J. An override must sum in an order that does not
    /// depend on the thread count (results are bitwise reproducible).
    fn value(&self, s: &EvalState) -> f64 {
        self.elements().value(s)
    }
    /// Per-element gradients `∂E_e/∂q_e` (stride = stencil size).
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.elements().gradient_blocks(s, out)
    }
    /// Per-element Hessians `∂²E_e/∂q_e²`, row-major (stride = stencil²).
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.elements().hessian_blocks(s, out)
    }
    /// Per-element history blocks `∂²E_e/∂q_e∂q_prev,e` (row = q, column = q_prev).
    fn history_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.elements().history_blocks(s, out)
    }
    /// Per-element parameter blocks `∂²E_e/∂q_e∂p_e` (row = q, column = parameter).
    fn param_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.elements().param_blocks(s, out)
    }
    /// Per-element parameter gradients `∂E_e/∂p_e` (used by objectives on energy).
    fn param_gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.elements().param_gradient_blocks(s, out)
    }

    /// The energy as [`std::any::Any`], so callers holding a built model can
    /// reach its concrete type (a rod's frames and strains, for output) with
    /// [`crate::Model::energies_of`]. `None` by default and for energies
    /// loaded from plugin libraries.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }

    /// Named scalar quantities worth recording every step (cable tension in
    /// N and slack in m, for instance), as `(name, value)` with the unit in
    /// the name's documentation. Outputs write them next to the state. Most
    /// energies have none.
    fn observables(&self, _s: &EvalState) -> Vec<(String, f64)> {
        Vec::new()
    }
}
