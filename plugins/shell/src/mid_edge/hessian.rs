//! The mid-edge element's Hessian in closed form (exact derivatives, the
//! frames `τ_k⁰` held: their dependence on the previous state is the
//! engine's history block).
//!
//! Notation as in the parent module: `E = F(d, G)` with
//! `F = k_b Ā [(1 − ν) Σ_ij d_i d_j G_ij² + ν S²]`, `S = Σ_i d_i G_ii`,
//! `d_k = q_k r_k − ā_k`, `q_k = ξ_k − n·τ_k`, `r_k = |e_k| / (c_k s_k)`,
//! `c_k = Ā |ē_k|`, `s_k = n·w_k` with `w_k = τ_k × e_k`, and
//! `G_ij = e_i·e_j`. Edges are `e_k = B_k x` with `B_k(a) = +1` for node
//! `k+2`, `−1` for node `k+1` (mod 3). By the chain rule,
//!
//! `∇²E = Jᵀ F_yy J + Σ_k F_{d_k} ∇²d_k + Σ_ij F_{G_ij} ∇²G_ij`,
//!
//! `y = (d, G)` and `J = ∂y/∂(x, ξ)`. The pieces:
//!
//! - `∇²G_ij` is constant: node block `(a, b)` is
//!   `(B_i(a) B_j(b) + B_j(a) B_i(b)) I`;
//! - `∇²d_k = r_k ∇²q_k + q_k ∇²r_k + ∇q_k ∇r_kᵀ + ∇r_k ∇q_kᵀ`, with
//!   `∇²q_k = −∇²(n·τ_k)` and `∇²r_k = r_k (g_k g_kᵀ + ∇² ln|e_k| − ∇² ln s_k)`,
//!   `g_k = ∇|e_k|/|e_k| − ∇s_k/s_k`;
//! - `∇²s_k = ∇²(n·w_k) + J_nᵀ J_{w_k} + J_{w_k}ᵀ J_n` (`w_k` is linear in
//!   `x`: `J_{w_k}` has node blocks `B_k(a) [τ_k]×`);
//! - the unit normal's second derivative along a fixed vector `c`: with
//!   `N = (x₁ − x₀) × (x₂ − x₀)`, `ℓ = |N|`, `J_N` of node blocks `[e_a]×`
//!   and `c_⊥ = c − n (n·c)`,
//!   `∇²(n·c) = H_N[c_⊥]/ℓ + J_Nᵀ K J_N`,
//!   `K = (−c nᵀ − n cᵀ − (n·c) I + 3 (n·c) n nᵀ)/ℓ²`, where `H_N[v]` (the
//!   bilinear `N` contracted with `v`) has node blocks `−C_ab [v]×`,
//!   `C_01 = C_12 = C_20 = 1 = −C_10 = −C_21 = −C_02`.
//!
//! All of `Σ_k F_{d_k} ∇²d_k`'s normal curvature is gathered in one
//! contraction `∇²(n·c)` with `c = −Σ_k F_{d_k} r_k (τ_k + (q_k/s_k) w_k)`.

use super::MidEdgeEl;
use pliant_core::mat3::{M3, mat_mul, skew, transpose};
use pliant_core::vec3::{V3, cross, dot, load, scale, sub};

/// `B_k(a)`: how node `a` enters edge `k = x_{k+2} − x_{k+1}`.
fn edge_sign(k: usize, a: usize) -> f64 {
    if a == (k + 2) % 3 {
        1.0
    } else if a == (k + 1) % 3 {
        -1.0
    } else {
        0.0
    }
}

/// `C_ab` of `H_N` (see the module documentation).
fn cyclic(a: usize, b: usize) -> f64 {
    if b == (a + 1) % 3 {
        1.0
    } else if a == (b + 1) % 3 {
        -1.0
    } else {
        0.0
    }
}

/// `h += s·(u vᵀ + v uᵀ)` over the 12 local variables.
fn sym_outer(h: &mut [[f64; 12]; 12], s: f64, u: &[f64; 12], v: &[f64; 12]) {
    for i in 0..12 {
        let (su, sv) = (s * u[i], s * v[i]);
        for j in 0..12 {
            h[i][j] += su * v[j] + sv * u[j];
        }
    }
}

/// `h[node a, node b] += m`.
fn add_block(h: &mut [[f64; 12]; 12], a: usize, b: usize, m: &M3) {
    for i in 0..3 {
        for j in 0..3 {
            h[3 * a + i][3 * b + j] += m[i][j];
        }
    }
}

/// The geometry of one triangle shared by the gradient pieces.
struct Geometry {
    /// `e_k`.
    e: [V3<f64>; 3],
    /// `n`.
    n: V3<f64>,
    /// `ℓ = |N|`.
    l: f64,
}

impl Geometry {
    /// `∇(n·c)` over the 12 local variables (zero along `ξ`).
    fn grad_normal_along(&self, c: &V3<f64>) -> [f64; 12] {
        let cp = sub(c, &scale(dot(&self.n, c), &self.n));
        let mut g = [0.0; 12];
        for a in 0..3 {
            let ga = cross(&cp, &self.e[a]);
            for i in 0..3 {
                g[3 * a + i] = ga[i] / self.l;
            }
        }
        g
    }

    /// `h += ∇²(n·c)` (positions only).
    fn add_normal_hessian_along(&self, h: &mut [[f64; 12]; 12], c: &V3<f64>) {
        let (n, l) = (&self.n, self.l);
        let nc = dot(n, c);
        let cp = sub(c, &scale(nc, n));
        // H_N[c_⊥]/ℓ.
        let hn = skew(&cp);
        for a in 0..3 {
            for b in 0..3 {
                let s = -cyclic(a, b) / l;
                if s != 0.0 {
                    add_block(h, a, b, &hn.map(|row| row.map(|v| s * v)));
                }
            }
        }
        // J_Nᵀ K J_N with J_N's node blocks [e_a]× (so J_N,aᵀ = −[e_a]×).
        let k: M3 = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                let id = if i == j { 1.0 } else { 0.0 };
                (-c[i] * n[j] - n[i] * c[j] - nc * id + 3.0 * nc * n[i] * n[j]) / (l * l)
            })
        });
        let jn: [M3; 3] = std::array::from_fn(|a| skew(&self.e[a]));
        let kj: [M3; 3] = std::array::from_fn(|b| mat_mul(&k, &jn[b]));
        for a in 0..3 {
            let jt = transpose(&jn[a]);
            for b in 0..3 {
                add_block(h, a, b, &mat_mul(&jt, &kj[b]));
            }
        }
    }
}

impl MidEdgeEl {
    /// `∂²E/∂(x, ξ)²` (12 × 12: the triangle's 9 coordinates, then its 3
    /// `ξ`) at `v` with frames `tau`, in closed form (module
    /// documentation). Exact derivatives only (not the paper's
    /// simplification).
    pub(crate) fn closed_form_hessian(
        &self,
        v: &[f64; 12],
        tau: &[[f64; 3]; 3],
        youngs: f64,
    ) -> [[f64; 12]; 12] {
        debug_assert!(!self.lag_ct);
        let x: [V3<f64>; 3] = std::array::from_fn(|a| load(v, 3 * a));
        let xi = [v[9], v[10], v[11]];
        let big_n = cross(&sub(&x[1], &x[0]), &sub(&x[2], &x[0]));
        let l = dot(&big_n, &big_n).sqrt();
        let n = scale(1.0 / l, &big_n);
        let e: [V3<f64>; 3] = std::array::from_fn(|k| sub(&x[(k + 2) % 3], &x[(k + 1) % 3]));
        let geo = Geometry { e, n, l };
        let le: [f64; 3] = std::array::from_fn(|k| dot(&e[k], &e[k]).sqrt());
        let eh: [V3<f64>; 3] = std::array::from_fn(|k| scale(1.0 / le[k], &e[k]));
        let m: [V3<f64>; 3] = std::array::from_fn(|k| cross(&n, &tau[k]));
        let w: [V3<f64>; 3] = std::array::from_fn(|k| cross(&tau[k], &e[k]));
        let s: [f64; 3] = std::array::from_fn(|k| dot(&e[k], &m[k]));
        let q: [f64; 3] = std::array::from_fn(|k| xi[k] - dot(&n, &tau[k]));
        let r: [f64; 3] = std::array::from_fn(|k| le[k] / (s[k] * self.area * self.len[k]));
        let d: [f64; 3] = std::array::from_fn(|k| q[k] * r[k] - self.natural[k]);
        let g2: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| dot(&e[i], &e[j])));
        let ka = youngs * self.kb_per_pa * self.area;
        let (nu, c1) = (self.nu, 2.0 * (1.0 - self.nu));
        let s_tr = d[0] * g2[0][0] + d[1] * g2[1][1] + d[2] * g2[2][2];

        // First derivatives of the intermediates y = (d_0..2, G_00, G_01, …, G_22).
        let mut jy = [[0.0; 12]; 12];
        let mut grad_q = [[0.0; 12]; 3];
        let mut grad_le_rel = [[0.0; 12]; 3]; // ∇|e_k| / |e_k|
        let mut grad_s_rel = [[0.0; 12]; 3]; // ∇s_k / s_k
        for k in 0..3 {
            let mut gq = geo.grad_normal_along(&tau[k]).map(|g| -g);
            gq[9 + k] = 1.0;
            let mut gs = geo.grad_normal_along(&w[k]);
            let mut gl = [0.0; 12];
            for a in 0..3 {
                let b = edge_sign(k, a);
                for i in 0..3 {
                    gs[3 * a + i] += b * m[k][i];
                    gl[3 * a + i] = b * eh[k][i] / le[k];
                }
            }
            let gs = gs.map(|g| g / s[k]);
            // ∇d_k = r_k ∇q_k + q_k r_k (∇|e|/|e| − ∇s/s).
            for i in 0..12 {
                jy[k][i] = r[k] * gq[i] + q[k] * r[k] * (gl[i] - gs[i]);
            }
            grad_q[k] = gq;
            grad_le_rel[k] = gl;
            grad_s_rel[k] = gs;
        }
        for i in 0..3 {
            for j in 0..3 {
                let row = &mut jy[3 + 3 * i + j];
                for a in 0..3 {
                    let (bi, bj) = (edge_sign(i, a), edge_sign(j, a));
                    for c in 0..3 {
                        row[3 * a + c] = bi * e[j][c] + bj * e[i][c];
                    }
                }
            }
        }

        // F's first and second derivatives in y.
        let fd: [f64; 3] = std::array::from_fn(|i| {
            let acc: f64 = (0..3).map(|j| d[j] * g2[i][j] * g2[i][j]).sum();
            ka * (c1 * acc + 2.0 * nu * s_tr * g2[i][i])
        });
        let fg: [[f64; 3]; 3] = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                let diag = if i == j { 2.0 * nu * s_tr * d[i] } else { 0.0 };
                ka * (c1 * d[i] * d[j] * g2[i][j] + diag)
            })
        });
        let mut fyy = [[0.0; 12]; 12];
        for i in 0..3 {
            for j in 0..3 {
                fyy[i][j] = ka * (c1 * g2[i][j] * g2[i][j] + 2.0 * nu * g2[i][i] * g2[j][j]);
            }
        }
        for mm in 0..3 {
            for i in 0..3 {
                for j in 0..3 {
                    let dm = |a: usize| if a == mm { 1.0 } else { 0.0 };
                    let mut v = c1 * g2[i][j] * (dm(i) * d[j] + d[i] * dm(j));
                    if i == j {
                        v += 2.0 * nu * (g2[mm][mm] * d[i] + s_tr * dm(i));
                    }
                    fyy[mm][3 + 3 * i + j] = ka * v;
                    fyy[3 + 3 * i + j][mm] = ka * v;
                }
            }
        }
        for i in 0..3 {
            for j in 0..3 {
                let row = 3 + 3 * i + j;
                fyy[row][row] += ka * c1 * d[i] * d[j];
                if i == j {
                    for kk in 0..3 {
                        fyy[row][3 + 4 * kk] += ka * 2.0 * nu * d[i] * d[kk];
                    }
                }
            }
        }

        // Jᵀ F_yy J.
        let mut h = [[0.0; 12]; 12];
        let mut t = [[0.0; 12]; 12]; // F_yy J
        for (yi, trow) in t.iter_mut().enumerate() {
            for (yj, jrow) in jy.iter().enumerate() {
                let f = fyy[yi][yj];
                if f != 0.0 {
                    for c in 0..12 {
                        trow[c] += f * jrow[c];
                    }
                }
            }
        }
        for (yi, jrow) in jy.iter().enumerate() {
            for a in 0..12 {
                if jrow[a] != 0.0 {
                    for b in 0..12 {
                        h[a][b] += jrow[a] * t[yi][b];
                    }
                }
            }
        }

        // Σ_ij F_{G_ij} ∇²G_ij: node blocks (Bᵀ (F_G + F_Gᵀ) B)_ab I.
        for a in 0..3 {
            for b in 0..3 {
                let mut coef = 0.0;
                for i in 0..3 {
                    for j in 0..3 {
                        coef += (fg[i][j] + fg[j][i]) * edge_sign(i, a) * edge_sign(j, b);
                    }
                }
                for c in 0..3 {
                    h[3 * a + c][3 * b + c] += coef;
                }
            }
        }

        // Σ_k F_{d_k} ∇²d_k.
        let mut c_n = [0.0; 3];
        let mut jw = [[[0.0; 3]; 3]; 3]; // Σ_k β_k J_{w_k}, node blocks
        for k in 0..3 {
            let (alpha, qr) = (fd[k], q[k] * r[k]);
            // Normal curvature: −α r τ − α (q r / s) w.
            for i in 0..3 {
                c_n[i] -= alpha * r[k] * tau[k][i] + alpha * qr / s[k] * w[k][i];
            }
            let beta = -alpha * qr / s[k];
            let tk = skew(&tau[k]);
            for a in 0..3 {
                let b = edge_sign(k, a) * beta;
                for i in 0..3 {
                    for j in 0..3 {
                        jw[a][i][j] += b * tk[i][j];
                    }
                }
            }
            // α q r (2 b bᵀ − a bᵀ − b aᵀ) + α r (∇q gᵀ + g ∇qᵀ), with
            // a = ∇|e|/|e|, b = ∇s/s, g = a − b.
            let (ga, gb) = (&grad_le_rel[k], &grad_s_rel[k]);
            let g: [f64; 12] = std::array::from_fn(|i| ga[i] - gb[i]);
            sym_outer(&mut h, alpha * qr, gb, gb);
            sym_outer(&mut h, -alpha * qr, ga, gb);
            sym_outer(&mut h, alpha * r[k], &grad_q[k], &g);
            // α q r ∇²|e_k| / |e_k|: node blocks B B (I − ê êᵀ)/|e|².
            let pe: M3 = std::array::from_fn(|i| {
                std::array::from_fn(|j| {
                    let id = if i == j { 1.0 } else { 0.0 };
                    alpha * qr * (id - eh[k][i] * eh[k][j]) / (le[k] * le[k])
                })
            });
            for a in 0..3 {
                for b in 0..3 {
                    let sgn = edge_sign(k, a) * edge_sign(k, b);
                    if sgn != 0.0 {
                        add_block(&mut h, a, b, &pe.map(|row| row.map(|v| sgn * v)));
                    }
                }
            }
        }
        geo.add_normal_hessian_along(&mut h, &c_n);
        // J_nᵀ M + Mᵀ J_n, J_n's node blocks (I − n nᵀ) [e_a]× / ℓ.
        let proj: M3 = std::array::from_fn(|i| {
            std::array::from_fn(|j| ((if i == j { 1.0 } else { 0.0 }) - n[i] * n[j]) / l)
        });
        let jn: [M3; 3] = std::array::from_fn(|a| mat_mul(&proj, &skew(&e[a])));
        for a in 0..3 {
            let jt = transpose(&jn[a]);
            for b in 0..3 {
                let blk = mat_mul(&jt, &jw[b]);
                add_block(&mut h, a, b, &blk);
                add_block(&mut h, b, a, &transpose(&blk));
            }
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::youngs::Youngs;
    use num_dual::Dual64;

    fn element(nu: f64) -> MidEdgeEl {
        MidEdgeEl {
            nodes: [0, 1, 2, 3, 4, 5],
            xi: [0, 1, 2],
            boundary: [false, true, false],
            dir: [1.0, -1.0, 1.0],
            area: 0.004,
            len: [0.1, 0.09, 0.11],
            natural: [3.0, -2.0, 1.5],
            kb_per_pa: 1e-9,
            nu,
            youngs: Youngs::Constant(2e6),
            lag_ct: false,
        }
    }

    fn by_duals(el: &MidEdgeEl, v: &[f64; 12], tau: &[[f64; 3]; 3]) -> [[f64; 12]; 12] {
        let mut h = [[0.0; 12]; 12];
        for j in 0..12 {
            let vd: [Dual64; 12] =
                std::array::from_fn(|i| Dual64::new(v[i], if i == j { 1.0 } else { 0.0 }));
            let g = el.analytic_gradient(&vd, tau, 2e6);
            for i in 0..12 {
                h[i][j] = g[i].eps;
            }
        }
        h
    }

    /// The closed form equals forward duals of the analytic gradient at
    /// bent, stretched states with `ξ ≠ 0` and frames from elsewhere.
    #[test]
    fn closed_form_hessian_equals_duals_of_the_gradient() {
        let mut rng = pliant_core::derivcheck::Rng::new(7);
        let mut rand = || rng.range(-0.5, 0.5);
        for nu in [0.0, 0.3, 0.5] {
            let el = element(nu);
            for _ in 0..20 {
                let base = [
                    [0.0, 0.0, 0.0],
                    [0.1, 0.0, 0.0],
                    [0.04, 0.09, 0.0],
                    [0.1, 0.1, 0.02],
                    [0.0, 0.0, 0.0],
                    [-0.05, 0.05, -0.01],
                ];
                let xp: [[f64; 3]; 6] =
                    std::array::from_fn(|a| std::array::from_fn(|i| base[a][i] + 0.02 * rand()));
                let tau = el.frames(&xp);
                let mut v = [0.0; 12];
                for a in 0..3 {
                    for i in 0..3 {
                        v[3 * a + i] = xp[a][i] + 0.01 * rand();
                    }
                }
                for k in 0..3 {
                    v[9 + k] = 0.3 * rand();
                }
                let hc = el.closed_form_hessian(&v, &tau, 2e6);
                let hd = by_duals(&el, &v, &tau);
                let scale = hd.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
                for i in 0..12 {
                    for j in 0..12 {
                        assert!(
                            (hc[i][j] - hd[i][j]).abs() <= 1e-10 * scale,
                            "ν = {nu}, entry ({i}, {j}): closed form {} vs duals {}",
                            hc[i][j],
                            hd[i][j]
                        );
                    }
                }
            }
        }
    }
}
