//! Stretching of shell edges (MAT-DiSMech §3.1, eqs. 9–10).
//!
//! Edge `e = x_b − x_a` with rest length `|ē|` (m): strain
//! `ε = |e|/|ē| − 1` (eq. 9) and energy `E = ½ k_s ε² |ē|` (J, eq. 10) with
//! the shell-edge stiffness `k_s = (√3/2) E h |ē|` (N; E Young's modulus in
//! Pa, h thickness in m): on an equilateral mesh, the spring network whose
//! small-strain response is the isotropic membrane of modulus `E h` with
//! ν = 1/3 (equi-biaxial strain ε stores `E h ε²/(1 − ν)` per area; checked
//! in `tests/closed_form.rs`). §3.1 prints `√3/4`, half of that and of
//! what MAT-DiSMech's code uses; pliant uses `√3/2`.
//!
//! Derivatives, with `ℓ = |e|`, `t = e/ℓ`:
//! `∂E/∂e = k_s ε t`, `∂²E/∂e² = (k_s/|ē|) t tᵀ + (k_s ε/ℓ)(I − t tᵀ)`;
//! `E` is linear in Young's modulus, so `∂E/∂E_Y = E/E_Y`.

use crate::youngs::Youngs;
use pliant_core::vec3::{V3, norm, sub};
use pliant_core::{Ctx, Element, Local, Scalar, Stencil};

/// One shell edge's stretching spring; slot 0 reads Young's modulus when
/// it is a channel.
#[derive(Debug, Clone)]
pub(crate) struct StretchEl {
    pub nodes: [usize; 2],
    /// Rest length `|ē|`, m.
    pub rest: f64,
    /// `k_s / E_Y = (√3/2) h |ē|` (m²) — or whatever stiffness per pascal
    /// the caller chose.
    pub ks_per_pa: f64,
    pub youngs: Youngs,
}

impl StretchEl {
    fn ks(&self, p: &[f64]) -> f64 {
        self.youngs.value(p) * self.ks_per_pa
    }
    fn edge(x: &[f64]) -> [f64; 3] {
        [x[3] - x[0], x[4] - x[1], x[5] - x[2]]
    }
}

impl Element for StretchEl {
    type Size = Stencil<6, 1, 3>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [self.youngs.channel()]
    }
    fn map(&self, b: &mut [f64]) -> bool {
        for a in 0..3 {
            b[a * 6 + a] = -1.0;
            b[a * 6 + 3 + a] = 1.0;
        }
        true
    }
    fn reduce(&self, x: &[f64], r: &mut [f64]) -> bool {
        r.copy_from_slice(&Self::edge(x));
        true
    }
    fn energy<D: Scalar>(&self, e: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let e: V3<D> = [e[0], e[1], e[2]];
        let eps = norm(&e) / self.rest - 1.0;
        eps * eps * self.youngs.of(p) * (0.5 * self.ks_per_pa * self.rest)
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let e = Self::edge(l.x);
        let len = norm(&e);
        let f = self.ks(l.p) * (len / self.rest - 1.0) / len;
        for a in 0..3 {
            g[a] = -f * e[a];
            g[3 + a] = f * e[a];
        }
        true
    }
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        let e = Self::edge(l.x);
        let len = norm(&e);
        let ks = self.ks(l.p);
        let eps = len / self.rest - 1.0;
        let t = e.map(|v| v / len);
        for a in 0..3 {
            for b in 0..3 {
                let id = if a == b { 1.0 } else { 0.0 };
                let k = ks / self.rest * t[a] * t[b] + ks * eps / len * (id - t[a] * t[b]);
                h[a * 6 + b] = k;
                h[(a + 3) * 6 + b + 3] = k;
                h[a * 6 + b + 3] = -k;
                h[(a + 3) * 6 + b] = -k;
            }
        }
        true
    }
}

/// Rest length of the edge between `a` and `b`, m.
pub(crate) fn length(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    norm(&sub(b, a))
}
