//! Scalar penalty functions of the signed distance `d` (m, positive outside)
//! or penetration `s = −d`, each as a generic version (for the dual-number
//! fallback) and an `f64` version returning value, first and second
//! derivatives (for the analytic path). They live in core because contact,
//! cables and objectives all use them (the cable paper's one-sided quadratic
//! appears in all three).

use crate::scalar::Scalar;

/// The C²-smooth one-sided quadratic `Q(s)` of the cable paper (\[1\] in
/// Bern et al. 2019), unit stiffness, smoothing width `eps` (m):
/// `0` for `s ≤ 0`, `s³/(6ε)` for `0 < s < ε`, `s²/2 − εs/2 + ε²/6` beyond.
pub fn one_sided_quadratic<T: Scalar>(s: T, eps: f64) -> T {
    let r = s.re();
    if r <= 0.0 {
        T::from(0.0)
    } else if r < eps {
        s * s * s / (6.0 * eps)
    } else {
        s * s * 0.5 - s * (0.5 * eps) + eps * eps / 6.0
    }
}

/// `(Q, Q', Q'')` of [`one_sided_quadratic`].
pub fn one_sided_quadratic_d(s: f64, eps: f64) -> (f64, f64, f64) {
    if s <= 0.0 {
        (0.0, 0.0, 0.0)
    } else if s < eps {
        (s * s * s / (6.0 * eps), s * s / (2.0 * eps), s / eps)
    } else {
        (
            s * s * 0.5 - 0.5 * eps * s + eps * eps / 6.0,
            s - 0.5 * eps,
            1.0,
        )
    }
}

/// `ln(1 + e^z)` computed without overflow.
pub fn softplus<T: Scalar>(z: T) -> T {
    if z.re() > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

fn softplus_f(z: f64) -> f64 {
    if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// MAT-DiSMech's log-exp contact energy (the potential of eq. 25, unit
/// stiffness): `(ln(1 + e^{−K d})/K)²` with `K = 15/δ`; it acts within about
/// `δ` above the plane.
pub fn log_exp<T: Scalar>(d: T, k1: f64) -> T {
    let sp = softplus(d * (-k1)) / k1;
    sp * sp
}

/// `(E, dE/dd, d²E/dd²)` of [`log_exp`] (compare MAT-DiSMech eqs. 25–26).
pub fn log_exp_d(d: f64, k1: f64) -> (f64, f64, f64) {
    let z = -k1 * d;
    let sp = softplus_f(z);
    let sg = sigmoid(z);
    let e = (sp / k1) * (sp / k1);
    let de = -2.0 * sp * sg / k1;
    let d2e = 2.0 * (sg * sg + sp * sg * (1.0 - sg));
    (e, de, d2e)
}

/// Activation ramp `a(s) = clamp(s/ε, 0, 1)` integrated against `(s − c)`:
/// `∫₀^s a(σ)(σ − c) dσ`, the potential of the spring–damper ground (snake
/// paper eq. 3) with a smoothed contact switch of width `ε` (m).
pub fn ramp_integral<T: Scalar>(s: T, c: T, eps: f64) -> T {
    let r = s.re();
    if r <= 0.0 {
        T::from(0.0)
    } else if r < eps {
        s * s * s / (3.0 * eps) - c * s * s / (2.0 * eps)
    } else {
        c * (-0.5 * eps) + eps * eps / 3.0 + (s * s - eps * eps) * 0.5 - c * (s - eps)
    }
}

/// `(I, ∂I/∂s, ∂²I/∂s²)` of [`ramp_integral`] at fixed `c`.
pub fn ramp_integral_d(s: f64, c: f64, eps: f64) -> (f64, f64, f64) {
    if s <= 0.0 {
        (0.0, 0.0, 0.0)
    } else if s < eps {
        (
            s * s * s / (3.0 * eps) - c * s * s / (2.0 * eps),
            (s / eps) * (s - c),
            (2.0 * s - c) / eps,
        )
    } else {
        (
            eps * eps / 3.0 - 0.5 * c * eps + 0.5 * (s * s - eps * eps) - c * (s - eps),
            s - c,
            1.0,
        )
    }
}

/// Smooth Coulomb dissipation `Φ(s) = (2/K) ln cosh(K s/2)`, whose slope is
/// MAT-DiSMech's `γ = 2/(1 + e^{−K s}) − 1 = tanh(K s/2)` (eq. 23), written in
/// terms of `r = s²` so it stays smooth at rest.
pub fn coulomb_potential<T: Scalar>(r: T, k2: f64) -> T {
    let zz = r * (k2 * k2 / 4.0); // z² with z = K s/2
    if zz.re() < 1e-6 {
        // (2/K)(z²/2 − z⁴/12 + z⁶/45)
        (zz * 0.5 - zz * zz / 12.0 + zz * zz * zz / 45.0) * (2.0 / k2)
    } else {
        let z = zz.sqrt();
        // ln cosh z = z + ln(1 + e^{−2z}) − ln 2, for z > 0.
        (z + (z * (-2.0)).exp().ln_1p() - std::f64::consts::LN_2) * (2.0 / k2)
    }
}

/// For `Φ` of [`coulomb_potential`]: `(Φ(s), Φ'(s)/s, (Φ''(s)s − Φ'(s))/s³)`,
/// the coefficients the analytic friction gradient and Hessian need.
pub fn coulomb_potential_d(s: f64, k2: f64) -> (f64, f64, f64) {
    let c = 0.5 * k2;
    let z = c * s;
    if z < 1e-3 {
        let z2 = z * z;
        let phi = (2.0 / k2) * (0.5 * z2 - z2 * z2 / 12.0 + z2 * z2 * z2 / 45.0);
        // tanh z / s = c (1 − z²/3 + 2z⁴/15)
        let p1 = c * (1.0 - z2 / 3.0 + 2.0 * z2 * z2 / 15.0);
        // (c sech²z · s − tanh z)/s³ = c³ (−2/3 + 8z²/15)
        let p2 = c * c * c * (-2.0 / 3.0 + 8.0 * z2 / 15.0);
        (phi, p1, p2)
    } else {
        let t = z.tanh();
        let phi = (2.0 / k2) * (z + (-2.0 * z).exp().ln_1p() - std::f64::consts::LN_2);
        let sech2 = 1.0 - t * t;
        (phi, t / s, (c * sech2 * s - t) / (s * s * s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fd_check(f: impl Fn(f64) -> (f64, f64, f64), xs: &[f64]) {
        for &x in xs {
            let h = 1e-7 * x.abs().max(1e-3);
            let (_, d1, d2) = f(x);
            let fd1 = (f(x + h).0 - f(x - h).0) / (2.0 * h);
            let fd2 = (f(x + h).1 - f(x - h).1) / (2.0 * h);
            assert!(
                (d1 - fd1).abs() <= 1e-6 * (1.0 + d1.abs()),
                "d1 at {x}: {d1} vs {fd1}"
            );
            assert!(
                (d2 - fd2).abs() <= 1e-5 * (1.0 + d2.abs()),
                "d2 at {x}: {d2} vs {fd2}"
            );
        }
    }

    #[test]
    fn penalties_match_their_derivatives_and_generic_forms() {
        let eps = 1e-3;
        fd_check(
            |s| one_sided_quadratic_d(s, eps),
            &[-1e-3, 2e-4, 7e-4, 5e-3, 0.1],
        );
        fd_check(
            |d| log_exp_d(d, 15.0 / 1e-3),
            &[-2e-3, -1e-4, 0.0, 1e-4, 5e-4, 3e-3],
        );
        fd_check(
            |s| ramp_integral_d(s, 2e-4, eps),
            &[-1e-3, 3e-4, 9e-4, 4e-3],
        );
        for s in [-1.0, 1e-4, 5e-4, 2e-3] {
            assert_eq!(one_sided_quadratic(s, eps), one_sided_quadratic_d(s, eps).0);
            assert_eq!(ramp_integral(s, 3e-4, eps), ramp_integral_d(s, 3e-4, eps).0);
        }
        for d in [-1e-3, 0.0, 2e-4] {
            let k1 = 15.0 / 1e-3;
            assert!((log_exp(d, k1) - log_exp_d(d, k1).0).abs() <= 1e-15);
        }
        // The potential is C¹ at the joints of the pieces.
        for (a, b) in [(0.0, 1e-12), (eps - 1e-12, eps + 1e-12)] {
            let (qa, da, _) = one_sided_quadratic_d(a, eps);
            let (qb, db, _) = one_sided_quadratic_d(b, eps);
            assert!((qa - qb).abs() < 1e-14 && (da - db).abs() < 1e-9);
        }
    }

    #[test]
    fn coulomb_slope_is_tanh_and_smooth_at_rest() {
        let k2 = 15.0 / 1e-3;
        for s in [1e-9, 1e-5, 5e-5, 1e-4, 1e-3, 0.1] {
            let (phi, p1, p2) = coulomb_potential_d(s, k2);
            assert!(
                (p1 * s - (0.5 * k2 * s).tanh()).abs() < 1e-12,
                "slope at {s}"
            );
            let g = coulomb_potential(s * s, k2);
            assert!(
                (g - phi).abs() <= 1e-12 * phi.abs().max(1e-30),
                "value at {s}: {g} vs {phi}"
            );
            if s < 1e-5 {
                continue; // the curvature term is below what differences resolve here
            }
            let h = 1e-4 * s;
            let fd =
                ((coulomb_potential_d(s + h, k2).1) - coulomb_potential_d(s - h, k2).1) / (2.0 * h);
            assert!(
                (p2 * s - fd).abs() <= 1e-4 * (p2 * s).abs().max(1e-6),
                "curvature at {s}"
            );
        }
        // Across the series/closed-form switch the value is continuous.
        let z_switch = 1e-3 / (0.5 * k2);
        let a = coulomb_potential_d(z_switch * (1.0 - 1e-9), k2).0;
        let b = coulomb_potential_d(z_switch * (1.0 + 1e-9), k2).0;
        assert!((a - b).abs() <= 1e-8 * a, "{a} vs {b}");
    }
}
