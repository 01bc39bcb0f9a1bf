//! Elements: the one way to write an energy.
//!
//! An energy is a sum over elements of one kind, `E = Σ_e E_e`. An element
//! is a small function of its *stencil* — the coordinates of a few nodes and
//! possibly some extra scalar DOFs — of the same stencil at the previous
//! state (history coupling: friction, damping), and of a few parameter
//! channels (controls and design parameters). Write it once, generic over
//! the scalar type ([`Scalar`]), and pliant derives the gradient, Hessian,
//! history block `∂²E/∂x∂x_prev`, parameter block `∂²E/∂x∂p` and parameter
//! gradient `∂E/∂p` with dual numbers (num-dual), element-parallel and
//! bitwise reproducible. Any of them may also be written analytically; the
//! derivative checks ([`crate::derivcheck`]) compare both with finite
//! differences.
//!
//! **Stencil.** Node coordinates come first, three per node (`x, y, z`, m),
//! then the extra DOFs, in the order [`Element::nodes`] and
//! [`Element::extra_dofs`] list them. Elements are always written in 3-D:
//! in a 2-D model the engine embeds the plane at `z = 0` (the `z`
//! coordinates are constant zeros and their derivatives are dropped).
//!
//! **Sizes** are the associated type [`Element::Size`] =
//! [`Stencil<N, P, R>`](Stencil): `N` stencil DOFs (3 × nodes + extras),
//! `P` parameter slots, and optionally `R < N` reduced variables `r = B x`
//! ([`Element::map`], [`Element::reduce`]) when the energy depends on the
//! stencil only through fewer linear combinations — the fallback then
//! differentiates over `R` variables, which costs about `(R/N)²` of the full
//! stencil (a spring depends on the edge vector: `R = 3` of `N = 6`; a
//! linear tetrahedron on its deformation gradient: `R = 9` of `N = 12`).
//!
//! # Example: a complete energy
//!
//! A linear muscle between two nodes whose rest length shortens with an
//! activation channel, `E = k/2 (|x_b − x_a| − L (1 − 0.3 a))²` (J):
//!
//! ```
//! use pliant_core::{Ctx, Element, Scalar, Stencil};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, Clone, Serialize, Deserialize)]
//! pub struct Muscle {
//!     pub nodes: [usize; 2],
//!     pub stiffness: f64,   // N/m
//!     pub rest_length: f64, // m
//!     pub activation: String,
//! }
//!
//! impl Element for Muscle {
//!     type Size = Stencil<6, 1>; // 2 nodes × 3 coordinates, 1 channel
//!     // Drawn as a line between its nodes (replay, ParaView).
//!     const CELL: Option<pliant_core::geometry::CellKind> =
//!         Some(pliant_core::geometry::CellKind::Line);
//!     fn nodes(&self) -> &[usize] {
//!         &self.nodes
//!     }
//!     fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
//!         [Some(self.activation.as_str())]
//!     }
//!     fn energy<D: Scalar>(&self, x: &[D], _prev: &[D], p: &[D], _: &Ctx) -> D {
//!         let d = [x[3] - x[0], x[4] - x[1], x[5] - x[2]];
//!         let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
//!         let rest = (-p[0] * 0.3 + 1.0) * self.rest_length;
//!         (l - rest) * (l - rest) * (0.5 * self.stiffness)
//!     }
//! }
//! pliant_core::register_energy!(
//!     elements Muscle = "muscle",
//!     "linear muscle; `activation` channel in [0, 1]",
//!     r#"{"type": "muscle", "elements": [{"nodes": [0, 1], "stiffness": 50, "rest_length": 0.1, "activation": "a"}]}"#
//! );
//!
//! # fn main() -> pliant_core::Result<()> {
//! use pliant_core::{ModelBuilder, ParamChannel, Simulator, Integrator, NewtonSettings};
//! let mut b = ModelBuilder::new(3)?;
//! b.add_node(&[0.0, 0.0, 0.0], 0.01)?;
//! b.add_node(&[0.1, 0.0, 0.0], 0.01)?;
//! b.fix_node(0)?;
//! b.add_param(ParamChannel::control("a", 1.0))?;
//! b.add(pliant_core::ElementList::new(vec![Muscle {
//!     nodes: [0, 1], stiffness: 50.0, rest_length: 0.1, activation: "a".into(),
//! }]));
//! let mut sim = Simulator::new(b.build()?, Integrator::ImplicitEuler, 0.01, NewtonSettings::default())?;
//! for _ in 0..200 {
//!     sim.step()?;
//! }
//! // Fully activated, the muscle contracts towards 70 % of its rest length.
//! assert!((sim.q()[3] - 0.07).abs() < 1e-3);
//! # Ok(())
//! # }
//! ```
//!
//! A scene then writes
//! `{"type": "muscle", "elements": [{"nodes": [0, 1], "stiffness": 50, "rest_length": 0.1, "activation": "a"}]}`.
//! Energies with data shared by all their elements, defaults computed from
//! the initial state, or validation across elements write their own scene
//! type implementing [`crate::EnergySpec`], whose `bind` builds the
//! elements and returns [`Elements::bind`]'s bound set.

mod dynamic;
mod elements;
mod fallback_only;
mod list;
mod set;
mod sizes;
mod split;

pub use dynamic::{VariableStencil, variable_fallback};
pub use elements::Elements;
pub use fallback_only::FallbackOnly;
pub use list::ElementList;
pub use set::{Block, ElementSet, NO_PARAM};
pub use sizes::{Sizes, Stencil};
pub use split::SplitHessian;

use crate::error::Invalid;
use crate::scalar::Scalar;
use crate::state::Ctx;

/// What an analytic derivative sees of one element: its stencil DOFs at the
/// evaluation point and at the previous state (equal to `x` for energies
/// without history), its parameter slots (0 for an unused slot) and the
/// step's scalars.
#[derive(Debug, Clone, Copy)]
pub struct Local<'a> {
    /// Stencil DOFs at the evaluation point (`N`).
    pub x: &'a [f64],
    /// Stencil DOFs at the previous state (`N`).
    pub x_prev: &'a [f64],
    /// Parameter slots (`P`).
    pub p: &'a [f64],
    /// Step scalars.
    pub ctx: Ctx,
}

/// One element of an energy (see the [module documentation](self)).
///
/// Only [`Element::nodes`] and [`Element::energy`] are required. Every
/// analytic derivative method returns `false` by default, meaning "not
/// written: use the dual-number fallback"; an override writes its block and
/// returns `true`. Blocks are over the whole 3-D stencil (`N` entries, `N × N`
/// row-major, `N × P` row-major, `P`).
pub trait Element: Send + Sync + 'static {
    /// The sizes `Stencil<N, P, R>`.
    type Size: Sizes;
    /// Whether the energy depends on the previous state (history coupling).
    const HISTORY: bool = false;
    /// How output writers draw an element written as a scene's element
    /// list ([`ElementList`]): a cell of this kind over its first nodes
    /// (`Some(CellKind::Line)` for a two-node spring), with its energy (J)
    /// as a field. `None` (the default): not drawn (it acts through the
    /// bodies it touches, like gravity).
    const CELL: Option<crate::geometry::CellKind> = None;

    /// The element's nodes; the stencil starts with their `x, y, z`. Every
    /// element of a set has the same number of nodes, and
    /// `3 × nodes + extra DOFs = N`.
    fn nodes(&self) -> &[usize];
    /// Extra scalar DOFs (global DOF indices, as allocated in
    /// [`crate::EnergySpec::declare`]) after the node coordinates.
    fn extra_dofs(&self) -> &[usize] {
        &[]
    }
    /// Names of the parameter channels read by the `P` slots, in order;
    /// `None` leaves a slot unused (it reads 0 and has no derivative).
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        []
    }
    /// Checks the element's own data when it is bound.
    fn validate(&self) -> Result<(), Invalid> {
        Ok(())
    }

    /// The reduction `B` (`R × N`, row-major into `b`) for `R < N`; return
    /// `false` (the default) when the energy is written over the full
    /// stencil (`R = N`).
    fn map(&self, _b: &mut [f64]) -> bool {
        false
    }
    /// `r = B x` into `r` (`R`); return `false` (the default) to have the
    /// engine multiply by [`Element::map`]. Override it when `B` is sparse
    /// or structured (the value path calls only this).
    fn reduce(&self, _x: &[f64], _r: &mut [f64]) -> bool {
        false
    }

    /// The element's energy, J: `r` are the (reduced) stencil variables at
    /// the evaluation point, `r_prev` the same at the previous state (equal
    /// to `r` without [`Element::HISTORY`]), `p` the parameter slots.
    fn energy<D: Scalar>(&self, r: &[D], r_prev: &[D], p: &[D], c: &Ctx) -> D;

    /// Analytic energy, J; `None` (the default) evaluates
    /// [`Element::energy`] in `f64`.
    fn value(&self, _l: &Local) -> Option<f64> {
        None
    }
    /// Analytic `∂E/∂x` (`N`).
    fn gradient(&self, _l: &Local, _g: &mut [f64]) -> bool {
        false
    }
    /// The energy (J) and `∂E/∂x` (`N`) from one evaluation, for elements
    /// whose value and gradient share most of their work (a tetrahedron's
    /// `det F`, `F⁻¹`, `ln J`). Newton's line search asks for both at each
    /// full step it tries. `None` (the default) evaluates
    /// [`Element::value`] (or [`Element::energy`]) and the gradient
    /// separately. An override must give what those give — bit for bit is
    /// best: then no iterate changes when it is written (the derivative
    /// checks compare them, [`crate::derivcheck`]).
    fn value_and_gradient(&self, _l: &Local, _g: &mut [f64]) -> Option<f64> {
        None
    }
    /// Analytic `∂²E/∂x²` (`N × N`, row-major).
    fn hessian(&self, _l: &Local, _h: &mut [f64]) -> bool {
        false
    }
    /// Analytic `∂²E/∂x∂x_prev` (`N × N`, row `x`, column `x_prev`).
    fn history(&self, _l: &Local, _h: &mut [f64]) -> bool {
        false
    }
    /// Analytic `∂²E/∂x∂p` (`N × P`, row-major).
    fn param_block(&self, _l: &Local, _b: &mut [f64]) -> bool {
        false
    }
    /// Analytic `∂E/∂p` (`P`).
    fn param_gradient(&self, _l: &Local, _g: &mut [f64]) -> bool {
        false
    }
}
