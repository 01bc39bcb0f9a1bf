//! Mid-edge normal bending (MAT-DiSMech §3.3.2, eqs. 18–20, Appendix A;
//! Grinspun et al. 2006).
//!
//! Every shell edge `k` carries a scalar DOF `ξ_k` (dimensionless): the
//! component of its mid-edge normal along `τ_k⁰ = n̂_avg × ê_k`, where
//! `n̂_avg` is the unit average of the normals of the edge's triangles (the
//! one normal on a boundary edge) and `ê_k` the edge's unit direction from
//! its lower to its higher node index, all **at the start of the step**
//! (the previous state `x_prev`). On a triangle with nodes `x₀, x₁, x₂`
//! (counter-clockwise), unit normal `n`, edges `e_k = x_{k+2} − x_{k+1}`
//! and in-plane edge normals `t_k = e_k × n` (`|t_k| = |e_k|`), the
//! discrete shape operator is (eq. 19)
//!
//! `Λ = Σ_k a_k t_k ⊗ t_k`, `a_k = (ξ_k − n·τ_k⁰) / (Ā |ē_k| (t̂_k·τ_k⁰))`
//!
//! (1/m … times m², so `Λ` is in 1/m), and the energy (eq. 20)
//!
//! `E = k_b Ā [(1 − ν) tr((Λ − Λ̄)²) + ν (tr Λ − tr Λ̄)²]` (J),
//! `k_b = E h³ / (24 (1 − ν²))` (J),
//!
//! which is the plate energy `D/2 [(κ₁ + κ₂)² − 2(1 − ν) κ₁κ₂] Ā` with
//! `D = E h³/(12(1 − ν²))`. The ownership sign `s_k` of eq. 19 is +1 here:
//! one `τ_k⁰` per edge, shared by both its triangles, already makes both
//! measure the same mid-edge normal.
//!
//! **Natural shape.** `Λ̄ = Σ_k ā_k t_k ⊗ t_k` with the coefficients `ā_k`
//! of the initial state (where `ξ = 0`, the mid-edge normal being the
//! average normal). The paper writes `Λ̄` with the rest tangents `t̄_k`,
//! which makes `tr(Λ Λ̄)` depend on the shell's orientation in space (not
//! invariant under rigid rotations when `Λ̄ ≠ 0`); measuring both in the
//! current triangle's `t_k` keeps every rigid motion energy-free and
//! agrees with the paper whenever the triangle is at its rest pose.
//!
//! **Exact derivatives.** The paper (Appendix A, after Grinspun et al.)
//! drops the derivatives of `c_k` and `t_k` with respect to the positions.
//! Here the element is differentiated exactly: with respect to `x` and `ξ`
//! by an analytic gradient (below) and a closed-form Hessian (`hessian`
//! module: the chain rule through `d_k`, `G_ij` and the unit normal's
//! second derivative; `τ⁰` held fixed); and with respect to `x_prev`
//! through `τ⁰` — the lagged
//! frame is a function of the previous state, so the engine's history
//! block `∂²E/∂x∂x_prev` carries it exactly through rollout sensitivities
//! and adjoints, with no carried state.
//!
//! Gradient. With `N = (x₁ − x₀) × (x₂ − x₀)`, `n = N/|N|`, `s_k = e_k·(n × τ_k)`
//! (`= |e_k| t̂_k·τ_k`), `f_k = n·τ_k`, `r_k = |e_k|/(Ā |ē_k| s_k)`,
//! `d_k = (ξ_k − f_k) r_k − ā_k` and `G_ij = t_i·t_j = e_i·e_j` (edges are
//! in the plane), `E = k_b Ā [(1 − ν) Σ_ij d_i d_j G_ij² + ν S²]` with
//! `S = Σ_i d_i G_ii`, and along a change of node `a` by `u`:
//! `dN = e_a × u`, `dn = (dN − n (n·dN))/|N|`, `df_k = dn·τ_k`,
//! `ds_k = de_k·(n × τ_k) + e_k·(dn × τ_k)`,
//! `dr_k = r_k (ê_k·de_k/|e_k| − ds_k/s_k)`, `dd_k = −df_k r_k + (ξ_k − f_k) dr_k`,
//! `dE = k_b Ā [(1 − ν) Σ_ij (2 dd_i d_j G_ij² + 2 d_i d_j G_ij dG_ij) + 2ν S Σ_i (dd_i G_ii + d_i dG_ii)]`;
//! `∂E/∂ξ_k = k_b Ā [2(1 − ν) Σ_j d_j G_kj² + 2ν S G_kk] r_k`.
//! The paper's simplification is this with `dr_k = 0` and `dG_ij = 0`
//! (`ShellMidEdge::paper_derivatives`, for comparison).

mod hessian;

use crate::youngs::Youngs;
use num_dual::Dual64;
use pliant_core::vec3::{V3, cross, dot, load, scale, sub, unit};
use pliant_core::{Ctx, Element, Local, Scalar, Stencil};

/// One triangle's mid-edge bending.
#[derive(Debug, Clone)]
pub(crate) struct MidEdgeEl {
    /// The triangle's nodes, then per edge `k` the node across it (the
    /// triangle's own node `k` on a boundary edge, where it is unused).
    pub nodes: [usize; 6],
    /// `ξ` DOFs of the three edges.
    pub xi: [usize; 3],
    /// Which edges are on the boundary.
    pub boundary: [bool; 3],
    /// `+1` when local edge `k` (node `k+1` → `k+2`) runs from the lower
    /// to the higher node index, else `−1`.
    pub dir: [f64; 3],
    /// Rest area Ā, m².
    pub area: f64,
    /// Rest edge lengths `|ē_k|`, m.
    pub len: [f64; 3],
    /// Natural coefficients `ā_k`, 1/m³ … see the module documentation.
    pub natural: [f64; 3],
    /// `k_b / E_Y = h³/(24(1 − ν²))`, m³.
    pub kb_per_pa: f64,
    /// Poisson's ratio ν.
    pub nu: f64,
    pub youngs: Youngs,
    /// Paper mode: hold `c_k` and `t_k` constant in the derivatives
    /// (Appendix A's simplification), for comparison only.
    pub lag_ct: bool,
}

/// Freezes a value's derivatives (`D::from(re)`).
fn frozen<D: Scalar>(v: D) -> D {
    D::from(v.re())
}

impl MidEdgeEl {
    /// `τ_k⁰` (unit) of the three edges from the 6 node positions `xp`.
    pub(crate) fn frames<D: Scalar>(&self, xp: &[V3<D>; 6]) -> [V3<D>; 3] {
        let nf = unit(&cross(&sub(&xp[1], &xp[0]), &sub(&xp[2], &xp[0])));
        std::array::from_fn(|k| {
            let (p, q) = (&xp[(k + 1) % 3], &xp[(k + 2) % 3]);
            let avg = if self.boundary[k] {
                nf
            } else {
                // The neighbour traverses the edge q → p: (q, p, o).
                let no = unit(&cross(&sub(p, q), &sub(&xp[3 + k], q)));
                unit(&[nf[0] + no[0], nf[1] + no[1], nf[2] + no[2]])
            };
            let e = scale(D::from(self.dir[k]), &unit(&sub(q, p)));
            cross(&avg, &e)
        })
    }

    /// The coefficients `a_k` and the edge normals `t_k` at triangle
    /// positions `x`, mid-edge DOFs `xi` and frames `tau`.
    fn coefficients<D: Scalar>(
        &self,
        x: &[V3<D>; 3],
        xi: &[D; 3],
        tau: &[V3<D>; 3],
    ) -> ([D; 3], [V3<D>; 3]) {
        let n = unit(&cross(&sub(&x[1], &x[0]), &sub(&x[2], &x[0])));
        let mut a = [D::from(0.0); 3];
        let mut t = [[D::from(0.0); 3]; 3];
        for k in 0..3 {
            let e = sub(&x[(k + 2) % 3], &x[(k + 1) % 3]);
            let mut tk = cross(&e, &n);
            let mut tt = dot(&unit(&tk), &tau[k]);
            if self.lag_ct {
                tk = tk.map(frozen);
                tt = frozen(tt);
            }
            let f = dot(&n, &tau[k]);
            a[k] = (xi[k] - f) / (tt * (self.area * self.len[k]));
            t[k] = tk;
        }
        (a, t)
    }

    /// The bending energy (J) from triangle positions, `ξ`, frames and E.
    pub(crate) fn bending<D: Scalar>(
        &self,
        x: &[V3<D>; 3],
        xi: &[D; 3],
        tau: &[V3<D>; 3],
        youngs: D,
    ) -> D {
        let (a, t) = self.coefficients(x, xi, tau);
        let d: [D; 3] = std::array::from_fn(|k| a[k] - self.natural[k]);
        let mut tr2 = D::from(0.0);
        let mut tr = D::from(0.0);
        for i in 0..3 {
            tr += d[i] * dot(&t[i], &t[i]);
            for j in 0..3 {
                let c = dot(&t[i], &t[j]);
                tr2 += d[i] * d[j] * c * c;
            }
        }
        (tr2 * (1.0 - self.nu) + tr * tr * self.nu) * youngs * (self.kb_per_pa * self.area)
    }

    /// The natural coefficients `ā_k` of a triangle at rest at `xp` (with
    /// `ξ = 0`): what [`MidEdgeEl::natural`] must hold.
    pub(crate) fn rest_coefficients(&self, xp: &[[f64; 3]; 6]) -> [f64; 3] {
        let tau = self.frames(xp);
        let x = [xp[0], xp[1], xp[2]];
        self.coefficients(&x, &[0.0; 3], &tau).0
    }

    /// `∂E/∂(x, ξ)` (12: the triangle's 9 coordinates, then its 3 `ξ`) at
    /// `v` with frames `tau`, for any scalar type (see the module
    /// documentation for the formulas).
    pub(crate) fn analytic_gradient<D: Scalar>(
        &self,
        v: &[D],
        tau: &[[f64; 3]; 3],
        youngs: f64,
    ) -> [D; 12] {
        let x: [V3<D>; 3] = std::array::from_fn(|a| load(v, 3 * a));
        let xi = [v[9], v[10], v[11]];
        let big_n = cross(&sub(&x[1], &x[0]), &sub(&x[2], &x[0]));
        let nl = dot(&big_n, &big_n).sqrt();
        let n = big_n.map(|c| c / nl);
        let e: [V3<D>; 3] = std::array::from_fn(|k| sub(&x[(k + 2) % 3], &x[(k + 1) % 3]));
        let le: [D; 3] = std::array::from_fn(|k| dot(&e[k], &e[k]).sqrt());
        let tau: [V3<D>; 3] = tau.map(|t| t.map(D::from));
        let m: [V3<D>; 3] = std::array::from_fn(|k| cross(&n, &tau[k]));
        let sk: [D; 3] = std::array::from_fn(|k| dot(&e[k], &m[k]));
        let f: [D; 3] = std::array::from_fn(|k| dot(&n, &tau[k]));
        let q: [D; 3] = std::array::from_fn(|k| xi[k] - f[k]);
        let mut r: [D; 3] = std::array::from_fn(|k| le[k] / (sk[k] * (self.area * self.len[k])));
        let mut g2: [[D; 3]; 3] =
            std::array::from_fn(|i| std::array::from_fn(|j| dot(&e[i], &e[j])));
        if self.lag_ct {
            r = r.map(frozen);
            g2 = g2.map(|row| row.map(frozen));
        }
        let d: [D; 3] = std::array::from_fn(|k| q[k] * r[k] - self.natural[k]);
        let ka = youngs * self.kb_per_pa * self.area;
        let nu = self.nu;
        let s_tr = d[0] * g2[0][0] + d[1] * g2[1][1] + d[2] * g2[2][2];
        // ∂F/∂d_i.
        let fd: [D; 3] = std::array::from_fn(|i| {
            let mut acc = D::from(0.0);
            for j in 0..3 {
                acc += d[j] * g2[i][j] * g2[i][j];
            }
            (acc * (2.0 * (1.0 - nu)) + s_tr * g2[i][i] * (2.0 * nu)) * ka
        });
        let mut out = [D::from(0.0); 12];
        let zero = D::from(0.0);
        for c in 0..9 {
            let (a, axis) = (c / 3, c % 3);
            let mut u = [zero; 3];
            u[axis] = D::from(1.0);
            let dn_big = cross(&e[a], &u);
            let ndn = dot(&n, &dn_big);
            let dn: V3<D> = std::array::from_fn(|k| (dn_big[k] - n[k] * ndn) / nl);
            let de: [V3<D>; 3] = std::array::from_fn(|k| {
                if a == (k + 2) % 3 {
                    u
                } else if a == (k + 1) % 3 {
                    u.map(|v| -v)
                } else {
                    [zero; 3]
                }
            });
            let mut dd = [zero; 3];
            for k in 0..3 {
                let df = dot(&dn, &tau[k]);
                let dr = if self.lag_ct {
                    zero
                } else {
                    let ds = dot(&de[k], &m[k]) + dot(&e[k], &cross(&dn, &tau[k]));
                    r[k] * (dot(&e[k], &de[k]) / (le[k] * le[k]) - ds / sk[k])
                };
                dd[k] = -df * r[k] + q[k] * dr;
            }
            let mut acc = zero;
            for k in 0..3 {
                acc += fd[k] * dd[k];
            }
            if !self.lag_ct {
                let mut tr2 = zero;
                let mut dtr = zero;
                for i in 0..3 {
                    for j in 0..3 {
                        let dg = dot(&de[i], &e[j]) + dot(&e[i], &de[j]);
                        tr2 += d[i] * d[j] * g2[i][j] * dg;
                        if i == j {
                            dtr += d[i] * dg;
                        }
                    }
                }
                acc += (tr2 * (2.0 * (1.0 - nu)) + s_tr * dtr * (2.0 * nu)) * ka;
            }
            out[c] = acc;
        }
        for k in 0..3 {
            out[9 + k] = fd[k] * r[k];
        }
        out
    }

    fn split(l: &Local) -> ([f64; 12], [[f64; 3]; 3]) {
        let mut v = [0.0; 12];
        v[..9].copy_from_slice(&l.x[..9]);
        v[9..].copy_from_slice(&l.x[18..21]);
        (v, [[0.0; 3]; 3])
    }

    fn frames_at(&self, l: &Local) -> [[f64; 3]; 3] {
        let xp: [[f64; 3]; 6] = std::array::from_fn(|a| load(l.x_prev, 3 * a));
        self.frames(&xp)
    }

    fn local_energy<D: Scalar>(&self, v: &[D], tau: &[[f64; 3]; 3], youngs: f64) -> D {
        let x: [V3<D>; 3] = std::array::from_fn(|a| load(v, 3 * a));
        let xi = [v[9], v[10], v[11]];
        let tau = tau.map(|t| t.map(D::from));
        self.bending(&x, &xi, &tau, D::from(youngs))
    }

    /// Stencil slot of local variable `i` (9 positions, then 3 `ξ`).
    fn slot(i: usize) -> usize {
        if i < 9 { i } else { 18 + i - 9 }
    }
}

impl Element for MidEdgeEl {
    type Size = Stencil<21, 1>;
    const HISTORY: bool = true;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn extra_dofs(&self) -> &[usize] {
        &self.xi
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [self.youngs.channel()]
    }
    fn energy<D: Scalar>(&self, r: &[D], rp: &[D], p: &[D], _: &Ctx) -> D {
        let x: [V3<D>; 3] = std::array::from_fn(|a| load(r, 3 * a));
        let xi = [r[18], r[19], r[20]];
        let xp: [V3<D>; 6] = std::array::from_fn(|a| load(rp, 3 * a));
        let tau = self.frames(&xp);
        self.bending(&x, &xi, &tau, self.youngs.of(p))
    }
    fn value(&self, l: &Local) -> Option<f64> {
        let tau = self.frames_at(l);
        let (v, _) = Self::split(l);
        Some(self.local_energy::<f64>(&v, &tau, self.youngs.value(l.p)))
    }
    fn gradient(&self, l: &Local, out: &mut [f64]) -> bool {
        let tau = self.frames_at(l);
        let (v, _) = Self::split(l);
        let g = self.analytic_gradient(&v, &tau, self.youngs.value(l.p));
        out.fill(0.0);
        for i in 0..12 {
            out[Self::slot(i)] = g[i];
        }
        true
    }
    fn hessian(&self, l: &Local, out: &mut [f64]) -> bool {
        let tau = self.frames_at(l);
        let (v, _) = Self::split(l);
        let e = self.youngs.value(l.p);
        let h = if self.lag_ct {
            // The paper's simplification (comparison only): the Jacobian
            // of its gradient, column j by first-order duals along
            // variable j.
            let mut h = [[0.0; 12]; 12];
            for j in 0..12 {
                let vd: [Dual64; 12] =
                    std::array::from_fn(|i| Dual64::new(v[i], if i == j { 1.0 } else { 0.0 }));
                let g = self.analytic_gradient(&vd, &tau, e);
                for i in 0..12 {
                    h[i][j] = g[i].eps;
                }
            }
            h
        } else {
            self.closed_form_hessian(&v, &tau, e)
        };
        out.fill(0.0);
        for i in 0..12 {
            for j in 0..12 {
                // Symmetrize the round-off.
                out[Self::slot(i) * 21 + Self::slot(j)] = 0.5 * (h[i][j] + h[j][i]);
            }
        }
        true
    }
}
