//! McKibben pneumatic muscle actuators (PMAs), scene type
//! `"pneumatic_muscle"` (Arachchige et al. 2023, §II-A and §IV-A).
//!
//! A muscle runs through a chain of anchor nodes (two or more: a PMA held
//! by intermediate constrainer plates is one muscle through all of them).
//! Each piece between consecutive anchors, of rest length `L_i` and current
//! length `l`, stores
//!
//! `E = K_i/2 (l − L_i)² − p W(l) + D_i/(2h) (l − l_prev)² + k_g [Q(l − l_max) + Q(l_min − l)]` (J)
//!
//! - `K_i = K L/L_i`, `D_i = D L/L_i`: the muscle's axial stiffness `K`
//!   (N/m) and damping `D` (N·s/m) over its whole rest length `L`, split
//!   into pieces in series (paper §IV-A: `K = 1900 N/m`, `D = 90 N·s/m`);
//!   the damping is a dissipation potential, force `D_i l̇`;
//! - `p` the gauge pressure (Pa, a number or a control channel);
//! - `W(l)` the pressure's work per unit pressure (m³):
//!   - [`MuscleModel::Linear`] (the paper's force input `τ = p A`, eq. 5):
//!     `W = A (l − L_i)`, a constant effective area `A` (m²);
//!   - [`MuscleModel::McKibben`] (the classic braid law): the muscle is a
//!     cylinder wound by a braid of fibre length `b` making `n` turns, so
//!     `V(l) = l (b² − l²)/(4π n²)` and `W = V(l) − V(L_i)`; the axial
//!     force `p V'(l) = p (b² − 3l²)/(4π n²)` extends the muscle when the
//!     braid angle exceeds 54.7° (extension mode) and contracts it below;
//! - a length guard: the one-sided C² quadratic `Q` ([`pliant_core::penalty`])
//!   with stiffness `k_g` (default `100 K_i`) beyond the extension and
//!   contraction limits (braid locked, tube crushed); for the braid law the
//!   extension limit is at most 98 % of the locked length `b`, where the
//!   law ends.

use crate::error::{PneumaticError, non_negative, positive};
use crate::muscle_model::MuscleModel;
use pliant_core::geometry::{CellKind, Cells, Field, Point, Shape};
use pliant_core::penalty::{one_sided_quadratic, one_sided_quadratic_d};
use pliant_core::quantity::{Bound, Quantity};
use pliant_core::vec3::{norm, sub};
use pliant_core::{
    BindInfo, Ctx, Element, ElementSet, Elements, Energy, EnergySpec, EvalState, Local, Result,
    Scalar, Stencil,
};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

fn default_extension() -> f64 {
    0.6
}
fn default_contraction() -> f64 {
    0.3
}

/// Where a muscle is attached: a node, or a material point of a body —
/// `Σ w_k x_k` over up to four nodes, e.g. the barycentric coordinates of a
/// point inside a tetrahedron (weights sum to 1, so the point moves with
/// the body). In a scene: `3` or `{"nodes": [3, 4, 5, 6], "weights": [0.25, 0.25, 0.25, 0.25]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Anchor {
    /// A node.
    Node(usize),
    /// A material point: nodes and their weights.
    Point {
        /// One to four nodes.
        nodes: Vec<usize>,
        /// Their weights (summing to 1).
        weights: Vec<f64>,
    },
}

impl From<usize> for Anchor {
    fn from(n: usize) -> Self {
        Anchor::Node(n)
    }
}

/// One muscle as written in a scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Muscle {
    /// Name for observables (`name.length`, `name.force`); default `pma{i}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Anchors along the muscle, at least two: nodes or material points.
    pub nodes: Vec<Anchor>,
    /// Gauge pressure, Pa (a number or a channel).
    pub pressure: Quantity,
}

/// A set of pneumatic muscles sharing one design (scene type
/// `"pneumatic_muscle"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PneumaticMuscles {
    /// The muscles.
    pub muscles: Vec<Muscle>,
    /// Axial stiffness `K` of a whole muscle, N/m.
    pub stiffness: f64,
    /// Axial damping `D` of a whole muscle, N·s/m.
    #[serde(default)]
    pub damping: f64,
    /// Pressure law.
    pub model: MuscleModel,
    /// Largest extension as a fraction of the rest length (default 0.6).
    #[serde(default = "default_extension")]
    pub max_extension: f64,
    /// Largest contraction as a fraction of the rest length (default 0.3).
    #[serde(default = "default_contraction")]
    pub max_contraction: f64,
    /// Guard stiffness of a whole muscle beyond the limits, N/m (default 100 K).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard_stiffness: Option<f64>,
}

impl PneumaticMuscles {
    /// Muscles of stiffness `stiffness` (N/m), damping `damping` (N·s/m)
    /// and pressure law `model`, with the default limits.
    pub fn new(muscles: Vec<Muscle>, stiffness: f64, damping: f64, model: MuscleModel) -> Self {
        Self {
            muscles,
            stiffness,
            damping,
            model,
            max_extension: default_extension(),
            max_contraction: default_contraction(),
            guard_stiffness: None,
        }
    }
}

/// The pressure law of one piece.
#[derive(Debug, Clone, Copy)]
enum Work {
    /// `W = A (l − L)`.
    Linear(f64),
    /// `V(l) = l (b² − l²)/(4πn²)`, with `V(L)`.
    Braid { b: f64, n: f64, v_rest: f64 },
}

impl Work {
    fn of<D: Scalar>(&self, l: D, rest: f64) -> D {
        match *self {
            Work::Linear(a) => (l - rest) * a,
            Work::Braid { b, n, v_rest } => l * (-l * l + b * b) / (4.0 * PI * n * n) - v_rest,
        }
    }
    /// `(W, W', W'')`.
    fn d(&self, l: f64, rest: f64) -> (f64, f64, f64) {
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
struct PieceEl<const N: usize> {
    nodes: Vec<usize>,
    w: Vec<f64>,
    law: PieceLaw,
}

/// What a piece stores besides its anchors.
#[derive(Debug, Clone)]
struct PieceLaw {
    pressure: Bound,
    rest: f64,
    k: f64,
    d: f64,
    work: Work,
    l_min: f64,
    l_max: f64,
    k_guard: f64,
    eps: f64,
}

impl PieceLaw {
    /// `(φ', φ'')` of the energy as a function of the length `l` (J/m,
    /// J/m²), the damping included with `l_prev`.
    fn dl(&self, l: f64, l_prev: f64, p: f64, h: f64) -> (f64, f64) {
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
    fn anchors(&self, x: &[f64]) -> ([f64; 3], [f64; 3]) {
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
    fn vector(&self, x: &[f64]) -> [f64; 3] {
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
        let u = l - self.law.rest;
        let dl = l - lp;
        u * u * (0.5 * self.law.k) - self.law.pressure.of(p) * self.law.work.of(l, self.law.rest)
            + dl * dl * (0.5 * self.law.d / c.h)
            + (one_sided_quadratic(l - self.law.l_max, self.law.eps)
                + one_sided_quadratic(-l + self.law.l_min, self.law.eps))
                * self.law.k_guard
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

/// The pieces of a muscle set, node-anchored (6 DOFs each) or with
/// material-point anchors (24).
#[derive(Debug)]
enum Pieces {
    Nodes(Elements<PieceEl<6>>),
    Points(Elements<PieceEl<24>>),
}

/// Bound muscles: their pieces and, per muscle, the range of its pieces.
#[derive(Debug)]
struct MuscleSet {
    pieces: Pieces,
    names: Vec<String>,
    ranges: Vec<std::ops::Range<usize>>,
    slots: Vec<Option<usize>>,
}

/// Per piece `(length, force per unit pressure)` and the first piece's
/// pressure law, for observables.
fn piece_lengths<const N: usize>(
    set: &Elements<PieceEl<N>>,
    s: &EvalState,
) -> Vec<(f64, f64, Bound)> {
    set.items()
        .iter()
        .enumerate()
        .map(|(i, el)| {
            let l = norm(&el.vector(&set.stencil_values(i, s.q)));
            (l, el.law.work.d(l, el.law.rest).1, el.law.pressure.clone())
        })
        .collect()
}

/// Every piece as a segment between its anchors.
fn piece_segments<const N: usize>(set: &Elements<PieceEl<N>>, s: &EvalState) -> Vec<Point> {
    (0..set.len())
        .flat_map(|i| {
            let (a, b) = set.items()[i].anchors(&set.stencil_values(i, s.q));
            [Point::At(a), Point::At(b)]
        })
        .collect()
}

impl Energy for MuscleSet {
    fn elements(&self) -> &dyn ElementSet {
        match &self.pieces {
            Pieces::Nodes(e) => e,
            Pieces::Points(e) => e,
        }
    }
    /// Per muscle: `name.length` (m, over all its pieces), `name.pressure`
    /// (Pa) and `name.force` (N, the axial force `p W'` of the pressure).
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let pieces = match &self.pieces {
            Pieces::Nodes(e) => piece_lengths(e, s),
            Pieces::Points(e) => piece_lengths(e, s),
        };
        let mut out = Vec::with_capacity(3 * self.names.len());
        for ((name, r), slot) in self.names.iter().zip(&self.ranges).zip(&self.slots) {
            let p = match (&pieces[r.start].2, slot) {
                (Bound::Constant(p), _) => *p,
                (_, Some(k)) => s.p[*k],
                _ => f64::NAN,
            };
            let len: f64 = pieces[r.clone()].iter().map(|x| x.0).sum();
            let force: f64 =
                pieces[r.clone()].iter().map(|x| p * x.1).sum::<f64>() / r.len() as f64;
            out.push((format!("{name}.length"), len));
            out.push((format!("{name}.pressure"), p));
            out.push((format!("{name}.force"), force));
        }
        out
    }
    /// The muscles' pieces as segments with their pressure force (N).
    fn geometry(&self, s: &EvalState) -> Vec<Shape> {
        let (pieces, points) = match &self.pieces {
            Pieces::Nodes(e) => (piece_lengths(e, s), piece_segments(e, s)),
            Pieces::Points(e) => (piece_lengths(e, s), piece_segments(e, s)),
        };
        let mut force = vec![f64::NAN; pieces.len()];
        for (r, slot) in self.ranges.iter().zip(&self.slots) {
            for i in r.clone() {
                let p = match (&pieces[i].2, slot) {
                    (Bound::Constant(p), _) => *p,
                    (_, Some(k)) => s.p[*k],
                    _ => f64::NAN,
                };
                force[i] = p * pieces[i].1;
            }
        }
        vec![Shape::Cells(Cells {
            name: "muscles".into(),
            kind: CellKind::Line,
            connectivity: (0..points.len()).collect(),
            points,
            fields: vec![Field::cells("force", "N", force)],
        })]
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// A piece before it is bound: its anchors' `(node, signed weight)`
/// terms (start negative) and its constants.
struct PieceData {
    ends: Vec<(usize, f64)>,
    /// How many of `ends` belong to the start anchor.
    split: usize,
    law: PieceLaw,
}

impl PieceData {
    /// The element over `N` DOFs, each anchor padded to `per_end` nodes
    /// (repeating its first node with weight 0).
    fn element<const N: usize>(self, per_end: usize) -> PieceEl<N> {
        let (mut nodes, mut w) = (Vec::with_capacity(N / 3), Vec::with_capacity(N / 3));
        for part in [&self.ends[..self.split], &self.ends[self.split..]] {
            for &(i, wi) in part {
                nodes.push(i);
                w.push(wi);
            }
            for _ in part.len()..per_end {
                nodes.push(part[0].0);
                w.push(0.0);
            }
        }
        PieceEl {
            nodes,
            w,
            law: self.law,
        }
    }
}

/// An anchor's `(node, weight)` terms, checked: one to four distinct
/// nodes, finite weights summing to 1.
fn resolve(anchor: &Anchor, at: &str) -> std::result::Result<Vec<(usize, f64)>, PneumaticError> {
    match anchor {
        Anchor::Node(i) => Ok(vec![(*i, 1.0)]),
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

impl EnergySpec for PneumaticMuscles {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        positive("stiffness", self.stiffness, "N/m")?;
        non_negative("damping", self.damping, "N·s/m")?;
        positive(
            "max_extension",
            self.max_extension,
            "fraction of the rest length",
        )?;
        if !(self.max_contraction > 0.0 && self.max_contraction < 1.0) {
            return Err(PneumaticError::field(
                "max_contraction",
                "in (0, 1) (fraction of the rest length)",
                self.max_contraction,
            )
            .into());
        }
        match self.model {
            MuscleModel::Linear { area } => positive("model.area", area, "m²")?,
            MuscleModel::McKibben {
                braid_angle,
                diameter,
            } => {
                positive("model.diameter", diameter, "m")?;
                if !(braid_angle > 0.0 && braid_angle < PI / 2.0) {
                    return Err(PneumaticError::field(
                        "model.braid_angle",
                        "in (0, π/2) rad",
                        braid_angle,
                    )
                    .into());
                }
            }
        }
        let k_guard_total = self.guard_stiffness.unwrap_or(100.0 * self.stiffness);
        positive("guard_stiffness", k_guard_total, "N/m")?;
        let (mut items, mut names, mut ranges, mut slots) = (vec![], vec![], vec![], vec![]);
        let mut embedded = false;
        for (m, muscle) in self.muscles.iter().enumerate() {
            let at = format!("muscles[{m}]");
            if muscle.nodes.len() < 2 {
                return Err(PneumaticError::Inconsistent {
                    field: format!("{at}.nodes"),
                    problem: format!(
                        "a muscle needs at least two anchor nodes, found {}",
                        muscle.nodes.len()
                    ),
                }
                .into());
            }
            let slot = match &muscle.pressure {
                Quantity::Channel(c) => Some(info.param(c, &format!("{at}.pressure"))?),
                Quantity::Value(_) => None,
            };
            let field = match &muscle.pressure {
                Quantity::Channel(c) => format!("{at}.pressure (channel `{c}`)"),
                Quantity::Value(_) => format!("{at}.pressure"),
            };
            let low = muscle.pressure.lowest(info).unwrap_or(0.0);
            if !low.is_finite() {
                return Err(PneumaticError::field(&field, "finite (Pa, gauge)", low).into());
            }
            if low < -crate::cavity::ATMOSPHERE {
                return Err(PneumaticError::BeyondVacuum {
                    field,
                    pressure: low,
                    ambient: crate::cavity::ATMOSPHERE,
                }
                .into());
            }
            let mut anchors: Vec<Vec<(usize, f64)>> = Vec::with_capacity(muscle.nodes.len());
            let mut pts = Vec::with_capacity(muscle.nodes.len());
            for (q, anchor) in muscle.nodes.iter().enumerate() {
                let where_ = format!("{at}.nodes[{q}]");
                let terms = resolve(anchor, &where_)?;
                let mut x = [0.0; 3];
                for &(i, w) in &terms {
                    let xi = info.node_position(i, &where_)?;
                    (0..3).for_each(|a| x[a] += w * xi[a]);
                }
                embedded |= terms.len() > 1;
                anchors.push(terms);
                pts.push(x);
            }
            let lens: Vec<f64> = pts.windows(2).map(|w| norm(&sub(&w[1], &w[0]))).collect();
            if let Some(j) = lens
                .iter()
                .position(|&l| l.is_nan() || l <= 1e-12 * (1.0 + lens.iter().sum::<f64>()))
            {
                return Err(PneumaticError::CoincidentAnchors {
                    muscle: m,
                    anchors: [j, j + 1],
                    length: lens[j],
                }
                .into());
            }
            let total: f64 = lens.iter().sum();
            let braid = self.model.braid(total);
            let start = items.len();
            for (j, &rest) in lens.iter().enumerate() {
                let s = total / rest;
                let work = match braid {
                    None => match self.model {
                        MuscleModel::Linear { area } => Work::Linear(area),
                        MuscleModel::McKibben { .. } => {
                            unreachable!("a McKibben model has a braid")
                        }
                    },
                    Some((b, n)) => {
                        let (b, n) = (b / s, n / s);
                        Work::Braid {
                            b,
                            n,
                            v_rest: rest * (b * b - rest * rest) / (4.0 * PI * n * n),
                        }
                    }
                };
                let mut ends: Vec<(usize, f64)> =
                    anchors[j].iter().map(|&(i, w)| (i, -w)).collect();
                ends.extend(anchors[j + 1].iter().copied());
                items.push(PieceData {
                    ends,
                    split: anchors[j].len(),
                    law: PieceLaw {
                        pressure: muscle.pressure.bound(),
                        rest,
                        k: self.stiffness * s,
                        d: self.damping * s,
                        work,
                        l_min: rest * (1.0 - self.max_contraction),
                        // The braid law holds below the locked length `b`
                        // (fibres straight along the axis): guard before it.
                        l_max: match work {
                            Work::Braid { b, .. } => {
                                (rest * (1.0 + self.max_extension)).min(0.98 * b)
                            }
                            Work::Linear(_) => rest * (1.0 + self.max_extension),
                        },
                        k_guard: k_guard_total * s,
                        eps: 0.01 * rest,
                    },
                });
            }
            ranges.push(start..items.len());
            names.push(muscle.name.clone().unwrap_or_else(|| format!("pma{m}")));
            slots.push(slot);
        }
        if items.is_empty() {
            return Err(PneumaticError::Inconsistent {
                field: "muscles".into(),
                problem: "no muscle given".into(),
            }
            .into());
        }
        let pieces = if embedded {
            Pieces::Points(Elements::bind(
                items.into_iter().map(|p| p.element::<24>(4)).collect(),
                info,
                "muscles",
            )?)
        } else {
            Pieces::Nodes(Elements::bind(
                items.into_iter().map(|p| p.element::<6>(1)).collect(),
                info,
                "muscles",
            )?)
        };
        Ok(Box::new(MuscleSet {
            pieces,
            names,
            ranges,
            slots,
        }))
    }
}

pliant_core::register_energy!(
    PneumaticMuscles = "pneumatic_muscle",
    "McKibben pneumatic muscles through chains of anchor nodes: axial stiffness K (N/m) and damping D (N·s/m) per muscle, pressure p (Pa, number or channel) acting as p·A (model `linear`) or through the braid law (model `mc_kibben`), with extension and contraction guards",
    r#"{"type": "pneumatic_muscle", "muscles": [{"nodes": [0, 1], "pressure": 3e5}], "stiffness": 1900.0, "damping": 90.0, "model": {"model": "linear", "area": 3.5625e-4}}"#
);
