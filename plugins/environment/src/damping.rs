//! Viscous damping (MAT-DiSMech eq. 27) as a dissipation potential:
//! `D = Σ_i c_i/(2h) ‖x_i − x_i,prev‖²` (J), whose force is
//! `−c_i (x_i − x_i,prev)/h`, with `c_i = η Δl_i` (N·s/m): viscosity `η`
//! (Pa·s) times the node's Voronoi length `Δl_i` (m), or given directly.

use pliant_core::element::{Ctx, Element, ElementSet, Elements};
use pliant_core::energy::{BindInfo, Energy, EvalState};
use pliant_core::error::{CoreError, Result};
use pliant_core::num_dual::DualNum;
use serde::{Deserialize, Serialize};

/// Damping on one node (`N = dim` DOFs), coefficient `c` in N·s/m.
#[derive(Debug, Clone)]
pub struct DampingEl<const N: usize> {
    dofs: [usize; N],
    c: f64,
}

impl<const N: usize> Element<N, 0> for DampingEl<N> {
    const HISTORY: bool = true;
    fn dofs(&self) -> [usize; N] {
        self.dofs
    }
    fn params(&self) -> [usize; 0] {
        []
    }
    fn energy<D: DualNum<f64> + Copy>(&self, x: &[D; N], xp: &[D; N], _: &[D; 0], c: &Ctx) -> D {
        let mut e = D::from(0.0);
        for a in 0..N {
            let d = x[a] - xp[a];
            e += d * d;
        }
        e * (0.5 * self.c / c.h)
    }
}

trait DampingAnalytic: ElementSet {
    fn blocks(&self, s: &EvalState, which: u8, out: &mut [f64]);
}
impl<const N: usize> DampingAnalytic for Elements<DampingEl<N>, N, 0> {
    /// which = 0: gradient, 1: Hessian (c/h I), 2: history (−c/h I).
    fn blocks(&self, s: &EvalState, which: u8, out: &mut [f64]) {
        let stride = if which == 0 { N } else { N * N };
        pliant_core::element::for_each_block(out, stride, &self.items, |o, e| {
            let k = e.c / s.h;
            if which == 0 {
                for a in 0..N {
                    o[a] = k * (s.q[e.dofs[a]] - s.q_prev[e.dofs[a]]);
                }
            } else {
                o.fill(0.0);
                let sign = if which == 1 { 1.0 } else { -1.0 };
                for a in 0..N {
                    o[a * N + a] = sign * k;
                }
            }
        });
    }
}

/// Viscous damping on all nodes (or a subset).
#[derive(Debug, Serialize, Deserialize)]
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
    #[serde(skip)]
    bound: Option<Box<dyn DampingAnalytic>>,
}

impl std::fmt::Debug for dyn DampingAnalytic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "damping on {} nodes", self.len())
    }
}

impl ViscousDamping {
    /// Uniform coefficient `c` (N·s/m) on every node.
    pub fn uniform(c: f64) -> Self {
        Self {
            coefficient: Some(c),
            eta: None,
            lengths: None,
            nodes: None,
            bound: None,
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
            bound: None,
        }
    }
    fn bind_n<const N: usize>(
        &self,
        info: &BindInfo,
        coef: &[f64],
        nodes: &[usize],
    ) -> Result<Box<dyn DampingAnalytic>> {
        let mut items = Vec::with_capacity(nodes.len());
        for (k, (&n, &c)) in nodes.iter().zip(coef).enumerate() {
            let mut dofs = [0; N];
            info.layout
                .node_dofs(n, &mut dofs, &format!("viscous_damping.nodes[{k}]"))?;
            items.push(DampingEl { dofs, c });
        }
        Ok(Box::new(Elements::<DampingEl<N>, N, 0>::new(items)))
    }
}

#[typetag::serde(name = "viscous_damping")]
impl Energy for ViscousDamping {
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
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
                return Err(CoreError::Model(format!(
                    "viscous_damping: {} lengths for {} nodes",
                    l.len(),
                    nodes.len()
                )));
            }
            _ => {
                return Err(CoreError::Model(
                    "viscous_damping: give either `coefficient` (N·s/m) or `eta` (Pa·s) with `lengths` (m)".into(),
                ));
            }
        };
        if let Some(c) = coef.iter().find(|c| !(c.is_finite() && **c >= 0.0)) {
            return Err(CoreError::Model(format!(
                "viscous_damping: coefficient must be ≥ 0, got {c} N·s/m"
            )));
        }
        self.bound = Some(if info.layout.dim() == 2 {
            self.bind_n::<2>(info, &coef, &nodes)?
        } else {
            self.bind_n::<3>(info, &coef, &nodes)?
        });
        Ok(())
    }
    fn elements(&self) -> &dyn ElementSet {
        self.bound
            .as_deref()
            .expect("viscous_damping used before Model::build bound it")
    }
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.bound.as_deref().expect("bound").blocks(s, 0, out)
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.bound.as_deref().expect("bound").blocks(s, 1, out)
    }
    fn history_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.bound.as_deref().expect("bound").blocks(s, 2, out)
    }
}

pliant_core::register_energy!(
    "viscous_damping",
    "viscous damping D = Σ c/(2h)|x − x_prev|², force −c v; `coefficient` c in N·s/m or `eta` (Pa·s) with Voronoi `lengths` (m)",
    r#"{"type": "viscous_damping", "coefficient": 0.1}"#
);
