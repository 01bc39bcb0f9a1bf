//! Control reparameterizations (cable paper §III-B): per-step control
//! channels as an affine function of a small optimization vector `z`.
//!
//! Every reparameterization of the paper is linear in `z`, so they compose
//! into one [`ControlMap`]: the controlled channels get
//! `p_k[c] = Σ_j J_{k,c,j} z_j`, the others keep their base value:
//! - **keyframes** — each motor's signal is a zero-tangent cubic Hermite
//!   spline through `n` equally spaced keyframes (§III-B.2): on a segment
//!   `u(s) = u_i H₀(s) + u_{i+1} H₁(s)`, `H₀ = 1 − 3s² + 2s³`, `H₁ = 3s² − 2s³`,
//!   a convex combination, so bounds on `z` are bounds on `u`;
//! - **phases** — the layout of eq. 12, `u = (u_prep, u_cycle, u_cycle)`:
//!   a preparatory phase, then copies of the periodic cycle. The
//!   preparatory phase is one zero-tangent segment from rest (`u = 0`) to
//!   the cycle's first keyframe, with no parameters of its own — which is
//!   what the paper's count allows (4 keyframes × 8 motors = 32 values in
//!   `z`, §IV);
//! - **tendon pairs** — a motor drives several channels with one signal;
//! - **bilateral symmetry** (§III-B.3) — a mirrored motor repeats its
//!   partner's cycle shifted by half a period (its keyframes are the partner's
//!   rotated by `n/2`), so only the partner's keyframes are optimized.
//!
//! Step `k` (1-based) holds the value at its end time `t_k = k h`.

use crate::error::{OptimError, Result};
use pliant_core::Invalid;
use pliant_core::Model;
use serde::{Deserialize, Serialize};

/// One motor: the channels it drives (a tendon pair shares one motor) and,
/// for bilateral symmetry, the motor it mirrors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Motor {
    /// Name, for outputs.
    pub name: String,
    /// Names of the control channels this motor drives.
    pub channels: Vec<String>,
    /// Index of the motor whose cycle this one repeats half a period later.
    #[serde(default)]
    pub mirror_of: Option<usize>,
}

/// Phase layout and keyframes of a cyclic gait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gait {
    /// The motors.
    pub motors: Vec<Motor>,
    /// Keyframes per cycle and motor (≥ 1; even when a motor is mirrored).
    pub keyframes: usize,
    /// Steps of the preparatory phase (0 for none).
    pub prep_steps: usize,
    /// Steps of one cycle (≥ 1).
    pub cycle_steps: usize,
    /// Copies of the cycle (the paper uses 2).
    pub cycles: usize,
    /// Bounds on every keyframe value (units of the channels, e.g. m of
    /// contracted cable); must contain 0, the rest value the preparatory
    /// phase starts from.
    #[serde(default)]
    pub bounds: Option<(f64, f64)>,
}

/// The affine map `z ↦ (p_1, …, p_K)` of a control parameterization.
#[derive(Debug, Clone)]
pub struct ControlMap {
    steps: usize,
    /// Parameter indices of the controlled channels.
    channels: Vec<usize>,
    nz: usize,
    /// `steps × channels × nz`, dense.
    jac: Vec<f64>,
    /// Bounds per entry of `z`.
    bounds: Option<(f64, f64)>,
}

fn h0(s: f64) -> f64 {
    1.0 - 3.0 * s * s + 2.0 * s * s * s
}
fn h1(s: f64) -> f64 {
    3.0 * s * s - 2.0 * s * s * s
}

impl Gait {
    /// Total steps `prep + cycles · cycle`.
    pub fn steps(&self) -> usize {
        self.prep_steps + self.cycles * self.cycle_steps
    }
    /// Motors whose keyframes are free (not mirrors).
    pub fn free_motors(&self) -> Vec<usize> {
        (0..self.motors.len())
            .filter(|&m| self.motors[m].mirror_of.is_none())
            .collect()
    }
    /// Length of `z`.
    pub fn nz(&self) -> usize {
        self.free_motors().len() * self.keyframes
    }
    fn validate(&self) -> Result<()> {
        let bad = |what: String, problem| Err(OptimError::inconsistent(what, problem));
        let at_least_one = |field: &str, n: usize| {
            Invalid::check(n >= 1, format!("gait.{field}"), n as f64, "at least 1")
        };
        at_least_one("keyframes", self.keyframes)?;
        at_least_one("cycle_steps", self.cycle_steps)?;
        at_least_one("cycles", self.cycles)?;
        if self.motors.is_empty() {
            return bad("gait.motors".into(), "a gait needs at least one motor");
        }
        for (m, mo) in self.motors.iter().enumerate() {
            if let Some(o) = mo.mirror_of {
                if o >= self.motors.len() || self.motors[o].mirror_of.is_some() || o == m {
                    return bad(
                        format!("gait.motors[{m}] ({}).mirror_of = {o}", mo.name),
                        "a motor mirrors a free motor (one that mirrors none), not itself",
                    );
                }
                if !self.keyframes.is_multiple_of(2) {
                    return bad(
                        format!("gait.motors[{m}] ({}).mirror_of", mo.name),
                        "a motor mirrored half a period later needs an even keyframe count",
                    );
                }
            }
            if mo.channels.is_empty() {
                return bad(
                    format!("gait.motors[{m}] ({}).channels", mo.name),
                    "a motor drives at least one channel",
                );
            }
        }
        if let Some((lo, hi)) = self.bounds
            && !(lo.is_finite() && hi.is_finite() && lo <= 0.0 && 0.0 <= hi && lo < hi)
        {
            return bad(
                format!("gait.bounds ({lo}, {hi})"),
                "bounds must be finite with lo ≤ 0 ≤ hi and lo < hi",
            );
        }
        Ok(())
    }
    /// Keyframes of every motor (`motors × keyframes`, row-major) from `z`.
    pub fn keys_from_z(&self, z: &[f64]) -> Result<Vec<f64>> {
        self.validate()?;
        if z.len() != self.nz() {
            return Err(OptimError::Size {
                what: "gait keyframe values z",
                found: z.len(),
                expected: self.nz(),
            });
        }
        let n = self.keyframes;
        let free = self.free_motors();
        let mut keys = vec![0.0; self.motors.len() * n];
        for (m, mo) in self.motors.iter().enumerate() {
            let (src, shift) = match mo.mirror_of {
                None => (m, 0),
                Some(o) => (o, n / 2),
            };
            let slot = free.iter().position(|&f| f == src).expect("validated");
            for i in 0..n {
                keys[m * n + i] = z[slot * n + (i + shift) % n];
            }
        }
        Ok(keys)
    }
    /// `z` from keyframes of every motor (mirrors are read from their
    /// partners): warm-starts an asymmetric gait from a symmetric one.
    pub fn z_from_keys(&self, keys: &[f64]) -> Result<Vec<f64>> {
        self.validate()?;
        let n = self.keyframes;
        if keys.len() != self.motors.len() * n {
            return Err(OptimError::Size {
                what: "gait keyframe values (motors × keyframes)",
                found: keys.len(),
                expected: self.motors.len() * n,
            });
        }
        Ok(self
            .free_motors()
            .iter()
            .flat_map(|&m| keys[m * n..(m + 1) * n].to_vec())
            .collect())
    }
    /// Spline weights of step `k` (1-based): `(keyframe, weight)` pairs.
    fn weights(&self, k: usize) -> Vec<(usize, f64)> {
        self.weights_at(k as f64)
    }
    /// Spline weights at a time `tau` measured in steps (`t / h`, any real
    /// value in `[0, steps]`; integer `tau` is step `k`): the continuous
    /// signal the per-step controls sample.
    fn weights_at(&self, tau: f64) -> Vec<(usize, f64)> {
        let n = self.keyframes;
        let tau = tau.max(0.0);
        if self.prep_steps > 0 && tau <= self.prep_steps as f64 {
            let s = tau / self.prep_steps as f64;
            return vec![(0, h1(s))];
        }
        let c = (tau - self.prep_steps as f64).rem_euclid(self.cycle_steps as f64);
        let x = c * n as f64 / self.cycle_steps as f64;
        let i = (x.floor() as usize).min(n - 1);
        let s = x - i as f64;
        vec![(i, h0(s)), ((i + 1) % n, h1(s))]
    }
    /// Motor `motor`'s spline as knots `(tau, value)` (time in steps, value
    /// in the channel's units), every knot with zero slope: the cubic Hermite
    /// interpolant of these knots is [`Gait::value_at`]. A self-describing
    /// form of the optimized signal for readers that do not know the layout
    /// (hardware export): rest at 0, the preparatory segment, then every
    /// keyframe of every cycle, ending on the next cycle's first keyframe.
    pub fn knots(&self, keys: &[f64], motor: usize) -> Vec<(f64, f64)> {
        let n = self.keyframes;
        let key = |i: usize| keys[motor * n + i % n];
        let mut out = Vec::with_capacity(self.cycles * n + 2);
        if self.prep_steps > 0 {
            out.push((0.0, 0.0));
        }
        let step = self.cycle_steps as f64 / n as f64;
        for j in 0..=self.cycles * n {
            out.push((self.prep_steps as f64 + j as f64 * step, key(j)));
        }
        out
    }
    /// Motor `motor`'s control at time `tau` in steps (`t / h`), from the
    /// keyframes of every motor (`keys`, as [`Gait::keys_from_z`] returns
    /// them): the zero-tangent Hermite spline of the optimization, between
    /// and at the steps, so hardware can be driven at any rate from the same
    /// signal. Units of the channel (m of contracted cable for cables).
    pub fn value_at(&self, keys: &[f64], motor: usize, tau: f64) -> f64 {
        let n = self.keyframes;
        self.weights_at(tau)
            .iter()
            .map(|&(i, w)| w * keys[motor * n + i])
            .sum()
    }
    /// The control map on `model`'s channels.
    pub fn control_map(&self, model: &Model) -> Result<ControlMap> {
        self.validate()?;
        let names = model.layout().param_names();
        let mut channels: Vec<usize> = Vec::new();
        let mut motor_of: Vec<usize> = Vec::new();
        for (m, mo) in self.motors.iter().enumerate() {
            for c in &mo.channels {
                let Some(idx) = names.iter().position(|nm| nm == c) else {
                    return Err(OptimError::Unknown {
                        what: "parameter channel",
                        name: c.clone(),
                        known: names.to_vec(),
                    });
                };
                if channels.contains(&idx) {
                    return Err(OptimError::inconsistent(
                        format!("gait.motors[{m}] ({}): channel `{c}`", mo.name),
                        "a channel is driven by one motor only",
                    ));
                }
                channels.push(idx);
                motor_of.push(m);
            }
        }
        let (nz, nc, n, steps) = (self.nz(), channels.len(), self.keyframes, self.steps());
        // keys = S z: row (m, i) has a single 1.
        let free = self.free_motors();
        let key_src = |m: usize, i: usize| -> usize {
            let (src, shift) = match self.motors[m].mirror_of {
                None => (m, 0),
                Some(o) => (o, n / 2),
            };
            let slot = free.iter().position(|&f| f == src).expect("validated");
            slot * n + (i + shift) % n
        };
        let mut jac = vec![0.0; steps * nc * nz];
        for k in 1..=steps {
            let w = self.weights(k);
            for (c, &m) in motor_of.iter().enumerate() {
                for &(i, wi) in &w {
                    jac[((k - 1) * nc + c) * nz + key_src(m, i)] += wi;
                }
            }
        }
        Ok(ControlMap {
            steps,
            channels,
            nz,
            jac,
            bounds: self.bounds,
        })
    }
}

impl ControlMap {
    /// A map of your own (splines, design parameters held over the whole
    /// rollout, …): over `steps` steps, `p_k[channels[c]] = Σ_j J_k[c, j] z_j`
    /// with `jac` holding `J_1, …, J_K` (`steps × channels × nz`, row-major).
    ///
    /// ```
    /// // One design parameter (a modulus, Pa) held over 50 steps.
    /// let map = pliant_optim::ControlMap::new(50, vec![0], 1, vec![1.0; 50], None)?;
    /// assert_eq!(map.params(&[0.0], &[2e6])?[49], vec![2e6]);
    /// # Ok::<(), pliant_optim::OptimError>(())
    /// ```
    pub fn new(
        steps: usize,
        channels: Vec<usize>,
        nz: usize,
        jac: Vec<f64>,
        bounds: Option<(f64, f64)>,
    ) -> Result<Self> {
        let expected = steps * channels.len() * nz;
        if jac.len() != expected {
            return Err(OptimError::Size {
                what: "control map Jacobian (steps × channels × nz)",
                found: jac.len(),
                expected,
            });
        }
        if steps == 0 || nz == 0 || jac.iter().any(|v| !v.is_finite()) {
            return Err(OptimError::Size {
                what: "control map steps and nz (≥ 1, finite entries)",
                found: steps.min(nz),
                expected: 1,
            });
        }
        Ok(Self {
            steps,
            channels,
            nz,
            jac,
            bounds,
        })
    }
    /// Number of steps `K`.
    pub fn steps(&self) -> usize {
        self.steps
    }
    /// Length of `z`.
    pub fn nz(&self) -> usize {
        self.nz
    }
    /// Parameter indices of the controlled channels.
    pub fn channels(&self) -> &[usize] {
        &self.channels
    }
    /// Bounds on each entry of `z`.
    pub fn bounds(&self) -> Option<(f64, f64)> {
        self.bounds
    }
    /// `∂p_k[channels[c]]/∂z_j` for step `k` (1-based), `channels × nz` row-major.
    pub fn block(&self, k: usize) -> &[f64] {
        let s = self.channels.len() * self.nz;
        &self.jac[(k - 1) * s..k * s]
    }
    /// Parameter vectors of steps `1 … K`: `base` with the controlled
    /// channels replaced by the map's values.
    pub fn params(&self, base: &[f64], z: &[f64]) -> Result<Vec<Vec<f64>>> {
        if z.len() != self.nz {
            return Err(OptimError::Size {
                what: "control map values z",
                found: z.len(),
                expected: self.nz,
            });
        }
        if let Some(&c) = self.channels.iter().find(|&&c| c >= base.len()) {
            return Err(OptimError::Size {
                what: "control map channel index (must be below the model's channel count)",
                found: c,
                expected: base.len(),
            });
        }
        let nc = self.channels.len();
        Ok((1..=self.steps)
            .map(|k| {
                let b = self.block(k);
                let mut p = base.to_vec();
                for (c, &ch) in self.channels.iter().enumerate() {
                    p[ch] = (0..self.nz).map(|j| b[c * self.nz + j] * z[j]).sum();
                }
                debug_assert_eq!(b.len(), nc * self.nz);
                p
            })
            .collect())
    }
    /// `gᵀ ∂p_k/∂z` accumulated into `out` (length `nz`) for a gradient `g`
    /// over all parameters.
    pub fn add_vjp(&self, k: usize, g: &[f64], out: &mut [f64]) {
        let b = self.block(k);
        for (c, &ch) in self.channels.iter().enumerate() {
            let gc = g[ch];
            if gc != 0.0 {
                for j in 0..self.nz {
                    out[j] += gc * b[c * self.nz + j];
                }
            }
        }
    }
    /// `∂p_k/∂z` as a dense `n_params × nz` column-major matrix.
    pub fn dense_block(&self, k: usize, n_params: usize) -> Vec<f64> {
        let b = self.block(k);
        let mut d = vec![0.0; n_params * self.nz];
        for (c, &ch) in self.channels.iter().enumerate() {
            for j in 0..self.nz {
                d[j * n_params + ch] = b[c * self.nz + j];
            }
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gait(mirror: bool) -> Gait {
        Gait {
            motors: vec![
                Motor {
                    name: "a".into(),
                    channels: vec!["u0".into()],
                    mirror_of: None,
                },
                Motor {
                    name: "b".into(),
                    channels: vec!["u1".into(), "u2".into()],
                    mirror_of: mirror.then_some(0),
                },
            ],
            keyframes: 4,
            prep_steps: 4,
            cycle_steps: 8,
            cycles: 2,
            bounds: None,
        }
    }

    #[test]
    fn spline_interpolates_keys_and_is_periodic() {
        let g = gait(false);
        let z = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        let keys = g.keys_from_z(&z).unwrap();
        let ev = |m: usize, k: usize| -> f64 {
            g.weights(k).iter().map(|&(i, w)| w * keys[m * 4 + i]).sum()
        };
        // Prep rises from 0 to key 0.
        assert!(ev(0, 1) > 0.0 && ev(0, 1) < 1.0);
        assert!((ev(0, 4) - 1.0).abs() < 1e-15);
        // Keys hit every 2 steps (8 steps / 4 keys); second cycle repeats.
        for i in 0..4 {
            assert!((ev(0, 4 + 2 * i) - z[i]).abs() < 1e-15);
            assert!((ev(0, 12 + 2 * i) - z[i]).abs() < 1e-15);
            assert!((ev(1, 4 + 2 * i) - z[4 + i]).abs() < 1e-15);
        }
        // Midway between keys: the mean (H₀(½) = H₁(½) = ½).
        assert!((ev(0, 5) - 1.5).abs() < 1e-15);
    }

    #[test]
    fn value_at_is_the_continuous_spline_the_steps_sample() {
        let g = gait(true);
        let keys = g.keys_from_z(&[1.0, -2.0, 3.0, 0.5]).unwrap();
        for m in 0..2 {
            for k in 1..=g.steps() {
                let at_step: f64 = g.weights(k).iter().map(|&(i, w)| w * keys[m * 4 + i]).sum();
                assert_eq!(g.value_at(&keys, m, k as f64), at_step);
            }
            // Rest at t = 0, continuous everywhere, zero slope at keyframes,
            // and never outside the keys' range (a convex combination).
            assert_eq!(g.value_at(&keys, m, 0.0), 0.0);
            let n = 4000;
            let dt = g.steps() as f64 / n as f64;
            for j in 1..n {
                let (a, b) = (
                    g.value_at(&keys, m, (j - 1) as f64 * dt),
                    g.value_at(&keys, m, j as f64 * dt),
                );
                assert!((b - a).abs() < 5.0 * 1.5 * dt, "jump at {}", j as f64 * dt);
                assert!((-2.0..=3.0).contains(&b));
            }
            // The knots' zero-slope Hermite interpolant is the same signal.
            let knots = g.knots(&keys, m);
            for j in 0..=n {
                let tau = j as f64 * dt;
                let i = knots
                    .iter()
                    .rposition(|&(t, _)| t <= tau)
                    .unwrap()
                    .min(knots.len() - 2);
                let ((t0, v0), (t1, v1)) = (knots[i], knots[i + 1]);
                let s = (tau - t0) / (t1 - t0);
                let h = v0 * (1.0 - 3.0 * s * s + 2.0 * s * s * s)
                    + v1 * (3.0 * s * s - 2.0 * s * s * s);
                assert!((h - g.value_at(&keys, m, tau)).abs() < 1e-12, "tau {tau}");
            }
            let key_time = g.prep_steps as f64 + g.cycle_steps as f64 / 4.0;
            let slope = (g.value_at(&keys, m, key_time + 1e-6)
                - g.value_at(&keys, m, key_time - 1e-6))
                / 2e-6;
            assert!(slope.abs() < 1e-4, "slope {slope} at a keyframe");
        }
    }

    #[test]
    fn symmetry_shifts_half_a_period_and_round_trips() {
        let g = gait(true);
        assert_eq!(g.nz(), 4);
        let keys = g.keys_from_z(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(&keys[4..], &[3.0, 4.0, 1.0, 2.0]);
        let full = gait(false);
        let z_full = full.z_from_keys(&keys).unwrap();
        assert_eq!(z_full, vec![1.0, 2.0, 3.0, 4.0, 3.0, 4.0, 1.0, 2.0]);
    }

    #[test]
    fn bad_gaits_are_errors() {
        let mut g = gait(true);
        g.keyframes = 0;
        assert!(matches!(
            g.keys_from_z(&[]).unwrap_err(),
            OptimError::Invalid(i) if i.field == "gait.keyframes" && i.value == 0.0
        ));
        let mut g = gait(true);
        g.keyframes = 3;
        assert!(
            g.validate()
                .unwrap_err()
                .to_string()
                .contains("even keyframe count")
        );
        let mut g = gait(false);
        g.bounds = Some((0.01, 0.02));
        assert!(matches!(
            g.validate().unwrap_err(),
            OptimError::Inconsistent { what, .. } if what.contains("gait.bounds")
        ));
    }
}
