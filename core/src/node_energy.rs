//! The short path to a new energy: write one element over its nodes, generic
//! over the scalar type, and get binding (node indices → DOFs, channel names →
//! parameter indices), validation, and every derivative from the dual-number
//! fallback.
//!
//! ```ignore
//! #[derive(Debug, Clone, Serialize, Deserialize)]
//! pub struct MySpring { nodes: [usize; 2], k: f64, rest: f64 }
//!
//! impl NodeElement<6, 0> for MySpring {          // 2 nodes × 3 coordinates, no channel
//!     fn nodes(&self) -> &[usize] { &self.nodes }
//!     fn channels(&self) -> [&str; 0] { [] }
//!     fn energy<D: DualNum<f64> + Copy>(&self, x: &[D; 6], _: &[D; 6], _: &[D; 0], _: &Ctx) -> D {
//!         let l = ((x[3] - x[0]).powi(2) + (x[4] - x[1]).powi(2) + (x[5] - x[2]).powi(2)).sqrt();
//!         (l - self.rest).powi(2) * (0.5 * self.k)
//!     }
//! }
//! pliant_core::node_energy!(pub MySprings(MySpring, 6, 0) = "my_spring");
//! ```
//! A scene then writes `{"type": "my_spring", "elements": [{"nodes": [0, 1], "k": 10, "rest": 0.1}]}`.

use crate::element::{Ctx, Element, ElementSet, Elements};
use crate::energy::BindInfo;
use crate::error::{CoreError, Result};
use num_dual::DualNum;
use serde::{Deserialize, Serialize};

/// One element over `N` DOFs (its nodes' coordinates, node after node)
/// reading `P` named parameter channels.
pub trait NodeElement<const N: usize, const P: usize>:
    Clone + std::fmt::Debug + Send + Sync + 'static
{
    /// Whether the energy depends on the previous state.
    const HISTORY: bool = false;
    /// The element's nodes; `N` must equal `nodes().len() × dim`.
    fn nodes(&self) -> &[usize];
    /// Names of the `P` parameter channels read, in order.
    fn channels(&self) -> [&str; P];
    /// Checks the element's own data; the message is prefixed with its index.
    fn validate(&self) -> std::result::Result<(), String> {
        Ok(())
    }
    /// Energy in J of the element: `x` its DOFs at the evaluation point,
    /// `x_prev` at the previous state, `p` the channel values.
    fn energy<D: DualNum<f64> + Copy>(&self, x: &[D; N], x_prev: &[D; N], p: &[D; P], c: &Ctx)
    -> D;
}

/// A node element with resolved DOF and parameter indices.
#[derive(Debug, Clone)]
pub struct BoundNode<E, const N: usize, const P: usize> {
    elem: E,
    dofs: [usize; N],
    params: [usize; P],
}

impl<E: NodeElement<N, P>, const N: usize, const P: usize> Element<N, P> for BoundNode<E, N, P> {
    const HISTORY: bool = E::HISTORY;
    fn dofs(&self) -> [usize; N] {
        self.dofs
    }
    fn params(&self) -> [usize; P] {
        self.params
    }
    fn energy<D: DualNum<f64> + Copy>(&self, x: &[D; N], xp: &[D; N], p: &[D; P], c: &Ctx) -> D {
        self.elem.energy(x, xp, p, c)
    }
}

/// A set of node elements as scene data (`{"elements": [...]}`), bound to a model.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(serialize = "E: Serialize", deserialize = "E: Deserialize<'de>"))]
pub struct NodeEnergy<E, const N: usize, const P: usize> {
    /// The elements.
    pub elements: Vec<E>,
    #[serde(skip)]
    bound: Option<Elements<BoundNode<E, N, P>, N, P>>,
}

impl<E: NodeElement<N, P>, const N: usize, const P: usize> NodeEnergy<E, N, P> {
    /// Wraps elements.
    pub fn new(elements: Vec<E>) -> Self {
        Self {
            elements,
            bound: None,
        }
    }
    /// Resolves nodes and channels; `name` prefixes error messages.
    pub fn bind_elements(&mut self, info: &BindInfo, name: &str) -> Result<()> {
        let dim = info.layout.dim();
        let mut items = Vec::with_capacity(self.elements.len());
        for (i, e) in self.elements.iter().enumerate() {
            let nodes = e.nodes();
            if nodes.len() * dim != N {
                return Err(CoreError::Model(format!(
                    "{name}.elements[{i}]: {} nodes in a {dim}-D model make {} DOFs, but this energy's elements have {N}",
                    nodes.len(),
                    nodes.len() * dim
                )));
            }
            e.validate()
                .map_err(|m| CoreError::Model(format!("{name}.elements[{i}]: {m}")))?;
            let mut dofs = [0; N];
            for (k, &n) in nodes.iter().enumerate() {
                info.layout.node_dofs(
                    n,
                    &mut dofs[k * dim..(k + 1) * dim],
                    &format!("{name}.elements[{i}].nodes"),
                )?;
            }
            let mut params = [0; P];
            for (k, ch) in e.channels().iter().enumerate() {
                params[k] = info.layout.param(ch, &format!("{name}.elements[{i}]"))?;
            }
            items.push(BoundNode {
                elem: e.clone(),
                dofs,
                params,
            });
        }
        self.bound = Some(Elements::new(items));
        Ok(())
    }
    /// The bound element set (empty before binding).
    pub fn set(&self) -> &dyn ElementSet {
        match &self.bound {
            Some(b) => b,
            None => &EMPTY,
        }
    }
}

/// An element set with no element (what an unbound energy exposes).
struct Empty;
static EMPTY: Empty = Empty;
impl ElementSet for Empty {
    fn len(&self) -> usize {
        0
    }
    fn stencil_size(&self) -> usize {
        0
    }
    fn param_size(&self) -> usize {
        0
    }
    fn uses_history(&self) -> bool {
        false
    }
    fn dofs(&self, _: usize, _: &mut [usize]) {}
    fn params(&self, _: usize, _: &mut [usize]) {}
    fn value(&self, _: &crate::EvalState) -> f64 {
        0.0
    }
    fn gradient_blocks(&self, _: &crate::EvalState, _: &mut [f64]) {}
    fn hessian_blocks(&self, _: &crate::EvalState, _: &mut [f64]) {}
    fn history_blocks(&self, _: &crate::EvalState, _: &mut [f64]) {}
    fn param_blocks(&self, _: &crate::EvalState, _: &mut [f64]) {}
    fn param_gradient_blocks(&self, _: &crate::EvalState, _: &mut [f64]) {}
}

/// Defines an energy type from a [`NodeElement`]: a newtype over
/// [`NodeEnergy`] registered under a scene name (its crate must depend on
/// `serde` and `typetag`).
///
/// `node_energy!(pub MySprings(MySpring, 6, 0) = "my_spring");`
#[macro_export]
macro_rules! node_energy {
    ($vis:vis $ty:ident($elem:ty, $n:literal, $p:literal) = $name:literal) => {
        #[doc = concat!("Energy `", $name, "`: a set of [`", stringify!($elem), "`] elements.")]
        #[derive(Debug, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        $vis struct $ty(pub $crate::node_energy::NodeEnergy<$elem, $n, $p>);

        impl $ty {
            /// Wraps elements.
            pub fn new(elements: Vec<$elem>) -> Self {
                Self($crate::node_energy::NodeEnergy::new(elements))
            }
        }

        #[typetag::serde(name = $name)]
        impl $crate::Energy for $ty {
            fn bind(&mut self, info: &$crate::BindInfo) -> $crate::Result<()> {
                self.0.bind_elements(info, $name)
            }
            fn elements(&self) -> &dyn $crate::ElementSet {
                self.0.set()
            }
        }
    };
}
