//! A bound set of elements: every element's stencil resolved to DOFs and its
//! channels to parameter indices, evaluated element-parallel.

use super::sizes::{ABSENT, At, BATCH};
use super::{Block, Element, ElementSet, Local, NO_PARAM, Sizes};
use crate::energy::Energy;
use crate::error::{CoreError, Result};
use crate::geometry::{Cells, Drawing, Field, Shape};
use crate::layout::Layout;
use crate::parallel::{SUM_CHUNK, chunk_sum_with_blocks, deterministic_chunk_sum, for_each_batch};
use crate::spec::BindInfo;
use crate::state::EvalState;
use std::collections::HashMap;

/// Elements of one type bound to a model: the [`Energy`] the engine
/// evaluates for them (analytic blocks where the element writes them,
/// dual numbers otherwise).
pub struct Elements<E: Element> {
    items: Vec<E>,
    /// `len × N` stencil DOFs ([`ABSENT`] for `z` in a 2-D model).
    dofs: Vec<usize>,
    /// `len × P` parameter indices ([`NO_PARAM`] for unused slots).
    params: Vec<usize>,
    /// 2-D: the stencil slots that exist.
    compact: Option<Vec<usize>>,
    /// Whether any element reads any channel.
    has_params: bool,
    /// How the set is drawn, if at all.
    drawing: Option<Drawing>,
}

impl<E: Element> std::fmt::Debug for Elements<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} elements of {}",
            self.items.len(),
            std::any::type_name::<E>()
        )
    }
}

impl<E: Element> Elements<E> {
    /// Binds `items` to the model: nodes and extra DOFs to DOF indices,
    /// channel names to parameter indices, after each element's own
    /// [`Element::validate`]. `field` names the list in errors
    /// (`"springs"` gives `springs[3]`).
    pub fn bind(items: Vec<E>, info: &BindInfo, field: &str) -> Result<Self> {
        Self::bind_to(items, info.layout, info.q0.len(), field)
    }

    /// [`Elements::bind`] against a layout kept by the energy, for energies
    /// that rebuild their element set between steps (contact pairs).
    pub fn bind_to(items: Vec<E>, layout: &Layout, n_dofs: usize, field: &str) -> Result<Self> {
        let (n, np, nr) = (E::Size::N, E::Size::P, E::Size::R);
        let dim = layout.dim();
        if nr > n || (nr < n && items.first().is_some_and(|e| !E::Size::has_map(e))) {
            return Err(CoreError::MissingMap(std::any::type_name::<E>()));
        }
        let names: HashMap<&str, usize> = layout
            .param_names()
            .iter()
            .enumerate()
            .map(|(i, s)| (s.as_str(), i))
            .collect();
        let mut dofs = Vec::with_capacity(items.len() * n);
        let mut params = Vec::with_capacity(items.len() * np);
        let mut n_nodes = None;
        for (i, e) in items.iter().enumerate() {
            let at = || format!("{field}[{i}]");
            e.validate().map_err(|inv| inv.within(&at()))?;
            let (nodes, extras) = (e.nodes(), e.extra_dofs());
            if 3 * nodes.len() + extras.len() != n
                || *n_nodes.get_or_insert(nodes.len()) != nodes.len()
            {
                return Err(CoreError::Stencil {
                    field: at(),
                    nodes: nodes.len(),
                    extras: extras.len(),
                    expected: n,
                });
            }
            let base = layout.node_base();
            for &node in nodes {
                let &b = base.get(node).ok_or_else(|| CoreError::NodeOutOfRange {
                    field: at(),
                    index: node,
                    count: base.len(),
                })?;
                for a in 0..3 {
                    dofs.push(if a < dim { b + a } else { ABSENT });
                }
            }
            for &d in extras {
                if d >= n_dofs {
                    return Err(CoreError::DofOutOfRange {
                        field: at(),
                        index: d,
                        count: n_dofs,
                    });
                }
                dofs.push(d);
            }
            let before = params.len();
            for ch in e.channels() {
                params.push(match ch {
                    None => NO_PARAM,
                    Some(name) => *names.get(name).ok_or_else(|| CoreError::UnknownParam {
                        field: at(),
                        name: name.to_string(),
                        known: layout.param_names().to_vec(),
                    })?,
                });
            }
            if params.len() - before != np {
                return Err(CoreError::Count {
                    field: format!("{}: channels", at()),
                    found: params.len() - before,
                    expected: np,
                });
            }
        }
        let compact = (dim == 2).then(|| {
            let k = n_nodes.unwrap_or(0);
            (0..n).filter(|&s| s >= 3 * k || s % 3 != 2).collect()
        });
        let has_params = params.iter().any(|&p| p != NO_PARAM);
        Ok(Self {
            items,
            dofs,
            params,
            compact,
            has_params,
            drawing: None,
        })
    }

    /// Gives the set a shape for output writers ([`Energy::geometry`]):
    /// its elements as cells, fixed cells over nodes, or a fixed plane or
    /// sphere ([`Drawing`]).
    pub fn drawn_as(mut self, drawing: Drawing) -> Self {
        self.drawing = Some(drawing);
        self
    }

    /// The shapes of [`Elements::drawn_as`]'s drawing at `s`.
    pub fn shapes(&self, s: &EvalState) -> Vec<Shape> {
        let Some(d) = &self.drawing else {
            return Vec::new();
        };
        match d {
            Drawing::Elements {
                name,
                kind,
                measures,
            } => {
                let a = kind.arity();
                let nodes: Vec<usize> = self
                    .items
                    .iter()
                    .flat_map(|e| e.nodes()[..a.min(e.nodes().len())].iter().copied())
                    .collect();
                if nodes.len() != a * self.items.len() {
                    return Vec::new();
                }
                let energy: Vec<f64> = (0..self.items.len())
                    .map(|i| self.element_value(i, s))
                    .collect();
                let mut c = Cells::over_nodes(name, *kind, &nodes);
                if let Some(m) = measures.as_ref().filter(|m| m.len() == energy.len()) {
                    let density = energy
                        .iter()
                        .zip(m)
                        .map(|(e, m)| if *m > 0.0 { e / m } else { 0.0 })
                        .collect();
                    let unit = format!("J/{}", kind.measure_unit());
                    c = c.with(Field::cells("energy_density", &unit, density));
                }
                vec![Shape::Cells(c.with(Field::cells("energy", "J", energy)))]
            }
            Drawing::Cells { name, kind, nodes } => {
                vec![Shape::Cells(Cells::over_nodes(name, *kind, nodes))]
            }
            Drawing::Fixed(shape) => vec![shape.clone()],
        }
    }

    /// The elements.
    pub fn items(&self) -> &[E] {
        &self.items
    }
    /// The elements, mutably, for lagged per-element data (reference
    /// frames). Their stencils and channels must not change.
    pub fn items_mut(&mut self) -> &mut [E] {
        &mut self.items
    }
    /// Element `i`'s stencil values in `q` (`N`, 3-D: `z = 0` in a 2-D model).
    pub fn stencil_values(&self, i: usize, q: &[f64]) -> Vec<f64> {
        let n = E::Size::N;
        self.dofs[i * n..(i + 1) * n]
            .iter()
            .map(|&d| if d == ABSENT { 0.0 } else { q[d] })
            .collect()
    }
    /// Element `i`'s parameter slot values in `p` (`P`, 0 for unused slots).
    pub fn param_values(&self, i: usize, p: &[f64]) -> Vec<f64> {
        let np = E::Size::P;
        self.params[i * np..(i + 1) * np]
            .iter()
            .map(|&j| if j == NO_PARAM { 0.0 } else { p[j] })
            .collect()
    }
    /// Runs `f` on element `i` at its local state in `s` (the stencil values
    /// as the analytic derivatives see them), for per-element output such as
    /// strains.
    pub fn with_local<T>(&self, i: usize, s: &EvalState, f: impl FnOnce(&E, &Local) -> T) -> T {
        let e = &self.items[i];
        E::Size::with_local(e, &self.at(s), i, |l| f(e, l))
    }
    /// Energy of element `i`, J.
    pub fn element_value(&self, i: usize, s: &EvalState) -> f64 {
        E::Size::value(&self.items[i], &self.at(s), i)
    }

    fn at<'a>(&'a self, s: &'a EvalState<'a>) -> At<'a> {
        At {
            s,
            dofs: &self.dofs,
            params: &self.params,
            compact: self.compact.as_deref(),
            majorize: false,
        }
    }

    fn fill(&self, s: &EvalState, kind: Block, fallback: bool, out: &mut [f64]) {
        let stride = kind.stride(self.stencil_size(), E::Size::P);
        let unused = match kind {
            Block::History => !E::HISTORY,
            Block::Param | Block::ParamGradient => !self.has_params,
            _ => false,
        };
        if unused {
            out[..self.items.len() * stride].fill(0.0);
            return;
        }
        macro_rules! run {
            ($k:expr) => {
                if fallback {
                    self.run::<{ $k.code() }, true>(&self.at(s), stride, out)
                } else {
                    self.run::<{ $k.code() }, false>(&self.at(s), stride, out)
                }
            };
        }
        match kind {
            Block::Gradient => run!(Block::Gradient),
            Block::Hessian => run!(Block::Hessian),
            Block::History => run!(Block::History),
            Block::Param => run!(Block::Param),
            Block::ParamGradient => run!(Block::ParamGradient),
        }
    }

    /// Every element's block `K` ([`Block::code`]) into `out`.
    fn run<const K: u8, const FALLBACK: bool>(&self, at: &At, stride: usize, out: &mut [f64]) {
        for_each_batch(out, stride, self.items.len(), BATCH, |o, first| {
            E::Size::blocks::<E, K, FALLBACK>(&self.items, first, at, stride, o)
        });
    }
}

impl<E: Element> ElementSet for Elements<E> {
    fn len(&self) -> usize {
        self.items.len()
    }
    fn stencil_size(&self) -> usize {
        self.compact.as_ref().map_or(E::Size::N, Vec::len)
    }
    fn param_size(&self) -> usize {
        E::Size::P
    }
    fn uses_history(&self) -> bool {
        E::HISTORY
    }
    fn dofs(&self, i: usize, out: &mut [usize]) {
        let n = E::Size::N;
        let d = &self.dofs[i * n..(i + 1) * n];
        match &self.compact {
            None => out[..n].copy_from_slice(d),
            Some(keep) => {
                for (o, &k) in out.iter_mut().zip(keep) {
                    *o = d[k];
                }
            }
        }
    }
    fn params(&self, i: usize, out: &mut [usize]) {
        let np = E::Size::P;
        out[..np].copy_from_slice(&self.params[i * np..(i + 1) * np]);
    }
    fn value(&self, s: &EvalState) -> f64 {
        let at = self.at(s);
        deterministic_chunk_sum(self.items.len(), |lo, hi| {
            let mut v = [0.0; SUM_CHUNK];
            for first in (lo..hi).step_by(BATCH) {
                let m = BATCH.min(hi - first);
                let out = &mut v[first - lo..first - lo + m];
                E::Size::values(&self.items, first, &at, out);
            }
            // In order, as `deterministic_sum` adds them.
            v[..hi - lo].iter().sum::<f64>()
        })
    }
    fn blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        self.fill(s, kind, false, out)
    }
    fn majorized_hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let at = At {
            majorize: true,
            ..self.at(s)
        };
        let stride = Block::Hessian.stride(self.stencil_size(), E::Size::P);
        self.run::<{ Block::Hessian.code() }, false>(&at, stride, out);
    }
    fn value_and_gradient(&self, s: &EvalState, out: &mut [f64]) -> f64 {
        let at = self.at(s);
        let stride = self.stencil_size();
        // The chunks and the order of `value`'s sum.
        chunk_sum_with_blocks(out, stride, self.items.len(), |o, lo, hi| {
            let mut v = [0.0; SUM_CHUNK];
            for first in (lo..hi).step_by(BATCH) {
                let m = BATCH.min(hi - first);
                let (a, b) = (first - lo, first - lo + m);
                E::Size::values_and_gradients(
                    &self.items,
                    first,
                    &at,
                    stride,
                    &mut v[a..b],
                    &mut o[a * stride..b * stride],
                );
            }
            v[..hi - lo].iter().sum::<f64>()
        })
    }
    fn fallback_blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        self.fill(s, kind, true, out)
    }
}

impl<E: Element> Energy for Elements<E> {
    fn elements(&self) -> &dyn ElementSet {
        self
    }
    fn geometry(&self, s: &EvalState) -> Vec<Shape> {
        self.shapes(s)
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
