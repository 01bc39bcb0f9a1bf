//! The ground's contact and friction laws: the scene-file enums and the
//! resolved constants both derivative paths read.

use pliant_core::Scalar;
use pliant_core::penalty::{
    log_exp, log_exp_d, one_sided_quadratic, one_sided_quadratic_d, ramp_integral, ramp_integral_d,
    softplus,
};
use serde::{Deserialize, Serialize};

fn default_smoothing() -> f64 {
    1e-4
}

/// Normal contact law.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "law", rename_all = "snake_case", deny_unknown_fields)]
pub enum NormalLaw {
    /// `k Q(−d)`: stiffness `k` (N/m), smoothing width `smoothing` (m).
    Quadratic {
        /// N/m.
        stiffness: f64,
        /// m.
        #[serde(default = "default_smoothing")]
        smoothing: f64,
    },
    /// `k (ln(1 + e^{−K d})/K)²`, `K = 15/δ`: stiffness (N/m), `delta` δ (m).
    LogExp {
        /// N/m.
        stiffness: f64,
        /// m.
        delta: f64,
    },
    /// Spring–damper ground: `stiffness` K_g (N/m), `damping` B_g (N·s/m).
    SpringDamper {
        /// N/m.
        stiffness: f64,
        /// N·s/m.
        damping: f64,
        /// Contact switch width, m.
        #[serde(default = "default_smoothing")]
        smoothing: f64,
    },
}

/// Friction model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum Friction {
    /// Cable paper §II-C: `N_{k−1} μ ‖Δ_t‖²`; μ in 1/m.
    LaggedQuadratic {
        /// Across the body axis (or isotropic), 1/m.
        mu: f64,
        /// Along the body axis, 1/m (needs `axes` or `axis`).
        #[serde(default)]
        mu_axis: Option<f64>,
    },
    /// MAT-DiSMech eq. 23 with the normal force of the previous step.
    SmoothCoulomb {
        /// Coefficient across the body axis (or isotropic).
        mu: f64,
        /// Coefficient along the body axis (needs `axes` or `axis`).
        #[serde(default)]
        mu_axis: Option<f64>,
        /// Slip velocity ν (m/s): `K₂ = 15/ν`.
        slip_velocity: f64,
    },
    /// Snake paper eq. 4 as written: a smooth Coulomb law on each of the
    /// two tangential axes separately (needs `axes` or `axis`).
    PerAxisCoulomb {
        /// Coefficient across the axis (eq. 4's `μ_y` when the axis is X).
        mu: f64,
        /// Coefficient along the axis (eq. 4's `μ_x`).
        mu_axis: f64,
        /// Slip velocity ν (m/s): `K₂ = 15/ν`.
        slip_velocity: f64,
    },
}

/// Which friction law a [`Law`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    None,
    LaggedQuadratic,
    SmoothCoulomb,
    PerAxisCoulomb,
}

/// `b = n × t`, the tangential direction across the axis `t` (unit when
/// `t` is a unit vector in the plane of the unit normal `n`).
pub(super) fn across<T: Scalar>(n: &[f64; 3], t: &[T; 3]) -> [T; 3] {
    [
        t[2] * n[1] - t[1] * n[2],
        t[0] * n[2] - t[2] * n[0],
        t[1] * n[0] - t[0] * n[1],
    ]
}

/// Resolved law constants (plain data shared by the generic and analytic paths).
#[derive(Debug, Clone, Copy)]
pub(super) struct Law {
    pub(super) normal: NormalLaw,
    pub(super) friction: Kind,
    pub(super) mu: f64,
    pub(super) mu_axis: f64,
    pub(super) k2: f64,
    /// The world axis of `mu_axis` (unit, tangential), when not per node.
    pub(super) axis: Option<[f64; 3]>,
}

impl Law {
    /// Normal energy as a function of `d`, `d_prev` (generic).
    pub(super) fn normal_energy<T: Scalar>(&self, d: T, dp: T, h: f64) -> T {
        match self.normal {
            NormalLaw::Quadratic {
                stiffness,
                smoothing,
            } => one_sided_quadratic(-d, smoothing) * stiffness,
            NormalLaw::LogExp { stiffness, delta } => log_exp(d, 15.0 / delta) * stiffness,
            NormalLaw::SpringDamper {
                stiffness,
                damping,
                smoothing,
            } => {
                let z = T::from(0.0);
                ramp_integral(-d, z, smoothing) * stiffness
                    + ramp_integral(-d, -dp, smoothing) * (damping / h)
            }
        }
    }
    /// `(E_n, ∂E_n/∂d, ∂²E_n/∂d²)` at fixed `d_prev`.
    pub(super) fn normal_d(&self, d: f64, dp: f64, h: f64) -> (f64, f64, f64) {
        match self.normal {
            NormalLaw::Quadratic {
                stiffness: k,
                smoothing,
            } => {
                let (q, q1, q2) = one_sided_quadratic_d(-d, smoothing);
                (k * q, -k * q1, k * q2)
            }
            NormalLaw::LogExp {
                stiffness: k,
                delta,
            } => {
                let (e, e1, e2) = log_exp_d(d, 15.0 / delta);
                (k * e, k * e1, k * e2)
            }
            NormalLaw::SpringDamper {
                stiffness,
                damping,
                smoothing,
            } => {
                let (a, a1, a2) = ramp_integral_d(-d, 0.0, smoothing);
                let (b, b1, b2) = ramp_integral_d(-d, -dp, smoothing);
                let c = damping / h;
                (
                    stiffness * a + c * b,
                    -(stiffness * a1 + c * b1),
                    stiffness * a2 + c * b2,
                )
            }
        }
    }
    /// Elastic normal force magnitude `−∂E_n/∂d ≥ 0` at distance `d` (generic).
    pub(super) fn normal_force<T: Scalar>(&self, d: T) -> T {
        match self.normal {
            NormalLaw::Quadratic {
                stiffness,
                smoothing: eps,
            } => {
                let s = -d;
                let r = s.re();
                if r <= 0.0 {
                    T::from(0.0)
                } else if r < eps {
                    s * s * (stiffness / (2.0 * eps))
                } else {
                    (s - 0.5 * eps) * stiffness
                }
            }
            NormalLaw::LogExp { stiffness, delta } => {
                let k1 = 15.0 / delta;
                let z = d * (-k1);
                let sp = softplus(z);
                // Logistic σ(z), evaluated without overflow on either side.
                let sg = if z.re() < 0.0 {
                    let e = z.exp();
                    e / (e + 1.0)
                } else {
                    (T::from(1.0) + (-z).exp()).recip()
                };
                sp * sg * (2.0 * stiffness / k1)
            }
            NormalLaw::SpringDamper {
                stiffness,
                smoothing: eps,
                ..
            } => {
                let s = -d;
                let r = s.re();
                if r <= 0.0 {
                    T::from(0.0)
                } else if r < eps {
                    s * s * (stiffness / eps)
                } else {
                    s * stiffness
                }
            }
        }
    }
}
