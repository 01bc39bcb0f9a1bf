//! The ground's element: one contact node and, with per-node axes, the
//! two nodes of its axis.

use super::law::{Kind, Law, across};
use pliant_core::penalty::{coulomb_potential, coulomb_potential_d};
use pliant_core::vec3::{dot, dot_f, load, norm, sub, tangential};
use pliant_core::{Ctx, Element, Local, Scalar, Stencil};

/// One contact node (`N = 3`), or the node and the two nodes defining its
/// body axis (`N = 9`).
#[derive(Debug, Clone)]
pub struct GroundEl<const N: usize> {
    pub(super) nodes: [usize; 3],
    pub(super) n: [f64; 3],
    pub(super) c0: f64,
    pub(super) law: Law,
}

impl<const N: usize> GroundEl<N> {
    fn has_axis(&self) -> bool {
        N == 9
    }
    /// Tangential unit body axis at the previous state, if any (f64).
    fn axis_f(&self, xp: &[f64]) -> Option<[f64; 3]> {
        if !self.has_axis() {
            return self.law.axis;
        }
        let mut v = [0.0; 3];
        for a in 0..3 {
            v[a] = xp[6 + a] - xp[3 + a];
        }
        let vn = v[0] * self.n[0] + v[1] * self.n[1] + v[2] * self.n[2];
        let t = [
            v[0] - vn * self.n[0],
            v[1] - vn * self.n[1],
            v[2] - vn * self.n[2],
        ];
        let l = norm(&t);
        (l > 1e-12).then(|| t.map(|c| c / l))
    }

    /// Gradient (`g`) and Hessian (`h`) in the contact node's coordinates.
    fn local(&self, l: &Local, g: &mut [f64; 3], h: &mut [[f64; 3]; 3]) {
        let (x, xp) = (load(l.x, 0), load(l.x_prev, 0));
        let n = self.n;
        let d = x[0] * n[0] + x[1] * n[1] + x[2] * n[2] - self.c0;
        let dp = xp[0] * n[0] + xp[1] * n[1] + xp[2] * n[2] - self.c0;
        let (_, e1, e2) = self.law.normal_d(d, dp, l.ctx.h);
        for a in 0..3 {
            g[a] = e1 * n[a];
            for b in 0..3 {
                h[a][b] = e2 * n[a] * n[b];
            }
        }
        if self.law.friction == Kind::None {
            return;
        }
        let np = self.law.normal_force(dp);
        if np == 0.0 {
            return;
        }
        let (mu, mut mua) = (self.law.mu, self.law.mu_axis);
        let t = self.axis_f(l.x_prev);
        if t.is_none() {
            if self.law.friction == Kind::PerAxisCoulomb {
                // A degenerate axis pair: no friction from this node this step.
                return;
            }
            mua = mu;
        }
        let t = t.unwrap_or([0.0; 3]);
        let (h_eval, dt) = (l.ctx.h, l.ctx.dt);
        let delta = [x[0] - xp[0], x[1] - xp[1], x[2] - xp[2]];
        // Tangential projector P and the anisotropic metric M = α P + β t tᵀ.
        let p = |a: usize, b: usize| (if a == b { 1.0 } else { 0.0 }) - n[a] * n[b];
        if self.law.friction == Kind::LaggedQuadratic {
            let (al, be) = (mu, mua - mu);
            let c = 2.0 * np * dt / h_eval;
            for a in 0..3 {
                for b in 0..3 {
                    let w = al * p(a, b) + be * t[a] * t[b];
                    g[a] += c * w * delta[b];
                    h[a][b] += c * w;
                }
            }
        } else if self.law.friction == Kind::PerAxisCoulomb {
            // D = N h Σ_i μ_i Φ(u·e_i), e = (t, b = n × t): gradient
            // N μ_i Φ'(s_i) e_i, Hessian N μ_i Φ''(s_i)/h e_i e_iᵀ; for a
            // Newton direction (`ctx.majorize`) the saturation's negative
            // part of Φ'' = p₁ + p₂ s² is dropped (p₁ = Φ'/s ≥ 0: IRLS).
            let b = across(&n, &t);
            for (e, m) in [(t, mua), (b, mu)] {
                let s = (delta[0] * e[0] + delta[1] * e[1] + delta[2] * e[2]) / h_eval;
                let (_, p1, p2) = coulomb_potential_d(s.abs(), self.law.k2);
                let bend = p2 * s * s;
                let bend = if l.ctx.majorize { bend.max(0.0) } else { bend };
                let (f1, f2) = (p1 * s, bend + p1);
                for a in 0..3 {
                    g[a] += np * m * f1 * e[a];
                    for c in 0..3 {
                        h[a][c] += np * m / h_eval * f2 * e[a] * e[c];
                    }
                }
            }
        } else {
            let mbar = mu.max(mua);
            let (al, be) = (
                mu * mu / (mbar * mbar),
                (mua * mua - mu * mu) / (mbar * mbar),
            );
            let m = |a: usize, b: usize| al * p(a, b) + be * t[a] * t[b];
            let u = delta.map(|v| v / h_eval);
            let mut su = [0.0; 3];
            for a in 0..3 {
                for b in 0..3 {
                    su[a] += m(a, b) * u[b];
                }
            }
            let sp = (u[0] * su[0] + u[1] * su[1] + u[2] * su[2]).max(0.0).sqrt();
            let (_, f1, f2) = coulomb_potential_d(sp, self.law.k2);
            // For a Newton direction (`ctx.majorize`), the majorizer: the
            // force saturates with the slip (f₂ < 0), and the exact
            // Hessian's falling curvature along the slip sends full steps
            // past the sticking point; c/h · f₁ M bounds it from above.
            let f2 = if l.ctx.majorize { f2.max(0.0) } else { f2 };
            let c = np * mbar;
            for a in 0..3 {
                g[a] += c * f1 * su[a];
                for b in 0..3 {
                    h[a][b] += c / h_eval * (f1 * m(a, b) + f2 * su[a] * su[b]);
                }
            }
        }
    }
}

impl<const N: usize> Element for GroundEl<N> {
    type Size = Stencil<N>;
    const HISTORY: bool = true;
    fn nodes(&self) -> &[usize] {
        &self.nodes[..N / 3]
    }
    fn energy<T: Scalar>(&self, x: &[T], xp: &[T], _: &[T], c: &Ctx) -> T {
        let xi = load(x, 0);
        let xpi = load(xp, 0);
        let d = dot_f(&xi, &self.n) - self.c0;
        let dp = dot_f(&xpi, &self.n) - self.c0;
        let mut e = self.law.normal_energy(d, dp, c.h);
        if self.law.friction == Kind::None {
            return e;
        }
        let np = self.law.normal_force(dp);
        let dt = tangential(&sub(&xi, &xpi), &self.n);
        let (mu, mut mua) = (self.law.mu, self.law.mu_axis);
        // Body axis from the previous state, when given and non-degenerate.
        let mut proj = T::from(0.0);
        if self.law.friction == Kind::PerAxisCoulomb {
            // Validated at binding: per-axis friction always has an axis.
            let t: [T; 3] = if self.has_axis() {
                let ax = tangential(&sub(&load(xp, 6), &load(xp, 3)), &self.n);
                let l = dot(&ax, &ax).sqrt();
                if l.re() <= 1e-12 {
                    // A degenerate pair: no friction from this node this step.
                    return e;
                }
                ax.map(|v| v / l)
            } else {
                self.law.axis.unwrap_or([0.0; 3]).map(T::from)
            };
            let b = across(&self.n, &t);
            let (st, sb) = (dot(&t, &dt), dot(&b, &dt));
            let (hh, k2) = (c.h, self.law.k2);
            e += np
                * (coulomb_potential(st * st / (hh * hh), k2) * self.law.mu_axis
                    + coulomb_potential(sb * sb / (hh * hh), k2) * self.law.mu)
                * hh;
            return e;
        }
        if self.has_axis() {
            let ax = tangential(&sub(&load(xp, 6), &load(xp, 3)), &self.n);
            let l2 = dot(&ax, &ax);
            if l2.re() > 1e-24 {
                let t = ax.map(|v| v / l2.sqrt());
                proj = dot(&t, &dt);
            } else {
                mua = mu;
            }
        } else if let Some(t) = self.law.axis {
            proj = dot(&t.map(T::from), &dt);
        } else {
            mua = mu;
        }
        let dd = dot(&dt, &dt);
        if self.law.friction == Kind::LaggedQuadratic {
            // dt/h = 2 for implicit midpoint keeps the force per step equal to BDF1's.
            e += np * (dd * mu + proj * proj * (mua - mu)) * (c.dt / c.h);
        } else {
            let mbar = mu.max(mua);
            let r =
                (dd * (mu * mu) + proj * proj * (mua * mua - mu * mu)) / (mbar * mbar * c.h * c.h);
            e += np * coulomb_potential(r, self.law.k2) * (c.h * mbar);
        }
        e
    }
    fn gradient(&self, l: &Local, out: &mut [f64]) -> bool {
        let (mut g, mut h) = ([0.0; 3], [[0.0; 3]; 3]);
        self.local(l, &mut g, &mut h);
        out.fill(0.0);
        out[..3].copy_from_slice(&g);
        true
    }
    fn hessian(&self, l: &Local, out: &mut [f64]) -> bool {
        let (mut g, mut h) = ([0.0; 3], [[0.0; 3]; 3]);
        self.local(l, &mut g, &mut h);
        out.fill(0.0);
        for a in 0..3 {
            for b in 0..3 {
                out[a * N + b] = h[a][b];
            }
        }
        true
    }
}
