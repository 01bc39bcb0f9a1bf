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

mod on_rod;
mod piece;
use on_rod::{PER_ANCHOR, RodAnchor, RodPieceEl};
use piece::{EndData, Piece, PieceData, PieceEl, PieceLaw, Work, resolve};
use pliant_core::geometry::{CellKind, Cells, Field, Point, Shape};
use pliant_core::quantity::{Bound, Quantity};
use pliant_core::vec3::{norm, sub};
use pliant_core::{
    BindInfo, CarriedTransition, CoreError, ElementSet, Elements, Energy, EnergySpec, EvalState,
    Result,
};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

fn default_extension() -> f64 {
    0.6
}
fn default_contraction() -> f64 {
    0.3
}

/// Where a muscle is attached: a node; a material point of a body —
/// `Σ w_k x_k` over up to four nodes, e.g. the barycentric coordinates of a
/// point inside a tetrahedron (weights sum to 1, so the point moves with
/// the body); or a point of a rod's cross-section, which moves and turns
/// with it (`on_rod`). In a scene: `3`,
/// `{"nodes": [3, 4, 5, 6], "weights": [0.25, 0.25, 0.25, 0.25]}` or
/// `{"rod": "spine", "edge": 4, "at": [0.1, 0.0125, 0.0]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
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
    /// A point of a rod edge's cross-section.
    Rod {
        /// The rod's name (its `name` in the scene).
        rod: String,
        /// The edge, in the rod's edge order.
        edge: usize,
        /// Where the point is in the initial state, m: on the edge's
        /// cross-section, between the planes through its two nodes.
        at: [f64; 3],
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
    /// Anchors along the muscle, at least two: nodes, material points of
    /// a body or points on a rod's surface ([`Anchor`]).
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

/// The pieces of a muscle set, node-anchored (6 DOFs each) or with
/// material-point anchors (24).
#[derive(Debug)]
enum Pieces {
    Nodes(Elements<PieceEl<6>>),
    Points(Elements<PieceEl<24>>),
    /// Some anchor is on a rod: every piece over 26 DOFs.
    Rods(Elements<RodPieceEl>),
}

/// Bound muscles: their pieces and, per muscle, the range of its pieces.
#[derive(Debug)]
struct MuscleSet {
    pieces: Pieces,
    names: Vec<String>,
    ranges: Vec<std::ops::Range<usize>>,
    slots: Vec<Option<usize>>,
    /// The anchors on rods, with their lagged frames (the carried state).
    anchors: Vec<RodAnchor>,
}

impl MuscleSet {
    /// Copies the anchors' frames into the elements.
    fn push_frames(&mut self) {
        if let Pieces::Rods(set) = &mut self.pieces {
            for el in set.items_mut() {
                el.set_frames(&self.anchors);
            }
        }
    }
}

/// Per piece `(length, force per unit pressure)` and the piece's
/// pressure law, for observables.
fn piece_lengths<E: Piece>(set: &Elements<E>, s: &EvalState) -> Vec<(f64, f64, Bound)> {
    set.items()
        .iter()
        .enumerate()
        .map(|(i, el)| {
            let (a, b) = el.ends_at(&set.stencil_values(i, s.q));
            let l = norm(&sub(&b, &a));
            let law = el.law();
            (l, law.work.d(l, law.rest).1, law.pressure.clone())
        })
        .collect()
}

/// Every piece as a segment between its anchors.
fn piece_segments<E: Piece>(set: &Elements<E>, s: &EvalState) -> Vec<Point> {
    (0..set.len())
        .flat_map(|i| {
            let (a, b) = set.items()[i].ends_at(&set.stencil_values(i, s.q));
            [Point::At(a), Point::At(b)]
        })
        .collect()
}

impl Energy for MuscleSet {
    fn elements(&self) -> &dyn ElementSet {
        match &self.pieces {
            Pieces::Nodes(e) => e,
            Pieces::Points(e) => e,
            Pieces::Rods(e) => e,
        }
    }
    /// Per muscle: `name.length` (m, over all its pieces), `name.pressure`
    /// (Pa) and `name.force` (N, the axial force `p W'` of the pressure).
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let pieces = match &self.pieces {
            Pieces::Nodes(e) => piece_lengths(e, s),
            Pieces::Points(e) => piece_lengths(e, s),
            Pieces::Rods(e) => piece_lengths(e, s),
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
            Pieces::Rods(e) => (piece_lengths(e, s), piece_segments(e, s)),
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

    /// Anchors on rods move their frames to the tangents of `q_prev`, as
    /// the rod does (see `on_rod`); a second call changes nothing.
    fn begin_step(&mut self, q_prev: &[f64], _p: &[f64], _dt: f64, _t: f64) {
        if self.anchors.is_empty() {
            return;
        }
        for a in &mut self.anchors {
            a.transport_to(q_prev);
        }
        self.push_frames();
    }

    /// Per anchor on a rod its frame's tangent and director (6 values).
    fn carried_state(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(PER_ANCHOR * self.anchors.len());
        for a in &self.anchors {
            out.extend_from_slice(&a.frame.tangent);
            out.extend_from_slice(&a.frame.director);
        }
        out
    }

    fn restore_carried_state(&mut self, snapshot: &[f64]) -> Result<()> {
        let expected = PER_ANCHOR * self.anchors.len();
        if snapshot.len() != expected {
            return Err(CoreError::Length {
                what: "muscle anchor frame snapshot",
                found: snapshot.len(),
                expected,
            });
        }
        if let Some(i) = snapshot.iter().position(|v| !v.is_finite()) {
            return Err(CoreError::NonFinite {
                what: "muscle anchor frame snapshot".into(),
                index: i,
                value: snapshot[i],
            });
        }
        for (a, c) in self
            .anchors
            .iter_mut()
            .zip(snapshot.chunks_exact(PER_ANCHOR))
        {
            a.frame.tangent.copy_from_slice(&c[..3]);
            a.frame.director.copy_from_slice(&c[3..]);
        }
        self.push_frames();
        Ok(())
    }

    /// Frames for a run from `q`: the binding-time frames moved to its
    /// tangents as the rod moves its own, so both stay at their angle.
    fn reset(&mut self, q: &[f64]) {
        if self.anchors.is_empty() {
            return;
        }
        for a in &mut self.anchors {
            a.reset_to(q);
        }
        self.push_frames();
    }

    fn carried_transition(&self, q_prev: &[f64], _p: &[f64]) -> Option<CarriedTransition> {
        if self.anchors.is_empty() {
            return None;
        }
        let mut tr = CarriedTransition {
            len: PER_ANCHOR * self.anchors.len(),
            ..Default::default()
        };
        for (k, a) in self.anchors.iter().enumerate() {
            let (dq, dc) = a.transition(q_prev, PER_ANCHOR * k);
            tr.dq.extend(dq);
            tr.dc.extend(dc);
        }
        Some(tr)
    }

    /// `∂²E/∂x∂c` of the pieces with an end on a rod.
    fn carried_block(&self, s: &EvalState) -> Vec<(usize, usize, f64)> {
        let Pieces::Rods(set) = &self.pieces else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut dofs = [0usize; on_rod::N];
        for i in 0..set.len() {
            let block = set.with_local(i, s, |e, l| e.frame_block(l));
            if block.is_empty() {
                continue;
            }
            set.dofs(i, &mut dofs);
            for (slot, anchor, comp, v) in block {
                out.push((dofs[slot], PER_ANCHOR * anchor + comp, v));
            }
        }
        out
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
        let mut rod_anchors: Vec<RodAnchor> = Vec::new();
        for (m, muscle) in self.muscles.iter().enumerate() {
            let at = format!("muscles[{m}]");
            if muscle.nodes.len() < 2 {
                return Err(PneumaticError::Inconsistent {
                    field: format!("{at}.nodes"),
                    problem: format!(
                        "a muscle needs at least two anchors, found {}",
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
            let mut anchors: Vec<EndData> = Vec::with_capacity(muscle.nodes.len());
            let mut pts = Vec::with_capacity(muscle.nodes.len());
            for (q, anchor) in muscle.nodes.iter().enumerate() {
                let where_ = format!("{at}.nodes[{q}]");
                if let Anchor::Rod { rod, edge, at } = anchor {
                    let a = RodAnchor::bind(rod, *edge, *at, info, &where_)?;
                    pts.push(a.position(info.q0));
                    anchors.push(EndData::Rod(rod_anchors.len()));
                    rod_anchors.push(a);
                    continue;
                }
                let terms = resolve(anchor, &where_)?;
                let mut x = [0.0; 3];
                for &(i, w) in &terms {
                    let xi = info.node_position(i, &where_)?;
                    (0..3).for_each(|a| x[a] += w * xi[a]);
                }
                embedded |= terms.len() > 1;
                anchors.push(EndData::Terms(terms));
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
                items.push(PieceData {
                    ends: [anchors[j].clone(), anchors[j + 1].clone()],
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
        fn nodes_only<const N: usize>(
            items: Vec<PieceData>,
            per_end: usize,
        ) -> std::result::Result<Vec<PieceEl<N>>, PneumaticError> {
            items
                .into_iter()
                .map(|p| p.element(per_end))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| PneumaticError::Inconsistent {
                    field: "muscles".into(),
                    problem: "a piece on a rod in a set bound without rods".into(),
                })
        }
        let pieces = if let Some(first) = rod_anchors.first() {
            let spare = first.edge.twist;
            Pieces::Rods(Elements::bind(
                items
                    .into_iter()
                    .map(|p| p.rod_element(&rod_anchors, spare))
                    .collect(),
                info,
                "muscles",
            )?)
        } else if embedded {
            Pieces::Points(Elements::bind(nodes_only(items, 4)?, info, "muscles")?)
        } else {
            Pieces::Nodes(Elements::bind(nodes_only(items, 1)?, info, "muscles")?)
        };
        Ok(Box::new(MuscleSet {
            pieces,
            names,
            ranges,
            slots,
            anchors: rod_anchors,
        }))
    }
}

pliant_core::register_energy!(
    PneumaticMuscles = "pneumatic_muscle",
    "McKibben pneumatic muscles through chains of anchors (a node, {\"nodes\", \"weights\"} a material point of a body, or {\"rod\", \"edge\", \"at\"} a point on a rod's surface that turns with its cross-section): axial stiffness K (N/m) and damping D (N·s/m) per muscle, pressure p (Pa, number or channel) acting as p·A (model `linear`) or through the braid law (model `mc_kibben`), with extension and contraction guards",
    r#"{"type": "pneumatic_muscle", "muscles": [{"nodes": [0, 1], "pressure": 3e5}], "stiffness": 1900.0, "damping": 90.0, "model": {"model": "linear", "area": 3.5625e-4}}"#
);
