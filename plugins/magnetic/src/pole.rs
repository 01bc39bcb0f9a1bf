//! One pair of magnetic poles: the element of the `"pole"` model.
//!
//! For connectors `i` (node `a`) and `j` (node `b`) of different bodies,
//! with separation `d = x_b − x_a` and `r = |d|`,
//!
//! `U = k a_i a_j ψ₁(r)`, `k = μ q_i q_j / (4π)` (J·m),
//!
//! where `ψ₁ = κ₁ S` is the regularized `1/r` with the C² cut-off of
//! [`crate::law`] and `a_i`, `a_j` are the activation channels (1 when a
//! connector has none). Between the core radius and the switch band the
//! force is exactly Coulomb's law for poles, `F = μ q_i q_j/(4π r²)` along
//! `d`: like poles repel, opposite poles attract.
//!
//! The gradient, Hessian, parameter block and parameter gradient are
//! analytic; the dual-number fallback differentiates over the 3
//! components of `d`.

use crate::law::Law;
use pliant_core::{Ctx, Element, Local, Scalar, Stencil};
use std::sync::Arc;

/// A bound pole pair over the 6 DOFs of its two nodes, with one parameter
/// slot per connector's activation channel.
#[derive(Debug, Clone)]
pub(crate) struct PoleEl {
    pub(crate) nodes: [usize; 2],
    pub(crate) channels: [Option<Arc<str>>; 2],
    /// `μ q_i q_j / (4π)`, J·m.
    pub(crate) k: f64,
    pub(crate) law: Law,
}

impl PoleEl {
    /// The activations `(a_i, a_j)` from the parameter slots.
    #[inline]
    fn activations<D: Scalar>(&self, p: &[D]) -> (D, D) {
        let a = |slot: usize| {
            if self.channels[slot].is_some() {
                p[slot]
            } else {
                D::from(1.0)
            }
        };
        (a(0), a(1))
    }

    /// `d = x_b − x_a` and `(ψ, g₁, g₂)` of [`Law::profile_d`] at the local state.
    #[inline]
    fn kinematics(&self, l: &Local) -> ([f64; 3], (f64, f64, f64)) {
        let d: [f64; 3] = std::array::from_fn(|k| l.x[3 + k] - l.x[k]);
        let s = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        (d, self.law.profile_d(s, 1))
    }
}

impl Element for PoleEl {
    type Size = Stencil<6, 2, 3>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [self.channels[0].as_deref(), self.channels[1].as_deref()]
    }
    fn map(&self, b: &mut [f64]) -> bool {
        for k in 0..3 {
            b[k * 6 + k] = -1.0;
            b[k * 6 + 3 + k] = 1.0;
        }
        true
    }
    #[inline]
    fn reduce(&self, x: &[f64], r: &mut [f64]) -> bool {
        for k in 0..3 {
            r[k] = x[3 + k] - x[k];
        }
        true
    }
    fn energy<D: Scalar>(&self, d: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let s = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        let (ai, aj) = self.activations(p);
        self.law.profile(s, 1) * ai * aj * self.k
    }
    /// `∇_{x_b} U = k a_i a_j g₁ d = −∇_{x_a} U`.
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let (d, (_, g1, _)) = self.kinematics(l);
        let (ai, aj) = self.activations(l.p);
        let c = self.k * ai * aj * g1;
        for k in 0..3 {
            g[k] = -c * d[k];
            g[3 + k] = c * d[k];
        }
        true
    }
    /// `K = k a_i a_j (g₁ I + g₂ d dᵀ)`, `H = [[K, −K], [−K, K]]`.
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        let (d, (_, g1, g2)) = self.kinematics(l);
        let (ai, aj) = self.activations(l.p);
        let c = self.k * ai * aj;
        for a in 0..3 {
            for b in 0..3 {
                let id = if a == b { g1 } else { 0.0 };
                let kab = c * (id + g2 * d[a] * d[b]);
                h[a * 6 + b] = kab;
                h[(3 + a) * 6 + 3 + b] = kab;
                h[a * 6 + 3 + b] = -kab;
                h[(3 + a) * 6 + b] = -kab;
            }
        }
        true
    }
    /// `∂²U/∂x_b∂a_i = k a_j g₁ d`, `∂²U/∂x_b∂a_j = k a_i g₁ d` (negated
    /// for `x_a`); a slot without a channel has no derivative.
    fn param_block(&self, l: &Local, b: &mut [f64]) -> bool {
        let (d, (_, g1, _)) = self.kinematics(l);
        let (ai, aj) = self.activations(l.p);
        let per = [aj, ai];
        for slot in 0..2 {
            let c = if self.channels[slot].is_some() {
                self.k * per[slot] * g1
            } else {
                0.0
            };
            for k in 0..3 {
                b[k * 2 + slot] = -c * d[k];
                b[(3 + k) * 2 + slot] = c * d[k];
            }
        }
        true
    }
    /// `∂U/∂a_i = k a_j ψ`, `∂U/∂a_j = k a_i ψ`.
    fn param_gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let (_, (psi, _, _)) = self.kinematics(l);
        let (ai, aj) = self.activations(l.p);
        let per = [aj, ai];
        for slot in 0..2 {
            g[slot] = if self.channels[slot].is_some() {
                self.k * per[slot] * psi
            } else {
                0.0
            };
        }
        true
    }
}
