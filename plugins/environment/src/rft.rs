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

use pliant_core::vec3::{dot, load, norm, sub};
use pliant_core::{
    BindInfo, CoreError, Ctx, Element, Elements, Energy, EnergySpec, Invalid, Local, Result,
    Scalar, Stencil,
};
use serde::{Deserialize, Serialize};

/// Resistive-force-theory drag on a set of edges (3-D models), scene type
/// `"resistive_force"`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResistiveForce {
    /// Edges as node pairs.
    pub edges: Vec<[usize; 2]>,
    /// Tangential resistive coefficient C_t (N·s/m²).
    pub ct: f64,
    /// Normal resistive coefficient C_n (N·s/m²).
    pub cn: f64,
}

impl ResistiveForce {
    /// Drag with coefficients `ct`, `cn` (N·s/m²) on `edges`.
    pub fn new(edges: Vec<[usize; 2]>, ct: f64, cn: f64) -> Self {
        Self { edges, ct, cn }
    }
}

/// One edge: its two nodes (6 DOFs), half its rest length, coefficients.
#[derive(Debug, Clone)]
struct RftEl {
    nodes: [usize; 2],
    /// Half the rest length, m.
    half_l: f64,
    ct: f64,
    cn: f64,
}

impl RftEl {
    /// `A` with the edge direction at the previous state, and the weight
    /// `(l/2)/h`.
    fn metric(&self, l: &Local) -> ([[f64; 3]; 3], f64) {
        let e = sub(&load(l.x_prev, 3), &load(l.x_prev, 0));
        let len = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt();
        let t = e.map(|c| c / len);
        let a = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                (self.ct - self.cn) * t[i] * t[j] + if i == j { self.cn } else { 0.0 }
            })
        });
        (a, self.half_l / l.ctx.h)
    }
}

impl Element for RftEl {
    type Size = Stencil<6>;
    const HISTORY: bool = true;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn energy<T: Scalar>(&self, x: &[T], xp: &[T], _: &[T], c: &Ctx) -> T {
        let e = sub(&load(xp, 3), &load(xp, 0));
        let t = e.map(|v| v / dot(&e, &e).sqrt());
        let mut d = T::from(0.0);
        for node in 0..2 {
            let dx = sub(&load(x, 3 * node), &load(xp, 3 * node));
            let along = dot(&dx, &t);
            d += along * along * (self.ct - self.cn) + dot(&dx, &dx) * self.cn;
        }
        d * (self.half_l / (2.0 * c.h))
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let (a, w) = self.metric(l);
        for node in 0..2 {
            let dx: [f64; 3] = std::array::from_fn(|k| l.x[3 * node + k] - l.x_prev[3 * node + k]);
            for i in 0..3 {
                g[3 * node + i] = w * (0..3).map(|j| a[i][j] * dx[j]).sum::<f64>();
            }
        }
        true
    }
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        let (a, w) = self.metric(l);
        h.fill(0.0);
        for node in 0..2 {
            for i in 0..3 {
                for j in 0..3 {
                    h[(3 * node + i) * 6 + 3 * node + j] = w * a[i][j];
                }
            }
        }
        true
    }
}

impl EnergySpec for ResistiveForce {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        info.require_dim("resistive_force", 3)?;
        Invalid::non_negative("ct", self.ct, "N·s/m²")?;
        Invalid::non_negative("cn", self.cn, "N·s/m²")?;
        let mut items = Vec::with_capacity(self.edges.len());
        for (e, &[a, b]) in self.edges.iter().enumerate() {
            let field = format!("edges[{e}]");
            let l = norm(&sub(
                &info.node_position(b, &field)?,
                &info.node_position(a, &field)?,
            ));
            if l.is_nan() || l <= 0.0 {
                return Err(CoreError::degenerate(
                    field,
                    format!("nodes {a} and {b} coincide (zero-length edge)"),
                ));
            }
            items.push(RftEl {
                nodes: [a, b],
                half_l: 0.5 * l,
                ct: self.ct,
                cn: self.cn,
            });
        }
        Ok(Box::new(Elements::bind(items, info, "edges")?))
    }
}

pliant_core::register_energy!(
    ResistiveForce = "resistive_force",
    "resistive-force-theory drag (MAT-DiSMech eq. 29) on `edges` with tangential `ct` and normal `cn` coefficients (N·s/m²), edge direction lagged on the previous state",
    r#"{"type": "resistive_force", "edges": [[0, 1]], "ct": 0.01, "cn": 0.1}"#
);
