//! Newton's assemblies in parallel or on the calling thread, whichever has
//! lately been faster.
//!
//! The element loops of an assembly (values, gradients, both at once,
//! Hessian blocks) run in parallel over large element sets. Beside another
//! busy process that loses: when one of the pool's threads is preempted in
//! the middle of its share, the others finish theirs and wait for it. Measured on the settled
//! 100-cell stack (2 cores, `yes > /dev/null` beside it, 2026-11-29): 2
//! threads 3.32 / 3.41 ms per cell-step against 1 thread 2.97 / 2.90.
//!
//! [`AssemblyWays`] keeps a [`ParallelChoice`] over the four kinds of
//! assembly (one way for all, so the pool is not woken by one kind and left
//! to sleep by the next; compared by the cost of the kinds' mix) and
//! [`Chosen`] runs each assembly of a Newton solve through it, with
//! [`on_calling_thread`] keeping the loops on the calling thread when the
//! choice says so. The loops compute the same bits either way (see
//! [`crate::parallel`]), so the choice changes how long a step takes, never
//! what it computes.

use super::Potential;
use crate::error::Result;
use crate::local_blocks::LocalEntries;
use crate::parallel::on_calling_thread;
use crate::parallel_choice::ParallelChoice;
use faer::sparse::SparseColMatRef;

/// The timings of the assemblies, one kind each (see
/// [`ParallelChoice::run_kind`]); kept across Newton solves (time steps) so
/// they accumulate.
#[derive(Debug, Default)]
pub(crate) struct AssemblyWays(ParallelChoice);

/// [`ParallelChoice`] kinds of the assemblies.
const VALUE: usize = 0;
const GRADIENT: usize = 1;
const HESSIAN: usize = 2;
const VALUE_AND_GRADIENT: usize = 3;

/// `pot` with its assemblies run as `ways` decides. The rework of an
/// assembled Hessian ([`Potential::project_last`], [`Potential::shifted`],
/// only after a failed factorization) passes straight through.
pub(crate) struct Chosen<'a> {
    pub pot: &'a mut dyn Potential,
    pub ways: &'a AssemblyWays,
}

impl Potential for Chosen<'_> {
    fn value(&mut self, x: &[f64]) -> f64 {
        let pot = &mut *self.pot;
        self.ways.0.run_kind(VALUE, |parallel| {
            on_calling_thread(!parallel, || pot.value(x))
        })
    }

    fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
        let pot = &mut *self.pot;
        self.ways.0.run_kind(GRADIENT, |parallel| {
            on_calling_thread(!parallel, || pot.gradient(x, g))
        })
    }

    fn value_and_gradient(&mut self, x: &[f64], g: &mut [f64]) -> f64 {
        let pot = &mut *self.pot;
        self.ways.0.run_kind(VALUE_AND_GRADIENT, |parallel| {
            on_calling_thread(!parallel, || pot.value_and_gradient(x, g))
        })
    }

    fn hessian(
        &mut self,
        x: &[f64],
        project: bool,
        majorize: bool,
    ) -> Result<SparseColMatRef<'_, usize, f64>> {
        let pot = &mut *self.pot;
        self.ways.0.run_kind(HESSIAN, |parallel| {
            on_calling_thread(!parallel, || pot.hessian(x, project, majorize))
        })
    }

    fn local_hessian(&mut self, x: &[f64], majorize: bool) -> Option<LocalEntries<'_>> {
        self.pot.local_hessian(x, majorize)
    }

    fn project_last(&mut self) -> Result<SparseColMatRef<'_, usize, f64>> {
        self.pot.project_last()
    }

    fn shifted(&mut self, shift: f64) -> Result<SparseColMatRef<'_, usize, f64>> {
        self.pot.shifted(shift)
    }

    fn force_scale(&self) -> f64 {
        self.pot.force_scale()
    }
}
