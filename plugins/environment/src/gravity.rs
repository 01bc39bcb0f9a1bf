//! Gravity with optional buoyancy (MAT-DiSMech §5.1):
//! `E = −Σ_i m_i g_eff · x_i` (J) with `g_eff = g (ρ − ρ_med)/ρ` when a body
//! density `ρ` and a medium density `ρ_med` (kg/m³) are given.
//! The node masses are the model's lumped masses.

use pliant_core::element::{Ctx, Element, ElementSet, Elements};
use pliant_core::energy::{BindInfo, Energy, EvalState};
use pliant_core::error::{CoreError, Result};
use pliant_core::num_dual::DualNum;
use serde::{Deserialize, Serialize};

/// Gravity on a node: weight vector `w = m g_eff` (N) over its `N = dim` DOFs.
#[derive(Debug, Clone)]
pub struct GravityEl<const N: usize> {
    dofs: [usize; N],
    w: [f64; N],
}

impl<const N: usize> Element<N, 0> for GravityEl<N> {
    fn dofs(&self) -> [usize; N] {
        self.dofs
    }
    fn params(&self) -> [usize; 0] {
        []
    }
    fn energy<D: DualNum<f64> + Copy>(&self, x: &[D; N], _: &[D; N], _: &[D; 0], _: &Ctx) -> D {
        let mut e = D::from(0.0);
        for a in 0..N {
            e -= x[a] * self.w[a];
        }
        e
    }
}

trait GravityAnalytic: ElementSet {
    fn grad(&self, out: &mut [f64]);
}
impl<const N: usize> GravityAnalytic for Elements<GravityEl<N>, N, 0> {
    fn grad(&self, out: &mut [f64]) {
        pliant_core::element::for_each_block(out, N, &self.items, |o, e| {
            for a in 0..N {
                o[a] = -e.w[a];
            }
        });
    }
}

/// Uniform gravity on all nodes (or a subset).
#[derive(Debug, Serialize, Deserialize)]
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
    #[serde(skip)]
    bound: Option<Box<dyn GravityAnalytic>>,
}

impl std::fmt::Debug for dyn GravityAnalytic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "gravity on {} nodes", self.len())
    }
}

impl Gravity {
    /// Gravity `g` (m/s²) on every node.
    pub fn new(g: &[f64]) -> Self {
        Self {
            g: g.to_vec(),
            nodes: None,
            density: None,
            medium_density: None,
            bound: None,
        }
    }
    fn bind_n<const N: usize>(
        &self,
        info: &BindInfo,
        g: [f64; 3],
    ) -> Result<Box<dyn GravityAnalytic>> {
        let nodes: Vec<usize> = match &self.nodes {
            Some(v) => v.clone(),
            None => (0..info.layout.n_nodes()).collect(),
        };
        let mut items = Vec::with_capacity(nodes.len());
        for (k, &n) in nodes.iter().enumerate() {
            let mut dofs = [0; N];
            info.layout
                .node_dofs(n, &mut dofs, &format!("gravity.nodes[{k}]"))?;
            let w = std::array::from_fn(|a| info.mass[dofs[a]] * g[a]);
            items.push(GravityEl { dofs, w });
        }
        Ok(Box::new(Elements::<GravityEl<N>, N, 0>::new(items)))
    }
}

#[typetag::serde(name = "gravity")]
impl Energy for Gravity {
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        let dim = info.layout.dim();
        if self.g.len() != dim || self.g.iter().any(|v| !v.is_finite()) {
            return Err(CoreError::Model(format!(
                "gravity.g must have {dim} finite components, got {:?}",
                self.g
            )));
        }
        let scale = match (self.density, self.medium_density) {
            (None, None) => 1.0,
            (Some(r), Some(m)) if r > 0.0 && m >= 0.0 => (r - m) / r,
            (Some(r), Some(m)) => {
                return Err(CoreError::Model(format!(
                    "gravity: density must be > 0 and medium_density ≥ 0 (got {r}, {m} kg/m³)"
                )));
            }
            _ => {
                return Err(CoreError::Model(
                    "gravity: buoyancy needs both `density` and `medium_density`".into(),
                ));
            }
        };
        let mut g = [0.0; 3];
        for a in 0..dim {
            g[a] = self.g[a] * scale;
        }
        self.bound = Some(if dim == 2 {
            self.bind_n::<2>(info, g)?
        } else {
            self.bind_n::<3>(info, g)?
        });
        Ok(())
    }
    fn elements(&self) -> &dyn ElementSet {
        self.bound
            .as_deref()
            .expect("gravity energy used before Model::build bound it")
    }
    fn gradient_blocks(&self, _s: &EvalState, out: &mut [f64]) {
        self.bound.as_deref().expect("bound").grad(out)
    }
    fn hessian_blocks(&self, _s: &EvalState, out: &mut [f64]) {
        out.fill(0.0);
    }
}

pliant_core::register_energy!(
    "gravity",
    "uniform gravity E = −Σ m g·x with the model's lumped masses; g in m/s²; optional buoyancy from `density`, `medium_density` (kg/m³)",
    r#"{"type": "gravity", "g": [0.0, 0.0, -9.81]}"#
);
