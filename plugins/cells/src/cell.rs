//! Soft cells (scene type `"cells"`): a membrane ring of `n` nodes with
//! stretching and bending stiffness, enclosing an ideal gas (Germann et
//! al., Soft Cell Simulator, §III-A). Each cell is one element over its
//! `2n` membrane coordinates, with energy (J)
//!
//! `E = Σᵢ EA/(2ℓ̄ᵢ) (ℓᵢ − ℓ̄ᵢ)² + Σᵢ EI/(2ℓ̂ᵢ) (θᵢ − θ̄ᵢ)² + (C/ℓ̄) (V − V₀ − V₀ ln(V/V₀))`
//!
//! - **stretching** of segment `i` (node `i` to `i+1`), length `ℓᵢ`, rest
//!   length `ℓ̄ᵢ` (the initial one): `EA` is the membrane's axial
//!   stiffness (N, force per unit strain);
//! - **bending** at node `i`: `θᵢ` the signed turning angle between the
//!   segments meeting there (rad, `atan2` of their cross and dot
//!   products), `θ̄ᵢ` its initial value, `ℓ̂ᵢ` the mean rest length of the
//!   two segments; `EI` is the bending stiffness (N·m²), so this is the
//!   discrete `½ EI ∫ (κ − κ̄)² ds`. The angle is measured in (−π, π]:
//!   a membrane folded back on itself (a hairpin turn) is outside the
//!   model;
//! - **pressure**: `V` the enclosed area (m², [`crate::ring`]), `V₀` its
//!   initial value. The energy's gradient pushes node `i` outward with
//!
//!   `Fᵢ = C (V₀/V − 1) · ½ R(xᵢ₊₁ − xᵢ₋₁)/ℓ̄`, `R(u, v) = (v, −u)` (outward),
//!
//!   the paper's reactive force `F = C (V_init/V − 1)` per membrane
//!   segment, applied as a 2-D pressure `p = C (V₀/V − 1)/ℓ̄` (N/m) on the
//!   two half-segments at the node. `ℓ̄` is the mean rest segment length,
//!   so `C` (N) keeps the paper's meaning — the force on one segment of
//!   rest length — and a finer membrane (smaller `ℓ̄`) at the same `C` has
//!   the same pressure per segment, not per unit length: `p ℓ̄ = C (V₀/V − 1)`
//!   is what stays fixed. It is the ideal gas at constant temperature
//!   (`p_abs V = const`) less the ambient pressure `C/ℓ̄`, so `E` is convex
//!   in `V` with its minimum at `V₀`. `C` is a number or a control
//!   channel (the paper's parametric softness, changed at run time); its
//!   derivatives are exact.
//!
//! The paper's membrane is a chain of rigid bodies with free hinges: large
//! `EA` and small `EI` approach it (its rigid links become stiff springs,
//! which the implicit solver handles without the constraint iterations
//! Box2D needs). The pressure term couples every node of a cell with every
//! other (`∂²E/∂V² ∇V ∇Vᵀ` is dense); the rest of the Hessian couples
//! nodes at most two apart along the ring. The cell declares its Hessian
//! split that way ([`pliant_core::SplitHessian`]): 20 entries per node
//! plus one rank-one term kept out of the factorization, instead of a
//! dense `2n × 2n` block (40,000 entries for 100 nodes) whose fill made a
//! stack of cells factorize like a dense matrix. Everything is written
//! analytically and checked against dual numbers and finite differences,
//! the split form against the dense block (`tests/derivatives.rs`).

use crate::error::{CellError, non_negative, positive};
use crate::ring::check_ring;
use pliant_core::element::{Block, NO_PARAM, VariableStencil, variable_fallback};
use pliant_core::geometry::{CellKind, Cells as GeometryCells, Field, Point, Shape};
use pliant_core::parallel::parallel_allowed;
use pliant_core::quantity::{Bound, Quantity};
use pliant_core::{
    BindInfo, ElementSet, Energy, EnergySpec, EvalState, Result, Scalar, SplitHessian,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// One cell as written in a scene: its membrane nodes, counter-clockwise,
/// and its pressure constant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    /// Membrane nodes in counter-clockwise order (at least three).
    pub nodes: Vec<usize>,
    /// Pressure constant `C`, N (a number or a channel): the outward force
    /// on one membrane segment is `C (V₀/V − 1)`.
    pub pressure: Quantity,
}

/// A set of cells sharing one membrane (scene type `"cells"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cells {
    /// The cells; all with the same number of membrane nodes.
    pub cells: Vec<Cell>,
    /// Membrane axial stiffness `EA`, N.
    pub stretch_stiffness: f64,
    /// Membrane bending stiffness `EI`, N·m² (0 for free hinges).
    #[serde(default)]
    pub bending_stiffness: f64,
    /// Prefix of the observables (`NAME.min_area_ratio`,
    /// `NAME.max_area_ratio`); default `"cells"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// One bound cell: its DOFs and rest geometry.
#[derive(Debug, Clone)]
struct CellEl {
    /// Global DOFs `x₀ y₀ x₁ y₁ …`.
    dofs: Vec<usize>,
    /// Rest length of segment `i` (node `i` to `i+1`), m.
    rest: Vec<f64>,
    /// Rest turning angle at node `i`, rad.
    angle: Vec<f64>,
    /// Mean rest length of the two segments at node `i`, m.
    hinge: Vec<f64>,
    /// Initial area, m².
    v0: f64,
    /// Mean rest segment length, m.
    l_mean: f64,
    pressure: Bound,
    param: usize,
    ea: f64,
    ei: f64,
}

/// `V` of a ring over local coordinates `x` (`2n`), with `∇V` into `g`.
/// The shoelace terms are taken relative to node 0, so the round-off does
/// not grow with the cell's distance from the origin.
fn area_gradient(x: &[f64], g: &mut [f64]) -> f64 {
    let n = x.len() / 2;
    let (ox, oy) = (x[0], x[1]);
    let mut v = 0.0;
    for i in 0..n {
        let (p, q) = ((i + n - 1) % n, (i + 1) % n);
        v += (x[2 * i] - ox) * (x[2 * q + 1] - oy) - (x[2 * q] - ox) * (x[2 * i + 1] - oy);
        g[2 * i] = 0.5 * (x[2 * q + 1] - x[2 * p + 1]);
        g[2 * i + 1] = 0.5 * (x[2 * p] - x[2 * q]);
    }
    0.5 * v
}

/// `ψ(u) = u − ln(1 + u)` without cancellation for small `u` (the
/// pressure energy is `(C/ℓ̄) V₀ ψ((V − V₀)/V₀)`).
fn psi(u: f64) -> f64 {
    if u.abs() < 1e-2 {
        // Σ_{k≥2} (−u)^k / k, to far below round-off.
        let mut term = u * u;
        let mut sum = 0.0;
        for k in 2..12 {
            sum += term / k as f64;
            term *= -u;
        }
        sum
    } else {
        u - u.ln_1p()
    }
}

/// `∂²θ/∂v²` of the polar angle `θ` of a 2-vector `v`, row-major 2×2.
fn angle_hessian(v: [f64; 2]) -> [f64; 4] {
    let r4 = (v[0] * v[0] + v[1] * v[1]).powi(2);
    let (a, b) = (2.0 * v[0] * v[1] / r4, (v[1] * v[1] - v[0] * v[0]) / r4);
    [a, b, b, -a]
}

impl CellEl {
    fn n(&self) -> usize {
        self.rest.len()
    }
    fn pt(x: &[f64], i: usize) -> [f64; 2] {
        [x[2 * i], x[2 * i + 1]]
    }
    /// `(C/ℓ̄) (V − V₀ − V₀ ln(V/V₀))` and its first two `V` derivatives.
    fn pressure_law(&self, c: f64, v: f64) -> (f64, f64, f64) {
        let k = c / self.l_mean;
        (
            k * self.v0 * psi((v - self.v0) / self.v0),
            k * (1.0 - self.v0 / v),
            k * self.v0 / (v * v),
        )
    }
    fn c_of(&self, p: &[f64]) -> f64 {
        match self.pressure {
            Bound::Constant(c) => c,
            Bound::Channel(_) => p[self.param],
        }
    }
    /// Energy at local coordinates `x` with pressure constant `c`.
    fn value(&self, x: &[f64], c: f64) -> f64 {
        let n = self.n();
        let mut e = 0.0;
        for i in 0..n {
            let (a, b) = (Self::pt(x, i), Self::pt(x, (i + 1) % n));
            let l = (b[0] - a[0]).hypot(b[1] - a[1]);
            e += 0.5 * self.ea / self.rest[i] * (l - self.rest[i]).powi(2);
            if self.ei > 0.0 {
                let z = Self::pt(x, (i + n - 1) % n);
                let (e1, e2) = ([a[0] - z[0], a[1] - z[1]], [b[0] - a[0], b[1] - a[1]]);
                let th = (e1[0] * e2[1] - e1[1] * e2[0]).atan2(e1[0] * e2[0] + e1[1] * e2[1]);
                e += 0.5 * self.ei / self.hinge[i] * (th - self.angle[i]).powi(2);
            }
        }
        let mut g = vec![0.0; 2 * n];
        let v = area_gradient(x, &mut g);
        if v.is_nan() || v <= 0.0 {
            return f64::INFINITY;
        }
        e + self.pressure_law(c, v).0
    }

    /// Gradient into `g` (`2n`).
    fn gradient(&self, x: &[f64], c: f64, g: &mut [f64]) {
        let n = self.n();
        let v = area_gradient(x, g);
        let (_, dv, _) = self.pressure_law(c, v);
        g.iter_mut().for_each(|gi| *gi *= dv);
        for i in 0..n {
            let j = (i + 1) % n;
            let (a, b) = (Self::pt(x, i), Self::pt(x, j));
            let d = [b[0] - a[0], b[1] - a[1]];
            let l = d[0].hypot(d[1]);
            let f = self.ea / self.rest[i] * (l - self.rest[i]) / l;
            for k in 0..2 {
                g[2 * j + k] += f * d[k];
                g[2 * i + k] -= f * d[k];
            }
        }
        if self.ei > 0.0 {
            for i in 0..n {
                let (h, j) = ((i + n - 1) % n, (i + 1) % n);
                let (dth, th) = self.turning(x, h, i, j);
                let f = self.ei / self.hinge[i] * (th - self.angle[i]);
                for (node, d) in [h, i, j].into_iter().zip(dth) {
                    g[2 * node] += f * d[0];
                    g[2 * node + 1] += f * d[1];
                }
            }
        }
    }

    /// Turning angle at `i` between `h → i` and `i → j`, and its gradient
    /// with respect to the three nodes.
    fn turning(&self, x: &[f64], h: usize, i: usize, j: usize) -> ([[f64; 2]; 3], f64) {
        let (z, a, b) = (Self::pt(x, h), Self::pt(x, i), Self::pt(x, j));
        let (e1, e2) = ([a[0] - z[0], a[1] - z[1]], [b[0] - a[0], b[1] - a[1]]);
        let th = (e1[0] * e2[1] - e1[1] * e2[0]).atan2(e1[0] * e2[0] + e1[1] * e2[1]);
        let (r1, r2) = (e1[0] * e1[0] + e1[1] * e1[1], e2[0] * e2[0] + e2[1] * e2[1]);
        // ∂θ/∂e₂ = ⊥e₂/|e₂|², ∂θ/∂e₁ = −⊥e₁/|e₁|², ⊥(u, v) = (−v, u).
        let p1 = [-e1[1] / r1, e1[0] / r1];
        let p2 = [-e2[1] / r2, e2[0] / r2];
        ([p1, [-p1[0] - p2[0], -p1[1] - p2[1]], p2], th)
    }

    /// Hessian into `h` (`2n × 2n`, row-major, overwritten).
    /// The dense `2n × 2n` Hessian (row-major) into `h`.
    fn hessian(&self, x: &[f64], c: f64, h: &mut [f64]) {
        let m = 2 * self.n();
        let h = &mut h[..m * m];
        h.fill(0.0);
        let mut g = vec![0.0; m];
        let ddv = self.hessian_parts(x, c, &mut g, &mut |a, b, blk| {
            for r in 0..2 {
                for s in 0..2 {
                    h[(2 * a + r) * m + 2 * b + s] += blk[2 * r + s];
                }
            }
        });
        // Rank-one part ∂²E/∂V² ∇V ∇Vᵀ, row by row.
        for (r, row) in h.chunks_mut(m).enumerate() {
            let s = ddv * g[r];
            for (o, gc) in row.iter_mut().zip(&g) {
                *o += s * gc;
            }
        }
    }

    /// The Hessian as [`SplitHessian`] data: the sparse part into `sparse`
    /// (the entries of `split_entries`), the rank-one gas term
    /// `∂²E/∂V² ∇V ∇Vᵀ` into `rank_one` (`[w, ∇V]`).
    fn split_hessian(&self, x: &[f64], c: f64, sparse: &mut [f64], rank_one: &mut [f64]) {
        let n = self.n();
        sparse.fill(0.0);
        let (w, g) = rank_one.split_at_mut(1);
        w[0] = self.hessian_parts(x, c, g, &mut |a, b, blk| {
            let d = (b + n - a) % n;
            let off = if d <= 2 { d + 2 } else { d + 2 - n };
            let at = (a * SPLIT_REACH + off) * 4;
            for (o, v) in sparse[at..at + 4].iter_mut().zip(blk) {
                *o += v;
            }
        });
    }

    /// Everything in the Hessian but the gas's rank-one term, node pair by
    /// node pair through `add(a, b, 2 × 2 block)` (pairs at most two apart
    /// along the ring); `∇V` into `g`; returns `∂²E/∂V²`.
    fn hessian_parts(
        &self,
        x: &[f64],
        c: f64,
        g: &mut [f64],
        add: &mut impl FnMut(usize, usize, &[f64; 4]),
    ) -> f64 {
        let n = self.n();
        let v = area_gradient(x, g);
        let (_, dv, ddv) = self.pressure_law(c, v);
        // ∂E/∂V ∇²V: ∂²V/∂xᵢ∂yᵢ₊₁ = ½, ∂²V/∂yᵢ∂xᵢ₊₁ = −½ (and transposes).
        let half = 0.5 * dv;
        for i in 0..n {
            let j = (i + 1) % n;
            add(i, j, &[0.0, half, -half, 0.0]);
            add(j, i, &[0.0, -half, half, 0.0]);
        }
        // Stretching: K = (EA/ℓ̄) d̂d̂ᵀ + f/ℓ (I − d̂d̂ᵀ).
        for i in 0..n {
            let j = (i + 1) % n;
            let (a, b) = (Self::pt(x, i), Self::pt(x, j));
            let d = [b[0] - a[0], b[1] - a[1]];
            let l = d[0].hypot(d[1]);
            let u = [d[0] / l, d[1] / l];
            let k = self.ea / self.rest[i];
            let t = k * (l - self.rest[i]) / l;
            let blk: [f64; 4] = std::array::from_fn(|rs| {
                let (r, s) = (rs / 2, rs % 2);
                let id = if r == s { 1.0 } else { 0.0 };
                k * u[r] * u[s] + t * (id - u[r] * u[s])
            });
            let neg = blk.map(|v| -v);
            add(i, i, &blk);
            add(j, j, &blk);
            add(i, j, &neg);
            add(j, i, &neg);
        }
        // Bending: 2c ∇θ∇θᵀ + 2c (θ − θ̄) ∇²θ with c = EI/(2ℓ̂).
        if self.ei > 0.0 {
            for i in 0..n {
                let (hh, j) = ((i + n - 1) % n, (i + 1) % n);
                let (dth, th) = self.turning(x, hh, i, j);
                let k = self.ei / self.hinge[i];
                let f = k * (th - self.angle[i]);
                let nodes = [hh, i, j];
                for (p, dp) in nodes.iter().zip(&dth) {
                    for (q, dq) in nodes.iter().zip(&dth) {
                        let blk = [
                            k * dp[0] * dq[0],
                            k * dp[0] * dq[1],
                            k * dp[1] * dq[0],
                            k * dp[1] * dq[1],
                        ];
                        add(*p, *q, &blk);
                    }
                }
                // θ = α(e₂) − α(e₁), e₁ = xᵢ − xₕ, e₂ = xⱼ − xᵢ.
                let (z, a, b) = (Self::pt(x, hh), Self::pt(x, i), Self::pt(x, j));
                let h1 = angle_hessian([a[0] - z[0], a[1] - z[1]]).map(|v| -f * v);
                let h2 = angle_hessian([b[0] - a[0], b[1] - a[1]]).map(|v| f * v);
                for (e, sides) in [(h1, [(hh, -1.0), (i, 1.0)]), (h2, [(i, -1.0), (j, 1.0)])] {
                    for &(p, sp) in &sides {
                        for &(q, sq) in &sides {
                            add(p, q, &e.map(|v| sp * sq * v));
                        }
                    }
                }
            }
        }
        ddv
    }
}

impl VariableStencil for CellEl {
    fn energy<D: Scalar>(&self, x: &[D], p: &[D]) -> D {
        let n = self.n();
        let pt = |i: usize| [x[2 * i], x[2 * i + 1]];
        let (ox, oy) = (x[0].re(), x[1].re());
        let mut e = D::from(0.0);
        let mut v = D::from(0.0);
        for i in 0..n {
            let (z, a, b) = (pt((i + n - 1) % n), pt(i), pt((i + 1) % n));
            v += ((a[0] - ox) * (b[1] - oy) - (b[0] - ox) * (a[1] - oy)) * 0.5;
            let d = [b[0] - a[0], b[1] - a[1]];
            let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
            e += (l - self.rest[i]) * (l - self.rest[i]) * (0.5 * self.ea / self.rest[i]);
            let e1 = [a[0] - z[0], a[1] - z[1]];
            let th = pliant_core::atan2(e1[0] * d[1] - e1[1] * d[0], e1[0] * d[0] + e1[1] * d[1]);
            e += (th - self.angle[i]) * (th - self.angle[i]) * (0.5 * self.ei / self.hinge[i]);
        }
        if v.re() <= 0.0 {
            return D::from(f64::INFINITY);
        }
        let c = match self.pressure {
            Bound::Constant(c) => D::from(c),
            Bound::Channel(_) => p[0],
        };
        e + c / self.l_mean * (v - self.v0 - (v / self.v0).ln() * self.v0)
    }
}

/// Node pairs per node in a cell's split Hessian: itself and the nodes up
/// to two away along the ring (stretching couples neighbours, bending and
/// `∇²V` neighbours of neighbours at most).
const SPLIT_REACH: usize = 5;

/// The sparse part of a ring of `n` nodes' Hessian: node `i` with node
/// `i + d` (`d = −2 … 2`, around the ring), each a 2 × 2 block; entry
/// `(i·5 + d + 2)·4 + 2r + s` is row `2i + r`, column `2(i + d) + s`. On
/// rings of three or four nodes some pairs are listed twice (they add).
/// One rank-one term, the gas: `∂²E/∂V² ∇V ∇Vᵀ`.
fn split_entries(n: usize) -> SplitHessian {
    let mut entries = Vec::with_capacity(n * SPLIT_REACH * 4);
    for i in 0..n {
        for off in 0..SPLIT_REACH {
            let j = (i + n + off - 2) % n;
            for r in 0..2 {
                for s in 0..2 {
                    entries.push((2 * i + r, 2 * j + s));
                }
            }
        }
    }
    SplitHessian { entries, rank: 1 }
}

/// The bound cells (one element per cell).
pub struct CellSet {
    name: String,
    cells: Vec<CellEl>,
    /// The Hessian's split form (every cell has the same ring size).
    split: Option<SplitHessian>,
}

impl std::fmt::Debug for CellSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cells `{}`", self.cells.len(), self.name)
    }
}

impl CellSet {
    /// Number of cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }
    /// Whether there is no cell.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
    /// Each cell's enclosed area at state `q`, m².
    pub fn areas(&self, q: &[f64]) -> Vec<f64> {
        self.cells
            .iter()
            .map(|c| {
                let x: Vec<f64> = c.dofs.iter().map(|&d| q[d]).collect();
                let mut g = vec![0.0; x.len()];
                area_gradient(&x, &mut g)
            })
            .collect()
    }
    /// Each cell's initial area `V₀`, m².
    pub fn rest_areas(&self) -> Vec<f64> {
        self.cells.iter().map(|c| c.v0).collect()
    }
    fn local(c: &CellEl, q: &[f64]) -> Vec<f64> {
        c.dofs.iter().map(|&d| q[d]).collect()
    }
    fn stencil(&self) -> usize {
        self.cells.first().map_or(0, |c| c.dofs.len())
    }
}

impl ElementSet for CellSet {
    fn len(&self) -> usize {
        self.cells.len()
    }
    fn stencil_size(&self) -> usize {
        self.stencil()
    }
    fn param_size(&self) -> usize {
        1
    }
    fn uses_history(&self) -> bool {
        false
    }
    fn dofs(&self, i: usize, out: &mut [usize]) {
        out[..self.stencil()].copy_from_slice(&self.cells[i].dofs);
    }
    fn params(&self, i: usize, out: &mut [usize]) {
        out[0] = self.cells[i].param;
    }
    fn value(&self, s: &EvalState) -> f64 {
        pliant_core::parallel::deterministic_sum(self.cells.len(), |i| {
            let c = &self.cells[i];
            c.value(&Self::local(c, s.q), c.c_of(s.p))
        })
    }
    fn blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        let m = self.stencil();
        let stride = kind.stride(m, 1);
        let out = &mut out[..self.cells.len() * stride];
        if stride == 0 {
            return;
        }
        let block = |(o, c): (&mut [f64], &CellEl)| {
            let x = Self::local(c, s.q);
            let cc = c.c_of(s.p);
            match kind {
                Block::Gradient => c.gradient(&x, cc, o),
                Block::Hessian => c.hessian(&x, cc, o),
                Block::History => o.fill(0.0),
                Block::Param | Block::ParamGradient => {
                    if c.param == NO_PARAM {
                        o.fill(0.0);
                        return;
                    }
                    let mut g = vec![0.0; m];
                    let v = area_gradient(&x, &mut g);
                    if kind == Block::Param {
                        let f = (1.0 - c.v0 / v) / c.l_mean;
                        for (oi, gi) in o.iter_mut().zip(&g) {
                            *oi = f * gi;
                        }
                    } else {
                        o[0] = c.v0 * psi((v - c.v0) / c.v0) / c.l_mean;
                    }
                }
            }
        };
        // Each cell is a large element (a whole membrane): parallel from
        // two cells on, unless Newton keeps this assembly on its thread.
        if parallel_allowed() {
            out.par_chunks_mut(stride).zip(&self.cells).for_each(block);
        } else {
            out.chunks_mut(stride).zip(&self.cells).for_each(block);
        }
    }
    fn split_hessian(&self) -> Option<&SplitHessian> {
        self.split.as_ref()
    }
    fn split_blocks(&self, s: &EvalState, sparse: &mut [f64], rank_one: &mut [f64]) {
        let Some(split) = &self.split else { return };
        let (ne, nr) = (split.entries.len(), split.rank_one_stride(self.stencil()));
        let (sparse, rank_one) = (
            &mut sparse[..self.cells.len() * ne],
            &mut rank_one[..self.cells.len() * nr],
        );
        let block = |((sp, r1), c): ((&mut [f64], &mut [f64]), &CellEl)| {
            c.split_hessian(&Self::local(c, s.q), c.c_of(s.p), sp, r1);
        };
        if parallel_allowed() {
            sparse
                .par_chunks_mut(ne)
                .zip(rank_one.par_chunks_mut(nr))
                .zip(&self.cells)
                .for_each(block);
        } else {
            sparse
                .chunks_mut(ne)
                .zip(rank_one.chunks_mut(nr))
                .zip(&self.cells)
                .for_each(block);
        }
    }
    fn fallback_blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        let stride = kind.stride(self.stencil(), 1);
        for (c, o) in self.cells.iter().zip(out.chunks_mut(stride.max(1))) {
            let p = [c.c_of(s.p)];
            variable_fallback(c, &Self::local(c, s.q), &p, kind, o);
            if c.param == NO_PARAM && matches!(kind, Block::Param | Block::ParamGradient) {
                o.fill(0.0);
            }
        }
    }
}

impl Energy for CellSet {
    fn elements(&self) -> &dyn ElementSet {
        self
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let ratios: Vec<f64> = self
            .areas(s.q)
            .iter()
            .zip(&self.cells)
            .map(|(v, c)| v / c.v0)
            .collect();
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if ratios.is_empty() {
            return Vec::new();
        }
        vec![
            (format!("{}.min_area_ratio", self.name), lo),
            (format!("{}.max_area_ratio", self.name), hi),
        ]
    }
    /// Every membrane as a closed ring of segments in the plane `z = 0`,
    /// with its cell's area ratio `V/V₀` on each segment.
    fn geometry(&self, s: &EvalState) -> Vec<Shape> {
        let areas = self.areas(s.q);
        let (mut points, mut connectivity, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
        for (c, v) in self.cells.iter().zip(areas) {
            let first = points.len();
            let n = c.dofs.len() / 2;
            points.extend(
                c.dofs
                    .chunks_exact(2)
                    .map(|d| Point::At([s.q[d[0]], s.q[d[1]], 0.0])),
            );
            connectivity.extend((0..n).flat_map(|i| [first + i, first + (i + 1) % n]));
            ratio.extend(std::iter::repeat_n(v / c.v0, n));
        }
        vec![Shape::Cells(GeometryCells {
            name: format!("cells {}", self.name),
            kind: CellKind::Line,
            points,
            connectivity,
            fields: vec![Field::cells("area_ratio", "1", ratio)],
        })]
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

impl Cells {
    fn name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "cells".into())
    }

    fn bind_cells(&self, info: &BindInfo) -> std::result::Result<Vec<CellEl>, CellError> {
        positive("stretch_stiffness", self.stretch_stiffness, "N")?;
        non_negative("bending_stiffness", self.bending_stiffness, "N·m²")?;
        let count = info.layout.n_nodes();
        let expected = self.cells.first().map_or(0, |c| c.nodes.len());
        let mut out = Vec::with_capacity(self.cells.len());
        for (ci, cell) in self.cells.iter().enumerate() {
            let n = cell.nodes.len();
            if n < 3 {
                return Err(CellError::TooFewNodes { cell: ci, found: n });
            }
            if n != expected {
                return Err(CellError::MixedSizes {
                    cell: ci,
                    found: n,
                    expected,
                });
            }
            let mut seen = std::collections::HashSet::with_capacity(n);
            let mut dofs = Vec::with_capacity(2 * n);
            let mut pts = Vec::with_capacity(n);
            for &node in &cell.nodes {
                if !seen.insert(node) {
                    return Err(CellError::RepeatedNode { cell: ci, node });
                }
                let base =
                    *info
                        .layout
                        .node_base()
                        .get(node)
                        .ok_or_else(|| CellError::MissingNode {
                            what: format!("cells[{ci}]"),
                            node,
                            count,
                        })?;
                dofs.extend([base, base + 1]);
                pts.push([info.q0[base], info.q0[base + 1]]);
            }
            let v0 = check_ring(ci, &pts)?;
            if let Quantity::Value(c) = cell.pressure {
                non_negative(&format!("cells[{ci}].pressure"), c, "N")?;
            }
            let rest: Vec<f64> = (0..n)
                .map(|i| {
                    let (a, b) = (pts[i], pts[(i + 1) % n]);
                    (b[0] - a[0]).hypot(b[1] - a[1])
                })
                .collect();
            let angle = (0..n)
                .map(|i| {
                    let (z, a, b) = (pts[(i + n - 1) % n], pts[i], pts[(i + 1) % n]);
                    let (e1, e2) = ([a[0] - z[0], a[1] - z[1]], [b[0] - a[0], b[1] - a[1]]);
                    (e1[0] * e2[1] - e1[1] * e2[0]).atan2(e1[0] * e2[0] + e1[1] * e2[1])
                })
                .collect();
            let hinge = (0..n)
                .map(|i| 0.5 * (rest[(i + n - 1) % n] + rest[i]))
                .collect();
            let l_mean = rest.iter().sum::<f64>() / n as f64;
            out.push(CellEl {
                dofs,
                rest,
                angle,
                hinge,
                v0,
                l_mean,
                pressure: cell.pressure.bound(),
                param: NO_PARAM,
                ea: self.stretch_stiffness,
                ei: self.bending_stiffness,
            });
        }
        Ok(out)
    }
}

impl EnergySpec for Cells {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        info.require_dim("cells", 2)?;
        let mut cells = self.bind_cells(info)?;
        for (ci, (c, spec)) in cells.iter_mut().zip(&self.cells).enumerate() {
            if let Quantity::Channel(name) = &spec.pressure {
                c.param = info.param(name, &format!("cells[{ci}].pressure"))?;
                if let Some((lo, _)) = info.channel_range(name) {
                    non_negative(&format!("cells[{ci}].pressure (channel `{name}`)"), lo, "N")?;
                }
            }
        }
        let split = cells.first().map(|c| split_entries(c.n()));
        Ok(Box::new(CellSet {
            name: self.name(),
            cells,
            split,
        }))
    }
    fn label(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

pliant_core::register_energy!(
    Cells = "cells",
    "2-D soft cells (Germann et al. §III-A): membrane rings (counter-clockwise `nodes`) with `stretch_stiffness` EA (N) and `bending_stiffness` EI (N·m²), enclosing an ideal gas with pressure constant `pressure` C (N, number or channel): outward force C (V₀/V − 1) per segment",
    r#"{"type": "cells", "stretch_stiffness": 100.0, "bending_stiffness": 1e-5, "cells": [{"nodes": [0, 1, 2, 3], "pressure": 2.0}]}"#
);
