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

use pliant_core::element::{VariableStencil, variable_fallback};
use pliant_core::geometry::{CellKind, Cells, Field, Point, Shape};
use pliant_core::penalty::{one_sided_quadratic, one_sided_quadratic_d};
use pliant_core::{Block, ElementSet, Energy, EvalState, Scalar};

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
pub(crate) enum Law {
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
pub(crate) struct Kin {
    seg: Vec<([f64; 3], f64)>,
    pub(crate) len: f64,
}

/// A bound cable (one element over a stencil known only when it is bound):
/// its stencil, channel, vertex map and law.
#[derive(Debug, Clone)]
pub struct CableEnergy {
    pub(crate) name: String,
    /// Stencil: the 3 DOFs of every node the vertices use, sorted.
    pub(crate) dofs: Vec<usize>,
    /// The channel read.
    pub(crate) param: usize,
    /// Per vertex: `(offset of the node's first DOF in the stencil, weight)`.
    pub(crate) verts: Vec<Vec<(usize, f64)>>,
    pub(crate) law: Law,
}

impl CableEnergy {
    fn n(&self) -> usize {
        self.dofs.len()
    }

    pub(crate) fn local(&self, q: &[f64]) -> Vec<f64> {
        self.dofs.iter().map(|&d| q[d]).collect()
    }

    pub(crate) fn positions(&self, x: &[f64]) -> Vec<[f64; 3]> {
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

    pub(crate) fn kin(&self, x: &[f64]) -> Kin {
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
    fn energy_generic<D: Scalar>(&self, x: &[D], p: D) -> D {
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
}

impl CableEnergy {
    /// The cable's name (the prefix of its observables).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The assembly length `α0` in use (m): the given one or `L(x0)`;
    /// `None` for tension control.
    pub fn assembly_length(&self) -> Option<f64> {
        match self.law {
            Law::Length { alpha0, .. } => Some(alpha0),
            Law::Tension => None,
        }
    }

    /// Current length `L(q)` (m) from the full DOF vector `q`.
    pub fn length(&self, q: &[f64]) -> f64 {
        self.kin(&self.local(q)).len
    }

    /// Tension (N): `k Q'(Γ)` for length control, `τ` for tension control.
    pub fn tension(&self, q: &[f64], p: &[f64]) -> f64 {
        match self.law {
            Law::Length { .. } => self.law.eval(self.length(q), p[self.param]).e_l,
            Law::Tension => p[self.param],
        }
    }

    /// Deformation `Γ = L(q) − α0 + u` (m) and its gradients with respect to
    /// global DOFs and parameter indices. For tension control `Γ` is not
    /// defined by the model: `gamma = 0` with empty gradients. The gradient
    /// of a segment collapsed to zero length is NaN (see the module docs).
    pub fn deformation(&self, q: &[f64], p: &[f64]) -> Deformation {
        match self.law {
            Law::Length { alpha0, .. } => {
                let k = self.kin(&self.local(q));
                let g = self.grad_len(&k);
                Deformation {
                    gamma: k.len - alpha0 + p[self.param],
                    dq: self.dofs.iter().copied().zip(g).collect(),
                    dp: vec![(self.param, 1.0)],
                }
            }
            Law::Tension => Deformation {
                gamma: 0.0,
                dq: vec![],
                dp: vec![],
            },
        }
    }
}

impl VariableStencil for CableEnergy {
    fn energy<D: Scalar>(&self, x: &[D], p: &[D]) -> D {
        self.energy_generic(x, p[0])
    }
}

/// One element: value and blocks analytic; the fallback differentiates the
/// same energy one direction at a time ([`variable_fallback`]).
impl ElementSet for CableEnergy {
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
        self.eval(s).1.e
    }
    fn blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        let nn = self.n();
        match kind {
            Block::Gradient | Block::Param => {
                let (k, f) = self.eval(s);
                let c = if kind == Block::Gradient {
                    f.e_l
                } else {
                    f.e_lp
                };
                let o = &mut out[..nn];
                if c == 0.0 {
                    o.fill(0.0);
                    return;
                }
                for (o, g) in o.iter_mut().zip(self.grad_len(&k)) {
                    *o = c * g;
                }
            }
            Block::Hessian => {
                let (k, f) = self.eval(s);
                let o = &mut out[..nn * nn];
                o.fill(0.0);
                if f.e_ll != 0.0 {
                    let g = self.grad_len(&k);
                    for i in 0..nn {
                        for j in 0..nn {
                            o[i * nn + j] = f.e_ll * g[i] * g[j];
                        }
                    }
                }
                if f.e_l != 0.0 {
                    self.add_hess_len(&k, f.e_l, o);
                }
            }
            Block::History => out[..nn * nn].fill(0.0),
            Block::ParamGradient => out[0] = self.eval(s).1.e_p,
        }
    }
    fn fallback_blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        variable_fallback(self, &self.local(s.q), &[s.p[self.param]], kind, out)
    }
}

impl Energy for CableEnergy {
    fn elements(&self) -> &dyn ElementSet {
        self
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let (k, f) = self.eval(s);
        let (tension, slack) = match self.law {
            Law::Length { alpha0, .. } => (f.e_l, (alpha0 - k.len - s.p[self.param]).max(0.0)),
            Law::Tension => (s.p[self.param], 0.0),
        };
        vec![
            (format!("{}.tension", self.name), tension),
            (format!("{}.slack", self.name), slack),
            (format!("{}.length", self.name), k.len),
        ]
    }
    /// The cable as a polyline through its vertices, with its tension (N)
    /// on every span.
    fn geometry(&self, s: &EvalState) -> Vec<Shape> {
        let x = self.local(s.q);
        let points: Vec<Point> = self.positions(&x).into_iter().map(Point::At).collect();
        let spans = points.len().saturating_sub(1);
        let tension = match self.law {
            Law::Length { .. } => self.eval(s).1.e_l,
            Law::Tension => s.p[self.param],
        };
        vec![Shape::Cells(Cells {
            name: format!("cable {}", self.name),
            kind: CellKind::Line,
            points,
            connectivity: (0..spans).flat_map(|j| [j, j + 1]).collect(),
            fields: vec![Field::cells("tension", "N", vec![tension; spans])],
        })]
    }
}
