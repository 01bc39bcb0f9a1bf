//! DOF layout; see [`Layout`].

use crate::edge_frame::FramedEdge;
use crate::error::{CoreError, Result};
use serde::{Deserialize, Serialize};

/// Whether a parameter channel may vary per time step or is constant over a rollout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// Varies per step (cable contraction, pressure, natural curvature, ...).
    Control,
    /// Constant over a rollout (Young's modulus, rest shape, ...).
    Design,
}

/// What a DOF represents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DofKind {
    /// Coordinate `axis` of node `node`, in m.
    Position {
        /// Node index.
        node: usize,
        /// 0 = x, 1 = y, 2 = z.
        axis: usize,
    },
    /// A scalar DOF allocated by a plugin, e.g. `"twist"` (rad) or `"midedge"`.
    Extra {
        /// Kind label, used for output.
        kind: String,
    },
}

/// The map between nodes/extra DOFs/parameter channels and flat indices.
///
/// Nodes carry `dim` (2 or 3) consecutive position DOFs in metres; plugins may
/// allocate extra scalar DOFs (rod edge twist θ in radians, shell mid-edge ξ)
/// with a kind recorded for output and mass. Parameter channels (controls that
/// vary per step and constant design parameters) are named and indexed here too,
/// so energies can resolve node indices and channel names when they are bound.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Layout {
    dim: usize,
    node_base: Vec<usize>,
    kinds: Vec<DofKind>,
    param_names: Vec<String>,
    param_kinds: Vec<ParamKind>,
    /// Named node sets (a body's mesh groups, a scene's regions), sorted
    /// node indices.
    #[serde(default)]
    regions: std::collections::BTreeMap<String, Vec<usize>>,
    /// Named tetrahedral bodies (a `tet_body`'s tetrahedra over model
    /// nodes), for what binds inside a body: a cable routed through it.
    #[serde(default)]
    volumes: std::collections::BTreeMap<String, Vec<[usize; 4]>>,
    /// Named sets of framed edges (a rod's edges with their twist DOFs),
    /// for what rides on a rod's cross-section; `None` when two sets were
    /// given one name.
    #[serde(default)]
    framed: std::collections::BTreeMap<String, Option<Vec<FramedEdge>>>,
    /// Regions whose centroid is reported with the observables every step.
    #[serde(default)]
    outputs: Vec<String>,
}

impl Layout {
    /// An empty layout for a `dim`-dimensional model (`dim` is 2 or 3).
    pub(crate) fn new(dim: usize) -> Result<Self> {
        if dim != 2 && dim != 3 {
            return Err(CoreError::BadDimension(dim));
        }
        Ok(Self {
            dim,
            ..Default::default()
        })
    }
    /// Spatial dimension (2 or 3).
    pub fn dim(&self) -> usize {
        self.dim
    }
    /// Number of nodes.
    pub fn n_nodes(&self) -> usize {
        self.node_base.len()
    }
    /// Total number of DOFs (length of `q`).
    pub fn n_dofs(&self) -> usize {
        self.kinds.len()
    }
    /// Number of parameter channels (length of `p`).
    pub fn n_params(&self) -> usize {
        self.param_names.len()
    }
    /// Allocates a node and returns its index.
    pub(crate) fn add_node(&mut self) -> usize {
        let node = self.node_base.len();
        self.node_base.push(self.kinds.len());
        for axis in 0..self.dim {
            self.kinds.push(DofKind::Position { node, axis });
        }
        node
    }
    /// Allocates an extra scalar DOF of the given kind and returns its DOF index.
    pub(crate) fn add_extra(&mut self, kind: &str) -> usize {
        self.kinds.push(DofKind::Extra {
            kind: kind.to_string(),
        });
        self.kinds.len() - 1
    }
    /// Adds a parameter channel; names must be unique.
    pub(crate) fn add_param(&mut self, name: &str, kind: ParamKind) -> Result<usize> {
        if self.param_names.iter().any(|n| n == name) {
            return Err(CoreError::DuplicateParam(name.to_string()));
        }
        self.param_names.push(name.to_string());
        self.param_kinds.push(kind);
        Ok(self.param_names.len() - 1)
    }
    /// DOF index of coordinate `axis` of `node`; errors name `context`.
    pub fn node_dof(&self, node: usize, axis: usize, context: &str) -> Result<usize> {
        if axis >= self.dim {
            return Err(CoreError::AxisOutOfRange {
                field: context.to_string(),
                axis,
                dim: self.dim,
            });
        }
        let base = self
            .node_base
            .get(node)
            .ok_or_else(|| CoreError::NodeOutOfRange {
                field: context.to_string(),
                index: node,
                count: self.n_nodes(),
            })?;
        Ok(base + axis)
    }
    /// Writes the `dim` DOF indices of `node` into `out[..dim]`.
    pub fn node_dofs(&self, node: usize, out: &mut [usize], context: &str) -> Result<()> {
        for (axis, o) in out.iter_mut().enumerate().take(self.dim) {
            *o = self.node_dof(node, axis, context)?;
        }
        Ok(())
    }
    /// Index of the parameter channel `name`.
    pub fn param(&self, name: &str, context: &str) -> Result<usize> {
        self.param_names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| CoreError::UnknownParam {
                field: context.to_string(),
                name: name.to_string(),
                known: self.param_names.clone(),
            })
    }
    /// Names of the parameter channels, in index order.
    pub fn param_names(&self) -> &[String] {
        &self.param_names
    }
    /// Kinds of the parameter channels, in index order.
    pub fn param_kinds(&self) -> &[ParamKind] {
        &self.param_kinds
    }
    /// What each DOF is.
    pub fn dof_kinds(&self) -> &[DofKind] {
        &self.kinds
    }
    /// First DOF of each node.
    pub fn node_base(&self) -> &[usize] {
        &self.node_base
    }
    /// The nodes of region `name` (sorted); `context` names the field in
    /// the error, which lists the regions that exist.
    pub fn region(&self, name: &str, context: &str) -> Result<&[usize]> {
        self.regions
            .get(name)
            .map(Vec::as_slice)
            .ok_or_else(|| CoreError::UnknownRegion {
                field: context.to_string(),
                name: name.to_string(),
                known: self.regions.keys().cloned().collect(),
            })
    }
    /// The tetrahedra (over model nodes) of body `name`; `context` names the
    /// field in the error, which lists the bodies that exist.
    pub fn volume(&self, name: &str, context: &str) -> Result<&[[usize; 4]]> {
        self.volumes
            .get(name)
            .map(Vec::as_slice)
            .ok_or_else(|| CoreError::UnknownBody {
                field: context.to_string(),
                name: name.to_string(),
                known: self.volumes.keys().cloned().collect(),
            })
    }
    /// The framed edges (edges with a twist DOF, [`crate::edge_frame`]) of
    /// rod `name`, in the rod's edge order; `context` names the field in
    /// the error, which lists the rods that exist or says that two share
    /// the name.
    pub fn framed_edges(&self, name: &str, context: &str) -> Result<&[FramedEdge]> {
        match self.framed.get(name) {
            Some(Some(edges)) => Ok(edges),
            Some(None) => Err(CoreError::AmbiguousRod {
                field: context.to_string(),
                name: name.to_string(),
            }),
            None => Err(CoreError::UnknownRod {
                field: context.to_string(),
                name: name.to_string(),
                known: self.framed.keys().cloned().collect(),
            }),
        }
    }
    /// Adds the framed edges of rod `name`. A second set of the same name
    /// is not an error here (scenes with several rods of the default name
    /// are valid); the name becomes ambiguous, and only looking it up fails.
    pub(crate) fn add_framed_edges(
        &mut self,
        name: &str,
        edges: Vec<FramedEdge>,
        context: &str,
    ) -> Result<()> {
        let n = self.node_base.len();
        if let Some(&i) = edges.iter().flat_map(|e| &e.nodes).find(|&&i| i >= n) {
            return Err(CoreError::NodeOutOfRange {
                field: context.to_string(),
                index: i,
                count: n,
            });
        }
        if let Some(e) = edges.iter().find(|e| e.twist >= self.kinds.len()) {
            return Err(CoreError::DofOutOfRange {
                field: context.to_string(),
                index: e.twist,
                count: self.kinds.len(),
            });
        }
        if let Some(k) = edges.iter().position(|e| {
            e.nodes[0] == e.nodes[1] || !matches!(self.kinds[e.twist], DofKind::Extra { .. })
        }) {
            return Err(CoreError::Inconsistent {
                field: format!("{context}[{k}]"),
                problem: "a framed edge needs two distinct nodes and an extra (angle) DOF",
            });
        }
        self.framed
            .entry(name.to_string())
            .and_modify(|v| *v = None)
            .or_insert(Some(edges));
        Ok(())
    }
    /// Adds the tetrahedral body `name`; names are unique among bodies.
    pub(crate) fn add_volume(
        &mut self,
        name: &str,
        tets: Vec<[usize; 4]>,
        context: &str,
    ) -> Result<()> {
        if let Some(&n) = tets.iter().flatten().find(|&&n| n >= self.node_base.len()) {
            return Err(CoreError::NodeOutOfRange {
                field: context.to_string(),
                index: n,
                count: self.node_base.len(),
            });
        }
        if self.volumes.contains_key(name) {
            return Err(CoreError::DuplicateBody {
                field: context.to_string(),
                name: name.to_string(),
            });
        }
        self.volumes.insert(name.to_string(), tets);
        Ok(())
    }
    /// The centroid (unweighted mean position, m) of `nodes` in state `q`;
    /// coordinates beyond the model's dimension are 0. Empty `nodes` give
    /// NaN.
    pub fn centroid(&self, nodes: &[usize], q: &[f64]) -> [f64; 3] {
        let mut c = [0.0; 3];
        for &n in nodes {
            let d0 = self.node_base[n];
            for (a, ca) in c.iter_mut().enumerate().take(self.dim) {
                *ca += q[d0 + a];
            }
        }
        let count = nodes.len() as f64;
        for ca in c.iter_mut().take(self.dim) {
            *ca /= count;
        }
        c
    }
    /// The regions reported as output groups, in order: each adds the
    /// observables `<name>.x`, `<name>.y` (and `<name>.z`), the centroid of
    /// its nodes, m.
    pub fn outputs(&self) -> &[String] {
        &self.outputs
    }
    /// Reports region `name` as an output group (it must exist; each once).
    pub(crate) fn add_output(&mut self, name: &str, context: &str) -> Result<()> {
        self.region(name, context)?;
        if self.outputs.iter().any(|o| o == name) {
            return Err(CoreError::DuplicateRegion {
                field: context.to_string(),
                name: name.to_string(),
            });
        }
        self.outputs.push(name.to_string());
        Ok(())
    }
    /// Every region's name, sorted.
    pub fn region_names(&self) -> impl Iterator<Item = &str> {
        self.regions.keys().map(String::as_str)
    }
    /// Adds region `name` (nodes sorted and deduplicated); names are unique.
    pub(crate) fn add_region(
        &mut self,
        name: &str,
        mut nodes: Vec<usize>,
        context: &str,
    ) -> Result<()> {
        if let Some(&n) = nodes.iter().find(|&&n| n >= self.node_base.len()) {
            return Err(CoreError::NodeOutOfRange {
                field: context.to_string(),
                index: n,
                count: self.node_base.len(),
            });
        }
        if self.regions.contains_key(name) {
            return Err(CoreError::DuplicateRegion {
                field: context.to_string(),
                name: name.to_string(),
            });
        }
        nodes.sort_unstable();
        nodes.dedup();
        self.regions.insert(name.to_string(), nodes);
        Ok(())
    }
}
