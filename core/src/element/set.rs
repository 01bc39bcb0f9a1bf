//! The object-safe view of a bound set of elements that the engine
//! assembles: stencils, parameter slots, and per-element derivative blocks.

use super::SplitHessian;
use crate::state::EvalState;

/// Marks an unused parameter slot (it reads 0 and has no derivative).
pub const NO_PARAM: usize = usize::MAX;

/// A kind of per-element derivative block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Block {
    /// `∂E_e/∂q_e`, `ns` entries per element.
    Gradient,
    /// `∂²E_e/∂q_e²`, `ns × ns` row-major per element.
    Hessian,
    /// `∂²E_e/∂q_e∂q_prev,e` (row `q`, column `q_prev`), `ns × ns` per element.
    History,
    /// `∂²E_e/∂q_e∂p_e` (row `q`, column parameter slot), `ns × np` per element.
    Param,
    /// `∂E_e/∂p_e`, `np` entries per element.
    ParamGradient,
}

impl Block {
    /// Every block kind.
    pub const ALL: [Block; 5] = [
        Block::Gradient,
        Block::Hessian,
        Block::History,
        Block::Param,
        Block::ParamGradient,
    ];
    /// Entries per element for a stencil of `ns` DOFs and `np` parameter slots.
    pub fn stride(self, ns: usize, np: usize) -> usize {
        match self {
            Block::Gradient => ns,
            Block::Hessian | Block::History => ns * ns,
            Block::Param => ns * np,
            Block::ParamGradient => np,
        }
    }
    /// The kind as a number, for compile-time dispatch in the engine.
    pub(crate) const fn code(self) -> u8 {
        match self {
            Block::Gradient => 0,
            Block::Hessian => 1,
            Block::History => 2,
            Block::Param => 3,
            Block::ParamGradient => 4,
        }
    }
    /// The kind of [`Block::code`] `c`.
    pub(crate) const fn of_code(c: u8) -> Block {
        match c {
            0 => Block::Gradient,
            1 => Block::Hessian,
            2 => Block::History,
            3 => Block::Param,
            _ => Block::ParamGradient,
        }
    }
    /// A short name for messages ("Hessian").
    pub fn name(self) -> &'static str {
        match self {
            Block::Gradient => "gradient",
            Block::Hessian => "Hessian",
            Block::History => "history block",
            Block::Param => "parameter block",
            Block::ParamGradient => "parameter gradient",
        }
    }
}

/// A bound set of elements of one kind, as the assembler sees it: every
/// element has a stencil of `stencil_size` DOFs and `param_size` parameter
/// slots, and its blocks are written into per-element slices of a shared
/// buffer (so assembly is parallel and bitwise reproducible).
pub trait ElementSet: Send + Sync {
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether the set has no element.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// DOFs per element.
    fn stencil_size(&self) -> usize;
    /// Parameter slots per element.
    fn param_size(&self) -> usize;
    /// Whether the energy depends on the previous state.
    fn uses_history(&self) -> bool;
    /// Stencil DOF indices of element `i` into `out[..stencil_size]`.
    fn dofs(&self, i: usize, out: &mut [usize]);
    /// Parameter indices of element `i` into `out[..param_size]`
    /// ([`NO_PARAM`] for an unused slot).
    fn params(&self, i: usize, out: &mut [usize]);
    /// Total energy (J), summed in a thread-count-independent order.
    fn value(&self, s: &EvalState) -> f64;
    /// Every element's block of `kind` into `out` (`len × kind.stride(..)`),
    /// analytic where written, dual numbers otherwise.
    fn blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]);
    /// The [`Block::Hessian`] blocks that Newton asks for a direction after
    /// a refused full step, evaluated with [`Ctx::majorize`](crate::Ctx::majorize)
    /// set: an element may return a positive semidefinite majorizer there.
    /// The default gives the exact blocks.
    fn majorized_hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.blocks(s, Block::Hessian, out)
    }
    /// [`ElementSet::value`] (returned) and the [`Block::Gradient`] blocks
    /// (into `out`) in one pass, bit for bit what the two give separately
    /// (the default calls them one after the other).
    fn value_and_gradient(&self, s: &EvalState, out: &mut [f64]) -> f64 {
        self.blocks(s, Block::Gradient, out);
        self.value(s)
    }
    /// The same blocks from the dual-number fallback only (what derivative
    /// checks compare analytic blocks with).
    fn fallback_blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]);
    /// The split form of the Hessian blocks, when the set gives them as a
    /// sparse part plus rank-one terms (see [`SplitHessian`]); `None` (the
    /// default): dense `ns × ns` blocks. A set that returns `Some` must
    /// implement [`ElementSet::split_blocks`]; its [`Block::Hessian`]
    /// blocks stay the dense sum (derivative checks compare the two).
    fn split_hessian(&self) -> Option<&SplitHessian> {
        None
    }
    /// Every element's split Hessian: `sparse` gets `entries.len()` values
    /// per element, `rank_one` gets [`SplitHessian::rank_one_stride`]
    /// values per element (each term's weight `w`, then its vector `u`).
    fn split_blocks(&self, _s: &EvalState, _sparse: &mut [f64], _rank_one: &mut [f64]) {}
}
