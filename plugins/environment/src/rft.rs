//! Hydrodynamic drag by resistive force theory (MAT-DiSMech §5.4, eqs. 29–30).
//!
//! Each edge `k` of length `l^k` at rest (m) applies to each of its two
//! nodes the force `F_i = −(l^k/2) [(C_t − C_n) ê ê^T + C_n I] u_i`, with
//! `u_i = (x_i − x_i,prev)/h` (m/s) and tangential and normal resistive
//! coefficients `C_t`, `C_n` (N·s/m²). Here it is the dissipation potential
//!
//! `D_k = Σ_{i∈k} (l^k/2) (1/(2h)) Δx_i^T A_k Δx_i`, `A_k = (C_t − C_n) ê ê^T + C_n I`,
//!
//! whose gradient is exactly `−F_i` of eq. 29 with the edge direction `ê`
//! taken at the previous state. Lagging `ê` keeps the force a gradient (a
//! symmetric Jacobian the Newton solver and the sensitivities rely on); eq.
//! 30 differentiates `ê` at the new state instead, which differs by terms of
//! order `h·|u|·|∂ê/∂x|`. The dependence on the previous state, including
//! that of `ê`, is exact in the history blocks.

use crate::vec3::{dot, load, sub};
use pliant_core::element::{Ctx, Element, ElementSet, Elements};
use pliant_core::energy::{BindInfo, Energy, EvalState};
use pliant_core::error::{CoreError, Result};
use pliant_core::num_dual::DualNum;
use serde::{Deserialize, Serialize};

/// One edge: nodes `a`, `b` (6 DOFs), rest length, coefficients.
#[derive(Debug, Clone)]
struct RftEl {
    dofs: [usize; 6],
    /// Half the rest length, m.
    half_l: f64,
    ct: f64,
    cn: f64,
}

impl RftEl {
    /// Unit edge direction at the previous state (f64).
    fn axis(&self, qp: &[f64]) -> [f64; 3] {
        let e: [f64; 3] = std::array::from_fn(|k| qp[self.dofs[3 + k]] - qp[self.dofs[k]]);
        let l = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt();
        e.map(|c| c / l)
    }
}

impl Element<6, 0> for RftEl {
    const HISTORY: bool = true;
    fn dofs(&self) -> [usize; 6] {
        self.dofs
    }
    fn params(&self) -> [usize; 0] {
        []
    }
    fn energy<T: DualNum<f64> + Copy>(&self, x: &[T; 6], xp: &[T; 6], _: &[T; 0], c: &Ctx) -> T {
        let e = sub(&load(xp, 3, 3), &load(xp, 0, 3));
        let t = e.map(|v| v / dot(&e, &e).sqrt());
        let mut d = T::from(0.0);
        for node in 0..2 {
            let dx = sub(&load(x, 3 * node, 3), &load(xp, 3 * node, 3));
            let along = dot(&dx, &t);
            d += along * along * (self.ct - self.cn) + dot(&dx, &dx) * self.cn;
        }
        d * (self.half_l / (2.0 * c.h))
    }
}

/// Resistive-force-theory drag on a set of edges (3-D models).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResistiveForce {
    /// Edges as node pairs.
    pub edges: Vec<[usize; 2]>,
    /// Tangential resistive coefficient C_t (N·s/m²).
    pub ct: f64,
    /// Normal resistive coefficient C_n (N·s/m²).
    pub cn: f64,
    #[serde(skip)]
    bound: Option<Elements<RftEl, 6, 0>>,
}

impl ResistiveForce {
    /// Drag with coefficients `ct`, `cn` (N·s/m²) on `edges`.
    pub fn new(edges: Vec<[usize; 2]>, ct: f64, cn: f64) -> Self {
        Self {
            edges,
            ct,
            cn,
            bound: None,
        }
    }
    fn set(&self) -> &Elements<RftEl, 6, 0> {
        self.bound
            .as_ref()
            .expect("resistive_force used before Model::build bound it")
    }
    /// which = 0: gradient, 1: Hessian.
    fn blocks(&self, s: &EvalState, which: u8, out: &mut [f64]) {
        let set = self.set();
        let stride = if which == 0 { 6 } else { 36 };
        pliant_core::element::for_each_block(out, stride, &set.items, |o, el| {
            let t = el.axis(s.q_prev);
            let w = el.half_l / s.h;
            let a: [[f64; 3]; 3] = std::array::from_fn(|i| {
                std::array::from_fn(|j| {
                    (el.ct - el.cn) * t[i] * t[j] + if i == j { el.cn } else { 0.0 }
                })
            });
            if which == 0 {
                for node in 0..2 {
                    let dx: [f64; 3] = std::array::from_fn(|k| {
                        s.q[el.dofs[3 * node + k]] - s.q_prev[el.dofs[3 * node + k]]
                    });
                    for i in 0..3 {
                        o[3 * node + i] = w * (0..3).map(|j| a[i][j] * dx[j]).sum::<f64>();
                    }
                }
            } else {
                o.fill(0.0);
                for node in 0..2 {
                    for i in 0..3 {
                        for j in 0..3 {
                            o[(3 * node + i) * 6 + 3 * node + j] = w * a[i][j];
                        }
                    }
                }
            }
        });
    }
}

#[typetag::serde(name = "resistive_force")]
impl Energy for ResistiveForce {
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        let ctx = "resistive_force";
        if info.layout.dim() != 3 {
            return Err(CoreError::Model(format!("{ctx}: needs a 3-D model")));
        }
        for (what, v) in [("ct", self.ct), ("cn", self.cn)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(CoreError::Model(format!(
                    "{ctx}: {what} must be ≥ 0 N·s/m², got {v}"
                )));
            }
        }
        let mut items = Vec::with_capacity(self.edges.len());
        for (e, &[a, b]) in self.edges.iter().enumerate() {
            let mut dofs = [0; 6];
            info.layout
                .node_dofs(a, &mut dofs[..3], &format!("{ctx}.edges[{e}][0]"))?;
            info.layout
                .node_dofs(b, &mut dofs[3..], &format!("{ctx}.edges[{e}][1]"))?;
            let l = (0..3)
                .map(|k| (info.q0[dofs[3 + k]] - info.q0[dofs[k]]).powi(2))
                .sum::<f64>()
                .sqrt();
            if l.is_nan() || l <= 0.0 {
                return Err(CoreError::Model(format!(
                    "{ctx}.edges[{e}]: nodes {a} and {b} coincide (zero-length edge)"
                )));
            }
            items.push(RftEl {
                dofs,
                half_l: 0.5 * l,
                ct: self.ct,
                cn: self.cn,
            });
        }
        self.bound = Some(Elements::new(items));
        Ok(())
    }
    fn elements(&self) -> &dyn ElementSet {
        self.set()
    }
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.blocks(s, 0, out)
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.blocks(s, 1, out)
    }
}

pliant_core::register_energy!(
    "resistive_force",
    "resistive-force-theory drag (MAT-DiSMech eq. 29) on `edges` with tangential `ct` and normal `cn` coefficients (N·s/m²), edge direction lagged on the previous state",
    r#"{"type": "resistive_force", "edges": [[0, 1]], "ct": 0.01, "cn": 0.1}"#
);
