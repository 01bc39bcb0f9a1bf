//! Shortest distance between two segments by Lumelsky's algorithm
//! (MAT-DiSMech §4, ref. \[40\]), generic over the dual scalar so contact
//! energies get exact derivatives from it.
//!
//! Segments `P(s) = a + s (b − a)` and `Q(t) = c + t (d − c)`, `s, t ∈ [0, 1]`.
//! With `d₁ = b − a`, `d₂ = d − c`, `r = c − a`, `D₁ = d₁·d₁`, `D₂ = d₂·d₂`,
//! `R = d₁·d₂`, `S₁ = d₁·r`, `S₂ = d₂·r` and `den = D₁D₂ − R²`:
//!
//! 1. `s = clamp((S₁D₂ − S₂R)/den, 0, 1)` (`s = 0` for parallel segments);
//! 2. `t = (sR − S₂)/D₂`; if `t < 0`: `t = 0`, `s = clamp(S₁/D₁, 0, 1)`;
//!    if `t > 1`: `t = 1`, `s = clamp((R + S₁)/D₁, 0, 1)`;
//! 3. the distance is `‖P(s) − Q(t)‖`.
//!
//! The branch is chosen on the real parts, so within each region the result
//! is a smooth function of the endpoints and its dual derivatives are exact;
//! the distance itself is continuous across regions.

use pliant_core::Scalar;
use pliant_core::vec3::{dot, sub};

/// Relative threshold under which two segments count as parallel.
const PARALLEL: f64 = 1e-12;

/// Closest-point parameters `(s, t)` and the squared distance (m²) between
/// segments `a–b` and `c–d` (points in m). Segments must have nonzero length.
pub fn segment_closest<T: Scalar>(a: &[T; 3], b: &[T; 3], c: &[T; 3], d: &[T; 3]) -> (T, T, T) {
    let d1 = sub(b, a);
    let d2 = sub(d, c);
    let r = sub(c, a);
    let (dd1, dd2, rr) = (dot(&d1, &d1), dot(&d2, &d2), dot(&d1, &d2));
    let (s1, s2) = (dot(&d1, &r), dot(&d2, &r));
    let den = dd1 * dd2 - rr * rr;
    let zero = T::from(0.0);
    let one = T::from(1.0);
    let clamp = |x: T| {
        if x.re() < 0.0 {
            zero
        } else if x.re() > 1.0 {
            one
        } else {
            x
        }
    };
    let mut s = if den.re() <= PARALLEL * dd1.re() * dd2.re() {
        zero
    } else {
        clamp((s1 * dd2 - s2 * rr) / den)
    };
    let mut t = (s * rr - s2) / dd2;
    if t.re() < 0.0 {
        t = zero;
        s = clamp(s1 / dd1);
    } else if t.re() > 1.0 {
        t = one;
        s = clamp((rr + s1) / dd1);
    }
    let gap: [T; 3] = std::array::from_fn(|k| a[k] + d1[k] * s - c[k] - d2[k] * t);
    (s, t, dot(&gap, &gap))
}

/// Shortest distance (m) between segments `a–b` and `c–d`.
pub fn segment_distance<T: Scalar>(a: &[T; 3], b: &[T; 3], c: &[T; 3], d: &[T; 3]) -> T {
    segment_closest(a, b, c, d).2.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lerp(a: &[f64; 3], b: &[f64; 3], s: f64) -> [f64; 3] {
        std::array::from_fn(|k| a[k] + s * (b[k] - a[k]))
    }

    /// Brute force over a fine grid refined around the best cell.
    fn brute(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], d: &[f64; 3]) -> f64 {
        let n = 400;
        let mut best = f64::INFINITY;
        for i in 0..=n {
            let p = lerp(a, b, i as f64 / n as f64);
            for j in 0..=n {
                let q = lerp(c, d, j as f64 / n as f64);
                let g: f64 = (0..3).map(|k| (p[k] - q[k]).powi(2)).sum();
                best = best.min(g.sqrt());
            }
        }
        best
    }

    fn rand(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    #[test]
    fn matches_brute_force_on_random_segments() {
        let mut seed = 7;
        for _ in 0..60 {
            let mut p = || [rand(&mut seed), rand(&mut seed), rand(&mut seed)];
            let (a, b, c, d) = (p(), p(), p(), p());
            let exact = segment_distance(&a, &b, &c, &d);
            let coarse = brute(&a, &b, &c, &d);
            // The grid overestimates by at most half a cell diagonal.
            assert!(exact <= coarse + 1e-12, "{exact} > {coarse}");
            assert!(coarse - exact < 1e-2, "{exact} vs {coarse}");
        }
    }

    #[test]
    fn known_configurations() {
        // Crossing at right angles, 0.3 apart.
        let d = segment_distance(
            &[-1.0, 0.0, 0.0],
            &[1.0, 0.0, 0.0],
            &[0.0, -1.0, 0.3],
            &[0.0, 1.0, 0.3],
        );
        assert!((d - 0.3).abs() < 1e-15);
        // Parallel, overlapping, 0.2 apart.
        let d = segment_distance(
            &[0.0, 0.0, 0.0],
            &[1.0, 0.0, 0.0],
            &[0.5, 0.2, 0.0],
            &[1.5, 0.2, 0.0],
        );
        assert!((d - 0.2).abs() < 1e-15);
        // Collinear, end to end with a gap of 0.5.
        let d = segment_distance(
            &[0.0, 0.0, 0.0],
            &[1.0, 0.0, 0.0],
            &[1.5, 0.0, 0.0],
            &[2.5, 0.0, 0.0],
        );
        assert!((d - 0.5).abs() < 1e-15);
        // Endpoint to interior: T shape.
        let d = segment_distance(
            &[0.0, 0.0, 0.0],
            &[0.0, 1.0, 0.0],
            &[-1.0, 1.4, 0.0],
            &[1.0, 1.4, 0.0],
        );
        assert!((d - 0.4).abs() < 1e-15);
    }

    #[test]
    fn distance_is_continuous_across_regions() {
        // Slide one segment past the end of the other: the closest point
        // moves from the interior to the endpoint region.
        let (a, b) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
        let mut last = None;
        for i in 0..=2000 {
            let x = 0.5 + i as f64 * 1e-3;
            let (c, d) = ([x, -1.0, 0.1], [x + 0.2, 1.0, 0.1]);
            let dist = segment_distance(&a, &b, &c, &d);
            if let Some(l) = last {
                let jump: f64 = dist - l;
                assert!(jump.abs() < 2e-3, "jump {jump} at x = {x}");
            }
            last = Some(dist);
        }
    }
}
