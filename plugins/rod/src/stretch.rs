//! Stretching springs (MAT-DiSMech §3.1, eqs. 9–10).
//!
//! Edge `e` (m) with natural length `L` (m): axial strain `ε = |e|/L − 1`
//! (eq. 9) and energy
//!
//! `E = ½ k_s ε² L` (J, eq. 10),
//!
//! with the stretching stiffness `k_s = E A = E π r²` (N) by default. The
//! natural length is the rest length `|ē|` scaled by a natural-strain
//! actuation `c` (dimensionless, channel value times gain, §6.1 "natural
//! stretch"): `L = |ē| (1 + c)`; `c` must stay above −1.
//!
//! Derivatives, with `ℓ = |e|`, `t = e/ℓ`:
//! - `∂E/∂e = k_s ε t`,
//! - `∂²E/∂e² = (k_s/L) t tᵀ + (k_s ε/ℓ)(I − t tᵀ)`,
//! - `∂E/∂c = |ē| ∂E/∂L = |ē| k_s (1 − ℓ²/L²)/2`,
//! - `∂²E/∂e∂c = −|ē| k_s ℓ/L² t`.

use pliant_core::Scalar;
use pliant_core::vec3::{V3, norm};

/// One stretching spring.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StretchSpring {
    /// Stretching stiffness `k_s`, N.
    pub ks: f64,
    /// Rest length `|ē|`, m.
    pub rest: f64,
}

/// Value and derivatives of a stretching spring at one edge vector.
#[derive(Debug, Clone, Copy)]
pub struct StretchEval {
    /// Energy, J.
    pub energy: f64,
    /// Axial strain ε.
    pub strain: f64,
    /// `∂E/∂e`, N.
    pub grad: [f64; 3],
    /// `∂²E/∂e²`, N/m.
    pub hess: [[f64; 3]; 3],
    /// `∂E/∂c`, J.
    pub dc: f64,
    /// `∂²E/∂e∂c`, N.
    pub grad_dc: [f64; 3],
}

impl StretchSpring {
    /// Energy (J) at edge vector `e` with natural strain `c`, for any scalar type.
    pub fn energy<D: Scalar>(&self, e: &V3<D>, c: D) -> D {
        if c.re() <= -1.0 {
            // Natural length ≤ 0: no admissible state (the line search and
            // Newton reject an infinite energy with a typed error).
            return D::from(f64::INFINITY);
        }
        let l = (c + 1.0) * self.rest;
        let eps = norm(e) / l - 1.0;
        eps * eps * l * (0.5 * self.ks)
    }

    /// `(E, ε)` without derivatives, bit for bit those of [`StretchSpring::eval`].
    pub fn value(&self, e: &[f64; 3], c: f64) -> (f64, f64) {
        if c <= -1.0 {
            return (f64::INFINITY, f64::INFINITY);
        }
        let big_l = self.rest * (1.0 + c);
        let eps = norm(e) / big_l - 1.0;
        (0.5 * self.ks * eps * eps * big_l, eps)
    }

    /// Value and analytic derivatives (see the module documentation).
    pub fn eval(&self, e: &[f64; 3], c: f64) -> StretchEval {
        let big_l = self.rest * (1.0 + c);
        let l = norm(e);
        let t = e.map(|v| v / l);
        let eps = l / big_l - 1.0;
        let a = self.ks / big_l;
        let b = self.ks * eps / l;
        StretchEval {
            energy: 0.5 * self.ks * eps * eps * big_l,
            strain: eps,
            grad: t.map(|v| self.ks * eps * v),
            hess: std::array::from_fn(|r| {
                std::array::from_fn(|s| {
                    let id = if r == s { 1.0 } else { 0.0 };
                    a * t[r] * t[s] + b * (id - t[r] * t[s])
                })
            }),
            dc: self.rest * 0.5 * self.ks * (1.0 - (l / big_l).powi(2)),
            grad_dc: t.map(|v| -self.rest * self.ks * l / (big_l * big_l) * v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pliant_core::num_dual::{Dual64, HyperDual64};

    #[test]
    fn analytic_derivatives_match_dual_numbers() {
        let s = StretchSpring {
            ks: 3.0e3,
            rest: 0.07,
        };
        let e = [0.05, -0.03, 0.04];
        let c = 0.1;
        let ev = s.eval(&e, c);
        assert!((ev.energy - s.energy(&e, c)).abs() < 1e-15);
        for i in 0..3 {
            let d: [Dual64; 3] =
                std::array::from_fn(|k| Dual64::new(e[k], if k == i { 1.0 } else { 0.0 }));
            let g = s.energy(&d, Dual64::from(c)).eps;
            assert!((g - ev.grad[i]).abs() < 1e-12 * ev.grad[i].abs().max(1.0));
            for j in 0..3 {
                let h: [HyperDual64; 3] = std::array::from_fn(|k| {
                    HyperDual64::new(
                        e[k],
                        if k == i { 1.0 } else { 0.0 },
                        if k == j { 1.0 } else { 0.0 },
                        0.0,
                    )
                });
                let v = s.energy(&h, HyperDual64::from(c)).eps1eps2;
                assert!((v - ev.hess[i][j]).abs() < 1e-9 * v.abs().max(1.0));
            }
            let h: [HyperDual64; 3] = std::array::from_fn(|k| {
                HyperDual64::new(e[k], if k == i { 1.0 } else { 0.0 }, 0.0, 0.0)
            });
            let v = s.energy(&h, HyperDual64::new(c, 0.0, 1.0, 0.0)).eps1eps2;
            assert!((v - ev.grad_dc[i]).abs() < 1e-9 * v.abs().max(1.0));
        }
        let d: [Dual64; 3] = e.map(Dual64::from);
        let v = s.energy(&d, Dual64::new(c, 1.0)).eps;
        assert!((v - ev.dc).abs() < 1e-12);
    }
}
