//! The cable energy: one polyline of barycentrically bound vertices acting as
//! a unilateral spring (Bern et al. 2019 §II-B) or pulling with a prescribed
//! tension (appendix A).
//!
//! With vertex positions `v_j(x) = Σᵢ w_{ji} x_{n_{ji}}` (m, see
//! [`crate::vertex`]), the cable length is
//!
//! `L(x) = Σ_{j} ‖v_{j+1} − v_j‖` (m).
//!
//! **Length control** (eqs. 2–3): the channel holds the contracted length `u`
//! (m, cable pulled into the spool), the rest length is `α(u) = α0 − u` with
//! `α0` the assembly length (default `L(x0)`), the deformation is
//!
//! `Γ(x, u) = L(x) − α(u) = L(x) − α0 + u` (m)
//!
//! and the energy `E = k Q(Γ)` (J), with `k` in N/m and `Q` the C²-smooth
//! one-sided quadratic of [`pliant_core::penalty::one_sided_quadratic`]
//! (smoothing width `ε` in m): a slack cable (`Γ ≤ 0`) stores no energy and
//! exerts no force, a taut one pulls with tension `T = k Q'(Γ)` (N), which is
//! `k(Γ − ε/2)` beyond the smoothing zone.
//!
//! **Tension control** (appendix A): the channel holds the tension `τ` (N) and
//! `E = τ L(x)` (J).
//!
//! Derivatives (analytic path; the dual-number fallback differentiates the
//! same energy over the stencil DOFs directly). Write `E = f(L, p)` with `p`
//! the channel; per segment `d = v_{j+1} − v_j`, `l = ‖d‖`, `n = d/l`:
//!
//! - `∂L/∂v_{j+1} = n`, `∂L/∂v_j = −n`; `∂²L/∂v² = (I − n nᵀ)/l` in the blocks
//!   `[[K, −K], [−K, K]]` of the two vertices;
//! - chained through the constant barycentric map, `∂v_j/∂x_{n_{ji}} = w_{ji} I`;
//! - `∇E = f_L ∇L`, `∇²E = f_LL ∇L ∇Lᵀ + f_L ∇²L`, `∂²E/∂x∂p = f_Lp ∇L`,
//!   `∂E/∂p = f_p`, with `f_L = k Q'(Γ)`, `f_LL = f_Lp = k Q''(Γ)`,
//!   `f_p = k Q'(Γ)` (since `∂Γ/∂u = +1`) for length control and `f_L = τ`,
//!   `f_LL = 0`, `f_Lp = 1`, `f_p = L` for tension control. There is no
//!   history coupling.
//!
//! **Collapsed segments.** Bind rejects coincident consecutive vertices in the
//! initial state. If a segment collapses to exactly zero length during a
//! simulation, its direction `n` is undefined: wherever it is needed (a term
//! whose coefficient `f_L`, `f_LL` or `f_Lp` is non-zero) the blocks are NaN on
//! purpose, which the assembler reports as a typed non-finite error rather
//! than continuing with an arbitrary force. A slack cable (length control,
//! `Γ ≤ 0`) or a zero tension never evaluates `n`, so its blocks stay exactly
//! zero. The value and the observables stay finite.

use crate::vertex::CableVertex;
use pliant_core::element::ElementSet;
use pliant_core::energy::{BindInfo, Energy, EvalState};
use pliant_core::error::{CoreError, Result};
use pliant_core::num_dual::{Dual64, DualNum, HyperDual64};
use pliant_core::penalty::{one_sided_quadratic, one_sided_quadratic_d};
use serde::{Deserialize, Serialize};

/// Default smoothing width `ε` of `Q`, m.
pub const DEFAULT_SMOOTHING: f64 = 1e-4;

fn default_smoothing() -> f64 {
    DEFAULT_SMOOTHING
}

/// What the cable's parameter channel prescribes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum CableControl {
    /// Contracted length `u` (m) read from `channel`: rest length `α0 − u`
    /// (eq. 3). Two cables reading the same channel share a motor (a tendon
    /// pair).
    Length {
        /// Parameter channel name.
        channel: String,
    },
    /// Tension `τ` (N) read from `channel`: `E = τ L(x)` (appendix A).
    Tension {
        /// Parameter channel name.
        channel: String,
    },
}

impl CableControl {
    /// The channel name.
    pub fn channel(&self) -> &str {
        match self {
            CableControl::Length { channel } | CableControl::Tension { channel } => channel,
        }
    }
}

/// One cable: a polyline of bound vertices, as written in a scene
/// (`"type": "cable"`). A robot adds one such energy per cable.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cable {
    /// Name, used in error messages and as the prefix of the observables
    /// `{name}.tension` (N), `{name}.slack` (m) and `{name}.length` (m).
    pub name: String,
    /// At least two vertices, in order along the cable.
    pub vertices: Vec<CableVertex>,
    /// Length or tension control and the channel it reads.
    pub control: CableControl,
    /// Stiffness `k`, N/m (> 0; validated in both modes, used by length
    /// control only).
    pub stiffness: f64,
    /// Assembly length `α0`, m (> 0); default `L(x0)`, the length at assembly
    /// (the cable is just taut at rest with `u = 0`). Unused by tension control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assembly_length: Option<f64>,
    /// Smoothing width `ε` of `Q`, m (≥ 0; default 1e-4).
    #[serde(default = "default_smoothing")]
    pub smoothing: f64,
    #[serde(skip)]
    bound: Option<BoundCable>,
}

/// The deformation `Γ` of a cable and its gradient, for slack regularizers
/// (Bern et al. 2019 appendix B, `Q(ε − Γ)`) and slack post-processing.
#[derive(Debug, Clone, PartialEq)]
pub struct Deformation {
    /// `Γ = L(x) − α0 + u`, m (0 for tension control).
    pub gamma: f64,
    /// `(global DOF, ∂Γ/∂q)` over the cable's stencil (dimensionless);
    /// empty for tension control.
    pub dq: Vec<(usize, f64)>,
    /// `(parameter index, ∂Γ/∂p)`: `(u, 1)` for length control; empty for
    /// tension control.
    pub dp: Vec<(usize, f64)>,
}

/// Energy as a function of length: length or tension control.
#[derive(Debug, Clone, Copy)]
enum Law {
    Length { k: f64, alpha0: f64, eps: f64 },
    Tension,
}

/// `f(L, p)` and its derivatives (see the module documentation).
#[derive(Debug, Clone, Copy)]
struct LawEval {
    e: f64,
    e_l: f64,
    e_ll: f64,
    e_p: f64,
    e_lp: f64,
}

impl Law {
    fn eval(self, l: f64, p: f64) -> LawEval {
        match self {
            Law::Length { k, alpha0, eps } => {
                let (q, dq, d2q) = one_sided_quadratic_d(l - alpha0 + p, eps);
                LawEval {
                    e: k * q,
                    e_l: k * dq,
                    e_ll: k * d2q,
                    e_p: k * dq,
                    e_lp: k * d2q,
                }
            }
            Law::Tension => LawEval {
                e: p * l,
                e_l: p,
                e_ll: 0.0,
                e_p: l,
                e_lp: 1.0,
            },
        }
    }
}

/// Per-segment unit directions (NaN for a collapsed segment) and lengths (m),
/// and the total length `L` (m).
struct Kin {
    seg: Vec<([f64; 3], f64)>,
    len: f64,
}

/// A bound cable: its stencil, channel and vertex map. One element.
#[derive(Debug, Clone)]
struct BoundCable {
    name: String,
    /// Stencil: the 3 DOFs of every node the vertices use, sorted.
    dofs: Vec<usize>,
    /// The channel read.
    param: usize,
    /// Per vertex: `(offset of the node's first DOF in the stencil, weight)`.
    verts: Vec<Vec<(usize, f64)>>,
    law: Law,
}

impl BoundCable {
    fn n(&self) -> usize {
        self.dofs.len()
    }

    fn local(&self, q: &[f64]) -> Vec<f64> {
        self.dofs.iter().map(|&d| q[d]).collect()
    }

    fn positions(&self, x: &[f64]) -> Vec<[f64; 3]> {
        self.verts
            .iter()
            .map(|v| {
                let mut r = [0.0; 3];
                for &(off, w) in v {
                    for a in 0..3 {
                        r[a] += w * x[off + a];
                    }
                }
                r
            })
            .collect()
    }

    fn kin(&self, x: &[f64]) -> Kin {
        let pos = self.positions(x);
        let mut len = 0.0;
        let seg = pos
            .windows(2)
            .map(|s| {
                let d = [s[1][0] - s[0][0], s[1][1] - s[0][1], s[1][2] - s[0][2]];
                let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                len += l;
                // A collapsed segment has no direction: NaN on purpose.
                let n = if l > 0.0 {
                    d.map(|c| c / l)
                } else {
                    [f64::NAN; 3]
                };
                (n, l)
            })
            .collect();
        Kin { seg, len }
    }

    /// `∂L/∂x` over the stencil.
    fn grad_len(&self, k: &Kin) -> Vec<f64> {
        let mut gv = vec![[0.0; 3]; self.verts.len()];
        for (j, (n, _)) in k.seg.iter().enumerate() {
            for a in 0..3 {
                gv[j][a] -= n[a];
                gv[j + 1][a] += n[a];
            }
        }
        let mut g = vec![0.0; self.n()];
        for (v, gv) in self.verts.iter().zip(&gv) {
            for &(off, w) in v {
                for a in 0..3 {
                    g[off + a] += w * gv[a];
                }
            }
        }
        g
    }

    /// `out += c ∂²L/∂x²` (row-major over the stencil).
    fn add_hess_len(&self, k: &Kin, c: f64, out: &mut [f64]) {
        let nn = self.n();
        for (j, &(n, l)) in k.seg.iter().enumerate() {
            let t = c / l;
            let kk: [[f64; 3]; 3] = std::array::from_fn(|a| {
                std::array::from_fn(|b| t * ((if a == b { 1.0 } else { 0.0 }) - n[a] * n[b]))
            });
            for (va, vb, sign) in [
                (j, j, 1.0),
                (j + 1, j + 1, 1.0),
                (j, j + 1, -1.0),
                (j + 1, j, -1.0),
            ] {
                for &(oa, wa) in &self.verts[va] {
                    for &(ob, wb) in &self.verts[vb] {
                        let f = sign * wa * wb;
                        for a in 0..3 {
                            for b in 0..3 {
                                out[(oa + a) * nn + ob + b] += f * kk[a][b];
                            }
                        }
                    }
                }
            }
        }
    }

    fn eval(&self, s: &EvalState) -> (Kin, LawEval) {
        let k = self.kin(&self.local(s.q));
        let f = self.law.eval(k.len, s.p[self.param]);
        (k, f)
    }

    /// The energy over the stencil values `x` and the channel `p`, generic
    /// for the dual-number fallback.
    fn energy_generic<D: DualNum<f64> + Copy>(&self, x: &[D], p: D) -> D {
        let pos: Vec<[D; 3]> = self
            .verts
            .iter()
            .map(|v| {
                let mut r = [D::from(0.0); 3];
                for &(off, w) in v {
                    for a in 0..3 {
                        r[a] += x[off + a] * w;
                    }
                }
                r
            })
            .collect();
        let mut l = D::from(0.0);
        for s in pos.windows(2) {
            let d: [D; 3] = std::array::from_fn(|a| s[1][a] - s[0][a]);
            l += (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        }
        match self.law {
            Law::Length { k, alpha0, eps } => one_sided_quadratic(l - alpha0 + p, eps) * k,
            Law::Tension => p * l,
        }
    }

    /// Stencil values as duals with unit first derivative on `i`.
    fn dual_dir(x: &[f64], i: usize) -> Vec<Dual64> {
        x.iter()
            .enumerate()
            .map(|(j, &v)| Dual64::new(v, if i == j { 1.0 } else { 0.0 }))
            .collect()
    }
}

/// The dual-number fallback: forward-mode derivatives one direction (or one
/// pair of directions) at a time, since the stencil size is only known at
/// bind time. Exact up to round-off; `O(N²)` energy evaluations for the
/// Hessian, which is fine for the derivative checks it serves.
impl ElementSet for BoundCable {
    fn len(&self) -> usize {
        1
    }
    fn stencil_size(&self) -> usize {
        self.n()
    }
    fn param_size(&self) -> usize {
        1
    }
    fn uses_history(&self) -> bool {
        false
    }
    fn dofs(&self, _i: usize, out: &mut [usize]) {
        out[..self.n()].copy_from_slice(&self.dofs);
    }
    fn params(&self, _i: usize, out: &mut [usize]) {
        out[0] = self.param;
    }
    fn value(&self, s: &EvalState) -> f64 {
        self.energy_generic(&self.local(s.q), s.p[self.param])
    }
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let x = self.local(s.q);
        let p = Dual64::from(s.p[self.param]);
        for (i, o) in out[..self.n()].iter_mut().enumerate() {
            *o = self.energy_generic(&Self::dual_dir(&x, i), p).eps;
        }
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let nn = self.n();
        let x = self.local(s.q);
        let p = HyperDual64::from(s.p[self.param]);
        for i in 0..nn {
            for j in i..nn {
                let xd: Vec<HyperDual64> = x
                    .iter()
                    .enumerate()
                    .map(|(m, &v)| {
                        HyperDual64::new(
                            v,
                            if m == i { 1.0 } else { 0.0 },
                            if m == j { 1.0 } else { 0.0 },
                            0.0,
                        )
                    })
                    .collect();
                let h = self.energy_generic(&xd, p).eps1eps2;
                out[i * nn + j] = h;
                out[j * nn + i] = h;
            }
        }
    }
    fn history_blocks(&self, _s: &EvalState, out: &mut [f64]) {
        out.fill(0.0);
    }
    fn param_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let x = self.local(s.q);
        let p = HyperDual64::new(s.p[self.param], 0.0, 1.0, 0.0);
        for (i, o) in out[..self.n()].iter_mut().enumerate() {
            let xd: Vec<HyperDual64> = x
                .iter()
                .enumerate()
                .map(|(m, &v)| HyperDual64::new(v, if m == i { 1.0 } else { 0.0 }, 0.0, 0.0))
                .collect();
            *o = self.energy_generic(&xd, p).eps1eps2;
        }
    }
    fn param_gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let x: Vec<Dual64> = self.local(s.q).into_iter().map(Dual64::from).collect();
        out[0] = self
            .energy_generic(&x, Dual64::new(s.p[self.param], 1.0))
            .eps;
    }
}

impl Cable {
    /// A cable with the default assembly length (`L(x0)`) and smoothing
    /// (1e-4 m); `stiffness` in N/m.
    pub fn new(
        name: &str,
        vertices: Vec<CableVertex>,
        control: CableControl,
        stiffness: f64,
    ) -> Self {
        Self {
            name: name.into(),
            vertices,
            control,
            stiffness,
            assembly_length: None,
            smoothing: DEFAULT_SMOOTHING,
            bound: None,
        }
    }

    /// Sets the assembly length `α0` (m).
    pub fn with_assembly_length(mut self, alpha0: f64) -> Self {
        self.assembly_length = Some(alpha0);
        self
    }

    /// Sets the smoothing width `ε` of `Q` (m).
    pub fn with_smoothing(mut self, eps: f64) -> Self {
        self.smoothing = eps;
        self
    }

    fn b(&self) -> &BoundCable {
        self.bound
            .as_ref()
            .unwrap_or_else(|| panic!("cable `{}` used before Model::build bound it", self.name))
    }

    /// Whether the cable has been bound to a model.
    pub fn is_bound(&self) -> bool {
        self.bound.is_some()
    }

    /// The assembly length `α0` in use (m): the given one or `L(x0)`; `None`
    /// before binding or for tension control.
    pub fn resolved_assembly_length(&self) -> Option<f64> {
        match self.bound.as_ref()?.law {
            Law::Length { alpha0, .. } => Some(alpha0),
            Law::Tension => None,
        }
    }

    /// Current length `L(q)` (m) from the full DOF vector `q`.
    ///
    /// # Panics
    /// If the cable is not bound yet, or `q` is shorter than the model's DOF
    /// vector.
    pub fn length(&self, q: &[f64]) -> f64 {
        let b = self.b();
        b.kin(&b.local(q)).len
    }

    /// Tension (N): `k Q'(Γ)` for length control, `τ` for tension control.
    ///
    /// # Panics
    /// As [`Cable::length`], or if `p` is shorter than the model's channels.
    pub fn tension(&self, q: &[f64], p: &[f64]) -> f64 {
        let b = self.b();
        match b.law {
            Law::Length { .. } => b.law.eval(self.length(q), p[b.param]).e_l,
            Law::Tension => p[b.param],
        }
    }

    /// Deformation `Γ = L(q) − α0 + u` (m) and its gradients with respect to
    /// global DOFs and parameter indices. For tension control `Γ` is not
    /// defined by the model: `gamma = 0` with empty gradients. The gradient
    /// of a segment collapsed to zero length is NaN (see the module docs).
    ///
    /// # Panics
    /// As [`Cable::tension`].
    pub fn deformation(&self, q: &[f64], p: &[f64]) -> Deformation {
        let b = self.b();
        match b.law {
            Law::Length { alpha0, .. } => {
                let k = b.kin(&b.local(q));
                let g = b.grad_len(&k);
                Deformation {
                    gamma: k.len - alpha0 + p[b.param],
                    dq: b.dofs.iter().copied().zip(g).collect(),
                    dp: vec![(b.param, 1.0)],
                }
            }
            Law::Tension => Deformation {
                gamma: 0.0,
                dq: vec![],
                dp: vec![],
            },
        }
    }

    fn err(&self, msg: String) -> CoreError {
        CoreError::Model(format!("cable `{}`: {msg}", self.name))
    }

    fn resolve(&self, info: &BindInfo) -> Result<BoundCable> {
        let layout = info.layout;
        if self.name.is_empty() {
            return Err(CoreError::Model(
                "cable: `name` must not be empty (it prefixes the observables)".into(),
            ));
        }
        if layout.dim() != 3 {
            return Err(self.err(format!(
                "cables need a 3-D model, this one is {}-D",
                layout.dim()
            )));
        }
        if self.vertices.len() < 2 {
            return Err(self.err(format!(
                "`vertices` has {} entries, a cable needs at least 2",
                self.vertices.len()
            )));
        }
        if !(self.stiffness.is_finite() && self.stiffness > 0.0) {
            return Err(self.err(format!(
                "`stiffness` must be positive and finite, got {} N/m",
                self.stiffness
            )));
        }
        if !(self.smoothing.is_finite() && self.smoothing >= 0.0) {
            return Err(self.err(format!(
                "`smoothing` must be finite and ≥ 0, got {} m",
                self.smoothing
            )));
        }
        if let Some(a) = self.assembly_length
            && !(a.is_finite() && a > 0.0)
        {
            return Err(self.err(format!(
                "`assembly_length` must be positive and finite, got {a} m"
            )));
        }
        let mut nodes: Vec<usize> = Vec::new();
        for (i, v) in self.vertices.iter().enumerate() {
            v.validate()
                .map_err(|m| self.err(format!("vertices[{i}] {m}")))?;
            for &n in &v.nodes {
                layout.node_dof(n, 0, &format!("cable `{}` vertices[{i}].nodes", self.name))?;
            }
            nodes.extend_from_slice(&v.nodes);
        }
        nodes.sort_unstable();
        nodes.dedup();
        let mut dofs = vec![0; 3 * nodes.len()];
        for (k, &n) in nodes.iter().enumerate() {
            layout.node_dofs(n, &mut dofs[3 * k..3 * k + 3], "cable")?;
        }
        let verts: Vec<Vec<(usize, f64)>> = self
            .vertices
            .iter()
            .map(|v| {
                v.nodes
                    .iter()
                    .zip(&v.weights)
                    .map(|(n, &w)| (3 * nodes.binary_search(n).expect("collected above"), w))
                    .collect()
            })
            .collect();
        let param = layout.param(
            self.control.channel(),
            &format!("cable `{}` control.channel", self.name),
        )?;
        let mut bound = BoundCable {
            name: self.name.clone(),
            dofs,
            param,
            verts,
            law: Law::Tension,
        };
        // Rest state: no coincident consecutive vertices.
        let x0 = bound.local(info.q0);
        let pos = bound.positions(&x0);
        for (j, s) in pos.windows(2).enumerate() {
            let l = (0..3)
                .map(|a| (s[1][a] - s[0][a]).powi(2))
                .sum::<f64>()
                .sqrt();
            let scale = s[0].iter().chain(&s[1]).fold(0.0f64, |m, c| m.max(c.abs()));
            if l <= 4.0 * f64::EPSILON * scale {
                return Err(self.err(format!(
                    "segment {j} (vertices {j} and {}) has zero length in the initial state: both vertices are at ({:.6}, {:.6}, {:.6}) m",
                    j + 1,
                    s[0][0],
                    s[0][1],
                    s[0][2]
                )));
            }
        }
        bound.law = match self.control {
            CableControl::Length { .. } => Law::Length {
                k: self.stiffness,
                alpha0: self.assembly_length.unwrap_or_else(|| bound.kin(&x0).len),
                eps: self.smoothing,
            },
            CableControl::Tension { .. } => Law::Tension,
        };
        Ok(bound)
    }
}

#[typetag::serde(name = "cable")]
impl Energy for Cable {
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        self.bound = None;
        self.bound = Some(self.resolve(info)?);
        Ok(())
    }
    fn elements(&self) -> &dyn ElementSet {
        self.b()
    }
    fn value(&self, s: &EvalState) -> f64 {
        self.b().eval(s).1.e
    }
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let b = self.b();
        let (k, f) = b.eval(s);
        let o = &mut out[..b.n()];
        if f.e_l == 0.0 {
            o.fill(0.0);
            return;
        }
        for (o, g) in o.iter_mut().zip(b.grad_len(&k)) {
            *o = f.e_l * g;
        }
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let b = self.b();
        let nn = b.n();
        let (k, f) = b.eval(s);
        let o = &mut out[..nn * nn];
        o.fill(0.0);
        if f.e_ll != 0.0 {
            let g = b.grad_len(&k);
            for i in 0..nn {
                for j in 0..nn {
                    o[i * nn + j] = f.e_ll * g[i] * g[j];
                }
            }
        }
        if f.e_l != 0.0 {
            b.add_hess_len(&k, f.e_l, o);
        }
    }
    fn history_blocks(&self, _s: &EvalState, out: &mut [f64]) {
        out.fill(0.0);
    }
    fn param_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let b = self.b();
        let (k, f) = b.eval(s);
        let o = &mut out[..b.n()];
        if f.e_lp == 0.0 {
            o.fill(0.0);
            return;
        }
        for (o, g) in o.iter_mut().zip(b.grad_len(&k)) {
            *o = f.e_lp * g;
        }
    }
    fn param_gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        out[0] = self.b().eval(s).1.e_p;
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let b = self.b();
        let (k, f) = b.eval(s);
        let (tension, slack) = match b.law {
            Law::Length { alpha0, .. } => (f.e_l, (alpha0 - k.len - s.p[b.param]).max(0.0)),
            Law::Tension => (s.p[b.param], 0.0),
        };
        vec![
            (format!("{}.tension", b.name), tension),
            (format!("{}.slack", b.name), slack),
            (format!("{}.length", b.name), k.len),
        ]
    }
}

pliant_core::register_energy!(
    "cable",
    "one cable, a polyline of barycentrically bound vertices: length control E = k Q(L − α0 + u) (Bern 2019 eqs. 2–3; k in N/m, L, α0 (default L(x0)), contracted length u and smoothing ε in m) or tension control E = τ L (τ in N)",
    r#"{"type": "cable", "name": "flexor", "vertices": [{"nodes": [0], "weights": [1.0]}, {"nodes": [1], "weights": [1.0]}], "control": {"type": "length", "channel": "u"}, "stiffness": 1000.0}"#
);

/// Referenced by [`crate::link`] so the object holding this module's
/// registrations is linked.
#[inline(never)]
pub(crate) fn link_registrations() -> &'static str {
    std::hint::black_box("cable")
}
