//! Muscle anchors on a rod's surface: a material point of one rod edge's
//! cross-section (in a scene, `{"rod": "spine", "edge": 4, "at": [x, y, z]}`).
//!
//! The point is given where it is in the initial state. Binding splits it
//! into a fraction `s ∈ [0, 1]` along the edge (from its node `a` to its
//! node `b`) and an offset of `r` metres perpendicular to it, along the unit
//! direction `u₀` — any distance: the cross-section is rigid, so a point
//! beyond the rod's radius is on a plate mounted on it. Edges are numbered
//! in the rod's own order (edges a rod adds for shell joints come after
//! its own). The anchor then moves with the cross-section — along the
//! edge in proportion, turned about the tangent with the edge's twist angle
//! θ (rad):
//!
//! `p(x, θ) = (1 − s) x_a + s x_b + r [cos(θ − θ₀) d + sin(θ − θ₀) t × d]`,
//! `d = P(a → t) u`, `t = (x_b − x_a)/|x_b − x_a|`,
//!
//! where `(a, u)` is the anchor's own lagged frame of the edge: `(t₀, u₀)`
//! at binding, moved at the start of every step by the same time-parallel
//! transport the rod applies to its reference frame
//! ([`pliant_core::edge_frame`]). Transport commutes with rotations about
//! the tangent, so `u` keeps its initial angle to the rod's reference
//! director and the point turns with the rod's material frame (MAT-DiSMech
//! §3.2) — without this plugin reading the rod's state. Rollout derivatives
//! are exact through `(a, u)`, as through the rod's own frames
//! ([`Energy::carried_transition`](pliant_core::Energy::carried_transition),
//! [`Energy::carried_block`](pliant_core::Energy::carried_block)).
//!
//! A piece with an end on a rod is one element over 26 DOFs: four node
//! slots per end (a rod end uses two) and the two ends' twist angles. Its
//! derivatives are the chain rule through the anchors: with
//! `r = p_b − p_a`, `l = |r|`, `n = r/l`, `J = ∂r/∂x` and `φ(l)` the
//! piece's energy as a function of its length (`piece`),
//!
//! `∂E/∂x = φ' Jᵀn`,
//! `∂²E/∂x² = φ'' (Jᵀn)(Jᵀn)ᵀ + (φ'/l) Jᵀ(I − nnᵀ)J + φ' Σᵢ nᵢ ∂²rᵢ/∂x²`,
//!
//! where a rod end's point, its Jacobian and its second derivatives over
//! its 7 variables `(x_a, x_b, θ)` come from dual numbers of the formula
//! above; the damping couples `x` to `x_prev` through `−(D_i/h) (Jᵀn)(J'ᵀn')ᵀ`.
//! All are checked against the dual-number fallback over the whole
//! stencil and finite differences (`tests/rod_muscles.rs`).

use super::piece::PieceLaw;
use crate::error::PneumaticError;
use nalgebra::SVector;
use pliant_core::edge_frame::{
    EdgeFrame, FramedEdge, least_aligned_axis, reset_waypoint, transport, transport_jacobian,
    unit_tangent,
};
use pliant_core::num_dual::{
    Dual2SVec64, DualSVec64, HyperDualSVec64, hessian, jacobian, partial_hessian,
};
use pliant_core::vec3::{V3, add, cross, dot, lift, norm, perp_unit, scale, sub, unit};
use pliant_core::{BindInfo, Ctx, Element, Local, Result, Scalar, Stencil};

/// Stencil DOFs of a piece with a rod end: 2 × 4 node slots, 2 twists.
pub(super) const N: usize = 26;
/// Carried values per rod anchor: tangent `a`, director `u`.
pub(super) const PER_ANCHOR: usize = 6;

/// Sparse entries `(row, column, value)`.
type Triplets = Vec<(usize, usize, f64)>;

/// Second derivatives of a point's 3 coordinates over 7 variables.
type Curvature = [[[f64; 7]; 7]; 3];

/// A material point of a rod edge's cross-section, bound.
#[derive(Debug, Clone)]
pub(super) struct RodAnchor {
    pub(super) edge: FramedEdge,
    /// The DOFs of the edge's nodes `a`, `b`.
    pub(super) dofs: [[usize; 3]; 2],
    /// Fraction along the edge, from `a`.
    pub(super) s: f64,
    /// Distance from the centre line, m.
    pub(super) r: f64,
    /// The twist angle at binding, rad.
    pub(super) theta0: f64,
    /// The frame at binding (for `reset`).
    pub(super) init: EdgeFrame,
    /// The lagged frame.
    pub(super) frame: EdgeFrame,
}

impl RodAnchor {
    /// Binds the point drawn at `at` (m) on edge `edge` of rod `rod`;
    /// `field` names the anchor in errors.
    pub(super) fn bind(
        rod: &str,
        edge: usize,
        at: [f64; 3],
        info: &BindInfo,
        field: &str,
    ) -> Result<Self> {
        let edges = info.layout.framed_edges(rod, &format!("{field}.rod"))?;
        let Some(&framed) = edges.get(edge) else {
            return Err(PneumaticError::RodEdge {
                field: format!("{field}.edge"),
                rod: rod.into(),
                edge,
                count: edges.len(),
            }
            .into());
        };
        if let Some(k) = at.iter().position(|c| !c.is_finite()) {
            return Err(
                PneumaticError::field(&format!("{field}.at[{k}]"), "finite (m)", at[k]).into(),
            );
        }
        let mut dofs = [[0; 3]; 2];
        for (d, &node) in dofs.iter_mut().zip(&framed.nodes) {
            info.layout.node_dofs(node, d, field)?;
        }
        let x = |k: usize| dofs[k].map(|i| info.q0[i]);
        let (xa, xb) = (x(0), x(1));
        let e = sub(&xb, &xa);
        let len2 = dot(&e, &e);
        if !(len2.is_finite() && len2 > 0.0) {
            return Err(PneumaticError::Inconsistent {
                field: format!("{field}.edge"),
                problem: format!("edge {edge} of rod `{rod}` has zero length in the initial state"),
            }
            .into());
        }
        let rel = sub(&at, &xa);
        let s = dot(&rel, &e) / len2;
        const SLACK: f64 = 1e-9;
        if !(-SLACK..=1.0 + SLACK).contains(&s) {
            return Err(PneumaticError::OffEdge {
                field: format!("{field}.at"),
                rod: rod.into(),
                edge,
                along: s,
            }
            .into());
        }
        let s = s.clamp(0.0, 1.0);
        let t = unit_tangent(&xa, &xb);
        let offset = sub(&rel, &scale(s, &e));
        let r = norm(&offset);
        // On the centre line the direction is immaterial (times r = 0).
        let u = if r > 1e-12 * len2.sqrt() {
            perp_unit(&t, &offset)
        } else {
            perp_unit(&t, &least_aligned_axis(&t))
        };
        let frame = EdgeFrame {
            tangent: t,
            director: u,
        };
        Ok(Self {
            edge: framed,
            dofs,
            s,
            r,
            theta0: info.q0[framed.twist],
            init: frame,
            frame,
        })
    }

    /// The point in the state `q` with the current frame, m.
    pub(super) fn position(&self, q: &[f64]) -> [f64; 3] {
        let [a, b] = self.dofs;
        rod_point(
            &a.map(|i| q[i]),
            &b.map(|i| q[i]),
            q[self.edge.twist],
            [self.s, self.r, self.theta0],
            &(self.frame.tangent, self.frame.director),
        )
    }

    /// The edge's unit tangent in `q`.
    fn tangent(&self, q: &[f64]) -> [f64; 3] {
        let [a, b] = self.dofs;
        unit_tangent(&a.map(|i| q[i]), &b.map(|i| q[i]))
    }

    /// The step's transport to the tangent of `q_prev`.
    pub(super) fn transport_to(&mut self, q_prev: &[f64]) {
        if let Some(f) = self.frame.transported(&self.tangent(q_prev)) {
            self.frame = f;
        }
    }

    /// The binding-time frame moved to the tangent of `q` the way the rod
    /// moves its own on `reset` (through [`reset_waypoint`]).
    pub(super) fn reset_to(&mut self, q: &[f64]) {
        let t = self.tangent(q);
        let mut f = self.init;
        for to in [reset_waypoint(&self.init.tangent, &t), t] {
            if let Some(g) = f.transported(&to) {
                f = g;
            }
        }
        self.frame = f;
    }

    /// `∂(a', u')/∂(a, u)` and `∂(a', u')/∂x` of the step's transport from
    /// `q_prev`, as `(row, column, value)` with rows and carried columns
    /// offset by `base` and DOF columns global.
    pub(super) fn transition(&self, q_prev: &[f64], base: usize) -> (Triplets, Triplets) {
        let [a, b] = self.dofs;
        let jac = transport_jacobian(&self.frame, &a.map(|i| q_prev[i]), &b.map(|i| q_prev[i]));
        let (mut dq, mut dc) = (Vec::with_capacity(36), Vec::with_capacity(18));
        for (row, j) in jac.iter().enumerate() {
            if row >= 3 {
                for (k, &v) in j[..6].iter().enumerate() {
                    dc.push((base + row, base + k, v));
                }
            }
            for k in 0..6 {
                dq.push((base + row, if k < 3 { a[k] } else { b[k - 3] }, j[6 + k]));
            }
        }
        (dq, dc)
    }
}

/// One end of a piece.
#[derive(Debug, Clone)]
pub(super) enum End {
    /// `Σ w_k x_k` over the end's four node slots.
    Linear([f64; 4]),
    /// On a rod: the anchor's index in the set, and what the element reads
    /// of it.
    Rod {
        anchor: usize,
        s: f64,
        r: f64,
        theta0: f64,
        frame: EdgeFrame,
    },
}

/// A frame as `(a, u)` in the scalar type `D`.
type Frame<D> = (V3<D>, V3<D>);

/// The point `[s, r, θ₀]` of an edge from `x_a` to `x_b` with twist `θ`
/// and lagged frame `frame` (the formula of the module documentation).
fn rod_point<D: Scalar>(
    xa: &V3<D>,
    xb: &V3<D>,
    theta: D,
    [s, r, theta0]: [f64; 3],
    frame: &Frame<D>,
) -> V3<D> {
    let e = sub(xb, xa);
    let t = unit(&e);
    let d = transport(&frame.0, &t, &frame.1);
    let d2 = cross(&t, &d);
    let phi = theta - theta0;
    let across = add(&scale(phi.cos(), &d), &scale(phi.sin(), &d2));
    add(
        &add(xa, &scale(D::from(s), &e)),
        &scale(D::from(r), &across),
    )
}

/// A piece of a muscle with at least one end on a rod (see the module
/// documentation): node slots `0..4` are its start, `4..8` its end, and the
/// stencil ends with the two ends' twist angles (a node end repeats the
/// other's, unread).
#[derive(Debug, Clone)]
pub(super) struct RodPieceEl {
    pub(super) nodes: [usize; 8],
    pub(super) twists: [usize; 2],
    pub(super) ends: [End; 2],
    pub(super) law: PieceLaw,
}

impl RodPieceEl {
    /// End `k`'s point from the stencil `x`, with the rod end's frame
    /// `frame` (`(a, u)`; unread for a node end).
    fn point<D: Scalar>(&self, x: &[D], k: usize, frame: &Frame<D>) -> V3<D> {
        let v = |i: usize| -> V3<D> { [x[i], x[i + 1], x[i + 2]] };
        let base = 12 * k;
        match &self.ends[k] {
            End::Linear(w) => (0..4).fold(lift(&[0.0; 3]), |acc, j| {
                add(&acc, &scale(D::from(w[j]), &v(base + 3 * j)))
            }),
            End::Rod { s, r, theta0, .. } => {
                rod_point(&v(base), &v(base + 3), x[24 + k], [*s, *r, *theta0], frame)
            }
        }
    }

    /// The stored frames, lifted (a node end gets a placeholder).
    fn frames<D: Scalar>(&self) -> [Frame<D>; 2] {
        std::array::from_fn(|k| match &self.ends[k] {
            End::Rod { frame, .. } => (lift(&frame.tangent), lift(&frame.director)),
            End::Linear(_) => (lift(&[1.0, 0.0, 0.0]), lift(&[0.0, 1.0, 0.0])),
        })
    }

    fn length<D: Scalar>(&self, x: &[D], frames: &[Frame<D>; 2]) -> D {
        norm(&sub(
            &self.point(x, 1, &frames[1]),
            &self.point(x, 0, &frames[0]),
        ))
    }

    /// The energy with the frames `frames` (what `carried_block`
    /// differentiates).
    fn energy_with<D: Scalar>(
        &self,
        x: &[D],
        x_prev: &[D],
        pressure: D,
        h: f64,
        frames: &[Frame<D>; 2],
    ) -> D {
        let l = self.length(x, frames);
        let lp = self.length(x_prev, frames);
        self.law.energy(l, lp, pressure, h)
    }

    /// The two anchors' positions in the stencil values `x` (m).
    pub(super) fn ends_at(&self, x: &[f64]) -> ([f64; 3], [f64; 3]) {
        let f = self.frames::<f64>();
        (self.point(x, 0, &f[0]), self.point(x, 1, &f[1]))
    }

    /// Whether an end is on a rod (otherwise no frame is read).
    pub(super) fn on_rod(&self) -> bool {
        self.ends.iter().any(|e| matches!(e, End::Rod { .. }))
    }

    /// Copies anchor frames into the element.
    pub(super) fn set_frames(&mut self, anchors: &[RodAnchor]) {
        for end in &mut self.ends {
            if let End::Rod { anchor, frame, .. } = end {
                *frame = anchors[*anchor].frame;
            }
        }
    }

    /// `∂²E/∂x∂c` of this element at `l` over the raw carried values of its
    /// rod ends, as `(stencil slot, anchor, component, value)`.
    pub(super) fn frame_block(&self, l: &Local) -> Vec<(usize, usize, usize, f64)> {
        type H = HyperDualSVec64<N, 12>;
        if !self.on_rod() {
            return Vec::new();
        }
        let frames = self.frames::<f64>();
        let mut w0 = [0.0; 12];
        for k in 0..2 {
            w0[6 * k..6 * k + 3].copy_from_slice(&frames[k].0);
            w0[6 * k + 3..6 * k + 6].copy_from_slice(&frames[k].1);
        }
        let p = self.law.pressure.of(l.p);
        let xp: [H; N] = std::array::from_fn(|i| H::from(l.x_prev[i]));
        let x0: [f64; N] = std::array::from_fn(|i| l.x[i]);
        let (_, _, _, h) = partial_hessian(
            |(xv, wv): (SVector<H, N>, SVector<H, 12>)| {
                let w = wv.as_slice();
                let fr: [Frame<H>; 2] = std::array::from_fn(|k| {
                    (
                        [w[6 * k], w[6 * k + 1], w[6 * k + 2]],
                        [w[6 * k + 3], w[6 * k + 4], w[6 * k + 5]],
                    )
                });
                self.energy_with(xv.as_slice(), &xp, H::from(p), l.ctx.h, &fr)
            },
            (&SVector::from(x0), &SVector::from(w0)),
        );
        let mut out = Vec::new();
        for (k, end) in self.ends.iter().enumerate() {
            let End::Rod { anchor, .. } = end else {
                continue;
            };
            for row in 0..N {
                for comp in 0..PER_ANCHOR {
                    let v = h[(row, 6 * k + comp)];
                    if v != 0.0 {
                        out.push((row, *anchor, comp, v));
                    }
                }
            }
        }
        out
    }
}

/// `r = p_b − p_a` of a piece with its Jacobian over the stencil and, per
/// rod end, the second derivatives of its point over that end's 7
/// variables.
struct Jet {
    r: [f64; 3],
    /// `∂r/∂x`, 3 × N.
    jac: [[f64; N]; 3],
    /// Per end: `(sign, stencil slots of (x_a, x_b, θ), ∂²p_i/∂y²)`.
    curv: [Option<(f64, [usize; 7], Curvature)>; 2],
}

impl RodPieceEl {
    /// The stencil slots of end `k`'s rod variables `(x_a, x_b, θ)`.
    fn rod_slots(k: usize) -> [usize; 7] {
        let b = 12 * k;
        [b, b + 1, b + 2, b + 3, b + 4, b + 5, 24 + k]
    }

    fn jet(&self, x: &[f64], with_curvature: bool) -> Jet {
        let frames = self.frames::<f64>();
        let mut jet = Jet {
            r: [0.0; 3],
            jac: [[0.0; N]; 3],
            curv: [None, None],
        };
        for k in 0..2 {
            let sign = if k == 0 { -1.0 } else { 1.0 };
            match &self.ends[k] {
                End::Linear(w) => {
                    let p = self.point(x, k, &frames[k]);
                    for i in 0..3 {
                        jet.r[i] += sign * p[i];
                        for (j, wj) in w.iter().enumerate() {
                            jet.jac[i][12 * k + 3 * j + i] += sign * wj;
                        }
                    }
                }
                End::Rod { s, r, theta0, .. } => {
                    let slots = Self::rod_slots(k);
                    let y: [f64; 7] = slots.map(|slot| x[slot]);
                    let consts = [*s, *r, *theta0];
                    let f = &frames[k];
                    let mut curv: Curvature = [[[0.0; 7]; 7]; 3];
                    if with_curvature {
                        let parts = hessian(
                            |yv: SVector<Dual2SVec64<7>, 7>| {
                                let at = |i: usize| [yv[i], yv[i + 1], yv[i + 2]];
                                let fr = (lift(&f.0), lift(&f.1));
                                rod_point(&at(0), &at(3), yv[6], consts, &fr)
                            },
                            &SVector::from(y),
                        );
                        for (i, (v, g, h)) in parts.iter().enumerate() {
                            jet.r[i] += sign * v;
                            for (a, slot) in slots.iter().enumerate() {
                                jet.jac[i][*slot] += sign * g[a];
                                for b in 0..7 {
                                    curv[i][a][b] = h[(a, b)];
                                }
                            }
                        }
                    } else {
                        let (v, g) = jacobian(
                            |yv: SVector<DualSVec64<7>, 7>| {
                                let at = |i: usize| [yv[i], yv[i + 1], yv[i + 2]];
                                let fr = (lift(&f.0), lift(&f.1));
                                SVector::from(rod_point(&at(0), &at(3), yv[6], consts, &fr))
                            },
                            &SVector::from(y),
                        );
                        for i in 0..3 {
                            jet.r[i] += sign * v[i];
                            for (a, slot) in slots.iter().enumerate() {
                                jet.jac[i][*slot] += sign * g[(i, a)];
                            }
                        }
                    }
                    if with_curvature {
                        jet.curv[k] = Some((sign, slots, curv));
                    }
                }
            }
        }
        jet
    }

    /// `(l, n, Jᵀn)` of a jet.
    fn along(jet: &Jet) -> (f64, [f64; 3], [f64; N]) {
        let l = norm(&jet.r);
        let n = jet.r.map(|c| c / l);
        let g = std::array::from_fn(|a| (0..3).map(|i| n[i] * jet.jac[i][a]).sum());
        (l, n, g)
    }
}

impl Element for RodPieceEl {
    type Size = Stencil<N, 1>;
    const HISTORY: bool = true;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn extra_dofs(&self) -> &[usize] {
        &self.twists
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [self.law.pressure.channel()]
    }
    fn energy<D: Scalar>(&self, x: &[D], x_prev: &[D], p: &[D], c: &Ctx) -> D {
        self.energy_with(x, x_prev, self.law.pressure.of(p), c.h, &self.frames())
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let (len, _, gl) = Self::along(&self.jet(l.x, false));
        let lp = self.length(l.x_prev, &self.frames());
        let (f1, _) = self.law.dl(len, lp, self.law.pressure.of(l.p), l.ctx.h);
        for (o, v) in g.iter_mut().zip(gl) {
            *o = f1 * v;
        }
        true
    }
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        let jet = self.jet(l.x, true);
        let (len, n, gl) = Self::along(&jet);
        let lp = self.length(l.x_prev, &self.frames());
        let (f1, f2) = self.law.dl(len, lp, self.law.pressure.of(l.p), l.ctx.h);
        // (I − nnᵀ) J, 3 × N.
        let pj: [[f64; N]; 3] =
            std::array::from_fn(|i| std::array::from_fn(|a| jet.jac[i][a] - n[i] * gl[a]));
        let t = f1 / len;
        for a in 0..N {
            for b in 0..N {
                let across: f64 = (0..3).map(|i| jet.jac[i][a] * pj[i][b]).sum();
                h[a * N + b] = f2 * gl[a] * gl[b] + t * across;
            }
        }
        for (sign, slots, curv) in jet.curv.iter().flatten() {
            for (ia, &a) in slots.iter().enumerate() {
                for (ib, &b) in slots.iter().enumerate() {
                    let c: f64 = (0..3).map(|i| n[i] * curv[i][ia][ib]).sum();
                    h[a * N + b] += f1 * sign * c;
                }
            }
        }
        true
    }
    /// Only the damping couples `x` and `x_prev`: `−(D_i/h) ∂l/∂x (∂l_prev/∂x_prev)ᵀ`.
    fn history(&self, l: &Local, h: &mut [f64]) -> bool {
        let (_, _, gl) = Self::along(&self.jet(l.x, false));
        let (_, _, gp) = Self::along(&self.jet(l.x_prev, false));
        let c = -self.law.d / l.ctx.h;
        for a in 0..N {
            for b in 0..N {
                h[a * N + b] = c * gl[a] * gp[b];
            }
        }
        true
    }
    /// `∂²E/∂x∂p = −W'(l) ∂l/∂x`.
    fn param_block(&self, l: &Local, b: &mut [f64]) -> bool {
        let (len, _, gl) = Self::along(&self.jet(l.x, false));
        let w1 = self.law.work.d(len, self.law.rest).1;
        for (o, v) in b.iter_mut().zip(gl) {
            *o = -w1 * v;
        }
        true
    }
    fn param_gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let len = norm(&self.jet(l.x, false).r);
        g[0] = -self.law.work.d(len, self.law.rest).0;
        true
    }
}
