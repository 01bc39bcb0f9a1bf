//! One node–segment pair of membrane contact ([`crate::contact`]): the
//! penalty and friction law and its element, with closed-form gradient
//! and Hessian (the history block by the dual-number fallback).

use pliant_core::penalty::{coulomb_potential, coulomb_potential_d, log_exp, log_exp_d};
use pliant_core::{Ctx, Element, Local, Scalar, Stencil};

/// Constants shared by every pair.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Law {
    /// Membrane thickness `w`, m.
    pub(crate) w: f64,
    /// Penalty sharpness `K = 15/δ`, 1/m.
    pub(crate) k1: f64,
    /// Penalty stiffness `k`, N/m.
    pub(crate) k: f64,
    /// Friction coefficient μ.
    pub(crate) mu: f64,
    /// Friction sharpness `K₂ = 15/ν`, s/m.
    pub(crate) k2: f64,
    /// Beyond this distance a pair contributes nothing, m.
    pub(crate) cutoff: f64,
    /// Distance regularization ε, m.
    pub(crate) eps: f64,
}

/// `(t, g = p − q, d)` for node `p` and segment `a–b`, regularized
/// `d = √(|g|² + ε²)`.
pub(crate) fn closest<T: Scalar>(p: [T; 2], a: [T; 2], b: [T; 2], eps: f64) -> (T, [T; 2], T) {
    let e = [b[0] - a[0], b[1] - a[1]];
    let w = [p[0] - a[0], p[1] - a[1]];
    let ee = e[0] * e[0] + e[1] * e[1];
    let t = (w[0] * e[0] + w[1] * e[1]) / ee;
    let t = if t.re() <= 0.0 {
        T::from(0.0)
    } else if t.re() >= 1.0 {
        T::from(1.0)
    } else {
        t
    };
    let g = [w[0] - e[0] * t, w[1] - e[1] * t];
    (t, g, (g[0] * g[0] + g[1] * g[1] + eps * eps).sqrt())
}

impl Law {
    fn penalty<T: Scalar>(&self, d: T) -> T {
        if d.re() >= self.cutoff {
            T::from(0.0)
        } else {
            log_exp(d - self.w, self.k1) * self.k
        }
    }
    /// `(φ, φ', φ'')` of the penalty in `d`.
    fn penalty_d(&self, d: f64) -> (f64, f64, f64) {
        if d >= self.cutoff {
            return (0.0, 0.0, 0.0);
        }
        let (e, e1, e2) = log_exp_d(d - self.w, self.k1);
        (self.k * e, self.k * e1, self.k * e2)
    }
    /// Lagged friction data at the previous state: `(N̄, t̄, τ̄)`, or `None`
    /// out of contact.
    fn lagged(&self, xp: &[f64]) -> Option<(f64, f64, [f64; 2])> {
        let (p, a, b) = (pt(xp, 0), pt(xp, 1), pt(xp, 2));
        let (t, _, d) = closest(p, a, b, self.eps);
        let n = -self.penalty_d(d).1;
        if n <= 0.0 {
            return None;
        }
        let e = [b[0] - a[0], b[1] - a[1]];
        let l = e[0].hypot(e[1]);
        Some((n, t, [e[0] / l, e[1] / l]))
    }
}

fn pt<T: Copy>(x: &[T], i: usize) -> [T; 2] {
    [x[3 * i], x[3 * i + 1]]
}

/// One candidate pair: node `p`, segment `a–b`; `F`: with friction.
#[derive(Debug, Clone)]
pub(crate) struct PairEl<const F: bool> {
    /// The node, then the segment's two nodes.
    pub(crate) nodes: [usize; 3],
    pub(crate) law: Law,
    /// Depth of the strip behind the segment where the node counts as
    /// having crossed it (the membrane's longest rest segment), m.
    pub(crate) strip: f64,
}

/// Whether node `p` lies in the strip of depth `strip` behind segment
/// `a–b` of a counter-clockwise membrane (inside it, opposite the other
/// cells), with its closest point strictly inside the segment: it crossed
/// the membrane.
fn crossed<T: Scalar>(x: &[T], strip: f64) -> bool {
    let (p, a, b) = (pt(x, 0), pt(x, 1), pt(x, 2));
    let e = [b[0].re() - a[0].re(), b[1].re() - a[1].re()];
    let w = [p[0].re() - a[0].re(), p[1].re() - a[1].re()];
    let ee = e[0] * e[0] + e[1] * e[1];
    let t = (w[0] * e[0] + w[1] * e[1]) / ee;
    let side = (e[0] * w[1] - e[1] * w[0]) / ee.sqrt();
    t > 0.0 && t < 1.0 && side > 0.0 && side < strip
}

impl<const F: bool> PairEl<F> {
    /// The distance `d`, `∇d` over `(p, a, b)` (2-D, 6 entries) and its
    /// Hessian (6 × 6) at `x`; `None` when `d` is at or beyond the
    /// penalty's cutoff, where the penalty and its derivatives are zero
    /// (most candidate pairs: their derivatives are skipped).
    fn distance_derivatives(&self, x: &[f64]) -> Option<(f64, [f64; 6], [[f64; 6]; 6])> {
        let (p, a, b) = (pt(x, 0), pt(x, 1), pt(x, 2));
        let (t, g, d) = closest(p, a, b, self.law.eps);
        if d >= self.law.cutoff {
            return None;
        }
        let n = [g[0] / d, g[1] / d];
        // g = p − a − t e: ∂g/∂(p, a, b) = J − e ∂tᵀ, J = [I, −(1−t) I, −t I].
        let coef = [1.0, -(1.0 - t), -t];
        let mut grad = [0.0; 6];
        for (k, c) in coef.iter().enumerate() {
            grad[2 * k] = c * n[0];
            grad[2 * k + 1] = c * n[1];
        }
        let e = [b[0] - a[0], b[1] - a[1]];
        let w = [p[0] - a[0], p[1] - a[1]];
        let ee = e[0] * e[0] + e[1] * e[1];
        let interior = t > 0.0 && t < 1.0;
        // ∂t over (p, a, b) in the interior; 0 where t is clamped.
        let mut dt = [0.0; 6];
        if interior {
            for c in 0..2 {
                dt[c] = e[c] / ee;
                dt[2 + c] = (-e[c] - w[c] + 2.0 * t * e[c]) / ee;
                dt[4 + c] = (w[c] - 2.0 * t * e[c]) / ee;
            }
        }
        // ∂g (2 × 6).
        let mut dg = [[0.0; 6]; 2];
        for r in 0..2 {
            for (k, c) in coef.iter().enumerate() {
                dg[r][2 * k + r] += c;
            }
            for j in 0..6 {
                dg[r][j] -= e[r] * dt[j];
            }
        }
        // ∂n = (I − n nᵀ) ∂g / d.
        let mut dn = [[0.0; 6]; 2];
        for r in 0..2 {
            for j in 0..6 {
                dn[r][j] = ((1.0 - n[r] * n[r]) * dg[r][j] - n[r] * n[1 - r] * dg[1 - r][j]) / d;
            }
        }
        // ∇d = Jᵀ n: H = Jᵀ ∂n + ∂(coef) n ∂tᵀ, ∂coef/∂t = (0, 1, −1).
        let mut h = [[0.0; 6]; 6];
        for (k, c) in coef.iter().enumerate() {
            for r in 0..2 {
                for j in 0..6 {
                    h[2 * k + r][j] = c * dn[r][j];
                }
            }
        }
        for r in 0..2 {
            for j in 0..6 {
                h[2 + r][j] += n[r] * dt[j];
                h[4 + r][j] -= n[r] * dt[j];
            }
        }
        Some((d, grad, h))
    }

    /// The friction's linear slip map `u = s · x` over the 2-D stencil and
    /// its coefficient data `(N̄, s)`.
    fn slip(&self, xp: &[f64]) -> Option<(f64, [f64; 6])> {
        let (n, t, tau) = self.law.lagged(xp)?;
        let coef = [1.0, -(1.0 - t), -t];
        let mut s = [0.0; 6];
        for (k, c) in coef.iter().enumerate() {
            s[2 * k] = c * tau[0];
            s[2 * k + 1] = c * tau[1];
        }
        Some((n, s))
    }
}

/// 2-D index `i` (over `p, a, b` × `x, y`) into the 9-long 3-D stencil.
fn at3(i: usize) -> usize {
    3 * (i / 2) + i % 2
}

impl<const F: bool> Element for PairEl<F> {
    type Size = Stencil<9>;
    const HISTORY: bool = F;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn energy<T: Scalar>(&self, x: &[T], xp: &[T], _: &[T], c: &Ctx) -> T {
        let law = &self.law;
        if crossed(x, self.strip) {
            return T::from(f64::INFINITY);
        }
        let (_, _, d) = closest(pt(x, 0), pt(x, 1), pt(x, 2), law.eps);
        let mut e = law.penalty(d);
        if !F {
            return e;
        }
        let (tp, _, dp) = closest(pt(xp, 0), pt(xp, 1), pt(xp, 2), law.eps);
        if dp.re() >= law.cutoff {
            return e;
        }
        // N̄ = −φ'(d̄) from the generic penalty: k d/dd (sp(K(w−d))/K)².
        let z = (dp - law.w) * (-law.k1);
        let sig = if z.re() >= 0.0 {
            ((-z).exp() + 1.0).recip()
        } else {
            z.exp() / (z.exp() + 1.0)
        };
        let normal = pliant_core::penalty::softplus(z) * sig * (2.0 * law.k / law.k1);
        let (a, b) = (pt(xp, 1), pt(xp, 2));
        let ed = [b[0] - a[0], b[1] - a[1]];
        let l = (ed[0] * ed[0] + ed[1] * ed[1]).sqrt();
        let tau = [ed[0] / l, ed[1] / l];
        let coef = [T::from(1.0), tp - 1.0, -tp];
        let mut u = T::from(0.0);
        for (k, cf) in coef.iter().enumerate() {
            for r in 0..2 {
                u += *cf * tau[r] * (x[3 * k + r] - xp[3 * k + r]);
            }
        }
        e += normal * coulomb_potential(u * u / (c.h * c.h), law.k2) * (c.h * law.mu);
        e
    }
    fn value(&self, l: &Local) -> Option<f64> {
        if crossed(l.x, self.strip) {
            return Some(f64::INFINITY);
        }
        let (p, a, b) = (pt(l.x, 0), pt(l.x, 1), pt(l.x, 2));
        let (_, _, d) = closest(p, a, b, self.law.eps);
        let mut e = self.law.penalty_d(d).0;
        if F && let Some((n, s)) = self.slip(l.x_prev) {
            let u: f64 = (0..6)
                .map(|i| s[i] * (l.x[at3(i)] - l.x_prev[at3(i)]))
                .sum();
            let (phi, _, _) = coulomb_potential_d(u.abs() / l.ctx.h, self.law.k2);
            e += l.ctx.h * self.law.mu * n * phi;
        }
        Some(e)
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        g[..9].fill(0.0);
        if let Some((d, grad, _)) = self.distance_derivatives(l.x) {
            let (_, f1, _) = self.law.penalty_d(d);
            for i in 0..6 {
                g[at3(i)] = f1 * grad[i];
            }
        }
        if F && let Some((n, s)) = self.slip(l.x_prev) {
            let u: f64 = (0..6)
                .map(|i| s[i] * (l.x[at3(i)] - l.x_prev[at3(i)]))
                .sum();
            let (_, p1, _) = coulomb_potential_d(u.abs() / l.ctx.h, self.law.k2);
            // ∂/∂u [h μ N̄ Φ(|u|/h)] = μ N̄ (Φ'(s)/s) u/h.
            let f = self.law.mu * n * p1 * u / l.ctx.h;
            for i in 0..6 {
                g[at3(i)] += f * s[i];
            }
        }
        true
    }
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        h[..81].fill(0.0);
        if let Some((d, grad, hd)) = self.distance_derivatives(l.x) {
            let (_, f1, f2) = self.law.penalty_d(d);
            for i in 0..6 {
                for j in 0..6 {
                    // Symmetrized: the two halves agree up to round-off.
                    let hij = 0.5 * (hd[i][j] + hd[j][i]);
                    h[at3(i) * 9 + at3(j)] = f2 * grad[i] * grad[j] + f1 * hij;
                }
            }
        }
        if F && let Some((n, s)) = self.slip(l.x_prev) {
            let u: f64 = (0..6)
                .map(|i| s[i] * (l.x[at3(i)] - l.x_prev[at3(i)]))
                .sum();
            let sv = u.abs() / l.ctx.h;
            let (_, p1, p2) = coulomb_potential_d(sv, self.law.k2);
            // ∂²/∂u² = (μ N̄/h) Φ''(s) = (μ N̄/h) (p2 s² + p1).
            let c = self.law.mu * n / l.ctx.h * (p2 * sv * sv + p1);
            for i in 0..6 {
                for j in 0..6 {
                    h[at3(i) * 9 + at3(j)] += c * s[i] * s[j];
                }
            }
        }
        true
    }
}
