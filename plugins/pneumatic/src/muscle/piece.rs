//! One piece of a muscle between two anchors: its pressure law, its
//! element when the anchors are nodes or material points of a body (a
//! linear map of the stencil), and what binding builds either element
//! from (the element with an end on a rod is in `on_rod`).

use super::Anchor;
use super::on_rod::{End, RodAnchor, RodPieceEl};
use crate::error::PneumaticError;
use pliant_core::penalty::{one_sided_quadratic, one_sided_quadratic_d};
use pliant_core::quantity::Bound;
use pliant_core::vec3::norm;
use pliant_core::{Ctx, Element, Local, Scalar, Stencil};
use std::f64::consts::PI;

/// The pressure law of one piece.
#[derive(Debug, Clone, Copy)]
pub(super) enum Work {
    /// `W = A (l − L)`.
    Linear(f64),
    /// `V(l) = l (b² − l²)/(4πn²)`, with `V(L)`.
    Braid { b: f64, n: f64, v_rest: f64 },
}

impl Work {
    pub(super) fn of<D: Scalar>(&self, l: D, rest: f64) -> D {
        match *self {
            Work::Linear(a) => (l - rest) * a,
            Work::Braid { b, n, v_rest } => l * (-l * l + b * b) / (4.0 * PI * n * n) - v_rest,
        }
    }
    /// `(W, W', W'')`.
    pub(super) fn d(&self, l: f64, rest: f64) -> (f64, f64, f64) {
        match *self {
            Work::Linear(a) => (a * (l - rest), a, 0.0),
            Work::Braid { b, n, v_rest } => {
                let c = 4.0 * PI * n * n;
                (
                    l * (b * b - l * l) / c - v_rest,
                    (b * b - 3.0 * l * l) / c,
                    -6.0 * l / c,
                )
            }
        }
    }
}

/// One piece of a muscle between two anchors, over a stencil of `N`
/// DOFs: `N = 6` for two node anchors, `N = 24` when an anchor is a
/// material point (up to four nodes per end, padded with zero weights).
/// The piece's vector is `r = Σ_k w_k x_k` (`w < 0` at its start).
#[derive(Debug, Clone)]
pub(super) struct PieceEl<const N: usize> {
    nodes: Vec<usize>,
    w: Vec<f64>,
    pub(super) law: PieceLaw,
}

/// What a piece stores besides its anchors.
#[derive(Debug, Clone)]
pub(super) struct PieceLaw {
    pub(super) pressure: Bound,
    pub(super) rest: f64,
    pub(super) k: f64,
    pub(super) d: f64,
    pub(super) work: Work,
    pub(super) l_min: f64,
    pub(super) l_max: f64,
    pub(super) k_guard: f64,
    pub(super) eps: f64,
}

impl PieceLaw {
    /// The energy (J) at length `l` (m) after `l_prev`, gauge pressure
    /// `p` (Pa), step `h` (s): the formula of the module documentation.
    pub(super) fn energy<D: Scalar>(&self, l: D, l_prev: D, p: D, h: f64) -> D {
        let u = l - self.rest;
        let dl = l - l_prev;
        u * u * (0.5 * self.k) - p * self.work.of(l, self.rest)
            + dl * dl * (0.5 * self.d / h)
            + (one_sided_quadratic(l - self.l_max, self.eps)
                + one_sided_quadratic(-l + self.l_min, self.eps))
                * self.k_guard
    }
    /// `(φ', φ'')` of the energy as a function of the length `l` (J/m,
    /// J/m²), the damping included with `l_prev`.
    pub(super) fn dl(&self, l: f64, l_prev: f64, p: f64, h: f64) -> (f64, f64) {
        let (_, w1, w2) = self.work.d(l, self.rest);
        let (_, q1, q2) = one_sided_quadratic_d(l - self.l_max, self.eps);
        let (_, r1, r2) = one_sided_quadratic_d(self.l_min - l, self.eps);
        (
            self.k * (l - self.rest) - p * w1
                + self.k_guard * (q1 - r1)
                + self.d / h * (l - l_prev),
            self.k - p * w2 + self.k_guard * (q2 + r2) + self.d / h,
        )
    }
}

impl<const N: usize> PieceEl<N> {
    /// The anchors `(start, end)` of a stencil: the first half of its
    /// nodes is the start (weights stored negated), the second the end.
    pub(super) fn anchors(&self, x: &[f64]) -> ([f64; 3], [f64; 3]) {
        let (mut a, mut b) = ([0.0; 3], [0.0; 3]);
        let half = self.w.len() / 2;
        for (k, &w) in self.w.iter().enumerate() {
            let (end, w) = if k < half { (&mut a, -w) } else { (&mut b, w) };
            for d in 0..3 {
                end[d] += w * x[3 * k + d];
            }
        }
        (a, b)
    }
    /// `r = Σ w_k x_k` of a stencil.
    pub(super) fn vector(&self, x: &[f64]) -> [f64; 3] {
        let mut r = [0.0; 3];
        for (k, w) in self.w.iter().enumerate() {
            for a in 0..3 {
                r[a] += w * x[3 * k + a];
            }
        }
        r
    }
    fn geometry(&self, l: &Local) -> ([f64; 3], f64, f64) {
        let e = self.vector(l.x);
        let len = norm(&e);
        (e.map(|v| v / len), len, norm(&self.vector(l.x_prev)))
    }
}

impl<const N: usize> Element for PieceEl<N> {
    type Size = Stencil<N, 1, 3>;
    const HISTORY: bool = true;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [self.law.pressure.channel()]
    }
    fn map(&self, b: &mut [f64]) -> bool {
        for (k, w) in self.w.iter().enumerate() {
            for a in 0..3 {
                b[a * N + 3 * k + a] = *w;
            }
        }
        true
    }
    fn reduce(&self, x: &[f64], r: &mut [f64]) -> bool {
        r[..3].copy_from_slice(&self.vector(x));
        true
    }
    fn energy<D: Scalar>(&self, r: &[D], rp: &[D], p: &[D], c: &Ctx) -> D {
        let l = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
        let lp = (rp[0] * rp[0] + rp[1] * rp[1] + rp[2] * rp[2]).sqrt();
        self.law.energy(l, lp, self.law.pressure.of(p), c.h)
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let (n, len, lp) = self.geometry(l);
        let (f, _) = self.law.dl(len, lp, self.law.pressure.of(l.p), l.ctx.h);
        for (k, w) in self.w.iter().enumerate() {
            for a in 0..3 {
                g[3 * k + a] = w * f * n[a];
            }
        }
        true
    }
    /// `K = φ'' n nᵀ + (φ'/l)(I − n nᵀ)` over `r`; `H = Bᵀ K B`:
    /// the block of nodes `k`, `m` is `w_k w_m K`.
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        let (n, len, lp) = self.geometry(l);
        let (f1, f2) = self.law.dl(len, lp, self.law.pressure.of(l.p), l.ctx.h);
        let t = f1 / len;
        let mut kk = [[0.0; 3]; 3];
        for a in 0..3 {
            for b in 0..3 {
                let id = if a == b { 1.0 } else { 0.0 };
                kk[a][b] = f2 * n[a] * n[b] + t * (id - n[a] * n[b]);
            }
        }
        for (k, wk) in self.w.iter().enumerate() {
            for (m, wm) in self.w.iter().enumerate() {
                for a in 0..3 {
                    for b in 0..3 {
                        h[(3 * k + a) * N + 3 * m + b] = wk * wm * kk[a][b];
                    }
                }
            }
        }
        true
    }
    fn param_block(&self, l: &Local, b: &mut [f64]) -> bool {
        let (n, len, _) = self.geometry(l);
        let (_, w1, _) = self.law.work.d(len, self.law.rest);
        for (k, w) in self.w.iter().enumerate() {
            for a in 0..3 {
                b[3 * k + a] = -w * w1 * n[a];
            }
        }
        true
    }
    fn param_gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let (_, len, _) = self.geometry(l);
        g[0] = -self.law.work.d(len, self.law.rest).0;
        true
    }
}

/// What observables read of a bound piece, whatever its anchors.
pub(super) trait Piece: Element {
    /// Its two anchors' positions in its stencil values `x`, m.
    fn ends_at(&self, x: &[f64]) -> ([f64; 3], [f64; 3]);
    /// Its pressure law.
    fn law(&self) -> &PieceLaw;
}

impl<const N: usize> Piece for PieceEl<N> {
    fn ends_at(&self, x: &[f64]) -> ([f64; 3], [f64; 3]) {
        self.anchors(x)
    }
    fn law(&self) -> &PieceLaw {
        &self.law
    }
}

impl Piece for RodPieceEl {
    fn ends_at(&self, x: &[f64]) -> ([f64; 3], [f64; 3]) {
        RodPieceEl::ends_at(self, x)
    }
    fn law(&self) -> &PieceLaw {
        &self.law
    }
}

/// One end of a piece before it is bound.
#[derive(Debug, Clone)]
pub(super) enum EndData {
    /// A node or material point: its `(node, weight)` terms.
    Terms(Vec<(usize, f64)>),
    /// A point on a rod: the index of its [`RodAnchor`] in the set.
    Rod(usize),
}

/// A piece before it is bound: its two ends and its constants.
pub(super) struct PieceData {
    pub(super) ends: [EndData; 2],
    pub(super) law: PieceLaw,
}

impl PieceData {
    /// The element over `N` DOFs, each anchor padded to `per_end` nodes
    /// (repeating its first node with weight 0); `None` if an end is on a
    /// rod.
    pub(super) fn element<const N: usize>(self, per_end: usize) -> Option<PieceEl<N>> {
        let (mut nodes, mut w) = (Vec::with_capacity(N / 3), Vec::with_capacity(N / 3));
        for (k, end) in self.ends.iter().enumerate() {
            let EndData::Terms(part) = end else {
                return None;
            };
            // The start's weights are stored negated: r = Σ w_k x_k.
            let sign = if k == 0 { -1.0 } else { 1.0 };
            for &(i, wi) in part {
                nodes.push(i);
                w.push(sign * wi);
            }
            for _ in part.len()..per_end {
                nodes.push(part[0].0);
                w.push(0.0);
            }
        }
        Some(PieceEl {
            nodes,
            w,
            law: self.law,
        })
    }

    /// The element of a set with anchors on rods (`anchors`): four node
    /// slots per end and the ends' twist angles. A node end reads no twist;
    /// its slot repeats the other end's, or `spare` (some rod anchor's
    /// twist DOF) when neither end is on a rod.
    pub(super) fn rod_element(self, anchors: &[RodAnchor], spare: usize) -> RodPieceEl {
        let mut nodes = [0; 8];
        let mut twists = [spare; 2];
        let ends: [End; 2] = std::array::from_fn(|k| match &self.ends[k] {
            EndData::Terms(part) => {
                let mut w = [0.0; 4];
                for j in 0..4 {
                    let (i, wj) = part.get(j).copied().unwrap_or((part[0].0, 0.0));
                    nodes[4 * k + j] = i;
                    w[j] = wj;
                }
                End::Linear(w)
            }
            &EndData::Rod(a) => {
                let an = &anchors[a];
                let [na, nb] = an.edge.nodes;
                nodes[4 * k..4 * k + 4].copy_from_slice(&[na, nb, nb, nb]);
                twists[k] = an.edge.twist;
                End::Rod {
                    anchor: a,
                    s: an.s,
                    r: an.r,
                    theta0: an.theta0,
                    frame: an.frame,
                }
            }
        });
        // A node end reads no twist: give it the other end's.
        for k in 0..2 {
            if matches!(self.ends[k], EndData::Terms(_))
                && let EndData::Rod(a) = self.ends[1 - k]
            {
                twists[k] = anchors[a].edge.twist;
            }
        }
        RodPieceEl {
            nodes,
            twists,
            ends,
            law: self.law,
        }
    }
}

/// A node's or material point's `(node, weight)` terms, checked: one to
/// four distinct nodes, finite weights summing to 1 (an anchor on a rod is
/// bound by [`RodAnchor::bind`] instead, and refused here).
pub(super) fn resolve(
    anchor: &Anchor,
    at: &str,
) -> std::result::Result<Vec<(usize, f64)>, PneumaticError> {
    match anchor {
        Anchor::Node(i) => Ok(vec![(*i, 1.0)]),
        Anchor::Rod { .. } => Err(PneumaticError::Inconsistent {
            field: at.into(),
            problem: "a point on a rod has no node weights".into(),
        }),
        Anchor::Point { nodes, weights } => {
            let bad = |problem: String| PneumaticError::Inconsistent {
                field: at.into(),
                problem,
            };
            if nodes.is_empty() || nodes.len() > 4 || nodes.len() != weights.len() {
                return Err(bad(format!(
                    "a material point needs one to four nodes with one weight each, found {} nodes and {} weights",
                    nodes.len(),
                    weights.len()
                )));
            }
            let sum: f64 = weights.iter().sum();
            if weights.iter().any(|w| !w.is_finite()) || (sum - 1.0).abs() > 1e-9 {
                return Err(bad(format!(
                    "weights {weights:?} must be finite and sum to 1 (sum {sum})"
                )));
            }
            if (1..nodes.len()).any(|k| nodes[..k].contains(&nodes[k])) {
                return Err(bad(format!("nodes {nodes:?} repeat a node")));
            }
            Ok(nodes.iter().copied().zip(weights.iter().copied()).collect())
        }
    }
}
