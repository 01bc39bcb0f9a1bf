//! What Newton minimizes: the potential (value, gradient, Hessian and the
//! reworked Hessians of a failed factorization), and the coarse operators of
//! geometric multigrid directions.

use crate::error::Result;
use crate::local_blocks::LocalEntries;
use faer::sparse::SparseColMatRef;

/// A potential over the full DOF vector whose free part Newton minimizes.
pub(crate) trait Potential {
    /// `Φ(x)`; may be `NaN`/`∞` for invalid states.
    fn value(&mut self, x: &[f64]) -> f64;
    /// `∇Φ` restricted to the free DOFs (solve order).
    fn gradient(&mut self, x: &[f64], g: &mut [f64]);
    /// `Φ(x)` (returned) and `∇Φ` (into `g`) from one pass over the
    /// energies where they can share it, bit for bit what
    /// [`Potential::value`] and [`Potential::gradient`] give.
    fn value_and_gradient(&mut self, x: &[f64], g: &mut [f64]) -> f64 {
        let v = self.value(x);
        self.gradient(x, g);
        v
    }
    /// Lower triangle of `∇²Φ` over the free DOFs, with element Hessians
    /// PSD-projected when `project`; with `majorize`, the energies' Hessians
    /// for a direction after a refused step (see [`crate::Ctx::majorize`]).
    fn hessian(
        &mut self,
        x: &[f64],
        project: bool,
        majorize: bool,
    ) -> Result<SparseColMatRef<'_, usize, f64>>;
    /// `∇²Φ`'s entries from node-local energies (see
    /// [`crate::local_blocks`]) at `x`: `(row, column)` over the free DOFs
    /// (row ≥ column) and values (with `majorize`, as [`Potential::hessian`]
    /// gives them); `None` when there are none.
    fn local_hessian(&mut self, x: &[f64], majorize: bool) -> Option<LocalEntries<'_>>;
    /// The last Hessian with its element blocks projected onto the PSD cone
    /// (no re-evaluation of the energies).
    fn project_last(&mut self) -> Result<SparseColMatRef<'_, usize, f64>>;
    /// The last Hessian plus `shift·I` (no re-evaluation of the energies).
    fn shifted(&mut self, shift: f64) -> Result<SparseColMatRef<'_, usize, f64>>;
    /// Converts a gradient norm of `Φ` to a force (N).
    fn force_scale(&self) -> f64;
}

/// The coarser levels of geometric multigrid directions
/// ([`super::Directions::Geometric`]): their operators at an iterate.
pub(crate) trait CoarseOperators {
    /// Each coarser level's prolongation and operator at the iterate `x`
    /// (the full DOF vector), finest first; with `project`, the operators
    /// assembled from element Hessians projected onto the PSD cone.
    fn operators(
        &mut self,
        x: &[f64],
        project: bool,
    ) -> Result<Vec<crate::amg::GeometricLevel<'_>>>;
    /// Unknowns per node on every level.
    fn node_size(&self) -> usize;
}
