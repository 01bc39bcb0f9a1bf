//! An energy evaluated with the dual-number fallback only: for measuring
//! what analytic derivatives buy, and for checking an energy's analytic
//! blocks from the outside.

use super::{Block, ElementSet};
use crate::energy::Energy;
use crate::state::EvalState;

/// Wraps a bound energy so that every block comes from its dual-number
/// fallback ([`ElementSet::fallback_blocks`]); values, stencils and hooks
/// are the inner energy's.
#[derive(Debug)]
pub struct FallbackOnly(pub Box<dyn Energy>);

impl ElementSet for FallbackOnly {
    fn len(&self) -> usize {
        self.0.elements().len()
    }
    fn stencil_size(&self) -> usize {
        self.0.elements().stencil_size()
    }
    fn param_size(&self) -> usize {
        self.0.elements().param_size()
    }
    fn uses_history(&self) -> bool {
        self.0.elements().uses_history()
    }
    fn dofs(&self, i: usize, out: &mut [usize]) {
        self.0.elements().dofs(i, out)
    }
    fn params(&self, i: usize, out: &mut [usize]) {
        self.0.elements().params(i, out)
    }
    fn value(&self, s: &EvalState) -> f64 {
        self.0.elements().value(s)
    }
    fn blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        self.0.elements().fallback_blocks(s, kind, out)
    }
    fn fallback_blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        self.0.elements().fallback_blocks(s, kind, out)
    }
}

impl Energy for FallbackOnly {
    fn elements(&self) -> &dyn ElementSet {
        self
    }
    fn begin_step(&mut self, q_prev: &[f64], p: &[f64], dt: f64, t: f64) {
        self.0.begin_step(q_prev, p, dt, t)
    }
    fn end_step(&mut self, q: &[f64], p: &[f64]) {
        self.0.end_step(q, p)
    }
    fn carried_state(&self) -> Vec<f64> {
        self.0.carried_state()
    }
    fn restore_carried_state(&mut self, snapshot: &[f64]) -> crate::Result<()> {
        self.0.restore_carried_state(snapshot)
    }
    fn carried_transition(
        &self,
        q_prev: &[f64],
        p: &[f64],
    ) -> Option<crate::energy::CarriedTransition> {
        self.0.carried_transition(q_prev, p)
    }
    fn carried_block(&self, s: &EvalState) -> Vec<(usize, usize, f64)> {
        self.0.carried_block(s)
    }
    fn reset(&mut self, q: &[f64]) {
        self.0.reset(q)
    }
    fn structure_version(&self) -> u64 {
        self.0.structure_version()
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        self.0.observables(s)
    }
    fn geometry(&self, s: &EvalState) -> Vec<crate::geometry::Shape> {
        self.0.geometry(s)
    }
}
