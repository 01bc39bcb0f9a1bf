//! The rod as a scene writes it (`"type": "rod"`): topology, section,
//! material, rest lengths, overrides and actuation; bound into a
//! [`RodEnergy`](super::RodEnergy).

use super::energy::TWIST_KIND;
use crate::error::RodError;
use crate::frames::Anchor;
use crate::network::RodNetwork;
use pliant_core::edge_frame::FramedEdge;
use pliant_core::vec3::{norm, sub};
use pliant_core::{BindInfo, CoreError, Declare, Energy, EnergySpec, Motion, Result};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

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
    pub(crate) fn channel(&self) -> &str {
        match self {
            Actuation::Curvature { channel, .. }
            | Actuation::Twist { channel, .. }
            | Actuation::Stretch { channel, .. } => channel,
        }
    }
    pub(crate) fn gain(&self) -> f64 {
        match self {
            Actuation::Curvature { gain, .. }
            | Actuation::Twist { gain, .. }
            | Actuation::Stretch { gain, .. } => *gain,
        }
    }
}

/// A rod or rod network, as written in a scene (`"type": "rod"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// Rod–shell joints (MAT-DiSMech §3.4): rod nodes welded to a shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell_joints: Option<ShellJoints>,
    /// Rod edges before the joint edges (set by the joint expansion: the
    /// joint edges carry springs and twist, but no mass).
    #[serde(skip)]
    pub(crate) own_edges: Option<usize>,
    /// How the joint edges get their initial frames (set by the joint
    /// expansion, see [`crate::frames`]).
    #[serde(skip)]
    pub(crate) joint_anchors: Vec<Anchor>,
}

/// Rod–shell joints (MAT-DiSMech §3.4, Fig. 2g): at each joint node — a
/// node of the rod that is also a vertex of shell triangles — the edges of
/// the triangles around it are treated as rod edges too (with the rod's
/// section, their own twist angle and no mass), so bend–twist springs join
/// every pair of edges meeting at the joint node and at the triangles'
/// other vertices: the rod transmits moments and twist into the shell.
/// The shell keeps its own stretching and bending of those edges (the
/// paper's edges "with the properties of both"). The joint edges' initial
/// frames are transported from the rod's first edge at the joint node along
/// a path fixed by the geometry and the shell's winding (one hop to the
/// edges at the node, one more to the edge across each triangle), so the
/// joint does not depend on the order of the triangles or of their
/// vertices. The rod's own springs
/// keep their indices; the joint springs are numbered after them, and an
/// actuation entry without a list drives only the rod's own springs and
/// edges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellJoints {
    /// The joint nodes.
    pub nodes: Vec<usize>,
    /// The shell's triangles (at least those around the joint nodes).
    pub triangles: Vec<[usize; 3]>,
}

/// Appends joint edge `edge` (with the anchor of its frame) unless an edge
/// between the same nodes exists; `own` is the rod's own edge count.
fn add_joint_edge(
    index: &mut std::collections::BTreeMap<[usize; 2], usize>,
    added: &mut Vec<[usize; 2]>,
    anchors: &mut Vec<Anchor>,
    own: usize,
    edge: [usize; 2],
    anchor: Anchor,
) {
    let i = own + added.len();
    let key = [edge[0].min(edge[1]), edge[0].max(edge[1])];
    if let std::collections::btree_map::Entry::Vacant(v) = index.entry(key) {
        v.insert(i);
        added.push(edge);
        anchors.push(Anchor { edge: i, ..anchor });
    }
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
            shell_joints: None,
            own_edges: None,
            joint_anchors: Vec::new(),
        }
    }

    /// With rod–shell joints at `nodes`, welded to the shell of `triangles`.
    pub fn with_shell_joints(mut self, nodes: Vec<usize>, triangles: Vec<[usize; 3]>) -> Self {
        self.shell_joints = Some(ShellJoints { nodes, triangles });
        self
    }

    /// The rod with its joint edges appended (itself without joints):
    /// joint nodes are checked to be rod nodes and shell vertices, the
    /// joint edges' rest lengths are their initial lengths.
    pub(crate) fn expanded(
        &self,
        layout: &pliant_core::Layout,
        q0: &[f64],
    ) -> std::result::Result<std::borrow::Cow<'_, Rod>, RodError> {
        let Some(j) = &self.shell_joints else {
            return Ok(std::borrow::Cow::Borrowed(self));
        };
        let key = |a: usize, b: usize| [a.min(b), a.max(b)];
        // Every edge so far (the rod's, then the joint edges) by its nodes.
        let mut index: std::collections::BTreeMap<[usize; 2], usize> = self
            .edges
            .iter()
            .enumerate()
            .map(|(i, &[a, b])| (key(a, b), i))
            .collect();
        let own = self.edges.len();
        let mut added: Vec<[usize; 2]> = Vec::new();
        let mut anchors = Vec::new();
        for (k, &node) in j.nodes.iter().enumerate() {
            let field = format!("shell_joints.nodes[{k}]");
            // The rod edge at the joint whose frame the joint edges take
            // (the first of the rod's edges there), oriented into the node.
            let Some((from, &[_, b_from])) = self
                .edges
                .iter()
                .enumerate()
                .find(|(_, e)| e.contains(&node))
            else {
                return Err(RodError::Joint {
                    field,
                    node,
                    problem: "is not a node of this rod",
                });
            };
            let s_from = if b_from == node { 1.0 } else { -1.0 };
            // The triangles around the node as (node, a, b) in their winding.
            let fan: Vec<[usize; 2]> = j
                .triangles
                .iter()
                .filter_map(|t| {
                    let i = t.iter().position(|&v| v == node)?;
                    Some([t[(i + 1) % 3], t[(i + 2) % 3]])
                })
                .collect();
            if fan.is_empty() {
                return Err(RodError::Joint {
                    field,
                    node,
                    problem: "is in no triangle of `shell_joints.triangles`: a joint welds a rod node to a shell vertex",
                });
            }
            // The edges at the joint node, stored pointing away from it: one
            // hop of transport from the rod edge.
            for &[a, b] in &fan {
                for other in [a, b] {
                    let anchor = Anchor {
                        edge: 0,
                        from,
                        s_from,
                        s_edge: 1.0,
                        joint: k,
                        node,
                    };
                    add_joint_edge(
                        &mut index,
                        &mut added,
                        &mut anchors,
                        own,
                        [node, other],
                        anchor,
                    );
                }
            }
            // The edge across each triangle, stored along the winding (a → b):
            // one more hop, from the edge (node, a) that meets it at a.
            for &[a, b] in &fan {
                let via = index[&key(node, a)];
                let stored = if via < own {
                    self.edges[via]
                } else {
                    added[via - own]
                };
                let anchor = Anchor {
                    edge: 0,
                    from: via,
                    s_from: if stored[1] == a { 1.0 } else { -1.0 },
                    s_edge: 1.0,
                    joint: k,
                    node,
                };
                add_joint_edge(&mut index, &mut added, &mut anchors, own, [a, b], anchor);
            }
        }
        let mut r = self.clone();
        r.own_edges = Some(self.edges.len());
        r.shell_joints = None;
        r.joint_anchors = anchors;
        let length = |[a, b]: [usize; 2]| -> std::result::Result<f64, RodError> {
            let (mut da, mut db) = ([0; 3], [0; 3]);
            for (node, d) in [(a, &mut da), (b, &mut db)] {
                layout.node_dofs(node, d, "").map_err(|_| RodError::Joint {
                    field: "shell_joints.triangles".into(),
                    node,
                    problem: "is not a node of the model",
                })?;
            }
            Ok((0..3)
                .map(|k| (q0[db[k]] - q0[da[k]]).powi(2))
                .sum::<f64>()
                .sqrt())
        };
        if let Some(rest) = &self.rest_lengths {
            let mut per: Vec<f64> = match rest {
                RestLengths::Uniform(l) => vec![*l; self.edges.len()],
                RestLengths::PerEdge(v) if v.len() == self.edges.len() => v.clone(),
                RestLengths::PerEdge(v) => {
                    return Err(RodError::RestLengthCount {
                        got: v.len(),
                        expected: self.edges.len(),
                    });
                }
            };
            for &e in &added {
                per.push(length(e)?);
            }
            r.rest_lengths = Some(RestLengths::PerEdge(per));
        }
        r.edges.extend(added);
        Ok(std::borrow::Cow::Owned(r))
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
}

impl EnergySpec for Rod {
    fn declare(&self, builder: &mut Declare) -> Result<()> {
        let dim = builder.layout().dim();
        if dim != 3 {
            return Err(CoreError::dimension("rod", 3, dim));
        }
        let expanded = self.expanded(builder.layout(), builder.q0())?;
        expanded.declare_expanded(builder)
    }

    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        Ok(Box::new(self.bind_to(info)?))
    }

    fn label(&self) -> Option<&str> {
        Some(&self.name)
    }
}

impl Rod {
    /// [`EnergySpec::declare`] of a rod whose joints are expanded.
    fn declare_expanded(&self, builder: &mut Declare) -> Result<()> {
        // Default rest lengths: the initial edge lengths.
        let initial = self.initial_lengths(builder.layout(), builder.q0())?;
        let (net, rest) = self.validate(initial)?;
        net.check_nodes(builder.layout().n_nodes())?;
        let r = self.radius;
        let (area, polar) = (PI * r * r, PI * r.powi(4) / 2.0);
        let twist: Vec<usize> = rest
            .iter()
            .map(|l| builder.add_extra_dof(TWIST_KIND, 0.0, self.density * polar * l))
            .collect();
        let framed = net
            .edges()
            .iter()
            .zip(&twist)
            .map(|(&nodes, &twist)| FramedEdge { nodes, twist })
            .collect();
        builder.add_framed_edges(&self.name, framed, "edges")?;
        for (k, &e) in self.fixed_twists.iter().enumerate() {
            let Some(&dof) = twist.get(e) else {
                return Err(RodError::EdgeIndex {
                    field: format!("fixed_twists[{k}]"),
                    edge: e,
                    count: twist.len(),
                }
                .into());
            };
            builder.constrain(dof, Motion::Fixed, &format!("fixed_twists[{k}]"))?;
        }
        if self.add_mass {
            let mut m = std::collections::BTreeMap::<usize, f64>::new();
            let own = self.own_edges.unwrap_or(net.edges().len());
            for (&[a, b], l) in net.edges().iter().zip(&rest).take(own) {
                let half = 0.5 * self.density * area * l;
                *m.entry(a).or_default() += half;
                *m.entry(b).or_default() += half;
            }
            for (node, mass) in m {
                builder.add_point_mass(node, mass, "edges")?;
            }
        }
        Ok(())
    }
}

pliant_core::register_energy!(
    Rod = "rod",
    "discrete elastic rod or rod network (MAT-DiSMech §3.1–3.2): stretching ½k_s ε²|ē|, bending ½EI/Δl |κ − κ̄|², twisting ½GJ/Δl (τ − τ̄)² with one twist DOF θ (rad) per edge; radius in m, Young's modulus in Pa, density in kg/m³, rest lengths in m; natural curvature (1/m), twist (rad/m) and strain actuated by channels",
    r#"{"type": "rod", "edges": [[0, 1], [1, 2]], "radius": 0.001, "youngs_modulus": 2e6, "poisson_ratio": 0.5, "density": 1200, "rest_lengths": 0.05}"#
);
