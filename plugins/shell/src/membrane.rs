//! Constant-strain-triangle membrane, St. Venant–Kirchhoff in plane stress —
//! the alternative to edge springs for users who want Poisson's ratio to act
//! in the plane.
//!
//! A triangle with rest edges `ē₁ = x̄₁ − x̄₀`, `ē₂ = x̄₂ − x̄₀` written in an
//! orthonormal frame of its rest plane as the 2 × 2 matrix `D̄`, and current
//! edges `e₁, e₂` (the 3 × 2 matrix `D`), has the in-plane deformation
//! gradient `F = D D̄⁻¹` (3 × 2), Green strain `E = ½(FᵀF − I)` (2 × 2) and
//! energy
//!
//! `W = Ā h [μ E:E + ½ λ (tr E)²]` (J),
//!
//! with `μ = E_Y/(2(1 + ν))` and the plane-stress `λ = E_Y ν/(1 − ν²)` (Pa),
//! `Ā` the rest area (m²) and `h` the thickness (m). Small strains give
//! the isotropic membrane of modulus `E_Y h` and Poisson's ratio ν; large
//! compressions soften (St. Venant–Kirchhoff), which is fine for sheets
//! that buckle out of plane long before.
//!
//! Derivatives: with `S = 2μ E + λ tr(E) I`, `∂W/∂F = Ā h F S`, so
//! `∂W/∂e_a = Ā h Σ_j (F S)_{:,j} G_aj` with `G = D̄⁻¹`; the Hessian
//! differentiates `F S` along each of the 6 edge coordinates
//! (`dS = 2μ dE + λ tr(dE) I`, `dE = ½(dFᵀF + FᵀdF)`).

use crate::youngs::Youngs;
use pliant_core::{Ctx, Element, Local, Scalar, Stencil};

/// One triangle's membrane; slot 0 reads Young's modulus when it is a channel.
#[derive(Debug, Clone)]
pub(crate) struct MembraneEl {
    pub nodes: [usize; 3],
    /// `G = D̄⁻¹` (2 × 2, row-major): `F = D G`.
    pub g: [f64; 4],
    /// `Ā h`, m³.
    pub volume: f64,
    /// Poisson's ratio ν.
    pub nu: f64,
    pub youngs: Youngs,
}

impl MembraneEl {
    /// `(μ, λ)` per unit of Young's modulus.
    fn lame(&self) -> (f64, f64) {
        let nu = self.nu;
        (0.5 / (1.0 + nu), nu / (1.0 - nu * nu))
    }

    /// `F` (3 × 2, `f[i][j]`) from the edge vectors `r = [e₁, e₂]`.
    fn f_of<D: Scalar>(&self, r: &[D]) -> [[D; 2]; 3] {
        std::array::from_fn(|i| {
            std::array::from_fn(|j| r[i] * self.g[j] + r[3 + i] * self.g[2 + j])
        })
    }

    /// `P = F S` (3 × 2) and, for the Hessian, `S`, at `F`, per unit of
    /// `Ā h E_Y`.
    fn stress(&self, f: &[[f64; 2]; 3]) -> ([[f64; 2]; 3], [[f64; 2]; 2]) {
        let (mu, la) = self.lame();
        let c: [[f64; 2]; 2] = std::array::from_fn(|a| {
            std::array::from_fn(|b| (0..3).map(|i| f[i][a] * f[i][b]).sum())
        });
        let e = [
            [0.5 * (c[0][0] - 1.0), 0.5 * c[0][1]],
            [0.5 * c[1][0], 0.5 * (c[1][1] - 1.0)],
        ];
        let tr = e[0][0] + e[1][1];
        let s: [[f64; 2]; 2] = std::array::from_fn(|a| {
            std::array::from_fn(|b| 2.0 * mu * e[a][b] + if a == b { la * tr } else { 0.0 })
        });
        let p =
            std::array::from_fn(|i| std::array::from_fn(|j| f[i][0] * s[0][j] + f[i][1] * s[1][j]));
        (p, s)
    }
}

impl Element for MembraneEl {
    type Size = Stencil<9, 1, 6>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [self.youngs.channel()]
    }
    fn map(&self, b: &mut [f64]) -> bool {
        // r = [x₁ − x₀, x₂ − x₀].
        for a in 0..2 {
            for i in 0..3 {
                b[(3 * a + i) * 9 + i] = -1.0;
                b[(3 * a + i) * 9 + 3 * (a + 1) + i] = 1.0;
            }
        }
        true
    }
    fn reduce(&self, x: &[f64], r: &mut [f64]) -> bool {
        for a in 0..2 {
            for i in 0..3 {
                r[3 * a + i] = x[3 * (a + 1) + i] - x[i];
            }
        }
        true
    }
    fn energy<D: Scalar>(&self, r: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let (mu, la) = self.lame();
        let f = self.f_of(r);
        let c = |a: usize, b: usize| f[0][a] * f[0][b] + f[1][a] * f[1][b] + f[2][a] * f[2][b];
        let (e00, e11, e01) = ((c(0, 0) - 1.0) * 0.5, (c(1, 1) - 1.0) * 0.5, c(0, 1) * 0.5);
        let tr = e00 + e11;
        let w = (e00 * e00 + e11 * e11 + e01 * e01 * 2.0) * mu + tr * tr * (0.5 * la);
        w * self.youngs.of(p) * self.volume
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let mut r = [0.0; 6];
        self.reduce(l.x, &mut r);
        let (p, _) = self.stress(&self.f_of(&r));
        let k = self.youngs.value(l.p) * self.volume;
        // ∂W/∂e_a (a = 1, 2), then the chain rule to the nodes.
        let mut de = [[0.0; 3]; 2];
        for a in 0..2 {
            for i in 0..3 {
                de[a][i] = k * (p[i][0] * self.g[2 * a] + p[i][1] * self.g[2 * a + 1]);
            }
        }
        for i in 0..3 {
            g[i] = -de[0][i] - de[1][i];
            g[3 + i] = de[0][i];
            g[6 + i] = de[1][i];
        }
        true
    }
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        let (mu, la) = self.lame();
        let mut r = [0.0; 6];
        self.reduce(l.x, &mut r);
        let f = self.f_of(&r);
        let (_, s) = self.stress(&f);
        let k = self.youngs.value(l.p) * self.volume;
        // Reduced Hessian over r (6 × 6), column c along edge coordinate c.
        let mut hr = [[0.0; 6]; 6];
        for c in 0..6 {
            let (a, i0) = (c / 3, c % 3);
            // dF = u_{i0} ⊗ G_a (row a of G).
            let mut df = [[0.0; 2]; 3];
            df[i0] = [self.g[2 * a], self.g[2 * a + 1]];
            let de: [[f64; 2]; 2] = std::array::from_fn(|x| {
                std::array::from_fn(|y| {
                    0.5 * (0..3)
                        .map(|i| df[i][x] * f[i][y] + f[i][x] * df[i][y])
                        .sum::<f64>()
                })
            });
            let tr = de[0][0] + de[1][1];
            let ds: [[f64; 2]; 2] = std::array::from_fn(|x| {
                std::array::from_fn(|y| 2.0 * mu * de[x][y] + if x == y { la * tr } else { 0.0 })
            });
            // dP = dF S + F dS.
            let dp: [[f64; 2]; 3] = std::array::from_fn(|i| {
                std::array::from_fn(|j| {
                    df[i][0] * s[0][j]
                        + df[i][1] * s[1][j]
                        + f[i][0] * ds[0][j]
                        + f[i][1] * ds[1][j]
                })
            });
            for b in 0..2 {
                for i in 0..3 {
                    hr[3 * b + i][c] =
                        k * (dp[i][0] * self.g[2 * b] + dp[i][1] * self.g[2 * b + 1]);
                }
            }
        }
        // Scatter through r = B x (B: −1 on node 0, +1 on node a + 1).
        let coef = |node: usize, a: usize| -> f64 {
            if node == 0 {
                -1.0
            } else if node == a + 1 {
                1.0
            } else {
                0.0
            }
        };
        for n1 in 0..3 {
            for n2 in 0..3 {
                for i in 0..3 {
                    for j in 0..3 {
                        let mut v = 0.0;
                        for a in 0..2 {
                            for b in 0..2 {
                                let w = coef(n1, a) * coef(n2, b);
                                if w != 0.0 {
                                    v += w
                                        * 0.5
                                        * (hr[3 * a + i][3 * b + j] + hr[3 * b + j][3 * a + i]);
                                }
                            }
                        }
                        h[(3 * n1 + i) * 9 + 3 * n2 + j] = v;
                    }
                }
            }
        }
        true
    }
}

/// `G = D̄⁻¹` and the rest area of a triangle at rest positions `x` (m):
/// `D̄` holds the rest edges `x₁ − x₀`, `x₂ − x₀` in the orthonormal frame
/// `(t̂, n̂ × t̂)` of the rest plane, `t̂` along the first edge.
pub(crate) fn rest_frame(x: &[[f64; 3]; 3]) -> ([f64; 4], f64) {
    use pliant_core::vec3::{cross, dot, norm, sub};
    let (e1, e2) = (sub(&x[1], &x[0]), sub(&x[2], &x[0]));
    let n = cross(&e1, &e2);
    let area = 0.5 * norm(&n);
    let t = e1.map(|v| v / norm(&e1));
    let nn = n.map(|v| v / norm(&n));
    let b = cross(&nn, &t);
    // D̄ columns: the edges' coordinates (t, b).
    let d = [dot(&e1, &t), dot(&e2, &t), dot(&e1, &b), dot(&e2, &b)]; // [[d00, d01], [d10, d11]]
    let det = d[0] * d[3] - d[1] * d[2];
    // G = D̄⁻¹ with G[a][j]: F_ij = Σ_a D_ia G_aj, D_ia = component i of edge a.
    let inv = [d[3] / det, -d[1] / det, -d[2] / det, d[0] / det];
    (inv, area)
}
