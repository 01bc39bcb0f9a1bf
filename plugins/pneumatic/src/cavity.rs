//! Pressurized cavities on closed triangle surfaces (scene type
//! `"cavity"`). Two laws:
//!
//! - **Constant gauge pressure** `p` (Pa, a number or a control channel):
//!   `E = −p V(x)` (J). The volume is a sum over triangles
//!   ([`crate::surface`]), so this is a set of independent 9-DOF triangle
//!   elements: the Hessian `−p ∂²V/∂x²` is as sparse as the surface, and a
//!   FEM solve with a pressurized cavity costs no more than one with a
//!   surface load.
//! - **Enclosed ideal gas** of `n` moles at temperature `T` (isothermal):
//!   `E = −n R T ln(V/V₀) + p_a V` (J), inner pressure `n R T / V`
//!   (absolute), `p_a` the ambient pressure. Its Hessian
//!   `(nRT/V²) ∇V ∇Vᵀ − (nRT/V − p_a) ∂²V/∂x²` couples every node of the
//!   cavity through the rank-one term, so the cavity is one element whose
//!   stencil is all its nodes. It declares its Hessian split
//!   ([`pliant_core::SplitHessian`]): the per-triangle `∂²V/∂x²` part is
//!   as sparse as the surface and the rank-one term stays out of the
//!   factorization (one extra unknown), so Newton's solves cost what a
//!   constant-pressure cavity's do, at any size. The dense `3n × 3n`
//!   block is formed only by derivative checks: where a differentiated
//!   step of implicit midpoint or symplectic Euler puts the Hessian into
//!   `∂g/∂x_{k−1}`, the term stays a rank-one part of that block
//!   ([`pliant_core::sparse::SparsePlusLowRank`]).
//!
//! Gauge pressures below vacuum (`p < −p_a`) are rejected when the model
//! is built (for a channel: the lowest value of its schedule). A cavity
//! whose volume goes through zero gives the gas law an infinite energy,
//! which Newton's line search refuses.

use crate::error::{PneumaticError, non_negative, positive};
use crate::surface::{
    add_triangle_volume_hessian, check_closed, enclosed_volume, triangle_volume,
    triangle_volume_gradient,
};
use pliant_core::element::{Block, NO_PARAM, VariableStencil, variable_fallback};
use pliant_core::geometry::{CellKind, Cells, Field, Point, Shape};
use pliant_core::mat3::skew;
use pliant_core::quantity::{Bound, Quantity};
use pliant_core::{
    BindInfo, Ctx, Element, ElementSet, Elements, Energy, EnergySpec, EvalState, Local, Result,
    Scalar, SplitHessian, Stencil,
};
use serde::{Deserialize, Serialize};

/// Standard atmosphere, Pa: the default ambient pressure.
pub const ATMOSPHERE: f64 = 101_325.0;
/// Molar gas constant, J/(mol·K).
pub const GAS_CONSTANT: f64 = 8.314_462_618;

fn atmosphere() -> f64 {
    ATMOSPHERE
}
fn room_temperature() -> f64 {
    293.15
}

/// An enclosed ideal gas: give its amount or its pressure at rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gas {
    /// Amount of gas `n`, mol (a number or a channel: pumping gas in is a
    /// control). Exclusive with `pressure_at_rest`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<Quantity>,
    /// Absolute pressure in the initial state, Pa: sets
    /// `n = p V₀ / (R T)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure_at_rest: Option<f64>,
    /// Temperature `T`, K (default 293.15).
    #[serde(default = "room_temperature")]
    pub temperature: f64,
}

/// A pressurized cavity (scene type `"cavity"`): a closed surface and
/// either a gauge `pressure` or a `gas`.
///
/// ```
/// use pliant_core::{ModelBuilder, ParamChannel};
/// use pliant_pneumatic::Cavity;
///
/// // A unit tetrahedron's surface holding 1 kPa: the force on each node
/// // is p ∂V/∂x, and the energy is −p V.
/// let mut b = ModelBuilder::new(3)?;
/// for x in [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] {
///     b.add_node(&x, 1.0)?;
/// }
/// b.add_param(ParamChannel::control("p", 1e3))?;
/// b.add(Cavity::pressurized(vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], "p"));
/// let model = b.build()?;
/// let p = model.params_at(0.0);
/// let s = pliant_core::EvalState::at_rest(model.q0(), &p, 0.01, 0.0);
/// let e = pliant_core::assembly::Assembler::new(&model)?.energy(&model, &s);
/// assert!((e + 1e3 / 6.0).abs() < 1e-12);
/// # Ok::<(), pliant_core::CoreError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cavity {
    /// A name for observables and messages (`"chamber"`: `chamber.volume`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The closed surface, normals out of the gas.
    pub triangles: Vec<[usize; 3]>,
    /// Gauge pressure, Pa (a number or a channel). Exclusive with `gas`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure: Option<Quantity>,
    /// An enclosed ideal gas instead of a prescribed pressure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gas: Option<Gas>,
    /// Ambient (absolute) pressure, Pa (default one atmosphere).
    #[serde(default = "atmosphere")]
    pub ambient: f64,
}

impl Cavity {
    /// A cavity held at the gauge pressure of `pressure` (Pa).
    pub fn pressurized(triangles: Vec<[usize; 3]>, pressure: impl Into<Quantity>) -> Self {
        Self {
            name: None,
            triangles,
            pressure: Some(pressure.into()),
            gas: None,
            ambient: ATMOSPHERE,
        }
    }
    /// A cavity enclosing an ideal gas at absolute pressure
    /// `pressure_at_rest` (Pa) in the initial state, at 293.15 K.
    pub fn ideal_gas(triangles: Vec<[usize; 3]>, pressure_at_rest: f64) -> Self {
        Self {
            name: None,
            triangles,
            pressure: None,
            gas: Some(Gas {
                amount: None,
                pressure_at_rest: Some(pressure_at_rest),
                temperature: room_temperature(),
            }),
            ambient: ATMOSPHERE,
        }
    }
    /// The same cavity named `name`.
    pub fn named(mut self, name: &str) -> Self {
        self.name = Some(name.into());
        self
    }
    /// The same cavity with ambient pressure `pa` (Pa).
    pub fn with_ambient(mut self, pa: f64) -> Self {
        self.ambient = pa;
        self
    }
    fn name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "cavity".into())
    }
}

/// One triangle of a constant-pressure cavity: `E = −p v_t`.
#[derive(Debug, Clone)]
struct PressureEl {
    nodes: [usize; 3],
    origin: [f64; 3],
    pressure: Bound,
}

impl PressureEl {
    fn corners(&self, x: &[f64]) -> [[f64; 3]; 3] {
        std::array::from_fn(|k| std::array::from_fn(|d| x[3 * k + d] - self.origin[d]))
    }
}

impl Element for PressureEl {
    type Size = Stencil<9, 1>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [self.pressure.channel()]
    }
    fn energy<D: Scalar>(&self, x: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let y: [[D; 3]; 3] =
            std::array::from_fn(|k| std::array::from_fn(|d| x[3 * k + d] - self.origin[d]));
        let (a, b, c) = (y[0], y[1], y[2]);
        let v = (a[0] * (b[1] * c[2] - b[2] * c[1])
            + a[1] * (b[2] * c[0] - b[0] * c[2])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))
            / 6.0;
        -self.pressure.of(p) * v
    }
    fn value(&self, l: &Local) -> Option<f64> {
        let [a, b, c] = self.corners(l.x);
        Some(-self.pressure.of(l.p) * triangle_volume(&a, &b, &c))
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let [a, b, c] = self.corners(l.x);
        triangle_volume_gradient(&a, &b, &c, g);
        let p = self.pressure.of(l.p);
        g[..9].iter_mut().for_each(|v| *v *= -p);
        true
    }
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        let [a, b, c] = self.corners(l.x);
        h[..81].fill(0.0);
        add_triangle_volume_hessian([&a, &b, &c], -self.pressure.of(l.p), h, 9, [0, 3, 6]);
        true
    }
    fn param_block(&self, l: &Local, b: &mut [f64]) -> bool {
        let [x, y, z] = self.corners(l.x);
        triangle_volume_gradient(&x, &y, &z, b);
        b[..9].iter_mut().for_each(|v| *v = -*v);
        true
    }
    fn param_gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let [a, b, c] = self.corners(l.x);
        g[0] = -triangle_volume(&a, &b, &c);
        true
    }
}

/// A bound constant-pressure cavity: its triangle elements plus the
/// observables `name.volume` (m³) and `name.pressure` (Pa, gauge).
#[derive(Debug)]
struct PressureCavity {
    set: Elements<PressureEl>,
    name: String,
    slot: Option<usize>,
}

impl Energy for PressureCavity {
    fn elements(&self) -> &dyn ElementSet {
        &self.set
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let mut v = 0.0;
        for (i, el) in self.set.items().iter().enumerate() {
            let x = self.set.stencil_values(i, s.q);
            let [a, b, c] = el.corners(&x);
            v += triangle_volume(&a, &b, &c);
        }
        let p = match (&self.set.items()[0].pressure, self.slot) {
            (Bound::Constant(p), _) => *p,
            (_, Some(k)) => s.p[k],
            _ => f64::NAN,
        };
        vec![
            (format!("{}.volume", self.name), v),
            (format!("{}.pressure", self.name), p),
        ]
    }
    /// The cavity's wall triangles with the gauge pressure (Pa) on each.
    fn geometry(&self, s: &EvalState) -> Vec<Shape> {
        let p = self.observables(s).get(1).map_or(f64::NAN, |(_, p)| *p);
        let nodes: Vec<usize> = self.set.items().iter().flat_map(|e| e.nodes).collect();
        let c = Cells::over_nodes(&format!("cavity {}", self.name), CellKind::Triangle, &nodes);
        let n = c.len();
        vec![Shape::Cells(c.with(Field::cells(
            "pressure",
            "Pa",
            vec![p; n],
        )))]
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// A bound ideal-gas cavity: one element over all its nodes, its Hessian
/// split into the per-triangle `∂²V/∂x²` part and the rank-one term.
#[derive(Debug)]
struct GasCavity {
    /// The split Hessian's shape ([`gas_split`]).
    split: SplitHessian,
    name: String,
    /// Global DOFs of the cavity's nodes, 3 per node.
    dofs: Vec<usize>,
    /// Triangles in local node numbering.
    triangles: Vec<[usize; 3]>,
    origin: [f64; 3],
    /// `R T`, J/mol.
    rt: f64,
    /// Amount, mol (constant or channel).
    amount: Bound,
    /// Parameter index of the amount channel ([`NO_PARAM`] for a constant).
    param: usize,
    v0: f64,
    ambient: f64,
}

/// The sparse part of a gas cavity's Hessian: per triangle, for each of
/// its three edges `(k, k+1)`, the 3 × 3 block at node `k`'s rows and node
/// `k+1`'s columns and its transpose (18 entries per edge, 54 per
/// triangle; an edge shared by two triangles is listed twice and adds).
/// The rank-one term is `(nRT/V²) ∇V ∇Vᵀ`.
fn gas_split(triangles: &[[usize; 3]]) -> SplitHessian {
    let mut entries = Vec::with_capacity(54 * triangles.len());
    for t in triangles {
        for k in 0..3 {
            let (i, j) = (3 * t[k], 3 * t[(k + 1) % 3]);
            for r in 0..3 {
                for c in 0..3 {
                    entries.push((i + r, j + c));
                    entries.push((j + c, i + r));
                }
            }
        }
    }
    SplitHessian { entries, rank: 1 }
}

impl GasCavity {
    fn local(&self, q: &[f64]) -> Vec<f64> {
        self.dofs.iter().map(|&d| q[d]).collect()
    }
    fn amount(&self, p: &[f64]) -> f64 {
        match self.amount {
            Bound::Constant(n) => n,
            Bound::Channel(_) => p[self.param],
        }
    }
    fn point(&self, x: &[f64], i: usize) -> [f64; 3] {
        std::array::from_fn(|d| x[3 * i + d] - self.origin[d])
    }
    /// `V` and `∇V` over the local stencil.
    fn volume(&self, x: &[f64]) -> (f64, Vec<f64>) {
        let mut g = vec![0.0; x.len()];
        let mut v = 0.0;
        let mut gt = [0.0; 9];
        for t in &self.triangles {
            let [a, b, c] = t.map(|i| self.point(x, i));
            v += triangle_volume(&a, &b, &c);
            triangle_volume_gradient(&a, &b, &c, &mut gt);
            for k in 0..3 {
                for d in 0..3 {
                    g[3 * t[k] + d] += gt[3 * k + d];
                }
            }
        }
        (v, g)
    }
    /// Absolute inner pressure `n R T / V`, Pa.
    fn pressure(&self, q: &[f64], p: &[f64]) -> f64 {
        let (v, _) = self.volume(&self.local(q));
        self.amount(p) * self.rt / v
    }
}

impl VariableStencil for GasCavity {
    fn energy<D: Scalar>(&self, x: &[D], p: &[D]) -> D {
        let mut v = D::from(0.0);
        for t in &self.triangles {
            let y: [[D; 3]; 3] = t.map(|i| std::array::from_fn(|d| x[3 * i + d] - self.origin[d]));
            let (a, b, c) = (y[0], y[1], y[2]);
            v += (a[0] * (b[1] * c[2] - b[2] * c[1])
                + a[1] * (b[2] * c[0] - b[0] * c[2])
                + a[2] * (b[0] * c[1] - b[1] * c[0]))
                / 6.0;
        }
        if v.re() <= 0.0 {
            return D::from(f64::INFINITY);
        }
        -self.amount.of(p) * self.rt * (v / self.v0).ln() + v * self.ambient
    }
}

impl ElementSet for GasCavity {
    fn len(&self) -> usize {
        1
    }
    fn stencil_size(&self) -> usize {
        self.dofs.len()
    }
    fn param_size(&self) -> usize {
        1
    }
    fn uses_history(&self) -> bool {
        false
    }
    fn dofs(&self, _: usize, out: &mut [usize]) {
        out[..self.dofs.len()].copy_from_slice(&self.dofs);
    }
    fn params(&self, _: usize, out: &mut [usize]) {
        out[0] = self.param;
    }
    fn value(&self, s: &EvalState) -> f64 {
        let (v, _) = self.volume(&self.local(s.q));
        if v <= 0.0 {
            return f64::INFINITY;
        }
        -self.amount(s.p) * self.rt * (v / self.v0).ln() + self.ambient * v
    }
    fn blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        let n = self.dofs.len();
        let x = self.local(s.q);
        let (v, g) = self.volume(&x);
        let c = self.amount(s.p) * self.rt;
        match kind {
            Block::Gradient => {
                let f = -c / v + self.ambient;
                for (o, gi) in out[..n].iter_mut().zip(&g) {
                    *o = f * gi;
                }
            }
            Block::Hessian => {
                let o = &mut out[..n * n];
                let r = c / (v * v);
                for i in 0..n {
                    for j in 0..n {
                        o[i * n + j] = r * g[i] * g[j];
                    }
                }
                let f = -c / v + self.ambient;
                for t in &self.triangles {
                    let [a, b, cc] = t.map(|i| self.point(&x, i));
                    add_triangle_volume_hessian([&a, &b, &cc], f, o, n, t.map(|i| 3 * i));
                }
            }
            Block::History => out[..n * n].fill(0.0),
            Block::Param => {
                let f = match self.amount {
                    Bound::Constant(_) => 0.0,
                    Bound::Channel(_) => -self.rt / v,
                };
                for (o, gi) in out[..n].iter_mut().zip(&g) {
                    *o = f * gi;
                }
            }
            Block::ParamGradient => {
                out[0] = match self.amount {
                    Bound::Constant(_) => 0.0,
                    Bound::Channel(_) => -self.rt * (v / self.v0).ln(),
                }
            }
        }
    }
    fn split_hessian(&self) -> Option<&SplitHessian> {
        Some(&self.split)
    }
    fn split_blocks(&self, s: &EvalState, sparse: &mut [f64], rank_one: &mut [f64]) {
        let x = self.local(s.q);
        let (v, g) = self.volume(&x);
        let c = self.amount(s.p) * self.rt;
        rank_one[0] = c / (v * v);
        rank_one[1..=g.len()].copy_from_slice(&g);
        // −f/6 [w]× per edge (see `add_triangle_volume_hessian`), f = ∂E/∂V.
        let f = -c / v + self.ambient;
        for (t, out) in self.triangles.iter().zip(sparse.chunks_exact_mut(54)) {
            let p = t.map(|i| self.point(&x, i));
            for k in 0..3 {
                let w = p[(k + 2) % 3];
                let m = skew(&w);
                for r in 0..3 {
                    for cc in 0..3 {
                        let val = -f * m[r][cc] / 6.0;
                        let at = 18 * k + 2 * (3 * r + cc);
                        out[at] = val;
                        out[at + 1] = val;
                    }
                }
            }
        }
    }
    fn fallback_blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        let p = [match self.amount {
            Bound::Constant(n) => n,
            Bound::Channel(_) => s.p[self.param],
        }];
        variable_fallback(self, &self.local(s.q), &p, kind, out);
        if matches!(self.amount, Bound::Constant(_))
            && matches!(kind, Block::Param | Block::ParamGradient)
        {
            let n = if kind == Block::Param {
                self.dofs.len()
            } else {
                1
            };
            out[..n].fill(0.0);
        }
    }
}

impl Energy for GasCavity {
    fn elements(&self) -> &dyn ElementSet {
        self
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let (v, _) = self.volume(&self.local(s.q));
        vec![
            (format!("{}.volume", self.name), v),
            (
                format!("{}.pressure", self.name),
                self.pressure(s.q, s.p) - self.ambient,
            ),
        ]
    }
    /// The cavity's wall triangles with the gauge pressure (Pa) on each.
    fn geometry(&self, s: &EvalState) -> Vec<Shape> {
        let x = self.local(s.q);
        let points = x
            .chunks_exact(3)
            .map(|c| Point::At([c[0], c[1], c[2]]))
            .collect();
        let p = self.pressure(s.q, s.p) - self.ambient;
        let n = self.triangles.len();
        vec![Shape::Cells(Cells {
            name: format!("cavity {}", self.name),
            kind: CellKind::Triangle,
            points,
            connectivity: self.triangles.iter().flatten().copied().collect(),
            fields: vec![Field::cells("pressure", "Pa", vec![p; n])],
        })]
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

impl Cavity {
    /// Validates the surface and returns it with its reference point and
    /// initial volume.
    fn geometry(&self, info: &BindInfo) -> std::result::Result<([f64; 3], f64), PneumaticError> {
        check_closed(&self.triangles, info.layout.n_nodes())?;
        let mut nodes: Vec<usize> = self.triangles.iter().flatten().copied().collect();
        nodes.sort_unstable();
        nodes.dedup();
        let mut x = vec![[0.0; 3]; info.layout.n_nodes()];
        let mut o = [0.0; 3];
        for &i in &nodes {
            x[i] =
                info.node_position(i, "triangles")
                    .map_err(|e| PneumaticError::Inconsistent {
                        field: "triangles".into(),
                        problem: e.to_string(),
                    })?;
            for d in 0..3 {
                o[d] += x[i][d] / nodes.len() as f64;
            }
        }
        let v0 = enclosed_volume(&x, &self.triangles, o);
        if v0.is_nan() || v0 <= 0.0 {
            return Err(PneumaticError::NonPositiveVolume {
                cavity: self.name(),
                volume: v0,
            });
        }
        Ok((o, v0))
    }
}

impl EnergySpec for Cavity {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        info.require_dim("cavity", 3)?;
        positive("ambient", self.ambient, "Pa")?;
        let (origin, v0) = self.geometry(info)?;
        let name = self.name();
        match (&self.pressure, &self.gas) {
            (Some(p), None) => {
                let field = match p {
                    Quantity::Channel(c) => {
                        info.param(c, "pressure")?;
                        format!("pressure (channel `{c}`)")
                    }
                    Quantity::Value(_) => "pressure".to_string(),
                };
                let low = p.lowest(info).unwrap_or(0.0);
                if !low.is_finite() {
                    return Err(PneumaticError::field(&field, "finite (Pa, gauge)", low).into());
                }
                if low < -self.ambient {
                    return Err(PneumaticError::BeyondVacuum {
                        field,
                        pressure: low,
                        ambient: self.ambient,
                    }
                    .into());
                }
                let pressure = p.bound();
                let items = self
                    .triangles
                    .iter()
                    .map(|&nodes| PressureEl {
                        nodes,
                        origin,
                        pressure: pressure.clone(),
                    })
                    .collect();
                let slot = match p {
                    Quantity::Channel(c) => Some(info.param(c, "pressure")?),
                    Quantity::Value(_) => None,
                };
                Ok(Box::new(PressureCavity {
                    set: Elements::bind(items, info, "triangles")?,
                    name,
                    slot,
                }))
            }
            (None, Some(gas)) => {
                positive("gas.temperature", gas.temperature, "K")?;
                let rt = GAS_CONSTANT * gas.temperature;
                let (amount, param) = match (&gas.amount, gas.pressure_at_rest) {
                    (Some(Quantity::Value(n)), None) => {
                        positive("gas.amount", *n, "mol")?;
                        (Bound::Constant(*n), NO_PARAM)
                    }
                    (Some(Quantity::Channel(c)), None) => {
                        let k = info.param(c, "gas.amount")?;
                        let low = info.channel_range(c).map_or(0.0, |r| r.0);
                        non_negative("gas.amount", low, "mol")?;
                        (Bound::Channel(c.as_str().into()), k)
                    }
                    (None, Some(p)) => {
                        positive("gas.pressure_at_rest", p, "Pa, absolute")?;
                        (Bound::Constant(p * v0 / rt), NO_PARAM)
                    }
                    _ => {
                        return Err(PneumaticError::Inconsistent {
                            field: "gas".into(),
                            problem:
                                "give exactly one of `amount` (mol) and `pressure_at_rest` (Pa)"
                                    .into(),
                        }
                        .into());
                    }
                };
                let mut nodes: Vec<usize> = self.triangles.iter().flatten().copied().collect();
                nodes.sort_unstable();
                nodes.dedup();
                let mut dofs = Vec::with_capacity(3 * nodes.len());
                for &i in &nodes {
                    let mut d = [0; 3];
                    info.layout.node_dofs(i, &mut d, "triangles")?;
                    dofs.extend(d);
                }
                let local = |i: usize| nodes.binary_search(&i).unwrap_or(0);
                let triangles: Vec<[usize; 3]> =
                    self.triangles.iter().map(|t| t.map(local)).collect();
                Ok(Box::new(GasCavity {
                    split: gas_split(&triangles),
                    name,
                    dofs,
                    triangles,
                    origin,
                    rt,
                    amount,
                    param,
                    v0,
                    ambient: self.ambient,
                }))
            }
            _ => Err(PneumaticError::Inconsistent {
                field: "pressure".into(),
                problem: "give exactly one of `pressure` (Pa, gauge) and `gas`".into(),
            }
            .into()),
        }
    }
    fn label(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

pliant_core::register_energy!(
    Cavity = "cavity",
    "pressurized cavity on a closed triangle surface (normals out of the gas): `pressure` (Pa gauge, number or channel) gives E = −p V; `gas` (amount in mol or pressure_at_rest in Pa, temperature K) gives E = −nRT ln(V/V₀) + p_a V",
    r#"{"type": "cavity", "triangles": [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], "pressure": 1000.0}"#
);
