//! Implicit rod–rod contact (IMC, MAT-DiSMech §4) with Coulomb friction.
//!
//! For every pair of non-adjacent edges whose shortest distance `Δ` (m,
//! Lumelsky's algorithm, [`crate::segment_distance`]) is near `2r₀`, the
//! contact energy (J) is
//!
//! `E = k_c (ln(1 + e^{K₁(2r₀ − Δ)})/K₁)²`, `K₁ = 15/δ`,
//!
//! with `k_c` in J/m². This is the middle branch of eq. 21 used everywhere:
//! eq. 21's outer branches are its asymptotes (`(2r₀ − Δ)²` deep inside,
//! `0` far away), and using the smooth form throughout keeps the energy
//! continuous and twice differentiable (eq. 21 switches branches with jumps
//! of order `e^{−15}`). Pairs beyond `Δ = 2r₀ + 40/K₁`, where the energy is
//! below `10⁻³⁴ k_c δ²`, are skipped.
//!
//! Friction (eq. 23) is a dissipation potential with the contact force and
//! the contact geometry lagged on the previous state (as for the ground):
//! `D = h μ N_{k−1} Φ(‖u_t‖)`, where `N_{k−1} = k_c |∂E/∂Δ|` at the previous
//! state, `u_t` is the tangential relative velocity (m/s) of the two closest
//! points (their parameters `s, t` and the normal taken at the previous
//! state), and `Φ' = tanh(K₂ ‖u‖/2) = γ` of eq. 23 with `K₂ = 15/ν`.
//!
//! Candidate pairs are collected at the start of every step by a hash-grid
//! broad phase ([`crate::broad_phase`]) within the contact band plus a
//! margin (`r₀` plus three times the largest node displacement of the
//! previous step, carried state so recomputed steps see the same pairs; a
//! pair that reaches the band without being a candidate is reported in the
//! log and joins at the next step); the energy then reports a new
//! [`Energy::structure_version`] so the simulator rebuilds its sparsity
//! pattern. Edges closer along the rod than `2r₀ + δ` at rest (in particular
//! edges sharing a node) never form pairs.

use crate::broad_phase::close_pairs;
use crate::log_exp::LogExpPenalty;
use crate::segment_distance::segment_closest;
use pliant_core::penalty::{coulomb_potential, log_exp, softplus};
use pliant_core::vec3::{dot, load, norm, sub};
use pliant_core::{
    BindInfo, CoreError, Ctx, Element, ElementSet, Elements, Energy, EnergySpec, EvalState,
    Invalid, Layout, Result, Scalar, Stencil,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

/// Coulomb friction between rods in contact (eq. 23).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactFriction {
    /// Friction coefficient μ (dimensionless).
    pub mu: f64,
    /// Slip velocity ν (m/s) beyond which the contact slides: `K₂ = 15/ν`.
    pub slip_velocity: f64,
}

/// Constants shared by every pair.
#[derive(Debug, Clone, Copy)]
struct Law {
    two_r0: f64,
    k1: f64,
    k: f64,
    mu: f64,
    k2: f64,
    /// Distance (m) beyond which a pair contributes nothing.
    cutoff: f64,
    /// Regularization of the distance at zero (m).
    eps: f64,
}

impl Law {
    fn distance<T: Scalar>(&self, x: &[T]) -> (T, T, T, [T; 3]) {
        let (a, b, c, d) = (load(x, 0), load(x, 3), load(x, 6), load(x, 9));
        let (s, t, d2) = segment_closest(&a, &b, &c, &d);
        let gap: [T; 3] =
            std::array::from_fn(|k| a[k] + (b[k] - a[k]) * s - c[k] - (d[k] - c[k]) * t);
        (s, t, (d2 + self.eps * self.eps).sqrt(), gap)
    }
    /// `|∂E/∂Δ|` (N): the normal contact force of the pair.
    fn normal_force<T: Scalar>(&self, delta: T) -> T {
        // d/dΔ (sp(z)/K)² with z = K(2r₀ − Δ): −2 sp(z) σ(z)/K.
        let z = (delta - self.two_r0) * (-self.k1);
        let sig = if z.re() >= 0.0 {
            ((-z).exp() + 1.0).recip()
        } else {
            z.exp() / (z.exp() + 1.0)
        };
        softplus(z) * sig * (2.0 * self.k / self.k1)
    }
}

/// One candidate pair: edge `a–b` and edge `c–d` (4 nodes, 12 DOFs);
/// `F`: with friction (history coupling).
#[derive(Debug, Clone)]
struct PairEl<const F: bool> {
    nodes: [usize; 4],
    law: Law,
}

impl<const F: bool> Element for PairEl<F> {
    type Size = Stencil<12>;
    const HISTORY: bool = F;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn energy<T: Scalar>(&self, x: &[T], xp: &[T], _: &[T], c: &Ctx) -> T {
        let law = &self.law;
        let (_, _, delta, _) = law.distance(x);
        let mut e = if delta.re() < law.cutoff {
            log_exp(delta - law.two_r0, law.k1) * law.k
        } else {
            T::from(0.0)
        };
        if !F {
            return e;
        }
        let (sp, tp, dp, gp) = law.distance(xp);
        if dp.re() >= law.cutoff {
            return e;
        }
        let n: [T; 3] = gp.map(|g| g / dp);
        let point = |y: &[T], s: T, t: T| -> [T; 3] {
            let (a, b, c, d) = (load(y, 0), load(y, 3), load(y, 6), load(y, 9));
            std::array::from_fn(|k| a[k] + (b[k] - a[k]) * s - c[k] - (d[k] - c[k]) * t)
        };
        let du = sub(&point(x, sp, tp), &point(xp, sp, tp));
        let un = dot(&du, &n);
        let dt: [T; 3] = std::array::from_fn(|k| du[k] - n[k] * un);
        let r = dot(&dt, &dt) / (c.h * c.h);
        e += law.normal_force(dp) * coulomb_potential(r, law.k2) * (c.h * law.mu);
        e
    }
}

/// Rod–rod self-contact and friction on a set of edges (3-D models), scene
/// type `"rod_contact"`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RodContact {
    /// Edges that can touch, as node pairs.
    pub edges: Vec<[usize; 2]>,
    /// Rod radius r₀ (m): edges touch when their distance is below 2r₀.
    pub radius: f64,
    /// Contact distance tolerance δ (m): `K₁ = 15/δ`.
    pub delta: f64,
    /// Contact stiffness k_c (J/m²).
    pub stiffness: f64,
    /// Friction between touching edges; none by default.
    #[serde(default)]
    pub friction: Option<ContactFriction>,
    /// Extra search distance (m) for the step-start broad phase; by default
    /// r₀ plus three times the largest node displacement of the previous step.
    #[serde(default)]
    pub margin: Option<f64>,
    /// Prefix of the observables: `NAME.pairs`, the number of edge pairs
    /// whose gap is below `delta` (touching), and `NAME.min_gap`, the smallest gap between
    /// two edges' surfaces (m), capped at the width of the contact band
    /// (the distance beyond `2 r₀` at which the contact force vanishes): a
    /// value equal to that width means no pair is in the band. Always
    /// finite.
    #[serde(default = "default_name")]
    pub name: String,
}

fn default_name() -> String {
    "rod_contact".into()
}

impl RodContact {
    /// Contact on `edges` of radius `radius` (m) with the log-exp `penalty`
    /// (stiffness in J/m², tolerance δ in m), frictionless.
    pub fn new(edges: Vec<[usize; 2]>, radius: f64, penalty: LogExpPenalty) -> Self {
        Self {
            edges,
            radius,
            delta: penalty.delta,
            stiffness: penalty.stiffness,
            friction: None,
            margin: None,
            name: default_name(),
        }
    }

    /// Adds Coulomb friction (eq. 23).
    pub fn with_friction(mut self, mu: f64, slip_velocity: f64) -> Self {
        self.friction = Some(ContactFriction { mu, slip_velocity });
        self
    }
}

/// The bound rod contact: its edges, the excluded (near-adjacent) pairs and
/// the current candidate pairs as an element set.
#[derive(Debug)]
pub struct RodContactEnergy {
    name: String,
    law: Law,
    delta: f64,
    margin: Option<f64>,
    radius: f64,
    layout: Layout,
    edges: Vec<[usize; 2]>,
    edge_dofs: Vec<[usize; 6]>,
    excluded: HashSet<(usize, usize)>,
    pairs: Vec<(usize, usize)>,
    set: Box<dyn Energy>,
    version: u64,
    /// Largest node displacement (m) of the last committed step (carried
    /// state: it sets the next step's search margin).
    last_move: f64,
    /// The current step's start state.
    start_q: Vec<f64>,
}

impl RodContactEnergy {
    /// The current candidate pairs (edge indices).
    pub fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    fn segments(&self, q: &[f64]) -> Vec<([f64; 3], [f64; 3])> {
        self.edge_dofs
            .iter()
            .map(|d| {
                (
                    std::array::from_fn(|k| q[d[k]]),
                    std::array::from_fn(|k| q[d[3 + k]]),
                )
            })
            .collect()
    }

    /// Candidate pairs within the contact band plus `margin` at state `q`.
    fn candidates(&self, q: &[f64], margin: f64) -> Vec<(usize, usize)> {
        close_pairs(&self.segments(q), self.law.cutoff + margin)
            .into_iter()
            .filter(|p| !self.excluded.contains(p))
            .collect()
    }

    fn build_set(&self, pairs: &[(usize, usize)]) -> Result<Box<dyn Energy>> {
        let nodes = |&(i, j): &(usize, usize)| {
            let (a, b) = (self.edges[i], self.edges[j]);
            [a[0], a[1], b[0], b[1]]
        };
        let (law, n) = (self.law, self.start_q.len());
        Ok(if law.mu > 0.0 {
            let items = pairs.iter().map(|p| PairEl::<true> {
                nodes: nodes(p),
                law,
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
            });
            Box::new(Elements::bind_to(
                items.collect(),
                &self.layout,
                n,
                "pairs",
            )?)
        })
    }

    /// Makes `pairs` the candidate set.
    fn set_pairs(&mut self, pairs: Vec<(usize, usize)>) {
        // The pairs' nodes were checked when the energy was bound.
        if let Ok(set) = self.build_set(&pairs) {
            self.set = set;
            self.pairs = pairs;
            self.version += 1;
        }
    }
}

/// Edge pairs closer than `reach` (m) along the rod network at rest.
fn excluded_pairs(edges: &[[usize; 2]], rest: &[f64], reach: f64) -> HashSet<(usize, usize)> {
    let mut at: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (e, &[a, b]) in edges.iter().enumerate() {
        at.entry(a).or_default().push(e);
        at.entry(b).or_default().push(e);
    }
    let mut out = HashSet::new();
    for (i, &[a, b]) in edges.iter().enumerate() {
        // Dijkstra-like sweep from both ends, limited to `reach`.
        let mut dist: BTreeMap<usize, f64> = BTreeMap::from([(a, 0.0), (b, 0.0)]);
        let mut front = vec![a, b];
        while let Some(n) = front.pop() {
            let dn = dist[&n];
            for &e in &at[&n] {
                if e > i {
                    out.insert((i, e));
                } else if e < i {
                    out.insert((e, i));
                }
                let [p, q] = edges[e];
                let m = if p == n { q } else { p };
                let dm = dn + rest[e];
                if dm < reach && dist.get(&m).is_none_or(|&d| dm < d) {
                    dist.insert(m, dm);
                    front.push(m);
                }
            }
        }
    }
    out
}

impl EnergySpec for RodContact {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        info.require_dim("rod_contact", 3)?;
        Invalid::positive("radius", self.radius, "m")?;
        Invalid::positive("delta", self.delta, "m")?;
        Invalid::positive("stiffness", self.stiffness, "J/m²")?;
        let (mu, k2) = match self.friction {
            None => (0.0, 0.0),
            Some(f) => {
                Invalid::non_negative("friction.mu", f.mu, "dimensionless")?;
                Invalid::positive("friction.slip_velocity", f.slip_velocity, "m/s")?;
                (f.mu, 15.0 / f.slip_velocity)
            }
        };
        if let Some(m) = self.margin {
            Invalid::non_negative("margin", m, "m")?;
        }
        let mut edge_dofs = Vec::with_capacity(self.edges.len());
        let mut rest = Vec::with_capacity(self.edges.len());
        for (e, &[a, b]) in self.edges.iter().enumerate() {
            let field = format!("edges[{e}]");
            let mut d = [0; 6];
            info.layout.node_dofs(a, &mut d[..3], &field)?;
            info.layout.node_dofs(b, &mut d[3..], &field)?;
            let l = norm(&sub(
                &info.node_position(b, &field)?,
                &info.node_position(a, &field)?,
            ));
            if l.is_nan() || l <= 0.0 {
                return Err(CoreError::degenerate(
                    field,
                    format!("nodes {a} and {b} coincide (zero-length edge)"),
                ));
            }
            edge_dofs.push(d);
            rest.push(l);
        }
        let k1 = 15.0 / self.delta;
        let law = Law {
            two_r0: 2.0 * self.radius,
            k1,
            k: self.stiffness,
            mu,
            k2,
            cutoff: 2.0 * self.radius + 40.0 / k1,
            eps: 1e-6 * self.radius,
        };
        let mut energy = RodContactEnergy {
            name: self.name.clone(),
            law,
            delta: self.delta,
            margin: self.margin,
            radius: self.radius,
            layout: info.layout.clone(),
            edges: self.edges.clone(),
            edge_dofs,
            excluded: excluded_pairs(&self.edges, &rest, 2.0 * self.radius + self.delta),
            pairs: Vec::new(),
            set: Box::new(Elements::<PairEl<false>>::bind(vec![], info, "pairs")?),
            version: 0,
            last_move: 0.0,
            start_q: info.q0.to_vec(),
        };
        let pairs = energy.candidates(info.q0, self.margin.unwrap_or(self.radius));
        energy.set = energy.build_set(&pairs)?;
        energy.pairs = pairs;
        Ok(Box::new(energy))
    }
    fn label(&self) -> Option<&str> {
        Some(&self.name)
    }
}

impl Energy for RodContactEnergy {
    fn elements(&self) -> &dyn ElementSet {
        self.set.elements()
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn begin_step(&mut self, q_prev: &[f64], _p: &[f64], _dt: f64, _t: f64) {
        let margin = self.margin.unwrap_or(self.radius + 3.0 * self.last_move);
        let pairs = self.candidates(q_prev, margin);
        self.start_q.copy_from_slice(q_prev);
        if pairs != self.pairs {
            self.set_pairs(pairs);
        }
    }

    fn end_step(&mut self, q: &[f64], _p: &[f64]) {
        let mut m: f64 = 0.0;
        for d in &self.edge_dofs {
            for node in [&d[..3], &d[3..]] {
                let s: f64 = node.iter().map(|&i| (q[i] - self.start_q[i]).powi(2)).sum();
                m = m.max(s.sqrt());
            }
        }
        self.last_move = m;
        // A pair that reached the contact band without being a candidate
        // was missed this step: say so (the next step will include it).
        let segs = self.segments(q);
        for p in self.candidates(q, 0.0) {
            if self.pairs.binary_search(&p).is_err() {
                let (s0, s1) = (&segs[p.0], &segs[p.1]);
                let d = crate::segment_distance::segment_distance(&s0.0, &s0.1, &s1.0, &s1.1);
                if d < self.law.cutoff {
                    log::warn!(
                        "{}: edges {} and {} came within {d:.3e} m without being a contact candidate; set a larger `margin`",
                        self.name,
                        p.0,
                        p.1
                    );
                }
            }
        }
    }

    fn structure_version(&self) -> u64 {
        self.version
    }

    /// The search margin's memory: the last step's largest displacement.
    fn carried_state(&self) -> Vec<f64> {
        vec![self.last_move]
    }

    fn restore_carried_state(&mut self, snapshot: &[f64]) -> Result<()> {
        match snapshot {
            &[m] if m.is_finite() => {
                self.last_move = m;
                Ok(())
            }
            _ => Err(CoreError::Length {
                what: "rod_contact carried state",
                found: snapshot.len(),
                expected: 1,
            }),
        }
    }

    /// A new run: no motion remembered.
    fn reset(&mut self, _q: &[f64]) {
        self.last_move = 0.0;
    }

    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let segs = self.segments(s.q);
        // Capped at the contact band so that it is finite (and the same in
        // CSV and JSON) when no pair is within reach.
        let band = self.law.cutoff - self.law.two_r0;
        let mut min_gap = band;
        let mut touching = 0;
        for &(i, j) in &self.pairs {
            let d = crate::segment_distance::segment_distance(
                &segs[i].0, &segs[i].1, &segs[j].0, &segs[j].1,
            );
            min_gap = min_gap.min(d - self.law.two_r0);
            if d < self.law.two_r0 + self.delta {
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
    RodContact = "rod_contact",
    "implicit rod–rod contact (IMC, MAT-DiSMech eq. 21) on `edges` of `radius` r₀ (m) with tolerance `delta` (m) and `stiffness` (J/m²); optional Coulomb `friction` {mu, slip_velocity} (eq. 23)",
    r#"{"type": "rod_contact", "edges": [[0, 1], [2, 3]], "radius": 0.001, "delta": 0.0005, "stiffness": 1000.0}"#
);
