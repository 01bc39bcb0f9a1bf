//! Compressible neo-Hookean energy density (Bern et al. 2019, eq. 1).
//!
//! `F` is stored row-major: `f[3i + j] = F_ij`.

use pliant_core::Scalar;
use pliant_core::mat3::{det3, inv3};

/// Lamé parameters `(μ, λ)` in Pa from Young's modulus `E` (Pa) and Poisson's ratio `ν`.
pub fn lame<D: Scalar>(e: D, nu: D) -> (D, D) {
    let mu = e / ((nu + 1.0) * 2.0);
    let lambda = e * nu / ((nu + 1.0) * (-nu * 2.0 + 1.0));
    (mu, lambda)
}

/// `Ψ(F)` in Pa; `+∞` for an inverted or degenerate element (`J ≤ 0`), so a
/// line search never accepts such a state.
pub fn psi<D: Scalar>(f: &[D; 9], mu: D, lambda: D) -> D {
    let j = det3(f);
    if j.re().is_nan() || j.re() <= 0.0 {
        return D::from(f64::INFINITY);
    }
    let tr = f.iter().fold(D::from(0.0), |s, v| s + *v * *v);
    let lnj = j.ln();
    mu * 0.5 * (tr - 3.0) - mu * lnj + lambda * 0.5 * lnj * lnj
}

/// `Ψ(F)` (Pa, bit for bit [`psi`]'s) and the first Piola–Kirchhoff stress
/// `P = ∂Ψ/∂F = μ(F − F⁻ᵀ) + λ ln J F⁻ᵀ` (row-major, Pa), sharing `J`,
/// `ln J` and `F⁻¹`; `None` for `J ≤ 0` (where `Ψ = +∞`).
pub fn psi_and_stress(f: &[f64; 9], mu: f64, lambda: f64) -> Option<(f64, [f64; 9])> {
    let j = det3(f);
    if j.is_nan() || j <= 0.0 {
        return None;
    }
    let tr = f.iter().fold(0.0, |s, v| s + *v * *v);
    let lnj = j.ln();
    let psi = mu * 0.5 * (tr - 3.0) - mu * lnj + lambda * 0.5 * lnj * lnj;
    let fi = inv3(f, j); // fi[3a + b] = F⁻¹_ab
    let p = std::array::from_fn(|r| {
        let (i, jj) = (r / 3, r % 3);
        let fit = fi[3 * jj + i]; // F⁻ᵀ_ij = F⁻¹_ji
        mu * (f[r] - fit) + lambda * lnj * fit
    });
    Some((psi, p))
}

/// First Piola–Kirchhoff stress `P = ∂Ψ/∂F = μ(F − F⁻ᵀ) + λ ln J F⁻ᵀ`
/// (row-major, Pa); `None` for `J ≤ 0`.
pub fn stress(f: &[f64; 9], mu: f64, lambda: f64) -> Option<[f64; 9]> {
    psi_and_stress(f, mu, lambda).map(|(_, p)| p)
}

/// First Piola–Kirchhoff stress `P = μ(F − F⁻ᵀ) + λ ln J F⁻ᵀ` (row-major, Pa)
/// and its derivative `∂P_ij/∂F_kl` (81 entries, index `(3i+j)·9 + 3k+l`):
/// `μ δ_ik δ_jl + (μ − λ ln J) F⁻¹_li F⁻¹_jk + λ F⁻¹_ji F⁻¹_lk`.
/// `None` for `J ≤ 0`.
pub fn stress_and_tangent(f: &[f64; 9], mu: f64, lambda: f64) -> Option<([f64; 9], [f64; 81])> {
    let p = stress(f, mu, lambda)?;
    let j = det3(f);
    let fi = inv3(f, j); // fi[3a + b] = F⁻¹_ab
    let lnj = j.ln();
    let mut t = [0.0; 81];
    let c = mu - lambda * lnj;
    for i in 0..3 {
        for jj in 0..3 {
            for k in 0..3 {
                for l in 0..3 {
                    let d = if i == k && jj == l { mu } else { 0.0 };
                    t[(3 * i + jj) * 9 + 3 * k + l] = d
                        + c * fi[3 * l + i] * fi[3 * jj + k]
                        + lambda * fi[3 * jj + i] * fi[3 * l + k];
                }
            }
        }
    }
    Some((p, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stress_is_the_derivative_of_psi_and_tangent_of_stress() {
        let f = [1.1, 0.05, -0.02, 0.03, 0.95, 0.04, -0.01, 0.02, 1.05];
        let (mu, la) = (3e4, 8e4);
        let (p, t) = stress_and_tangent(&f, mu, la).unwrap();
        assert_eq!(stress(&f, mu, la).unwrap(), p);
        let h = 1e-7;
        for a in 0..9 {
            let (mut fp, mut fm) = (f, f);
            fp[a] += h;
            fm[a] -= h;
            let dpsi = (psi(&fp, mu, la) - psi(&fm, mu, la)) / (2.0 * h);
            assert!(
                (dpsi - p[a]).abs() < 1e-6 * mu,
                "P[{a}]: {} vs {dpsi}",
                p[a]
            );
            let (pp, _) = stress_and_tangent(&fp, mu, la).unwrap();
            let (pm, _) = stress_and_tangent(&fm, mu, la).unwrap();
            for b in 0..9 {
                let fd = (pp[b] - pm[b]) / (2.0 * h);
                assert!((fd - t[b * 9 + a]).abs() < 1e-5 * mu, "T[{b},{a}]");
            }
        }
        // Rest state: stress free.
        let (p0, _) =
            stress_and_tangent(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], mu, la).unwrap();
        assert!(p0.iter().all(|v| v.abs() < 1e-9));
        assert_eq!(
            psi(&[1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0], mu, la),
            f64::INFINITY
        );
    }

    #[test]
    fn psi_and_stress_together_are_psi_and_stress_bit_for_bit() {
        let (mu, la) = (3e4, 8e4);
        let mut rng = pliant_core::derivcheck::Rng::new(7);
        for _ in 0..200 {
            let f: [f64; 9] =
                std::array::from_fn(|k| if k % 4 == 0 { 1.0 } else { 0.0 } + rng.range(-0.2, 0.2));
            match psi_and_stress(&f, mu, la) {
                Some((v, p)) => {
                    assert_eq!(v.to_bits(), psi(&f, mu, la).to_bits());
                    let s = stress(&f, mu, la).unwrap();
                    assert!(p.iter().zip(&s).all(|(a, b)| a.to_bits() == b.to_bits()));
                }
                None => {
                    assert_eq!(psi(&f, mu, la), f64::INFINITY);
                    assert!(stress(&f, mu, la).is_none());
                }
            }
        }
    }

    #[test]
    fn lame_from_young_and_poisson() {
        let (mu, la) = lame(1e5, 0.3);
        assert!((mu - 1e5 / 2.6).abs() < 1e-9);
        assert!((la - 1e5 * 0.3 / (1.3 * 0.4)).abs() < 1e-9);
    }
}
