//! Shear panels: quadrilaterals `(a, b, c, d)` (nodes in order around the
//! panel) that resist shear and twist but not stretch,
//!
//! `E = k/2 (|x_c − x_a| − |x_d − x_b| − δ₀)²` (J),
//!
//! the difference of the two diagonals, `δ₀` its initial value, `k` in
//! N/m. Stretching the panel along either side lengthens both diagonals
//! alike, so to first order only shear (one diagonal longer, the other
//! shorter) costs energy. A tube of such panels has torsional and
//! transverse-shear stiffness without adding to its bending and axial
//! stiffness: the skin and constrainer plates of a soft snake, whose
//! bending comes from its muscles.

use pliant_core::vec3::{load, norm, sub};
use pliant_core::{
    BindInfo, CoreError, Ctx, Element, Elements, Energy, EnergySpec, Invalid, Local, Result,
    Scalar, Stencil,
};
use serde::{Deserialize, Serialize};

/// Shear panels (scene type `"shear_panel"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShearPanels {
    /// Each panel's four nodes in order around it.
    pub panels: Vec<[usize; 4]>,
    /// Stiffness `k`, N/m (> 0).
    pub stiffness: f64,
}

#[derive(Debug, Clone)]
struct PanelEl {
    nodes: [usize; 4],
    k: f64,
    delta0: f64,
}

/// Reduced variable `u` of a panel is component `u % 3` of diagonal
/// `u / 3`; these are its (node, sign) in the stencil.
const DIAGONAL: [[(usize, f64); 2]; 2] = [[(2, 1.0), (0, -1.0)], [(3, 1.0), (1, -1.0)]];

impl PanelEl {
    /// Unit diagonals, lengths and the misfit `f = l₁ − l₂ − δ₀`.
    fn kinematics(&self, x: &[f64]) -> ([[f64; 3]; 2], [f64; 2], f64) {
        let e1 = sub(&load(x, 6), &load(x, 0));
        let e2 = sub(&load(x, 9), &load(x, 3));
        let (l1, l2) = (norm(&e1), norm(&e2));
        (
            [e1.map(|v| v / l1), e2.map(|v| v / l2)],
            [l1, l2],
            l1 - l2 - self.delta0,
        )
    }
}

impl Element for PanelEl {
    type Size = Stencil<12, 0, 6>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn map(&self, b: &mut [f64]) -> bool {
        for (d, diag) in DIAGONAL.iter().enumerate() {
            for &(node, s) in diag {
                for a in 0..3 {
                    b[(3 * d + a) * 12 + 3 * node + a] = s;
                }
            }
        }
        true
    }
    fn reduce(&self, x: &[f64], r: &mut [f64]) -> bool {
        for a in 0..3 {
            r[a] = x[6 + a] - x[a];
            r[3 + a] = x[9 + a] - x[3 + a];
        }
        true
    }
    fn energy<D: Scalar>(&self, r: &[D], _: &[D], _: &[D], _: &Ctx) -> D {
        let l1 = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
        let l2 = (r[3] * r[3] + r[4] * r[4] + r[5] * r[5]).sqrt();
        let f = l1 - l2 - self.delta0;
        f * f * (0.5 * self.k)
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let (n, _, f) = self.kinematics(l.x);
        g[..12].fill(0.0);
        for (d, diag) in DIAGONAL.iter().enumerate() {
            let w = if d == 0 { self.k * f } else { -self.k * f };
            for &(node, s) in diag {
                for a in 0..3 {
                    g[3 * node + a] += s * w * n[d][a];
                }
            }
        }
        true
    }
    /// Over the diagonals `r = (e₁, e₂)`: `H_r = k m mᵀ + k f diag(P₁/l₁, −P₂/l₂)`
    /// with `m = (n₁, −n₂)`, `P = I − n nᵀ`; then `Bᵀ H_r B`.
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        let (n, len, f) = self.kinematics(l.x);
        let m = |u: usize| if u < 3 { n[0][u] } else { -n[1][u - 3] };
        let mut hr = [[0.0; 6]; 6];
        for u in 0..6 {
            for v in 0..6 {
                hr[u][v] = self.k * m(u) * m(v);
            }
        }
        for d in 0..2 {
            let s = if d == 0 { 1.0 } else { -1.0 } * self.k * f / len[d];
            for a in 0..3 {
                for b in 0..3 {
                    let id = if a == b { 1.0 } else { 0.0 };
                    hr[3 * d + a][3 * d + b] += s * (id - n[d][a] * n[d][b]);
                }
            }
        }
        h[..144].fill(0.0);
        for (du, du_nodes) in DIAGONAL.iter().enumerate() {
            for (dv, dv_nodes) in DIAGONAL.iter().enumerate() {
                for &(nu, su) in du_nodes {
                    for &(nv, sv) in dv_nodes {
                        for a in 0..3 {
                            for b in 0..3 {
                                h[(3 * nu + a) * 12 + 3 * nv + b] +=
                                    su * sv * hr[3 * du + a][3 * dv + b];
                            }
                        }
                    }
                }
            }
        }
        true
    }
}

impl EnergySpec for ShearPanels {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        Invalid::positive("stiffness", self.stiffness, "N/m")?;
        let mut items = Vec::with_capacity(self.panels.len());
        for (i, p) in self.panels.iter().enumerate() {
            let at = format!("panels[{i}]");
            let mut x = [[0.0; 3]; 4];
            for (k, &node) in p.iter().enumerate() {
                x[k] = info.node_position(node, &at)?;
            }
            let (l1, l2) = (norm(&sub(&x[2], &x[0])), norm(&sub(&x[3], &x[1])));
            if l1 == 0.0 || l2 == 0.0 {
                return Err(CoreError::degenerate(
                    at,
                    format!("a diagonal has zero length in the initial state (nodes {p:?})"),
                ));
            }
            items.push(PanelEl {
                nodes: *p,
                k: self.stiffness,
                delta0: l1 - l2,
            });
        }
        Ok(Box::new(Elements::bind(items, info, "panels")?))
    }
}

pliant_core::register_energy!(
    ShearPanels = "shear_panel",
    "quadrilateral shear panels (nodes in order around each): E = k/2 (|x_c − x_a| − |x_d − x_b| − δ₀)², the diagonals' difference; resists shear and twist, not stretch; k in N/m",
    r#"{"type": "shear_panel", "panels": [[0, 1, 2, 3]], "stiffness": 500.0}"#
);
