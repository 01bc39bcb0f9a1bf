//! Gravity with optional buoyancy (MAT-DiSMech §5.1):
//! `E = −Σ_i m_i g_eff · x_i` (J) with `g_eff = g (ρ − ρ_med)/ρ` when a body
//! density `ρ` and a medium density `ρ_med` (kg/m³) are given.
//! The node masses are the model's lumped masses.

use pliant_core::{
    BindInfo, CoreError, Ctx, Element, Elements, Energy, EnergySpec, Invalid, Local, Result,
    Scalar, Stencil,
};
use serde::{Deserialize, Serialize};

/// Uniform gravity on all nodes (or a subset), scene type `"gravity"`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gravity {
    /// Gravitational acceleration, m/s² (e.g. `[0, 0, -9.81]`).
    pub g: Vec<f64>,
    /// Nodes it acts on (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<usize>>,
    /// Body density ρ (kg/m³), for buoyancy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f64>,
    /// Density of the surrounding medium ρ_med (kg/m³), for buoyancy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium_density: Option<f64>,
}

impl Gravity {
    /// Gravity `g` (m/s²) on every node.
    pub fn new(g: &[f64]) -> Self {
        Self {
            g: g.to_vec(),
            nodes: None,
            density: None,
            medium_density: None,
        }
    }
}

/// Gravity on one node: its weight `w = m g_eff` (N).
#[derive(Debug, Clone)]
struct GravityEl {
    node: [usize; 1],
    w: [f64; 3],
}

impl Element for GravityEl {
    type Size = Stencil<3>;
    fn nodes(&self) -> &[usize] {
        &self.node
    }
    fn energy<D: Scalar>(&self, x: &[D], _: &[D], _: &[D], _: &Ctx) -> D {
        let mut e = D::from(0.0);
        for a in 0..3 {
            e -= x[a] * self.w[a];
        }
        e
    }
    fn gradient(&self, _: &Local, g: &mut [f64]) -> bool {
        for a in 0..3 {
            g[a] = -self.w[a];
        }
        true
    }
    fn hessian(&self, _: &Local, h: &mut [f64]) -> bool {
        h.fill(0.0);
        true
    }
}

impl EnergySpec for Gravity {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let dim = info.dim();
        if self.g.len() != dim {
            return Err(CoreError::Count {
                field: "g".into(),
                found: self.g.len(),
                expected: dim,
            });
        }
        for (a, &v) in self.g.iter().enumerate() {
            Invalid::check(v.is_finite(), format!("g[{a}]"), v, "finite (m/s²)")?;
        }
        let scale = match (self.density, self.medium_density) {
            (None, None) => 1.0,
            (Some(r), Some(m)) => {
                Invalid::positive("density", r, "kg/m³")?;
                Invalid::non_negative("medium_density", m, "kg/m³")?;
                (r - m) / r
            }
            _ => {
                return Err(CoreError::inconsistent(
                    "density",
                    "buoyancy needs both `density` and `medium_density`",
                ));
            }
        };
        let mut g = [0.0; 3];
        for a in 0..dim {
            g[a] = self.g[a] * scale;
        }
        let nodes: Vec<usize> = match &self.nodes {
            Some(v) => v.clone(),
            None => (0..info.layout.n_nodes()).collect(),
        };
        let base = info.layout.node_base();
        let mut items = Vec::with_capacity(nodes.len());
        for (k, &n) in nodes.iter().enumerate() {
            let &b = base.get(n).ok_or_else(|| CoreError::NodeOutOfRange {
                field: format!("nodes[{k}]"),
                index: n,
                count: base.len(),
            })?;
            items.push(GravityEl {
                node: [n],
                w: std::array::from_fn(|a| {
                    if a < dim {
                        info.mass[b + a] * g[a]
                    } else {
                        0.0
                    }
                }),
            });
        }
        Ok(Box::new(Elements::bind(items, info, "nodes")?))
    }
}

pliant_core::register_energy!(
    Gravity = "gravity",
    "uniform gravity E = −Σ m g·x with the model's lumped masses; g in m/s²; optional buoyancy from `density`, `medium_density` (kg/m³)",
    r#"{"type": "gravity", "g": [0.0, 0.0, -9.81]}"#
);
