//! Contact between the membranes of different cells (scene type
//! `"cell_contact"`, 2-D models): node–segment pairs with a smooth
//! penalty and Coulomb friction.
//!
//! For a node `p` of one membrane and a segment `a–b` of another, `d` is
//! their distance (the closest point `q = a + t (b − a)`, `t ∈ [0, 1]`).
//! With membrane thickness `w` (m) the pair stores
//!
//! `E = k (ln(1 + e^{K (w − d)})/K)² + h μ N̄ Φ(|u|/h)`, `K = 15/δ`,
//!
//! - the log-exp penalty of MAT-DiSMech (eq. 25; `k` in N/m, acting within
//!   about `δ` of contact). It is C² and grows quadratically inside
//!   `d < w`, so with `k` large enough membranes stay at least a fraction
//!   of `w` apart and never cross (the tests check the gap stays positive);
//! - friction as a dissipation potential with the contact lagged on the
//!   previous state: `N̄ = k |∂/∂d (ln(1 + e^{K(w − d)})/K)²|` the previous
//!   normal force (N), `t̄` and the tangent `τ̄` of the previous closest
//!   point, `u = τ̄ · (Δp − (1 − t̄) Δa − t̄ Δb)` the tangential slip over
//!   the step (`Δ = x − x_prev`), `Φ' = tanh(K₂ s/2)` with `K₂ = 15/ν`
//!   ([`pliant_core::penalty::coulomb_potential`]): the force is
//!   `μ N̄` while sliding faster than the slip velocity `ν` (m/s).
//!
//! A node that has crossed a segment — it lies behind it (on the inner
//! side of the counter-clockwise membrane) within one segment length, its
//! closest point inside the segment (one segment length, at most the
//! membrane's area over its perimeter, so the strip never reaches through
//! a thin membrane) — makes the energy `+∞`: Newton's line
//! search then refuses the step that would push it through, so a membrane
//! cannot be tunnelled through within a step as long as no node moves
//! further than a segment length plus the band in one Newton update.
//!
//! A node touching the shared end of two segments is counted by both
//! (as in IPC's 2-D point–edge sums); with `δ` small against the segment
//! length the extra stiffness is confined to the corners. Self-contact of
//! one membrane is not modelled: its internal pressure keeps a cell from
//! folding onto itself in the paper's set-ups.
//!
//! Candidate pairs come from a grid broad phase ([`crate::grid`]) at the
//! start of every step: pairs closer than the contact band plus a margin,
//! pair by pair the thickness `w` plus three times how far the node and
//! the segment closed in on each other over the last step, at most
//! ([`crate::approach`]: the difference of their membranes' mean
//! displacements plus the nodes' deviations from them), so a stack that
//! falls or slides as a whole keeps a tight margin. The element set is rebuilt — a
//! new [`Energy::structure_version`] — only when a pair within that margin
//! is missing from it, and then with [`REBUILD_MARGIN`] times the margin, so a settling pile
//! does not rebuild its sparsity pattern every step. A pair that enters
//! the band without being a candidate is logged at the end of the step.

use crate::approach::Approach;
use crate::error::{CellError, non_negative, positive};
use crate::grid::node_segment_pairs;
use crate::pair::{Law, PairEl, closest};
use pliant_core::{
    BindInfo, CoreError, ElementSet, Elements, Energy, EnergySpec, EvalState, Layout, Result,
};
use serde::{Deserialize, Serialize};

/// A rebuilt candidate set takes the pairs within this many times their
/// search margin, so that it covers the next steps too. Larger factors
/// rebuild the sparsity pattern less often but carry more pairs beyond
/// the contact band, each of which costs a (zero) element evaluation, its
/// place in the matrix and fill in the factor: on 100 stacked cells about
/// three candidates in four were beyond the band with twice the margin.
/// 1.5 took 6–12 % less time per step than 2 in three interleaved rounds
/// (`cargo run --release --example cells -- bench --ns 100`, 2026-11-29;
/// 25,599 instead of 32,904 candidates); 1 rebuilds at almost every step
/// and was slower.
pub(crate) const REBUILD_MARGIN: f64 = 1.5;

/// Coulomb friction between membranes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MembraneFriction {
    /// Friction coefficient μ.
    pub mu: f64,
    /// Slip velocity ν, m/s: `K₂ = 15/ν`.
    pub slip_velocity: f64,
}

/// Membrane–membrane contact (scene type `"cell_contact"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellContact {
    /// The membranes: closed rings of nodes (counter-clockwise). Nodes of
    /// one ring never touch segments of the same ring.
    pub membranes: Vec<Vec<usize>>,
    /// Membrane thickness `w`, m: the distance kept between membranes.
    pub thickness: f64,
    /// Penalty stiffness `k`, N/m.
    pub stiffness: f64,
    /// Contact tolerance δ, m (default `w/2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<f64>,
    /// Optional Coulomb friction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<MembraneFriction>,
    /// Fixed search margin beyond the contact band, m; default, pair by
    /// pair, `w` plus three times how far node and segment closed in on
    /// each other over the previous step, at most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// Prefix of the observables `NAME.pairs` (pairs within `w + δ`) and
    /// `NAME.min_gap` (smallest `d − w`, m, capped at the band width);
    /// default `"cell_contact"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl CellContact {
    /// Frictionless contact of `membranes` of thickness `thickness` (m)
    /// with penalty stiffness `stiffness` (N/m).
    pub fn new(membranes: Vec<Vec<usize>>, thickness: f64, stiffness: f64) -> Self {
        Self {
            membranes,
            thickness,
            stiffness,
            delta: None,
            friction: None,
            margin: None,
            name: None,
        }
    }
    /// Adds Coulomb friction.
    pub fn with_friction(mut self, mu: f64, slip_velocity: f64) -> Self {
        self.friction = Some(MembraneFriction { mu, slip_velocity });
        self
    }
}

/// The bound membrane contact.
#[derive(Debug)]
pub struct CellContactEnergy {
    name: String,
    law: Law,
    delta: f64,
    margin: Option<f64>,
    layout: Layout,
    /// DOFs (x, y) of every membrane node, in membrane order.
    node_dofs: Vec<[usize; 2]>,
    /// Model node of every membrane node.
    node_ids: Vec<usize>,
    /// Membrane of every membrane node.
    owner: Vec<u32>,
    /// Segments as (membrane node, next membrane node) local indices.
    segments: Vec<[usize; 2]>,
    /// Per membrane: the crossing strip's depth, m (its longest rest
    /// segment, at most its area over its perimeter).
    strip: Vec<f64>,
    pairs: Vec<(usize, usize)>,
    set: Box<dyn Energy>,
    version: u64,
    /// How each membrane moved over the last step.
    approach: Approach,
    start_q: Vec<f64>,
    /// Wall time spent finding candidate pairs (broad phase), s.
    search_time: f64,
}

impl CellContactEnergy {
    /// Wall time this energy has spent in its broad phase (finding
    /// candidate pairs at the start and checking for missed pairs at the
    /// end of every step), s — for benchmarks.
    pub fn search_time(&self) -> f64 {
        self.search_time
    }

    /// The current candidate pairs `(membrane node, segment)` (local
    /// indices: membrane nodes in the order the membranes list them).
    pub fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    fn points(&self, q: &[f64]) -> Vec<[f64; 2]> {
        self.node_dofs.iter().map(|d| [q[d[0]], q[d[1]]]).collect()
    }

    /// Pairs whose node lies within `reach` of its segment's bounding box
    /// (a superset of the pairs closer than `reach`), for node positions
    /// `pts`.
    fn candidates(&self, pts: &[[f64; 2]], reach: f64) -> Vec<(usize, usize)> {
        let segs: Vec<_> = self
            .segments
            .iter()
            .map(|&[a, b]| (pts[a], pts[b]))
            .collect();
        node_segment_pairs(pts, &segs, reach, |n, s| {
            self.owner[n] == self.owner[self.segments[s][0]]
        })
    }

    /// The search margin of pair `(n, s)`, m: the fixed `margin`, or `w`
    /// plus three times how far node and segment closed in over the last
    /// step.
    fn margin_of(&self, (n, s): (usize, usize)) -> f64 {
        self.margin.unwrap_or_else(|| {
            let [a, b] = self.segments[s];
            self.law.w + 3.0 * self.approach.between(n, a, b)
        })
    }

    /// The pairs closer than the contact band plus `factor` times their
    /// margin at node positions `pts`; sorted.
    fn within_margin(&self, pts: &[[f64; 2]], factor: f64) -> Vec<(usize, usize)> {
        let largest = self
            .margin
            .unwrap_or(self.law.w + 3.0 * self.approach.largest());
        let mut pairs = self.candidates(pts, self.law.cutoff + factor * largest);
        pairs.retain(|&p| self.distance(pts, p) < self.law.cutoff + factor * self.margin_of(p));
        pairs
    }

    fn build_set(&self, pairs: &[(usize, usize)]) -> Result<Box<dyn Energy>> {
        let nodes = |&(n, s): &(usize, usize)| {
            let [a, b] = self.segments[s];
            [self.node_ids[n], self.node_ids[a], self.node_ids[b]]
        };
        let (law, n) = (self.law, self.start_q.len());
        Ok(if law.mu > 0.0 {
            let items = pairs.iter().map(|p| PairEl::<true> {
                nodes: nodes(p),
                law,
                strip: self.strip[self.owner[self.segments[p.1][0]] as usize],
            });
            Box::new(Elements::bind_to(
                items.collect(),
                &self.layout,
                n,
                "pairs",
            )?)
        } else {
            let items = pairs.iter().map(|p| PairEl::<false> {
                nodes: nodes(p),
                law,
                strip: self.strip[self.owner[self.segments[p.1][0]] as usize],
            });
            Box::new(Elements::bind_to(
                items.collect(),
                &self.layout,
                n,
                "pairs",
            )?)
        })
    }

    fn set_pairs(&mut self, pairs: Vec<(usize, usize)>) {
        match self.build_set(&pairs) {
            Ok(set) => {
                self.set = set;
                self.pairs = pairs;
                self.version += 1;
            }
            Err(e) => log::error!("{}: could not rebuild the contact pairs: {e}", self.name),
        }
    }

    fn distance(&self, pts: &[[f64; 2]], (n, s): (usize, usize)) -> f64 {
        let [a, b] = self.segments[s];
        closest(pts[n], pts[a], pts[b], 0.0).2
    }
}

impl EnergySpec for CellContact {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        info.require_dim("cell_contact", 2)?;
        positive("thickness", self.thickness, "m")?;
        positive("stiffness", self.stiffness, "N/m")?;
        let delta = self.delta.unwrap_or(0.5 * self.thickness);
        positive("delta", delta, "m")?;
        let (mu, k2) = match self.friction {
            None => (0.0, 0.0),
            Some(f) => {
                non_negative("friction.mu", f.mu, "dimensionless")?;
                positive("friction.slip_velocity", f.slip_velocity, "m/s")?;
                (f.mu, 15.0 / f.slip_velocity)
            }
        };
        if let Some(m) = self.margin {
            non_negative("margin", m, "m")?;
        }
        let count = info.layout.n_nodes();
        let (mut node_dofs, mut node_ids, mut owner, mut segments, mut strip) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (mi, ring) in self.membranes.iter().enumerate() {
            if ring.len() < 3 {
                return Err(CellError::TooFewNodes {
                    cell: mi,
                    found: ring.len(),
                }
                .into());
            }
            let first = node_ids.len();
            for (k, &node) in ring.iter().enumerate() {
                let base =
                    *info
                        .layout
                        .node_base()
                        .get(node)
                        .ok_or_else(|| CellError::MissingNode {
                            what: format!("membranes[{mi}][{k}]"),
                            node,
                            count,
                        })?;
                node_dofs.push([base, base + 1]);
                node_ids.push(node);
                owner.push(mi as u32);
                segments.push([first + k, first + (k + 1) % ring.len()]);
            }
            let pts: Vec<[f64; 2]> = node_dofs[first..]
                .iter()
                .map(|d| [info.q0[d[0]], info.q0[d[1]]])
                .collect();
            crate::ring::check_ring(mi, &pts)?;
            let lengths: Vec<f64> = (0..pts.len())
                .map(|k| {
                    let (a, b) = (pts[k], pts[(k + 1) % pts.len()]);
                    (b[0] - a[0]).hypot(b[1] - a[1])
                })
                .collect();
            let longest = lengths.iter().copied().fold(0.0, f64::max);
            // Area over perimeter: half the inradius of a round membrane,
            // about half the thickness of a thin one — the strip must not
            // reach through a thin membrane to its other side.
            let depth = crate::ring::polygon_area(&pts) / lengths.iter().sum::<f64>();
            strip.push(longest.min(depth));
        }
        let k1 = 15.0 / delta;
        let law = Law {
            w: self.thickness,
            k1,
            k: self.stiffness,
            mu,
            k2,
            cutoff: self.thickness + 40.0 / k1,
            eps: 1e-9 * self.thickness,
        };
        let approach = Approach::new(owner.clone(), self.membranes.len());
        let mut energy = CellContactEnergy {
            name: self.name.clone().unwrap_or_else(|| "cell_contact".into()),
            law,
            delta,
            margin: self.margin,
            layout: info.layout.clone(),
            node_dofs,
            node_ids,
            owner,
            segments,
            strip,
            pairs: Vec::new(),
            set: Box::new(Elements::<PairEl<false>>::bind(vec![], info, "pairs")?),
            version: 0,
            approach,
            start_q: info.q0.to_vec(),
            search_time: 0.0,
        };
        let pairs = energy.within_margin(&energy.points(info.q0), 1.0);
        energy.set = energy.build_set(&pairs)?;
        energy.pairs = pairs;
        Ok(Box::new(energy))
    }
    fn label(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

impl Energy for CellContactEnergy {
    fn elements(&self) -> &dyn ElementSet {
        self.set.elements()
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
    fn begin_step(&mut self, q_prev: &[f64], _p: &[f64], _dt: f64, _t: f64) {
        let clock = std::time::Instant::now();
        self.start_q.copy_from_slice(q_prev);
        let pts = self.points(q_prev);
        let needed = self.within_margin(&pts, 1.0);
        let covered = needed.iter().all(|p| self.pairs.binary_search(p).is_ok());
        if !covered {
            let pairs = self.within_margin(&pts, REBUILD_MARGIN);
            self.set_pairs(pairs);
        }
        self.search_time += clock.elapsed().as_secs_f64();
    }
    fn end_step(&mut self, q: &[f64], _p: &[f64]) {
        let clock = std::time::Instant::now();
        let pts = self.points(q);
        self.approach.record(&self.points(&self.start_q), &pts);
        for p in self.candidates(&pts, self.law.cutoff) {
            if self.pairs.binary_search(&p).is_err() && self.distance(&pts, p) < self.law.cutoff {
                log::warn!(
                    "{}: membrane node {} came within the contact band of segment {} without being a candidate; set a larger `margin`",
                    self.name,
                    self.node_ids[p.0],
                    p.1
                );
            }
        }
        self.search_time += clock.elapsed().as_secs_f64();
    }
    fn structure_version(&self) -> u64 {
        self.version
    }
    fn carried_state(&self) -> Vec<f64> {
        self.approach.to_vec()
    }
    fn restore_carried_state(&mut self, snapshot: &[f64]) -> Result<()> {
        if self.approach.restore(snapshot) {
            Ok(())
        } else {
            Err(CoreError::Length {
                what: "cell_contact carried state (finite values)",
                found: snapshot.len(),
                expected: self.approach.len(),
            })
        }
    }
    fn reset(&mut self, _q: &[f64]) {
        self.approach.reset();
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let pts = self.points(s.q);
        let band = self.law.cutoff - self.law.w;
        let mut min_gap = band;
        let mut touching = 0;
        for &p in &self.pairs {
            let d = self.distance(&pts, p);
            min_gap = min_gap.min(d - self.law.w);
            if d < self.law.w + self.delta {
                touching += 1;
            }
        }
        vec![
            (format!("{}.pairs", self.name), touching as f64),
            (format!("{}.min_gap", self.name), min_gap),
        ]
    }
}

pliant_core::register_energy!(
    CellContact = "cell_contact",
    "membrane–membrane contact between cells (2-D): node–segment log-exp penalty of `stiffness` k (N/m) keeping membranes `thickness` w (m) apart, tolerance `delta` (m), optional Coulomb `friction` {mu, slip_velocity}",
    r#"{"type": "cell_contact", "membranes": [[0, 1, 2], [3, 4, 5]], "thickness": 0.002, "stiffness": 1000.0}"#
);
