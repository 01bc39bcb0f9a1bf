//! The radial profile every connector pair shares: a regularized inverse
//! power of the distance times a smooth cut-off.
//!
//! **Core.** For `r ≥ r_c` the kernel is exactly `κ_n(r) = r⁻ⁿ` (`n = 1`
//! for the pole potential, `n = 5` for the dipole kernel). Below the core
//! radius `r_c` it is continued by the even polynomial
//!
//! `κ_n(r) = r_c⁻ⁿ (A + B u² + C u⁴)`, `u = r/r_c`,
//! `A = (n+2)(n+4)/8`, `B = −n(n+4)/4`, `C = n(n+2)/8`,
//!
//! the one polynomial in `u²` of degree two that matches `r⁻ⁿ`'s value,
//! slope and curvature at `r_c` (`A + B + C = 1`, `2B + 4C = −n`,
//! `2B + 12C = n(n+1)`). So the kernel is C² at `r_c`, decreasing on
//! `[0, r_c]`, bounded by `A r_c⁻ⁿ` (`15/(8 r_c)` for poles) with a
//! bounded slope `r_c⁻ⁿ⁻¹ |2B u + 4C u³|`, largest at `u² = (n+4)/(3(n+2))`
//! (for poles `5√5/9 ≈ 1.24` times the slope `1/r_c²` at `r_c`, at
//! `r = (√5/3) r_c`: the force has a mild hump inside the core, then falls
//! to 0 at `r = 0`), and — being a function of `r²` — smooth at `r = 0`:
//! no cone, no direction singularity.
//!
//! **Switch.** `S(r) = 1` for `r ≤ R − w`, `S(r) = 1 − (10t³ − 15t⁴ + 6t⁵)`
//! with `t = (r − R + w)/w` in the band `R − w < r < R`, and `0` for
//! `r ≥ R`: the quintic smoothstep, whose first and second derivatives
//! vanish at both ends, so `κ_n S` is C² everywhere and exactly zero from
//! `R` on. Since `w ≤ R − r_c`, the band never overlaps the core.
//!
//! Everything is written as a function of `s = r²`, both generically (for
//! the dual-number fallback) and in `f64` with the coefficients of the
//! analytic gradient and Hessian ([`Law::profile_d`]).

use pliant_core::Scalar;

/// `(A, B, C)` of the core polynomial continuing `r⁻ⁿ` below `r_c`.
pub(crate) fn core_coefficients(n: i32) -> (f64, f64, f64) {
    let n = f64::from(n);
    (
        (n + 2.0) * (n + 4.0) / 8.0,
        -n * (n + 4.0) / 4.0,
        n * (n + 2.0) / 8.0,
    )
}

/// Radii of the profile, m: core radius `r_c`, interaction radius `R`
/// and switch width `w` (`0 < r_c`, `0 < w ≤ R − r_c`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Law {
    /// Core radius `r_c`, m.
    pub(crate) core: f64,
    /// Interaction radius `R`, m.
    pub(crate) range: f64,
    /// Switch width `w`, m.
    pub(crate) width: f64,
}

impl Law {
    /// Where the switch band starts, `R − w` (m).
    pub(crate) fn inner(&self) -> f64 {
        self.range - self.width
    }

    /// The regularized `κ_n` at `s = r²` (m²), m⁻ⁿ.
    pub(crate) fn inverse_power<D: Scalar>(&self, s: D, n: i32) -> D {
        let rc2 = self.core * self.core;
        if s.re() < rc2 {
            let (a, b, c) = core_coefficients(n);
            let u2 = s / rc2;
            (u2 * (u2 * c + b) + a) * self.core.powi(-n)
        } else {
            s.sqrt().recip().powi(n)
        }
    }

    /// The switch `S` at `s = r²` (dimensionless).
    pub(crate) fn switch<D: Scalar>(&self, s: D) -> D {
        let inner = self.inner();
        if s.re() <= inner * inner {
            D::from(1.0)
        } else if s.re() >= self.range * self.range {
            D::from(0.0)
        } else {
            let t = (s.sqrt() - inner) / self.width;
            -(t * t * t * (t * (t * 6.0 - 15.0) + 10.0)) + 1.0
        }
    }

    /// `ψ_n = κ_n S` at `s = r²`, m⁻ⁿ; exactly 0 from `R` on.
    pub(crate) fn profile<D: Scalar>(&self, s: D, n: i32) -> D {
        if s.re() >= self.range * self.range {
            D::from(0.0)
        } else {
            self.inverse_power(s, n) * self.switch(s)
        }
    }

    /// `(S, dS/dr, d²S/dr²)` at distance `r` (m).
    pub(crate) fn switch_d(&self, r: f64) -> (f64, f64, f64) {
        let inner = self.inner();
        if r <= inner {
            (1.0, 0.0, 0.0)
        } else if r >= self.range {
            (0.0, 0.0, 0.0)
        } else {
            let w = self.width;
            let t = (r - inner) / w;
            let u = 1.0 - t;
            (
                1.0 - t * t * t * (t * (t * 6.0 - 15.0) + 10.0),
                -30.0 * t * t * u * u / w,
                -60.0 * t * u * (1.0 - 2.0 * t) / (w * w),
            )
        }
    }

    /// For `U(d) = ψ_n(|d|)`: `(ψ_n, g₁, g₂)` at `s = |d|²` with
    /// `∇U = g₁ d` and `∇²U = g₁ I + g₂ d dᵀ`, i.e. `g₁ = ψ'/r`,
    /// `g₂ = (ψ'' − ψ'/r)/r²` — in the core, where `ψ = f(s)`,
    /// `g₁ = 2 f'(s)` and `g₂ = 4 f''(s)`, with no division by `r`.
    pub(crate) fn profile_d(&self, s: f64, n: i32) -> (f64, f64, f64) {
        if s >= self.range * self.range {
            return (0.0, 0.0, 0.0);
        }
        let rc = self.core;
        let rc2 = rc * rc;
        if s < rc2 {
            // S = 1 here: the band starts at R − w ≥ r_c.
            let (a, b, c) = core_coefficients(n);
            let scale = rc.powi(-n);
            let u2 = s / rc2;
            let f = scale * (a + u2 * (b + u2 * c));
            let f1 = scale * (b + 2.0 * c * u2) / rc2;
            let f2 = scale * 2.0 * c / (rc2 * rc2);
            return (f, 2.0 * f1, 4.0 * f2);
        }
        let r = s.sqrt();
        let nf = f64::from(n);
        let k = r.recip().powi(n);
        let k1 = -nf * k / r;
        let k2 = nf * (nf + 1.0) * k / s;
        let (sw, sw1, sw2) = self.switch_d(r);
        let psi = k * sw;
        let psi1 = k1 * sw + k * sw1;
        let psi2 = k2 * sw + 2.0 * k1 * sw1 + k * sw2;
        let g1 = psi1 / r;
        (psi, g1, (psi2 - g1) / s)
    }
}

/// The force between two poles at distance `r` (m) under the pole law,
/// N, positive when they repel: `−dU/dr` for `U = k ψ₁(r)` with
/// `k = μ q₁ q₂/(4π)` (N·m²), core radius `core`, interaction radius
/// `radius` and switch width `width` (m) — `k/r²` between the core and the
/// band, for users who need the law's numbers (the largest force a pair
/// can hold, say).
pub fn pole_force(k: f64, r: f64, core: f64, radius: f64, width: f64) -> f64 {
    let law = Law {
        core,
        range: radius,
        width,
    };
    let (_, g1, _) = law.profile_d(r * r, 1);
    -k * g1 * r
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAW: Law = Law {
        core: 0.002,
        range: 0.02,
        width: 0.004,
    };

    /// `(ψ, ψ', ψ'')` in `r` from the `(ψ, g₁, g₂)` of `profile_d`.
    fn radial(r: f64, n: i32) -> (f64, f64, f64) {
        let (psi, g1, g2) = LAW.profile_d(r * r, n);
        (psi, g1 * r, g1 + g2 * r * r)
    }

    #[test]
    fn core_polynomial_matches_the_power_law_to_second_order() {
        for n in [1, 3, 5] {
            let (a, b, c) = core_coefficients(n);
            let nf = f64::from(n);
            assert!((a + b + c - 1.0).abs() < 1e-15);
            assert!((2.0 * b + 4.0 * c + nf).abs() < 1e-14);
            assert!((2.0 * b + 12.0 * c - nf * (nf + 1.0)).abs() < 1e-13);
        }
        assert_eq!(core_coefficients(1), (15.0 / 8.0, -5.0 / 4.0, 3.0 / 8.0));
        // Across r_c the value and both derivatives are continuous.
        for n in [1, 5] {
            let rc = LAW.core;
            let (lo, hi) = (radial(rc * (1.0 - 1e-10), n), radial(rc, n));
            assert!((lo.0 - hi.0).abs() <= 1e-8 * hi.0.abs());
            assert!((lo.1 - hi.1).abs() <= 1e-8 * hi.1.abs());
            assert!((lo.2 - hi.2).abs() <= 1e-8 * hi.2.abs());
        }
    }

    #[test]
    fn analytic_coefficients_match_differences_and_the_generic_form() {
        for n in [1, 5] {
            for r in [
                0.0, 3e-4, 1.5e-3, 2.5e-3, 0.01, 0.0161, 0.0175, 0.019, 0.0199,
            ] {
                let (psi, d1, d2) = radial(r, n);
                let generic = LAW.profile(r * r, n);
                assert!(
                    (generic - psi).abs() <= 1e-13 * psi.abs(),
                    "n {n} r {r}: {generic} vs {psi}"
                );
                if r == 0.0 {
                    assert_eq!(d1, 0.0);
                    continue;
                }
                let h = 1e-7 * r;
                let fd1 = (radial(r + h, n).0 - radial(r - h, n).0) / (2.0 * h);
                let fd2 = (radial(r + h, n).1 - radial(r - h, n).1) / (2.0 * h);
                assert!(
                    (fd1 - d1).abs() <= 1e-6 * d1.abs().max(psi.abs() / r),
                    "n {n} r {r}: ψ' {d1} vs {fd1}"
                );
                assert!(
                    (fd2 - d2).abs() <= 1e-5 * d2.abs().max(psi.abs() / (r * r)),
                    "n {n} r {r}: ψ'' {d2} vs {fd2}"
                );
            }
        }
    }

    #[test]
    fn exact_power_law_between_core_and_band_and_nothing_beyond_range() {
        for r in [0.002, 0.005, 0.01, 0.016] {
            let (psi, d1, _) = radial(r, 1);
            assert!((psi - 1.0 / r).abs() <= 1e-15 / r);
            assert!((d1 + 1.0 / (r * r)).abs() <= 1e-14 / (r * r));
        }
        for r in [0.02, 0.021, 1.0] {
            assert_eq!(LAW.profile_d(r * r, 1), (0.0, 0.0, 0.0));
            assert_eq!(LAW.profile(r * r, 5), 0.0);
        }
        // The switch and its first two derivatives vanish at R from inside.
        let (s, s1, s2) = LAW.switch_d(0.02 * (1.0 - 1e-9));
        // (relative to their scales 1, 30/w and 60/w²)
        assert!(s < 1e-20 && s1.abs() < 1e-12 && s2.abs() < 1e-6 * 60.0 / (0.004 * 0.004));
    }
}
