//! Viscous damping (MAT-DiSMech eq. 27) as a dissipation potential:
//! `D = Σ_i c_i/(2h) ‖x_i − x_i,prev‖²` (J), whose force is
//! `−c_i (x_i − x_i,prev)/h`, with `c_i = η Δl_i` (N·s/m): viscosity `η`
//! (Pa·s) times the node's Voronoi length `Δl_i` (m), or given directly.

use pliant_core::{
    BindInfo, CoreError, Ctx, Element, Elements, Energy, EnergySpec, Invalid, Local, Result,
    Scalar, Stencil,
};
use serde::{Deserialize, Serialize};

/// Viscous damping on all nodes (or a subset), scene type `"viscous_damping"`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViscousDamping {
    /// Coefficient per node `c = η Δl` (N·s/m), used when `eta` is absent.
    #[serde(default)]
    pub coefficient: Option<f64>,
    /// Viscosity η (Pa·s); requires `lengths`.
    #[serde(default)]
    pub eta: Option<f64>,
    /// Voronoi length Δl per listed node (m).
    #[serde(default)]
    pub lengths: Option<Vec<f64>>,
    /// Nodes (default: all).
    #[serde(default)]
    pub nodes: Option<Vec<usize>>,
}

impl ViscousDamping {
    /// Uniform coefficient `c` (N·s/m) on every node.
    pub fn uniform(c: f64) -> Self {
        Self {
            coefficient: Some(c),
            eta: None,
            lengths: None,
            nodes: None,
        }
    }
    /// Viscosity `eta` (Pa·s, eq. 27) on `nodes` with Voronoi lengths
    /// `lengths` (m): coefficient `η Δl_i` per node.
    pub fn viscous(eta: f64, nodes: Vec<usize>, lengths: Vec<f64>) -> Self {
        Self {
            coefficient: None,
            eta: Some(eta),
            lengths: Some(lengths),
            nodes: Some(nodes),
        }
    }
}

/// Damping on one node, coefficient `c` in N·s/m.
#[derive(Debug, Clone)]
struct DampingEl {
    node: [usize; 1],
    c: f64,
}

impl Element for DampingEl {
    type Size = Stencil<3>;
    const HISTORY: bool = true;
    fn nodes(&self) -> &[usize] {
        &self.node
    }
    fn energy<D: Scalar>(&self, x: &[D], xp: &[D], _: &[D], c: &Ctx) -> D {
        let mut e = D::from(0.0);
        for a in 0..3 {
            let d = x[a] - xp[a];
            e += d * d;
        }
        e * (0.5 * self.c / c.h)
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let k = self.c / l.ctx.h;
        for a in 0..3 {
            g[a] = k * (l.x[a] - l.x_prev[a]);
        }
        true
    }
    /// `(c/h) I`.
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        h.fill(0.0);
        for a in 0..3 {
            h[a * 3 + a] = self.c / l.ctx.h;
        }
        true
    }
    /// `−(c/h) I`.
    fn history(&self, l: &Local, h: &mut [f64]) -> bool {
        h.fill(0.0);
        for a in 0..3 {
            h[a * 3 + a] = -(self.c / l.ctx.h);
        }
        true
    }
}

impl EnergySpec for ViscousDamping {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let nodes: Vec<usize> = self
            .nodes
            .clone()
            .unwrap_or_else(|| (0..info.layout.n_nodes()).collect());
        let coef: Vec<f64> = match (self.coefficient, self.eta, &self.lengths) {
            (Some(c), None, None) => vec![c; nodes.len()],
            (None, Some(eta), Some(l)) if l.len() == nodes.len() => {
                l.iter().map(|l| eta * l).collect()
            }
            (None, Some(_), Some(l)) => {
                return Err(CoreError::Count {
                    field: "lengths".into(),
                    found: l.len(),
                    expected: nodes.len(),
                });
            }
            _ => {
                return Err(CoreError::inconsistent(
                    "coefficient",
                    "give either `coefficient` (N·s/m) or `eta` (Pa·s) with `lengths` (m)",
                ));
            }
        };
        for (k, &c) in coef.iter().enumerate() {
            Invalid::non_negative(format!("coefficient of nodes[{k}]"), c, "N·s/m")?;
        }
        let items = nodes
            .iter()
            .zip(&coef)
            .map(|(&n, &c)| DampingEl { node: [n], c })
            .collect();
        Ok(Box::new(Elements::bind(items, info, "nodes")?))
    }
}

pliant_core::register_energy!(
    ViscousDamping = "viscous_damping",
    "viscous damping D = Σ c/(2h)|x − x_prev|², force −c v; `coefficient` c in N·s/m or `eta` (Pa·s) with Voronoi `lengths` (m)",
    r#"{"type": "viscous_damping", "coefficient": 0.1}"#
);
