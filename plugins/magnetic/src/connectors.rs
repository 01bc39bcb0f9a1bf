//! Magnetic connectors on the nodes of any bodies (scene type
//! `"magnetic_connectors"`; Germann et al., Soft Cell Simulator, §III-B).
//!
//! Every connector sits on a node and belongs to a body (a group id);
//! two connectors of different bodies closer than the interaction radius
//! `R` (m) interact with the pair energy of the chosen model — poles
//! ([`crate::pole`], inverse-square force) or dipoles ([`crate::dipole`])
//! — regularized inside the core radius `r_c` and switched off smoothly
//! over the band `[R − w, R]` ([`crate::law`]). Connectors of one body
//! never interact, and neither does a pair with a zero strength.
//!
//! Each connector may have an activation channel `a` (dimensionless, a
//! control channel switching it on at 1 and off at 0); a pair's energy is
//! proportional to both activations, so it is differentiable in them.
//!
//! **Pairs.** At the start of every step a grid broad phase
//! ([`crate::grid`]) collects the pairs of different bodies within
//! `R + margin` of each other, the margin being `R` plus three times the
//! largest connector displacement of the previous step (carried state, so
//! a recomputed step sees the same pairs) unless `margin` is given. When
//! the pair set changes, [`Energy::structure_version`] changes and the
//! simulator rebuilds its sparsity pattern. A pair that came within `R`
//! during a step without being a candidate is reported with `log::warn!`
//! (it joins at the next step; set a larger `margin` if this happens).

use crate::dipole::DipoleEl;
use crate::error::{MagneticError, node_exists, positive};
use crate::grid::close_pairs;
use crate::law::Law;
use crate::pole::PoleEl;
use pliant_core::geometry::{CellKind, Cells, Field, Shape};
use pliant_core::{
    BindInfo, CoreError, ElementSet, Elements, Energy, EnergySpec, EvalState, Layout, Result,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The magnetic constant μ₀ = 4π·10⁻⁷ H/m, the default permeability.
pub const VACUUM_PERMEABILITY: f64 = 4.0 * std::f64::consts::PI * 1e-7;

/// Marks the `z` DOF of a node in a 2-D model (always 0).
const NO_DOF: usize = usize::MAX;

/// Which pair law the connectors of one energy follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MagnetModel {
    /// Magnetic poles of signed strength `q` (A·m): `U = μ q_i q_j/(4π r)`,
    /// force `μ q_i q_j/(4π r²)`, like poles repel (the default).
    #[default]
    #[serde(alias = "monopole")]
    Pole,
    /// Magnetic dipoles of moment `m ≥ 0` (A·m²) along a body-fixed axis:
    /// `U = μ/(4π r³) [m_i·m_j − 3 (m_i·r̂)(m_j·r̂)]`.
    Dipole,
}

/// One connector, as written in a scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Connector {
    /// The node carrying it.
    pub node: usize,
    /// Its body (group id): connectors of one body never interact.
    pub body: usize,
    /// Pole strength `q` (A·m, signed) for the `"pole"` model; moment
    /// magnitude `m` (A·m², ≥ 0) for the `"dipole"` model.
    pub strength: f64,
    /// Activation channel `a` (dimensionless; 1 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Dipoles only: nodes `[a, b]` of the body giving the moment's
    /// direction `(x_b − x_a)/|x_b − x_a|`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<[usize; 2]>,
}

impl Connector {
    /// A pole of strength `q` (A·m, signed) on `node` of body `body`.
    pub fn pole(node: usize, body: usize, q: f64) -> Self {
        Self {
            node,
            body,
            strength: q,
            channel: None,
            axis: None,
        }
    }
    /// A dipole of moment `m` (A·m²) on `node` of body `body`, pointing
    /// from node `axis[0]` to node `axis[1]`.
    pub fn dipole(node: usize, body: usize, m: f64, axis: [usize; 2]) -> Self {
        Self {
            node,
            body,
            strength: m,
            channel: None,
            axis: Some(axis),
        }
    }
    /// The same connector, activated by channel `channel`.
    pub fn with_channel(mut self, channel: &str) -> Self {
        self.channel = Some(channel.into());
        self
    }
}

/// Magnetic connectors (scene type `"magnetic_connectors"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MagneticConnectors {
    /// The connectors.
    pub connectors: Vec<Connector>,
    /// Interaction radius `R` (m, > 0): pairs farther apart do not interact.
    pub radius: f64,
    /// Core radius `r_c` (m, `0 < r_c < R`) below which the potential is
    /// the bounded polynomial continuation; default `R/20`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_radius: Option<f64>,
    /// Width `w` of the switch band `[R − w, R]` (m, `0 < w ≤ R − r_c`);
    /// default `min(R/5, R − r_c)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_width: Option<f64>,
    /// Permeability μ of the medium (H/m); default μ₀.
    #[serde(default = "vacuum")]
    pub permeability: f64,
    /// The pair law: `"pole"` (default) or `"dipole"`.
    #[serde(default)]
    pub model: MagnetModel,
    /// Extra search distance (m) of the step-start broad phase; by default
    /// `R` plus three times the largest connector displacement of the
    /// previous step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// Prefix of the observables: `NAME.pairs`, the number of interacting
    /// connector pairs closer than `R`, and `NAME.min_distance`, the
    /// smallest distance between two interacting connectors (m), capped at
    /// `R` (so a value of `R` means no pair is in range).
    #[serde(default = "default_name")]
    pub name: String,
}

fn vacuum() -> f64 {
    VACUUM_PERMEABILITY
}

fn default_name() -> String {
    "magnets".into()
}

impl MagneticConnectors {
    /// Pole connectors of interaction radius `radius` (m) in vacuum, with
    /// the default core radius and switch width.
    pub fn new(connectors: Vec<Connector>, radius: f64) -> Self {
        Self {
            connectors,
            radius,
            core_radius: None,
            switch_width: None,
            permeability: VACUUM_PERMEABILITY,
            model: MagnetModel::Pole,
            margin: None,
            name: default_name(),
        }
    }
    /// The same connectors following `model`.
    pub fn with_model(mut self, model: MagnetModel) -> Self {
        self.model = model;
        self
    }
    /// The same connectors with core radius `core` (m) and switch width
    /// `width` (m).
    pub fn with_profile(mut self, core: f64, width: f64) -> Self {
        self.core_radius = Some(core);
        self.switch_width = Some(width);
        self
    }

    /// The radii of the profile, validated.
    fn law(&self) -> std::result::Result<Law, MagneticError> {
        let range = self.radius;
        if !(range.is_finite() && range > 0.0) {
            return Err(MagneticError::Radius { value: range });
        }
        let core = self.core_radius.unwrap_or(range / 20.0);
        if !(core.is_finite() && core > 0.0 && core < range) {
            return Err(MagneticError::CoreRadius {
                value: core,
                radius: range,
            });
        }
        let max = range - core;
        let width = self.switch_width.unwrap_or((range / 5.0).min(max));
        if !(width.is_finite() && width > 0.0 && width <= max) {
            return Err(MagneticError::SwitchWidth { value: width, max });
        }
        Ok(Law { core, range, width })
    }

    /// Checks connector `i` against the model (nodes, strength, axis, channel).
    fn check_connector(
        &self,
        i: usize,
        c: &Connector,
        info: &BindInfo,
    ) -> std::result::Result<(), CoreError> {
        let count = info.layout.n_nodes();
        node_exists(format!("connectors[{i}].node"), c.node, count)?;
        let dipole = self.model == MagnetModel::Dipole;
        if !c.strength.is_finite() || (dipole && c.strength < 0.0) {
            return Err(MagneticError::Strength {
                connector: i,
                value: c.strength,
                expected: if dipole {
                    "a finite moment magnitude ≥ 0 (A·m²; the axis gives its direction)"
                } else {
                    "a finite pole strength (A·m)"
                },
            }
            .into());
        }
        match (dipole, c.axis) {
            (false, None) => {}
            (false, Some(_)) => {
                return Err(MagneticError::Axis {
                    connector: i,
                    problem: "is only used by the \"dipole\" model (poles have no direction)"
                        .into(),
                }
                .into());
            }
            (true, None) => {
                return Err(MagneticError::Axis {
                    connector: i,
                    problem: "is missing: a dipole needs two nodes `[a, b]` giving its direction"
                        .into(),
                }
                .into());
            }
            (true, Some([a, b])) => {
                for n in [a, b] {
                    node_exists(format!("connectors[{i}].axis"), n, count)?;
                }
                let field = format!("connectors[{i}].axis");
                let (xa, xb) = (
                    info.node_position(a, &field)?,
                    info.node_position(b, &field)?,
                );
                let len = (0..3).map(|k| (xb[k] - xa[k]).powi(2)).sum::<f64>().sqrt();
                if len.is_nan() || len <= 0.0 {
                    return Err(MagneticError::Axis {
                        connector: i,
                        problem: format!(
                            "nodes {a} and {b} coincide in the initial state: the direction is undefined"
                        ),
                    }
                    .into());
                }
            }
        }
        if let Some(ch) = &c.channel {
            info.param(ch, &format!("connectors[{i}].channel"))?;
        }
        Ok(())
    }
}

/// A connector bound to the model.
#[derive(Debug, Clone)]
struct Bound {
    node: usize,
    body: usize,
    strength: f64,
    channel: Option<Arc<str>>,
    /// Axis nodes (dipoles; the node itself twice for poles).
    axis: [usize; 2],
    /// The node's `x, y, z` DOFs ([`NO_DOF`] for `z` in 2-D).
    dofs: [usize; 3],
}

/// The bound magnetic connectors: the connectors, the current candidate
/// pairs as an element set, and the broad phase's memory.
#[derive(Debug)]
pub struct MagneticConnectorsEnergy {
    name: String,
    model: MagnetModel,
    law: Law,
    margin: Option<f64>,
    /// `μ/(4π)`, H/m.
    mu_4pi: f64,
    layout: Layout,
    n_dofs: usize,
    connectors: Vec<Bound>,
    pairs: Vec<(usize, usize)>,
    set: Box<dyn Energy>,
    version: u64,
    /// Largest connector displacement (m) of the last committed step
    /// (carried state: it sets the next step's search margin).
    last_move: f64,
    /// The current step's start state.
    start_q: Vec<f64>,
    /// Pairs that came within `R` without being candidates, this run.
    missed: usize,
}

impl MagneticConnectorsEnergy {
    /// The current candidate pairs `(i, j)`, `i < j`, as connector indices,
    /// sorted (pairs within `R + margin` at the start of the step).
    pub fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }
    /// The observables' prefix.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Interaction radius `R`, core radius `r_c` and switch width `w` (m).
    pub fn radii(&self) -> (f64, f64, f64) {
        (self.law.range, self.law.core, self.law.width)
    }
    /// How many times in this run a pair came within `R` during a step
    /// without being a candidate (each was logged as a warning; the pair
    /// joins at the next step). Non-zero means the `margin` is too small
    /// for the motion.
    pub fn missed_pairs(&self) -> usize {
        self.missed
    }

    /// Every connector's position in `q` (m; `z = 0` in 2-D).
    fn positions(&self, q: &[f64]) -> Vec<[f64; 3]> {
        self.connectors
            .iter()
            .map(|c| c.dofs.map(|d| if d == NO_DOF { 0.0 } else { q[d] }))
            .collect()
    }

    /// Whether connectors `i` and `j` can interact at all.
    fn interacts(&self, i: usize, j: usize) -> bool {
        let (a, b) = (&self.connectors[i], &self.connectors[j]);
        a.body != b.body && a.strength * b.strength != 0.0
    }

    /// Interacting pairs within `reach` (m) of each other at `q`, sorted.
    fn within(&self, q: &[f64], reach: f64) -> Vec<(usize, usize)> {
        close_pairs(&self.positions(q), reach, |i, j| self.interacts(i, j))
    }

    fn build_set(&self, pairs: &[(usize, usize)]) -> Result<Box<dyn Energy>> {
        let c = &self.connectors;
        let k = |i: usize, j: usize| self.mu_4pi * c[i].strength * c[j].strength;
        let channels = |i: usize, j: usize| [c[i].channel.clone(), c[j].channel.clone()];
        Ok(match self.model {
            MagnetModel::Pole => {
                let items = pairs.iter().map(|&(i, j)| PoleEl {
                    nodes: [c[i].node, c[j].node],
                    channels: channels(i, j),
                    k: k(i, j),
                    law: self.law,
                });
                Box::new(Elements::bind_to(
                    items.collect(),
                    &self.layout,
                    self.n_dofs,
                    "pairs",
                )?)
            }
            MagnetModel::Dipole => {
                let items = pairs.iter().map(|&(i, j)| DipoleEl {
                    nodes: [
                        c[i].node,
                        c[j].node,
                        c[i].axis[0],
                        c[i].axis[1],
                        c[j].axis[0],
                        c[j].axis[1],
                    ],
                    channels: channels(i, j),
                    k: k(i, j),
                    law: self.law,
                });
                Box::new(Elements::bind_to(
                    items.collect(),
                    &self.layout,
                    self.n_dofs,
                    "pairs",
                )?)
            }
        })
    }

    /// Makes `pairs` the candidate set.
    fn set_pairs(&mut self, pairs: Vec<(usize, usize)>) {
        // Nodes and channels were checked when the energy was bound, so
        // binding cannot fail; if it ever did, the old set would stay.
        match self.build_set(&pairs) {
            Ok(set) => {
                self.set = set;
                self.pairs = pairs;
                self.version += 1;
            }
            Err(e) => log::error!("{}: cannot bind connector pairs: {e}", self.name),
        }
    }
}

impl EnergySpec for MagneticConnectors {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let law = self.law()?;
        positive("permeability", self.permeability, "> 0 and finite (H/m)")?;
        if let Some(m) = self.margin
            && !(m.is_finite() && m >= 0.0)
        {
            return Err(MagneticError::Field {
                field: "margin".into(),
                value: m,
                expected: "≥ 0 and finite (m)",
            }
            .into());
        }
        let dim = info.dim();
        let mut connectors = Vec::with_capacity(self.connectors.len());
        for (i, c) in self.connectors.iter().enumerate() {
            self.check_connector(i, c, info)?;
            let mut dofs = [NO_DOF; 3];
            info.layout
                .node_dofs(c.node, &mut dofs[..dim], &format!("connectors[{i}].node"))?;
            connectors.push(Bound {
                node: c.node,
                body: c.body,
                strength: c.strength,
                channel: c.channel.as_deref().map(Arc::from),
                axis: c.axis.unwrap_or([c.node, c.node]),
                dofs,
            });
        }
        let mut energy = MagneticConnectorsEnergy {
            name: self.name.clone(),
            model: self.model,
            law,
            margin: self.margin,
            mu_4pi: self.permeability / (4.0 * std::f64::consts::PI),
            layout: info.layout.clone(),
            n_dofs: info.q0.len(),
            connectors,
            pairs: Vec::new(),
            set: Box::new(Elements::<PoleEl>::bind(vec![], info, "pairs")?),
            version: 0,
            last_move: 0.0,
            start_q: info.q0.to_vec(),
            missed: 0,
        };
        let pairs = energy.within(info.q0, law.range + self.margin.unwrap_or(law.range));
        energy.set = energy.build_set(&pairs)?;
        energy.pairs = pairs;
        Ok(Box::new(energy))
    }
    fn label(&self) -> Option<&str> {
        Some(&self.name)
    }
}

impl Energy for MagneticConnectorsEnergy {
    fn elements(&self) -> &dyn ElementSet {
        self.set.elements()
    }

    /// The connectors as points, with their strength (pole A·m, dipole
    /// moment A·m²) and activation (1 without a channel).
    fn geometry(&self, s: &EvalState) -> Vec<Shape> {
        let nodes: Vec<usize> = self.connectors.iter().map(|c| c.node).collect();
        let activation = self
            .connectors
            .iter()
            .map(|c| match &c.channel {
                None => 1.0,
                Some(ch) => self
                    .layout
                    .param(ch, "connectors")
                    .ok()
                    .and_then(|i| s.p.get(i).copied())
                    .unwrap_or(f64::NAN),
            })
            .collect();
        let cells = Cells::over_nodes(
            &format!("connectors {}", self.name),
            CellKind::Vertex,
            &nodes,
        )
        .with(Field::cells(
            "strength",
            match self.model {
                MagnetModel::Pole => "A*m",
                MagnetModel::Dipole => "A*m^2",
            },
            self.connectors.iter().map(|c| c.strength).collect(),
        ))
        .with(Field::cells("activation", "1", activation));
        vec![Shape::Cells(cells)]
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn begin_step(&mut self, q_prev: &[f64], _p: &[f64], _dt: f64, _t: f64) {
        let range = self.law.range;
        let margin = self.margin.unwrap_or(range + 3.0 * self.last_move);
        let pairs = self.within(q_prev, range + margin);
        self.start_q.copy_from_slice(q_prev);
        if pairs != self.pairs {
            self.set_pairs(pairs);
        }
    }

    fn end_step(&mut self, q: &[f64], _p: &[f64]) {
        let mut m: f64 = 0.0;
        for c in &self.connectors {
            let s: f64 = c
                .dofs
                .iter()
                .filter(|&&d| d != NO_DOF)
                .map(|&d| (q[d] - self.start_q[d]).powi(2))
                .sum();
            m = m.max(s.sqrt());
        }
        if m.is_finite() {
            self.last_move = m;
        }
        // A pair that came within R without being a candidate was missed
        // this step: say so (the next step includes it).
        for (i, j) in self.within(q, self.law.range) {
            if self.pairs.binary_search(&(i, j)).is_err() {
                self.missed += 1;
                log::warn!(
                    "{}: connectors {i} and {j} came within the interaction radius {} m without being a candidate pair; set a larger `margin`",
                    self.name,
                    self.law.range
                );
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
        match *snapshot {
            [m] if m.is_finite() && m >= 0.0 => {
                self.last_move = m;
                Ok(())
            }
            [m] => Err(CoreError::NonFinite {
                what: "magnetic_connectors carried state (last displacement)".into(),
                index: 0,
                value: m,
            }),
            _ => Err(CoreError::Length {
                what: "magnetic_connectors carried state",
                found: snapshot.len(),
                expected: 1,
            }),
        }
    }

    /// A new run: no motion remembered.
    fn reset(&mut self, _q: &[f64]) {
        self.last_move = 0.0;
        self.missed = 0;
    }

    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let range = self.law.range;
        let x = self.positions(s.q);
        let mut count = 0usize;
        // Capped at R so that it is finite when no pair is in range.
        let mut min_distance = range;
        for (i, j) in self.within(s.q, range) {
            let d = (0..3)
                .map(|k| (x[j][k] - x[i][k]).powi(2))
                .sum::<f64>()
                .sqrt();
            if d < range {
                count += 1;
                min_distance = min_distance.min(d);
            }
        }
        vec![
            (format!("{}.pairs", self.name), count as f64),
            (format!("{}.min_distance", self.name), min_distance),
        ]
    }
}

pliant_core::register_energy!(
    MagneticConnectors = "magnetic_connectors",
    "magnetic connectors on nodes of different `body` ids within `radius` R (m): poles of signed `strength` q (A·m), U = μ q_i q_j/(4π r) (like poles repel), or `\"model\": \"dipole\"` with moment m (A·m²) along `axis` [a, b]; bounded core below `core_radius` (default R/20), C² cut-off over `switch_width` (default R/5); optional activation `channel` per connector; `permeability` μ (H/m, default μ₀)",
    r#"{"type": "magnetic_connectors", "connectors": [{"node": 0, "body": 0, "strength": 2.0}, {"node": 1, "body": 1, "strength": -2.0}], "radius": 0.02}"#
);
