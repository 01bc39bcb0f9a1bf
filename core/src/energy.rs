//! The bound energy: what the solver evaluates.
//!
//! An energy contributes a scalar `E(q, q_prev, p)` in joules. It is evaluated
//! at the integrator's evaluation point `q` (the new state for BDF1/implicit
//! Euler, the midpoint for implicit midpoint), may depend on the previous state
//! `q_prev` (history coupling: friction lagged on the last normal force, viscous
//! damping through the velocity `(q − q_prev)/h`) and on parameter channels `p`.
//!
//! The values and derivatives are its element set's ([`ElementSet`]): dense
//! per-element blocks over each element's stencil, which the engine scatters
//! into sparse matrices with a sparsity pattern built once. This trait is
//! the energy's life over a run: lagged quantities, carried state,
//! structure changes, observables. Most energies are a bound set of elements
//! ([`crate::Elements`], which implements this trait); energies that carry
//! state from step to step (rod frames), change their element set (contact
//! pairs) or report observables implement it around their element set.

use crate::element::ElementSet;
use crate::error::Result;
use crate::state::EvalState;

/// The Jacobians of one energy's carried-state update
/// `c_k = T(q_prev, c_{k−1})` (see [`Energy::carried_transition`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CarriedTransition {
    /// Length of the carried state `c`.
    pub len: usize,
    /// `∂c_k/∂q_prev` as `(carried index, DOF, value)`; duplicates add up.
    pub dq: Vec<(usize, usize, f64)>,
    /// `∂c_k/∂c_{k−1}` as `(carried index, carried index, value)`.
    pub dc: Vec<(usize, usize, f64)>,
}

/// A bound set of elements contributing an energy (J).
pub trait Energy: Send + Sync + std::fmt::Debug {
    /// The element set: stencils, value, derivative blocks and their
    /// dual-number fallback (what the solver evaluates).
    fn elements(&self) -> &dyn ElementSet;

    /// Called at the start of every (sub)step with the state it starts from,
    /// for energies that keep lagged quantities (reference frames, contact
    /// candidates). Compute them from committed data and `q_prev` only, so
    /// that calling it again for a retried step gives the same result. A
    /// lagged quantity that varies smoothly with `q_prev` (a rod's frames)
    /// is differentiated through
    /// [`carried_transition`](Energy::carried_transition); one that is held
    /// piecewise constant (a candidate list) is not. Most energies do
    /// nothing.
    fn begin_step(&mut self, _q_prev: &[f64], _p: &[f64], _dt: f64, _t: f64) {}

    /// Called after a (sub)step converged, with its new state: commit lagged
    /// quantities here.
    fn end_step(&mut self, _q: &[f64], _p: &[f64]) {}

    /// Quantities the energy carries from step to step, as a flat snapshot
    /// (empty by default). Rollouts record it per step so derivative blocks
    /// recomputed at a stored step see exactly what the step saw.
    fn carried_state(&self) -> Vec<f64> {
        Vec::new()
    }

    /// Restores a snapshot taken by [`Energy::carried_state`].
    fn restore_carried_state(&mut self, _snapshot: &[f64]) -> Result<()> {
        Ok(())
    }

    /// For an energy whose value depends on what it carries (rod reference
    /// frames), the Jacobians of the update `c_k = T(q_prev, c_{k−1})` that
    /// [`Energy::begin_step`]`(q_prev, p, …)` is about to make, evaluated at
    /// the current carried state `c_{k−1}` (in the index space of the
    /// [`Energy::carried_state`] snapshot). With [`Energy::carried_block`],
    /// this lets rollout derivatives follow the carried state through the
    /// recurrence, so they are exact. `None` (the default): the energy's
    /// value does not depend on carried state.
    fn carried_transition(&self, _q_prev: &[f64], _p: &[f64]) -> Option<CarriedTransition> {
        None
    }

    /// `∂²E/∂q∂c` at `s` with the current carried state (after
    /// `begin_step`), as `(DOF, carried index, value)` entries; only asked
    /// of energies that return a [`Energy::carried_transition`].
    fn carried_block(&self, _s: &EvalState) -> Vec<(usize, usize, f64)> {
        Vec::new()
    }

    /// The simulator's state was set from outside to `q` (a new rollout):
    /// re-derive carried quantities for `q` from the bound (initial) data
    /// only, so every run started from the same state behaves the same.
    fn reset(&mut self, _q: &[f64]) {}

    /// A counter that changes whenever [`Energy::begin_step`] changed the
    /// shape of the element set (number of elements or their stencils); the
    /// simulator then rebuilds the sparsity pattern and the symbolic
    /// factorization.
    fn structure_version(&self) -> u64 {
        0
    }

    /// Named scalar quantities worth recording every step (cable tension in
    /// N and slack in m, for instance), as `(name, value)`. Most energies
    /// have none.
    fn observables(&self, _s: &EvalState) -> Vec<(String, f64)> {
        Vec::new()
    }

    /// What the energy looks like at `s` (tetrahedra, polylines,
    /// triangles, planes; see [`crate::geometry`]), for output writers.
    /// Empty by default: energies without a shape (gravity, damping) are
    /// drawn through the bodies they act on.
    fn geometry(&self, _s: &EvalState) -> Vec<crate::geometry::Shape> {
        Vec::new()
    }

    /// The energy as [`std::any::Any`], so callers holding a built model can
    /// reach its concrete type with [`crate::Model::energies_of`]. `None`
    /// by default and for energies loaded from plugin libraries.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}
