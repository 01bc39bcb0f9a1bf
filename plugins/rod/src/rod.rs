//! The rod energy (scene type `"rod"`): stretching (eqs. 9–10), bending
//! (eqs. 11–14) and twisting (eqs. 15–16) of a rod or rod network, with
//! time-parallel-transported reference frames and actuation by natural
//! curvature, twist and stretch (MAT-DiSMech §6.1).
//!
//! **DOFs.** Positions are the model's 3-D nodes; the rod adds one scalar
//! DOF θ (rad, kind `"rod_twist"`) per edge when the model is built
//! ([`Energy::declare`]), in edge order, with rotational inertia
//! `ρ J |ē|` (kg·m², polar moment `J = π r⁴/2`). Unless `add_mass` is false it
//! also lumps the translational mass `ρ A |ē|/2` (kg, `A = π r²`) of every
//! edge onto each of its two nodes (the node's share of the Voronoi length);
//! set `add_mass: false` when the nodes already carry the rod's mass.
//!
//! **Stiffnesses** default to a solid circular section of radius `r`:
//! `k_s = E π r²` (N), `EI = E π r⁴/4`, `GJ = G π r⁴/2` (N·m²) with
//! `G = E/(2(1 + ν))`; per-edge and per-spring overrides replace them.
//! **Natural values** default to the rest state: rest lengths `|ē|`, and
//! `κ̄`, `τ̄` of the initial shape (so the initial state is stress-free).
//!
//! **Actuation channels** ([`Actuation`]): each entry drives one quantity
//! of a set of springs (or edges) from one parameter channel, times a gain.
//! The channel value is an *increment over the rest value*, in physical
//! units: natural curvature `κ̄⁽ᵃ⁾ = κ̄⁽ᵃ⁾_rest + Δl·gain·p` with `p` in 1/m
//! (the discrete curvature of eq. 14 is the physical one times the Voronoi
//! length, §7.1), natural twist likewise in rad/m, natural stretch as a
//! strain: natural length `|ē|(1 + gain·p)`. A channel at 0 leaves the rod at
//! rest; on a straight rod the increment is the natural curvature itself.
//! A PneuNet section is one entry listing the section's springs; a snake gait
//! is one entry per spring, each with its own channel (a travelling wave).
//!
//! **JSON** (`deny_unknown_fields`; units SI):
//!
//! ```json
//! {"type": "rod", "name": "snake", "edges": [[0, 1], [1, 2], [2, 3]],
//!  "radius": 0.001, "youngs_modulus": 2e6, "poisson_ratio": 0.5, "density": 1200,
//!  "rest_lengths": 0.05,
//!  "first_director": [0, 0, 1],
//!  "spring_overrides": [{"spring": 0, "bend_stiffness": 1e-6}],
//!  "actuation": [{"type": "curvature", "axis": 1, "springs": [0], "channel": "k0"},
//!                {"type": "curvature", "axis": 1, "springs": [1], "channel": "k1"}]}
//! ```
//!
//! `rest_lengths` (one value or one per edge, m) default to the edge lengths
//! of the model's initial node positions.
//! `fixed_twists` lists edges whose twist angle θ is held (a clamp fixes the
//! first edge's two nodes and its twist).

use crate::bend_twist::BendTwist;
use crate::element::{ElEval, N, RodEl, RodElements, RodSet, SLOTS};
use crate::error::RodError;
use crate::frames::{EdgeFrame, RodFrames, transport};
use crate::network::{Plan, RodNetwork};
use crate::stretch::StretchSpring;
use crate::vec3::{cross, norm, sub};
use pliant_core::element::ElementSet;
use pliant_core::energy::{BindInfo, Energy, EvalState};
use pliant_core::error::{CoreError, Result};
use pliant_core::layout::{DofKind, Layout};
use pliant_core::model::ModelBuilder;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// The DOF kind of the rod twist angles.
pub const TWIST_KIND: &str = "rod_twist";

/// Rest lengths `|ē|` (m): one for every edge or one per edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RestLengths {
    /// Same rest length for every edge, m.
    Uniform(f64),
    /// One rest length per edge, m.
    PerEdge(Vec<f64>),
}

/// Per-edge overrides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgeOverride {
    /// Edge index.
    pub edge: usize,
    /// Stretching stiffness `k_s`, N (≥ 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stretch_stiffness: Option<f64>,
}

/// Per-spring overrides (spring indices as documented in [`crate::network`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpringOverride {
    /// Spring index.
    pub spring: usize,
    /// Bending stiffness `EI`, N·m² (≥ 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bend_stiffness: Option<f64>,
    /// Twisting stiffness `GJ`, N·m² (≥ 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub twist_stiffness: Option<f64>,
    /// Natural curvatures `(κ̄⁽¹⁾, κ̄⁽²⁾)`, 1/m, replacing the rest shape's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub natural_curvature: Option<[f64; 2]>,
    /// Natural twist `τ̄`, rad/m, replacing the rest shape's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub natural_twist: Option<f64>,
}

fn one() -> f64 {
    1.0
}
fn axis_one() -> u8 {
    1
}
fn yes() -> bool {
    true
}
fn default_name() -> String {
    "rod".into()
}

/// One actuation entry: a quantity of a set of springs (or edges) driven
/// by a parameter channel (MAT-DiSMech §6.1). `springs`/`edges` default to
/// all of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Actuation {
    /// Natural-curvature increment `gain · p` (1/m) about material axis
    /// `axis` (1: `κ̄⁽¹⁾`, bending towards `m₁`; 2: `κ̄⁽²⁾`, towards `m₂`).
    Curvature {
        /// Parameter channel name.
        channel: String,
        /// 1 or 2.
        #[serde(default = "axis_one")]
        axis: u8,
        /// Spring indices (default: all springs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        springs: Option<Vec<usize>>,
        /// Multiplier of the channel value (default 1).
        #[serde(default = "one")]
        gain: f64,
    },
    /// Natural-twist increment `gain · p` (rad/m).
    Twist {
        /// Parameter channel name.
        channel: String,
        /// Spring indices (default: all springs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        springs: Option<Vec<usize>>,
        /// Multiplier of the channel value (default 1).
        #[serde(default = "one")]
        gain: f64,
    },
    /// Natural strain `gain · p` (dimensionless): natural length `|ē|(1 + gain·p)`.
    Stretch {
        /// Parameter channel name.
        channel: String,
        /// Edge indices (default: all edges).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        edges: Option<Vec<usize>>,
        /// Multiplier of the channel value (default 1).
        #[serde(default = "one")]
        gain: f64,
    },
}

impl Actuation {
    /// Natural curvature about `axis` (1 or 2) of `springs` (`None`: all) from `channel` (1/m).
    pub fn curvature(channel: &str, axis: u8, springs: Option<Vec<usize>>) -> Self {
        Actuation::Curvature {
            channel: channel.into(),
            axis,
            springs,
            gain: 1.0,
        }
    }
    /// Natural twist of `springs` (`None`: all) from `channel` (rad/m).
    pub fn twist(channel: &str, springs: Option<Vec<usize>>) -> Self {
        Actuation::Twist {
            channel: channel.into(),
            springs,
            gain: 1.0,
        }
    }
    /// Natural strain of `edges` (`None`: all) from `channel`.
    pub fn stretch(channel: &str, edges: Option<Vec<usize>>) -> Self {
        Actuation::Stretch {
            channel: channel.into(),
            edges,
            gain: 1.0,
        }
    }
    /// Sets the gain.
    pub fn with_gain(mut self, g: f64) -> Self {
        match &mut self {
            Actuation::Curvature { gain, .. }
            | Actuation::Twist { gain, .. }
            | Actuation::Stretch { gain, .. } => *gain = g,
        }
        self
    }
    fn channel(&self) -> &str {
        match self {
            Actuation::Curvature { channel, .. }
            | Actuation::Twist { channel, .. }
            | Actuation::Stretch { channel, .. } => channel,
        }
    }
    fn gain(&self) -> f64 {
        match self {
            Actuation::Curvature { gain, .. }
            | Actuation::Twist { gain, .. }
            | Actuation::Stretch { gain, .. } => *gain,
        }
    }
}

/// A rod or rod network, as written in a scene (`"type": "rod"`).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rod {
    /// Name: error-message prefix and observable prefix (default `"rod"`).
    #[serde(default = "default_name")]
    pub name: String,
    /// Edges `[m, n]` (node indices; edge vector `x_n − x_m`).
    pub edges: Vec<[usize; 2]>,
    /// Cross-section radius `r`, m (> 0).
    pub radius: f64,
    /// Young's modulus `E`, Pa (> 0).
    pub youngs_modulus: f64,
    /// Poisson's ratio ν, in (−1, 0.5].
    pub poisson_ratio: f64,
    /// Density ρ, kg/m³ (> 0).
    pub density: f64,
    /// Rest lengths `|ē|`, m (default: the initial edge lengths).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest_lengths: Option<RestLengths>,
    /// Whether the rod lumps its translational mass onto its nodes (default true).
    #[serde(default = "yes")]
    pub add_mass: bool,
    /// First reference director of each connected component (projected
    /// perpendicular to its first edge); default the coordinate axis least
    /// aligned with that edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_director: Option<[f64; 3]>,
    /// Per-edge overrides.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edge_overrides: Vec<EdgeOverride>,
    /// Per-spring overrides.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spring_overrides: Vec<SpringOverride>,
    /// Actuation by parameter channels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actuation: Vec<Actuation>,
    /// Edges whose twist angle θ is held fixed (clamps).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed_twists: Vec<usize>,
    #[serde(skip)]
    declared: Option<Declared>,
    #[serde(skip)]
    bound: Option<Bound>,
}

/// What `declare` fixed: topology, rest lengths, twist DOFs.
#[derive(Debug, Clone)]
struct Declared {
    net: RodNetwork,
    rest: Vec<f64>,
    twist: Vec<usize>,
}

/// The bound rod.
#[derive(Debug)]
struct Bound {
    net: RodNetwork,
    twist: Vec<usize>,
    /// Per edge, the DOFs of its two nodes.
    node_dofs: Vec<[[usize; 3]; 2]>,
    plan: Vec<Plan>,
    /// Frames at binding (space-parallel transport on `q0`), for `reset`.
    init_frames: RodFrames,
    frames: RodFrames,
    set: Box<dyn RodSet>,
}

/// An element before its parameter slots are resolved.
struct Proto {
    dofs: [usize; N],
    sign: [f64; 2],
    stretch: [Option<StretchSpring>; 2],
    bt: Option<BendTwist>,
    /// Per slot: (actuation entry, effective gain).
    drives: [Option<(usize, f64)>; SLOTS],
}

impl Proto {
    /// The element with `P` slots; `chan[k]` is actuation entry `k`'s
    /// channel, `pad` the channel undriven slots point at.
    fn el<const P: usize>(self, chan: &[usize], pad: usize) -> RodEl<P> {
        RodEl {
            dofs: self.dofs,
            sign: self.sign,
            stretch: self.stretch,
            bt: self.bt,
            params: std::array::from_fn(|k| self.drives[k].map_or(pad, |(e, _)| chan[e])),
            gains: self.drives.map(|d| d.map_or(0.0, |(_, g)| g)),
        }
    }
}

/// Stretching, bending and twisting energy of a rod, J.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RodEnergies {
    /// Σ stretching energies, J.
    pub stretch: f64,
    /// Σ bending energies, J.
    pub bend: f64,
    /// Σ twisting energies, J.
    pub twist: f64,
}

/// Strains of a rod at one state.
#[derive(Debug, Clone, PartialEq)]
pub struct RodStrains {
    /// Axial strain ε per edge (eq. 9), against the natural length (rest
    /// length times the actuated natural stretch).
    pub stretch: Vec<f64>,
    /// Discrete material curvatures `(κ⁽¹⁾, κ⁽²⁾)` per spring (eqs. 12–13),
    /// dimensionless; divide by the Voronoi length for 1/m.
    pub curvature: Vec<[f64; 2]>,
    /// Twist τ per spring (eq. 15), rad.
    pub twist: Vec<f64>,
}

/// Unit tangents of every edge from the node DOFs (the one formula used by
/// binding and transport, so that equal states give bitwise-equal tangents).
fn tangents(node_dofs: &[[[usize; 3]; 2]], q: &[f64]) -> Vec<[f64; 3]> {
    node_dofs
        .iter()
        .map(|[a, b]| {
            let e: [f64; 3] = std::array::from_fn(|k| q[b[k]] - q[a[k]]);
            let l = norm(&e);
            e.map(|c| c / l)
        })
        .collect()
}

impl Rod {
    /// A rod from explicit edges (a network), with radius (m), Young's
    /// modulus (Pa), Poisson's ratio and density (kg/m³).
    pub fn network(
        edges: Vec<[usize; 2]>,
        radius: f64,
        youngs_modulus: f64,
        poisson_ratio: f64,
        density: f64,
    ) -> Self {
        Self {
            name: default_name(),
            edges,
            radius,
            youngs_modulus,
            poisson_ratio,
            density,
            rest_lengths: None,
            add_mass: true,
            first_director: None,
            edge_overrides: vec![],
            spring_overrides: vec![],
            actuation: vec![],
            fixed_twists: vec![],
            declared: None,
            bound: None,
        }
    }

    /// A single rod through `nodes` in order.
    pub fn chain(
        nodes: &[usize],
        radius: f64,
        youngs_modulus: f64,
        poisson_ratio: f64,
        density: f64,
    ) -> Self {
        Self::network(
            nodes.windows(2).map(|w| [w[0], w[1]]).collect(),
            radius,
            youngs_modulus,
            poisson_ratio,
            density,
        )
    }

    /// Sets the name.
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.into();
        self
    }
    /// Sets the rest lengths (m), one per edge.
    pub fn with_rest_lengths(mut self, lengths: Vec<f64>) -> Self {
        self.rest_lengths = Some(RestLengths::PerEdge(lengths));
        self
    }
    /// Sets the rest lengths to the edge lengths of `positions` (m, indexed
    /// by node).
    pub fn with_rest_lengths_from(
        mut self,
        positions: &[[f64; 3]],
    ) -> std::result::Result<Self, RodError> {
        let mut out = Vec::with_capacity(self.edges.len());
        for (edge, &[a, b]) in self.edges.iter().enumerate() {
            for node in [a, b] {
                if node >= positions.len() {
                    return Err(RodError::MissingNode {
                        edge,
                        node,
                        count: positions.len(),
                    });
                }
            }
            out.push(norm(&sub(&positions[b], &positions[a])));
        }
        self.rest_lengths = Some(RestLengths::PerEdge(out));
        Ok(self)
    }
    /// Holds the twist angle of `edge` fixed (with the edge's two nodes
    /// fixed, a clamp).
    pub fn fix_twist(mut self, edge: usize) -> Self {
        self.fixed_twists.push(edge);
        self
    }
    /// Does not lump the rod's translational mass onto the nodes.
    pub fn without_mass(mut self) -> Self {
        self.add_mass = false;
        self
    }
    /// Sets the first reference director.
    pub fn with_first_director(mut self, d: [f64; 3]) -> Self {
        self.first_director = Some(d);
        self
    }
    /// Adds an edge override.
    pub fn with_edge_override(mut self, o: EdgeOverride) -> Self {
        self.edge_overrides.push(o);
        self
    }
    /// Adds a spring override.
    pub fn with_spring_override(mut self, o: SpringOverride) -> Self {
        self.spring_overrides.push(o);
        self
    }
    /// Adds an actuation entry.
    pub fn actuate(mut self, a: Actuation) -> Self {
        self.actuation.push(a);
        self
    }

    /// The topology (springs in their documented order).
    pub fn topology(&self) -> std::result::Result<RodNetwork, RodError> {
        RodNetwork::new(self.edges.clone())
    }

    /// The θ DOF of every edge (empty before the model is built).
    pub fn twist_dofs(&self) -> &[usize] {
        self.declared.as_ref().map_or(&[], |d| &d.twist)
    }

    /// The lagged frames (after binding).
    pub fn frames(&self) -> Option<&RodFrames> {
        self.bound.as_ref().map(|b| &b.frames)
    }

    /// Lagged reference twists `ψ₀` per spring (rad, unwrapped; after binding).
    pub fn reference_twists(&self) -> Vec<f64> {
        self.frames().map_or(vec![], |f| f.ref_twist.clone())
    }

    fn err(&self, e: impl std::fmt::Display) -> CoreError {
        CoreError::Model(format!("rod `{}`: {e}", self.name))
    }

    fn b(&self) -> &Bound {
        self.bound
            .as_ref()
            .unwrap_or_else(|| panic!("rod `{}` used before Model::build bound it", self.name))
    }

    /// Stretching, bending and twisting energies at `s`, J.
    pub fn energies(&self, s: &EvalState) -> RodEnergies {
        let [stretch, bend, twist] = self.b().set.parts(s);
        RodEnergies {
            stretch,
            bend,
            twist,
        }
    }

    /// Strains at `(q, p)` with the current lagged frames.
    pub fn strains(&self, q: &[f64], p: &[f64]) -> RodStrains {
        let b = self.b();
        let mut out = RodStrains {
            stretch: vec![0.0; b.net.edges().len()],
            curvature: vec![[0.0; 2]; b.net.springs().len()],
            twist: vec![0.0; b.net.springs().len()],
        };
        for (i, plan) in b.plan.iter().enumerate() {
            let ev: ElEval = b.set.element(i, q, p);
            match *plan {
                Plan::Spring { spring, .. } => {
                    let sp = &b.net.springs()[spring];
                    for k in 0..2 {
                        if let Some(e) = ev.strain[k] {
                            out.stretch[sp.edges[k]] = e;
                        }
                    }
                    if let Some((kap, tau)) = ev.bend {
                        out.curvature[spring] = kap;
                        out.twist[spring] = tau;
                    }
                }
                Plan::Edge { edge } => out.stretch[edge] = ev.strain[0].unwrap_or(0.0),
            }
        }
        out
    }

    /// Material frames `[m₁, m₂, t]` of every edge at `q`, in the edge's own
    /// orientation, from the current lagged frames.
    pub fn material_frames(&self, q: &[f64]) -> Vec<[[f64; 3]; 3]> {
        let b = self.b();
        tangents(&b.node_dofs, q)
            .iter()
            .zip(&b.frames.edges)
            .zip(&b.twist)
            .map(|((t, f), &dof)| {
                let d1 = transport(&f.tangent, t, &f.director);
                let d2 = cross(t, &d1);
                let (s, c) = q[dof].sin_cos();
                [
                    std::array::from_fn(|k| c * d1[k] + s * d2[k]),
                    std::array::from_fn(|k| c * d2[k] - s * d1[k]),
                    *t,
                ]
            })
            .collect()
    }

    /// Per edge, the DOFs of its two nodes (after binding).
    pub fn edge_node_dofs(&self) -> &[[[usize; 3]; 2]] {
        self.bound.as_ref().map_or(&[], |b| &b.node_dofs)
    }

    /// Validation that needs neither the layout nor positions.
    fn validate(
        &self,
        initial_lengths: Option<Vec<f64>>,
    ) -> std::result::Result<(RodNetwork, Vec<f64>), RodError> {
        let field = |field, expected, value: f64, ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(RodError::Field {
                    field,
                    expected,
                    value,
                })
            }
        };
        let net = RodNetwork::new(self.edges.clone())?;
        let r = self.radius;
        field(
            "radius",
            "positive and finite (m)",
            r,
            r.is_finite() && r > 0.0,
        )?;
        let e = self.youngs_modulus;
        field(
            "youngs_modulus",
            "positive and finite (Pa)",
            e,
            e.is_finite() && e > 0.0,
        )?;
        let nu = self.poisson_ratio;
        field("poisson_ratio", "in (−1, 0.5]", nu, nu > -1.0 && nu <= 0.5)?;
        let rho = self.density;
        field(
            "density",
            "positive and finite (kg/m³)",
            rho,
            rho.is_finite() && rho > 0.0,
        )?;
        let ne = net.edges().len();
        let rest = match &self.rest_lengths {
            None => initial_lengths.ok_or(RodError::RestLengthsRequired)?,
            Some(RestLengths::Uniform(l)) => vec![*l; ne],
            Some(RestLengths::PerEdge(v)) => {
                if v.len() != ne {
                    return Err(RodError::RestLengthCount {
                        got: v.len(),
                        expected: ne,
                    });
                }
                v.clone()
            }
        };
        for (edge, &value) in rest.iter().enumerate() {
            if !(value.is_finite() && value > 0.0) {
                return Err(RodError::RestLength { edge, value });
            }
        }
        let ns = net.springs().len();
        let edge_ix = |field: String, edge: usize| {
            if edge < ne {
                Ok(())
            } else {
                Err(RodError::EdgeIndex {
                    field,
                    edge,
                    count: ne,
                })
            }
        };
        let spring_ix = |field: String, spring: usize| {
            if spring < ns {
                Ok(())
            } else {
                Err(RodError::SpringIndex {
                    field,
                    spring,
                    count: ns,
                })
            }
        };
        let nonneg = |field: String, v: Option<f64>| match v {
            Some(value) if !(value.is_finite() && value >= 0.0) => {
                Err(RodError::Override { field, value })
            }
            _ => Ok(()),
        };
        let finite = |field: String, value: f64| {
            if value.is_finite() {
                Ok(())
            } else {
                Err(RodError::NotFinite { field, value })
            }
        };
        for (k, o) in self.edge_overrides.iter().enumerate() {
            edge_ix(format!("edge_overrides[{k}].edge"), o.edge)?;
            nonneg(
                format!("edge_overrides[{k}].stretch_stiffness"),
                o.stretch_stiffness,
            )?;
        }
        for (k, o) in self.spring_overrides.iter().enumerate() {
            spring_ix(format!("spring_overrides[{k}].spring"), o.spring)?;
            nonneg(
                format!("spring_overrides[{k}].bend_stiffness"),
                o.bend_stiffness,
            )?;
            nonneg(
                format!("spring_overrides[{k}].twist_stiffness"),
                o.twist_stiffness,
            )?;
            if let Some(c) = o.natural_curvature {
                for (a, v) in c.iter().enumerate() {
                    finite(format!("spring_overrides[{k}].natural_curvature[{a}]"), *v)?;
                }
            }
            if let Some(v) = o.natural_twist {
                finite(format!("spring_overrides[{k}].natural_twist"), v)?;
            }
        }
        for (k, a) in self.actuation.iter().enumerate() {
            finite(format!("actuation[{k}].gain"), a.gain())?;
            match a {
                Actuation::Curvature { axis, springs, .. } => {
                    if *axis != 1 && *axis != 2 {
                        return Err(RodError::Axis {
                            field: format!("actuation[{k}].axis"),
                            value: *axis,
                        });
                    }
                    for (x, &s) in springs.iter().flatten().enumerate() {
                        spring_ix(format!("actuation[{k}].springs[{x}]"), s)?;
                    }
                }
                Actuation::Twist { springs, .. } => {
                    for (x, &s) in springs.iter().flatten().enumerate() {
                        spring_ix(format!("actuation[{k}].springs[{x}]"), s)?;
                    }
                }
                Actuation::Stretch { edges, .. } => {
                    for (x, &e) in edges.iter().flatten().enumerate() {
                        edge_ix(format!("actuation[{k}].edges[{x}]"), e)?;
                    }
                }
            }
        }
        Ok((net, rest))
    }

    /// Per spring: slot (κ̄⁽¹⁾, κ̄⁽²⁾, τ̄) → (actuation entry, gain); per edge:
    /// stretch → (entry, gain).
    #[allow(clippy::type_complexity)]
    fn drives(
        &self,
        net: &RodNetwork,
    ) -> std::result::Result<(Vec<[Option<(usize, f64)>; 3]>, Vec<Option<(usize, f64)>>), RodError>
    {
        let ns = net.springs().len();
        let ne = net.edges().len();
        let mut springs = vec![[None; 3]; ns];
        let mut edges = vec![None; ne];
        let set = |slot: &mut Option<(usize, f64)>, k: usize, g: f64, what: String| {
            if let Some((first, _)) = *slot {
                return Err(RodError::DoubleActuation {
                    what,
                    first,
                    second: k,
                });
            }
            *slot = Some((k, g));
            Ok(())
        };
        for (k, a) in self.actuation.iter().enumerate() {
            let g = a.gain();
            match a {
                Actuation::Curvature {
                    axis, springs: s, ..
                } => {
                    let list: Vec<usize> = s.clone().unwrap_or_else(|| (0..ns).collect());
                    for sp in list {
                        let slot = usize::from(*axis - 1);
                        set(
                            &mut springs[sp][slot],
                            k,
                            g,
                            format!("curvature {axis} of spring {sp}"),
                        )?;
                    }
                }
                Actuation::Twist { springs: s, .. } => {
                    let list: Vec<usize> = s.clone().unwrap_or_else(|| (0..ns).collect());
                    for sp in list {
                        set(&mut springs[sp][2], k, g, format!("twist of spring {sp}"))?;
                    }
                }
                Actuation::Stretch { edges: e, .. } => {
                    let list: Vec<usize> = e.clone().unwrap_or_else(|| (0..ne).collect());
                    for ed in list {
                        set(&mut edges[ed], k, g, format!("stretch of edge {ed}"))?;
                    }
                }
            }
        }
        Ok((springs, edges))
    }

    fn resolve(&self, info: &BindInfo) -> std::result::Result<Bound, CoreError> {
        let d = self.declared.clone().ok_or_else(|| {
            self.err("bound before `declare` (add the rod to a ModelBuilder and build the model)")
        })?;
        let layout = info.layout;
        if layout.dim() != 3 {
            return Err(self.err(RodError::Dimension { dim: layout.dim() }));
        }
        let net = d.net;
        net.check_nodes(layout.n_nodes()).map_err(|e| self.err(e))?;
        if let Some(&bad) = d.twist.iter().find(|&&i| i >= info.q0.len()) {
            return Err(self.err(format!("twist DOF {bad} is out of range")));
        }
        let mut node_dofs = Vec::with_capacity(net.edges().len());
        for (k, &[a, b]) in net.edges().iter().enumerate() {
            let ctx = format!("rod `{}` edges[{k}]", self.name);
            let mut da = [0; 3];
            let mut db = [0; 3];
            layout.node_dofs(a, &mut da, &ctx)?;
            layout.node_dofs(b, &mut db, &ctx)?;
            node_dofs.push([da, db]);
        }
        let t0 = tangents(&node_dofs, info.q0);
        for (edge, t) in t0.iter().enumerate() {
            if !t.iter().all(|c| c.is_finite()) {
                return Err(self.err(RodError::ZeroLengthEdge {
                    edge,
                    nodes: net.edges()[edge],
                }));
            }
        }
        let frames = RodFrames::init(&net, &t0, self.first_director).map_err(|e| self.err(e))?;
        let (spring_drives, edge_drives) = self.drives(&net).map_err(|e| self.err(e))?;
        // Channel indices of the actuation entries.
        let mut chan = Vec::with_capacity(self.actuation.len());
        for (k, a) in self.actuation.iter().enumerate() {
            chan.push(layout.param(
                a.channel(),
                &format!("rod `{}` actuation[{k}].channel", self.name),
            )?);
        }
        // Material.
        let (r, e, nu) = (self.radius, self.youngs_modulus, self.poisson_ratio);
        let area = PI * r * r;
        let ei_default = e * PI * r.powi(4) / 4.0;
        let gj_default = e / (2.0 * (1.0 + nu)) * PI * r.powi(4) / 2.0;
        let mut ks = vec![e * area; net.edges().len()];
        for o in &self.edge_overrides {
            if let Some(v) = o.stretch_stiffness {
                ks[o.edge] = v;
            }
        }
        let plan = net.plan();
        let q0 = info.q0;
        let mut items = Vec::with_capacity(plan.len());
        for p in &plan {
            let proto = match *p {
                Plan::Spring { spring, own } => {
                    let s = &net.springs()[spring];
                    let [ei, ej] = s.edges;
                    // x_m, x_n, x_o from the edges' node DOFs.
                    let end = |edge: usize, node: usize| {
                        let [a, b] = net.edges()[edge];
                        if a == node {
                            node_dofs[edge][0]
                        } else {
                            debug_assert_eq!(b, node);
                            node_dofs[edge][1]
                        }
                    };
                    let xm = end(ei, s.outer[0]);
                    let xn = end(ei, s.node);
                    let xo = end(ej, s.outer[1]);
                    let mut dofs = [0; N];
                    dofs[..3].copy_from_slice(&xm);
                    dofs[3..6].copy_from_slice(&xn);
                    dofs[6..9].copy_from_slice(&xo);
                    dofs[9] = d.twist[ei];
                    dofs[10] = d.twist[ej];
                    let dl = 0.5 * (d.rest[ei] + d.rest[ej]);
                    let ov = self.spring_overrides.iter().filter(|o| o.spring == spring);
                    let (mut bend_k, mut twist_k) = (ei_default, gj_default);
                    let (mut nat_k, mut nat_t) = (None, None);
                    for o in ov {
                        bend_k = o.bend_stiffness.unwrap_or(bend_k);
                        twist_k = o.twist_stiffness.unwrap_or(twist_k);
                        nat_k = o.natural_curvature.or(nat_k);
                        nat_t = o.natural_twist.or(nat_t);
                    }
                    let mut bt = BendTwist {
                        a: [[0.0; 3]; 2],
                        u: [[0.0; 3]; 2],
                        v: [[0.0; 3]; 2],
                        psi0: 0.0,
                        kb: bend_k / dl,
                        kt: twist_k / dl,
                        dl,
                        kappa_bar: [0.0; 2],
                        tau_bar: 0.0,
                    };
                    bt.set_frames(
                        &frames.edges[ei].oriented(s.signs[0]),
                        &frames.edges[ej].oriented(s.signs[1]),
                        frames.ref_twist[spring],
                    );
                    // Rest strains of the initial shape (the same function
                    // later evaluations use, so the rest state is exactly
                    // stress-free).
                    let x = |dofs: &[usize; 3]| dofs.map(|i| q0[i]);
                    let e_i = sub(&x(&xn), &x(&xm));
                    let e_j = sub(&x(&xo), &x(&xn));
                    let th = [s.signs[0] * q0[dofs[9]], s.signs[1] * q0[dofs[10]]];
                    let rest = bt.eval::<false>(&e_i, &e_j, th, [0.0; 2], 0.0);
                    bt.kappa_bar = nat_k.map_or(rest.kappa, |c| c.map(|v| v * dl));
                    bt.tau_bar = nat_t.map_or(rest.tau, |v| v * dl);
                    let sd = spring_drives[spring];
                    let drives = [
                        sd[0].map(|(k, g)| (k, g * dl)),
                        sd[1].map(|(k, g)| (k, g * dl)),
                        sd[2].map(|(k, g)| (k, g * dl)),
                        if own[0] { edge_drives[ei] } else { None },
                        if own[1] { edge_drives[ej] } else { None },
                    ];
                    let st = |o: bool, edge: usize| {
                        o.then_some(StretchSpring {
                            ks: ks[edge],
                            rest: d.rest[edge],
                        })
                    };
                    Proto {
                        dofs,
                        sign: s.signs,
                        stretch: [st(own[0], ei), st(own[1], ej)],
                        bt: Some(bt),
                        drives,
                    }
                }
                Plan::Edge { edge } => {
                    let [da, db] = node_dofs[edge];
                    let mut dofs = [0; N];
                    dofs[..3].copy_from_slice(&da);
                    dofs[3..6].copy_from_slice(&db);
                    dofs[6..9].copy_from_slice(&db);
                    dofs[9] = d.twist[edge];
                    dofs[10] = d.twist[edge];
                    Proto {
                        dofs,
                        sign: [1.0, 1.0],
                        stretch: [
                            Some(StretchSpring {
                                ks: ks[edge],
                                rest: d.rest[edge],
                            }),
                            None,
                        ],
                        bt: None,
                        drives: [None, None, None, edge_drives[edge], None],
                    }
                }
            };
            items.push(proto);
        }
        let pad = items
            .iter()
            .flat_map(|i| i.drives)
            .flatten()
            .map(|(k, _)| chan[k])
            .next();
        let set: Box<dyn RodSet> = match pad {
            Some(pad) => Box::new(RodElements::<SLOTS>::new(
                items.into_iter().map(|i| i.el(&chan, pad)).collect(),
            )),
            None => Box::new(RodElements::<0>::new(
                items.into_iter().map(|i| i.el(&chan, 0)).collect(),
            )),
        };
        Ok(Bound {
            net,
            twist: d.twist,
            node_dofs,
            plan,
            init_frames: frames.clone(),
            frames,
            set,
        })
    }

    /// Copies the lagged frames into the elements.
    fn push_frames(b: &mut Bound) {
        for (i, p) in b.plan.iter().enumerate() {
            if let Plan::Spring { spring, .. } = *p {
                let s = &b.net.springs()[spring];
                let fi: EdgeFrame = b.frames.edges[s.edges[0]].oriented(s.signs[0]);
                let fj: EdgeFrame = b.frames.edges[s.edges[1]].oriented(s.signs[1]);
                b.set.set_frames(i, &fi, &fj, b.frames.ref_twist[spring]);
            }
        }
    }
}

/// Every `"rod_twist"` DOF of a layout, in DOF order (for one rod: its
/// edges in order; several rods: consecutive blocks in energy order).
pub fn twist_dofs(layout: &Layout) -> Vec<usize> {
    layout
        .dof_kinds()
        .iter()
        .enumerate()
        .filter(|(_, k)| matches!(k, DofKind::Extra { kind } if kind == TWIST_KIND))
        .map(|(i, _)| i)
        .collect()
}

#[typetag::serde(name = "rod")]
impl Energy for Rod {
    fn declare(&mut self, builder: &mut ModelBuilder) -> Result<()> {
        self.declared = None;
        self.bound = None;
        let dim = builder.layout().dim();
        if dim != 3 {
            return Err(self.err(RodError::Dimension { dim }));
        }
        // Default rest lengths: the initial edge lengths.
        let initial = match self.rest_lengths {
            Some(_) => None,
            None => {
                let (l, q) = (builder.layout(), builder.q0());
                let mut out = Vec::with_capacity(self.edges.len());
                for (edge, &[a, b]) in self.edges.iter().enumerate() {
                    let (mut da, mut db) = ([0; 3], [0; 3]);
                    for (node, d) in [(a, &mut da), (b, &mut db)] {
                        if l.node_dofs(node, d, "").is_err() {
                            return Err(self.err(RodError::MissingNode {
                                edge,
                                node,
                                count: l.n_nodes(),
                            }));
                        }
                    }
                    let len = (0..3)
                        .map(|k| (q[db[k]] - q[da[k]]).powi(2))
                        .sum::<f64>()
                        .sqrt();
                    if len.is_nan() || len <= 0.0 {
                        return Err(self.err(RodError::ZeroLengthEdge {
                            edge,
                            nodes: [a, b],
                        }));
                    }
                    out.push(len);
                }
                Some(out)
            }
        };
        let (net, rest) = self.validate(initial).map_err(|e| self.err(e))?;
        net.check_nodes(builder.layout().n_nodes())
            .map_err(|e| self.err(e))?;
        let r = self.radius;
        let (area, polar) = (PI * r * r, PI * r.powi(4) / 2.0);
        let twist: Vec<usize> = rest
            .iter()
            .map(|l| builder.add_extra_dof(TWIST_KIND, 0.0, self.density * polar * l))
            .collect();
        for (k, &e) in self.fixed_twists.iter().enumerate() {
            let Some(&dof) = twist.get(e) else {
                return Err(self.err(RodError::EdgeIndex {
                    field: format!("fixed_twists[{k}]"),
                    edge: e,
                    count: twist.len(),
                }));
            };
            builder.constrain(dof, pliant_core::Motion::Fixed)?;
        }
        if self.add_mass {
            let mut m = std::collections::BTreeMap::<usize, f64>::new();
            for (&[a, b], l) in net.edges().iter().zip(&rest) {
                let half = 0.5 * self.density * area * l;
                *m.entry(a).or_default() += half;
                *m.entry(b).or_default() += half;
            }
            for (node, mass) in m {
                builder.add_point_mass(node, mass)?;
            }
        }
        self.declared = Some(Declared { net, rest, twist });
        Ok(())
    }

    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        self.bound = None;
        self.bound = Some(self.resolve(info)?);
        Ok(())
    }

    fn elements(&self) -> &dyn ElementSet {
        &*self.b().set
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    /// Frames are committed here rather than in `end_step`: the transport
    /// from the committed tangents to those of `q_prev` is the identity when
    /// the previous step ended at `q_prev`, a second call changes nothing,
    /// and replaying steps backwards (adjoint recomputation) undoes each
    /// transport exactly, since `P(b → a) P(a → b) = I`.
    fn begin_step(&mut self, q_prev: &[f64], _p: &[f64], _dt: f64, _t: f64) {
        if let Some(b) = &mut self.bound {
            let t = tangents(&b.node_dofs, q_prev);
            b.frames.transport_to(&b.net, &t);
            Rod::push_frames(b);
        }
    }

    /// The lagged frames: per edge its tangent and director (6 values),
    /// then per spring its reference twist.
    fn carried_state(&self) -> Vec<f64> {
        let Some(b) = &self.bound else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(6 * b.frames.edges.len() + b.frames.ref_twist.len());
        for f in &b.frames.edges {
            out.extend_from_slice(&f.tangent);
            out.extend_from_slice(&f.director);
        }
        out.extend_from_slice(&b.frames.ref_twist);
        out
    }

    fn restore_carried_state(&mut self, snapshot: &[f64]) -> Result<()> {
        let name = self.name.clone();
        let Some(b) = &mut self.bound else {
            return Ok(());
        };
        let (ne, ns) = (b.frames.edges.len(), b.frames.ref_twist.len());
        if snapshot.len() != 6 * ne + ns || snapshot.iter().any(|v| !v.is_finite()) {
            return Err(CoreError::Model(format!(
                "rod `{name}`: a frame snapshot has {} values ({} expected, all finite)",
                snapshot.len(),
                6 * ne + ns
            )));
        }
        for (f, c) in b.frames.edges.iter_mut().zip(snapshot.chunks_exact(6)) {
            f.tangent.copy_from_slice(&c[..3]);
            f.director.copy_from_slice(&c[3..]);
        }
        b.frames.ref_twist.copy_from_slice(&snapshot[6 * ne..]);
        Rod::push_frames(b);
        Ok(())
    }

    /// Frames of a new rollout from `q`: the binding-time frames transported
    /// to the tangents of `q` in one step (the binding-time frames
    /// themselves when `q` has the initial shape).
    /// Frames for `q` by transporting the binding-time frames to its
    /// tangents (beyond 120° in two halves, through the bisecting tangent, so
    /// an edge that points opposite to its binding direction stays well
    /// defined).
    /// This is a function of `q` alone, so every run started from `q`
    /// agrees; it is not the frame a run would have carried to `q` along
    /// its path (that differs by a holonomy angle out of the plane): to
    /// continue a run, restore its `carried_state` after `set_state`.
    fn reset(&mut self, q: &[f64]) {
        if let Some(b) = &mut self.bound {
            b.frames = b.init_frames.clone();
            let t = tangents(&b.node_dofs, q);
            let mid: Vec<[f64; 3]> = b
                .frames
                .edges
                .iter()
                .zip(&t)
                .map(|(f, t)| {
                    let a = f.tangent;
                    if a[0] * t[0] + a[1] * t[1] + a[2] * t[2] > -0.5 {
                        // Within 120°: one transport (the second is a no-op).
                        return *t;
                    }
                    let m = [a[0] + t[0], a[1] + t[1], a[2] + t[2]];
                    let l = norm(&m);
                    if l > 1e-3 {
                        m.map(|c| c / l)
                    } else {
                        // Antipodal: any direction perpendicular to `a`.
                        let k = (0..3)
                            .min_by(|&i, &j| a[i].abs().total_cmp(&a[j].abs()))
                            .unwrap_or(0);
                        let mut e = [0.0; 3];
                        e[k] = 1.0;
                        let p = cross(&a, &e);
                        let lp = norm(&p);
                        p.map(|c| c / lp)
                    }
                })
                .collect();
            b.frames.transport_to(&b.net, &mid);
            b.frames.transport_to(&b.net, &t);
            Rod::push_frames(b);
        }
    }

    fn value(&self, s: &EvalState) -> f64 {
        self.b().set.total(s)
    }
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.b().set.grad(s, out)
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.b().set.hess(s, out)
    }
    fn history_blocks(&self, _s: &EvalState, out: &mut [f64]) {
        out.fill(0.0);
    }
    fn param_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.b().set.pblock(s, out)
    }
    fn param_gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.b().set.pgrad(s, out)
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let e = self.energies(s);
        vec![
            (format!("{}.stretch_energy", self.name), e.stretch),
            (format!("{}.bend_energy", self.name), e.bend),
            (format!("{}.twist_energy", self.name), e.twist),
        ]
    }
}

pliant_core::register_energy!(
    "rod",
    "discrete elastic rod or rod network (MAT-DiSMech §3.1–3.2): stretching ½k_s ε²|ē|, bending ½EI/Δl |κ − κ̄|², twisting ½GJ/Δl (τ − τ̄)² with one twist DOF θ (rad) per edge; radius in m, Young's modulus in Pa, density in kg/m³, rest lengths in m; natural curvature (1/m), twist (rad/m) and strain actuated by channels",
    r#"{"type": "rod", "edges": [[0, 1], [1, 2]], "radius": 0.001, "youngs_modulus": 2e6, "poisson_ratio": 0.5, "density": 1200, "rest_lengths": 0.05}"#
);

/// Referenced by [`crate::link`] so the object holding this module's
/// registrations is linked.
#[inline(never)]
pub(crate) fn link_registrations() -> &'static str {
    std::hint::black_box("rod")
}

#[cfg(test)]
mod tests;
