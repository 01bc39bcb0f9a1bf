//! The cable as a scene writes it (`"type": "cable"`): a polyline of
//! barycentrically bound vertices (or a [`CableRoute`] through a body,
//! bound when the model is built), a control law and its channel; bound
//! into a [`CableEnergy`].

use crate::energy::{CableEnergy, Law};
use crate::route::CableRoute;
use crate::vertex::CableVertex;
use pliant_core::{BindInfo, CoreError, Energy, EnergySpec, Invalid, Result};
use serde::{Deserialize, Serialize};

/// Default smoothing width `ε` of `Q`, m.
pub const DEFAULT_SMOOTHING: f64 = 1e-4;

fn default_smoothing() -> f64 {
    DEFAULT_SMOOTHING
}

/// What the cable's parameter channel prescribes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum CableControl {
    /// Contracted length `u` (m) read from `channel`: rest length `α0 − u`
    /// (eq. 3). Two cables reading the same channel share a motor (a tendon
    /// pair).
    Length {
        /// Parameter channel name.
        channel: String,
    },
    /// Tension `τ` (N) read from `channel`: `E = τ L(x)` (appendix A).
    Tension {
        /// Parameter channel name.
        channel: String,
    },
}

impl CableControl {
    /// The channel name.
    pub fn channel(&self) -> &str {
        match self {
            CableControl::Length { channel } | CableControl::Tension { channel } => channel,
        }
    }
}

/// One cable: a polyline of bound vertices, as written in a scene
/// (`"type": "cable"`). A robot adds one such energy per cable.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cable {
    /// Name, used in error messages and as the prefix of the observables
    /// `{name}.tension` (N), `{name}.slack` (m) and `{name}.length` (m).
    pub name: String,
    /// At least two vertices, in order along the cable (or give `route`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vertices: Vec<CableVertex>,
    /// The cable as points in space through a body, bound when the model
    /// is built (instead of `vertices`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<CableRoute>,
    /// Length or tension control and the channel it reads.
    pub control: CableControl,
    /// Stiffness `k`, N/m (> 0; validated in both modes, used by length
    /// control only).
    pub stiffness: f64,
    /// Assembly length `α0`, m (> 0); default `L(x0)`, the length at assembly
    /// (the cable is just taut at rest with `u = 0`). Unused by tension control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assembly_length: Option<f64>,
    /// Smoothing width `ε` of `Q`, m (≥ 0; default 1e-4).
    #[serde(default = "default_smoothing")]
    pub smoothing: f64,
}

impl Cable {
    /// A cable with the default assembly length (`L(x0)`) and smoothing
    /// (1e-4 m); `stiffness` in N/m.
    pub fn new(
        name: &str,
        vertices: Vec<CableVertex>,
        control: CableControl,
        stiffness: f64,
    ) -> Self {
        Self {
            name: name.into(),
            vertices,
            route: None,
            control,
            stiffness,
            assembly_length: None,
            smoothing: DEFAULT_SMOOTHING,
        }
    }

    /// Sets the assembly length `α0` (m).
    pub fn with_assembly_length(mut self, alpha0: f64) -> Self {
        self.assembly_length = Some(alpha0);
        self
    }

    /// Sets the smoothing width `ε` of `Q` (m).
    pub fn with_smoothing(mut self, eps: f64) -> Self {
        self.smoothing = eps;
        self
    }

    /// The bound cable.
    pub fn bind_to(&self, info: &BindInfo) -> Result<CableEnergy> {
        let layout = info.layout;
        if self.name.is_empty() {
            return Err(CoreError::inconsistent(
                "name",
                "must not be empty (it prefixes the observables)",
            ));
        }
        info.require_dim("cable", 3)?;
        let routed;
        let (vertices, field) = match &self.route {
            Some(_) if !self.vertices.is_empty() => {
                return Err(CoreError::inconsistent(
                    "route",
                    "give the cable's `vertices` or its `route`, not both",
                ));
            }
            Some(r) => {
                routed = r.bind(info)?;
                (&routed[..], "route.points")
            }
            None => (&self.vertices[..], "vertices"),
        };
        if vertices.len() < 2 {
            return Err(CoreError::TooFew {
                field: field.into(),
                found: vertices.len(),
                min: 2,
            });
        }
        Invalid::positive("stiffness", self.stiffness, "N/m")?;
        Invalid::non_negative("smoothing", self.smoothing, "m")?;
        if let Some(a) = self.assembly_length {
            Invalid::positive("assembly_length", a, "m")?;
        }
        let mut nodes: Vec<usize> = Vec::new();
        for (i, v) in vertices.iter().enumerate() {
            v.validate().map_err(|e| CoreError::Degenerate {
                field: format!("{field}[{i}]"),
                problem: e.to_string(),
            })?;
            for &n in &v.nodes {
                layout.node_dof(n, 0, &format!("{field}[{i}].nodes"))?;
            }
            nodes.extend_from_slice(&v.nodes);
        }
        nodes.sort_unstable();
        nodes.dedup();
        let mut dofs = vec![0; 3 * nodes.len()];
        for (k, &n) in nodes.iter().enumerate() {
            layout.node_dofs(n, &mut dofs[3 * k..3 * k + 3], "vertices")?;
        }
        let verts: Vec<Vec<(usize, f64)>> = vertices
            .iter()
            .map(|v| {
                v.nodes
                    .iter()
                    .zip(&v.weights)
                    .map(|(n, &w)| (3 * nodes.partition_point(|m| m < n), w))
                    .collect()
            })
            .collect();
        let param = layout.param(self.control.channel(), "control.channel")?;
        let mut bound = CableEnergy {
            name: self.name.clone(),
            dofs,
            param,
            verts,
            law: Law::Tension,
        };
        // Rest state: no coincident consecutive vertices.
        let x0 = bound.local(info.q0);
        let pos = bound.positions(&x0);
        for (j, s) in pos.windows(2).enumerate() {
            let l = (0..3)
                .map(|a| (s[1][a] - s[0][a]).powi(2))
                .sum::<f64>()
                .sqrt();
            let scale = s[0].iter().chain(&s[1]).fold(0.0f64, |m, c| m.max(c.abs()));
            if l <= 4.0 * f64::EPSILON * scale {
                return Err(CoreError::degenerate(
                    format!("{field}[{j}..={}]", j + 1),
                    format!(
                        "segment {j} has zero length in the initial state: both vertices are at ({:.6}, {:.6}, {:.6}) m",
                        s[0][0], s[0][1], s[0][2]
                    ),
                ));
            }
        }
        bound.law = match self.control {
            CableControl::Length { .. } => Law::Length {
                k: self.stiffness,
                alpha0: self.assembly_length.unwrap_or_else(|| bound.kin(&x0).len),
                eps: self.smoothing,
            },
            CableControl::Tension { .. } => Law::Tension,
        };
        Ok(bound)
    }
}

impl EnergySpec for Cable {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        Ok(Box::new(self.bind_to(info)?))
    }
    fn label(&self) -> Option<&str> {
        Some(&self.name)
    }
}

pliant_core::register_energy!(
    Cable = "cable",
    "one cable, a polyline of barycentrically bound vertices: length control E = k Q(L − α0 + u) (Bern 2019 eqs. 2–3; k in N/m, L, α0 (default L(x0)), contracted length u and smoothing ε in m) or tension control E = τ L (τ in N)",
    r#"{"type": "cable", "name": "flexor", "vertices": [{"nodes": [0], "weights": [1.0]}, {"nodes": [1], "weights": [1.0]}], "control": {"type": "length", "channel": "u"}, "stiffness": 1000.0}"#
);
