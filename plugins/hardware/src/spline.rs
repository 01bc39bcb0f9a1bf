//! Piecewise cubic Hermite signals: the optimizer's zero-tangent keyframe
//! splines (cable paper §III-B.2), written by `pliant optimize` as knots, and
//! monotone (PCHIP, Fritsch–Carlson) interpolants of sampled controls.

/// A piecewise cubic Hermite curve through knots `(t_i, v_i)` with slopes
/// `d_i`: on `[t_i, t_{i+1}]`, with `s = (t − t_i)/Δ`,
/// `v = v_i H₀₀(s) + Δ d_i H₁₀(s) + v_{i+1} H₀₁(s) + Δ d_{i+1} H₁₁(s)`.
/// Constant outside the knots.
#[derive(Debug, Clone, PartialEq)]
pub struct Hermite {
    t: Vec<f64>,
    v: Vec<f64>,
    d: Vec<f64>,
}

impl Hermite {
    /// Knots with given slopes (times strictly increasing, at least one
    /// knot; the caller checks).
    pub(crate) fn new(t: Vec<f64>, v: Vec<f64>, d: Vec<f64>) -> Self {
        debug_assert!(t.len() == v.len() && v.len() == d.len() && !t.is_empty());
        Self { t, v, d }
    }

    /// The monotone cubic interpolant of samples (Fritsch & Carlson 1980):
    /// C¹, exact at the samples, no overshoot between them (a pressure or a
    /// cable length never leaves the range its neighbours span).
    pub(crate) fn pchip(t: Vec<f64>, v: Vec<f64>) -> Self {
        let n = t.len();
        if n < 2 {
            return Self::new(t, v, vec![0.0; n]);
        }
        let h: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
        let delta: Vec<f64> = (0..n - 1).map(|i| (v[i + 1] - v[i]) / h[i]).collect();
        let mut d = vec![0.0; n];
        for i in 1..n - 1 {
            let (a, b) = (delta[i - 1], delta[i]);
            if a * b > 0.0 {
                // Weighted harmonic mean (Fritsch–Butland form).
                let (w1, w2) = (2.0 * h[i] + h[i - 1], h[i] + 2.0 * h[i - 1]);
                d[i] = (w1 + w2) / (w1 / a + w2 / b);
            }
        }
        let end = |h0: f64, h1: f64, d0: f64, d1: f64| -> f64 {
            // Three-point end slope, kept monotone.
            let s = ((2.0 * h0 + h1) * d0 - h0 * d1) / (h0 + h1);
            if s * d0 <= 0.0 {
                0.0
            } else if d0 * d1 <= 0.0 && s.abs() > 3.0 * d0.abs() {
                3.0 * d0
            } else {
                s
            }
        };
        if n == 2 {
            d[0] = delta[0];
            d[1] = delta[0];
        } else {
            d[0] = end(h[0], h[1], delta[0], delta[1]);
            d[n - 1] = end(h[n - 2], h[n - 3], delta[n - 2], delta[n - 3]);
        }
        Self::new(t, v, d)
    }

    /// The slopes at the knots.
    pub(crate) fn knot_slopes(&self) -> &[f64] {
        &self.d
    }

    /// The derivative at `t` (0 outside the knots).
    pub fn slope(&self, t: f64) -> f64 {
        let n = self.t.len();
        if n < 2 || t < self.t[0] || t > self.t[n - 1] {
            return 0.0;
        }
        let i = (self.t.partition_point(|&k| k <= t) - 1).min(n - 2);
        let dt = self.t[i + 1] - self.t[i];
        let s = (t - self.t[i]) / dt;
        let s2 = s * s;
        let (d00, d10, d01, d11) = (
            6.0 * s2 - 6.0 * s,
            3.0 * s2 - 4.0 * s + 1.0,
            -6.0 * s2 + 6.0 * s,
            3.0 * s2 - 2.0 * s,
        );
        (self.v[i] * d00 + self.v[i + 1] * d01) / dt + self.d[i] * d10 + self.d[i + 1] * d11
    }

    /// The value at `t`.
    pub fn value(&self, t: f64) -> f64 {
        let n = self.t.len();
        if t <= self.t[0] {
            return self.v[0];
        }
        if t >= self.t[n - 1] {
            return self.v[n - 1];
        }
        // Last knot at or before t.
        let i = self.t.partition_point(|&k| k <= t) - 1;
        let dt = self.t[i + 1] - self.t[i];
        let s = (t - self.t[i]) / dt;
        let (s2, s3) = (s * s, s * s * s);
        let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
        let h10 = s3 - 2.0 * s2 + s;
        let h01 = -2.0 * s3 + 3.0 * s2;
        let h11 = s3 - s2;
        self.v[i] * h00 + dt * self.d[i] * h10 + self.v[i + 1] * h01 + dt * self.d[i + 1] * h11
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_slope_knots_give_the_smoothstep_between_keys() {
        let h = Hermite::new(vec![0.0, 2.0], vec![1.0, 3.0], vec![0.0, 0.0]);
        // u = u0 H0(s) + u1 H1(s), H1 = 3s² − 2s³.
        for s in [0.0, 0.25, 0.5, 0.9, 1.0] {
            let h1 = 3.0 * s * s - 2.0 * s * s * s;
            assert!((h.value(2.0 * s) - (1.0 + 2.0 * h1)).abs() < 1e-14);
        }
        assert_eq!(h.value(-1.0), 1.0);
        assert_eq!(h.value(5.0), 3.0);
        for t in [0.1, 0.7, 1.3, 1.99] {
            let fd = (h.value(t + 1e-6) - h.value(t - 1e-6)) / 2e-6;
            assert!((h.slope(t) - fd).abs() < 1e-6, "{t}");
        }
    }

    #[test]
    fn pchip_is_exact_at_samples_monotone_and_reproduces_lines() {
        let t: Vec<f64> = (0..20).map(|i| 0.033 * i as f64).collect();
        let line: Vec<f64> = t.iter().map(|x| 2.0 * x - 0.1).collect();
        let h = Hermite::pchip(t.clone(), line);
        for k in 0..200 {
            let x = 0.0033 * k as f64 * 0.95;
            assert!((h.value(x) - (2.0 * x - 0.1)).abs() < 1e-12);
        }
        // A step: no overshoot anywhere.
        let v: Vec<f64> = (0..20).map(|i| if i < 10 { 0.0 } else { 1.0 }).collect();
        let h = Hermite::pchip(t.clone(), v.clone());
        for (ti, vi) in t.iter().zip(&v) {
            assert_eq!(h.value(*ti), *vi);
        }
        for k in 0..=2000 {
            let y = h.value(0.627 * k as f64 / 2000.0);
            assert!((0.0..=1.0).contains(&y), "{y}");
        }
    }
}
