//! Checking command signals against a device's limits, and saturating them
//! (`--clip`).
//!
//! Limits are checked on the device signal before quantization (whole
//! counts would read as speed spikes of one count per sample), sampled at
//! the controller rate `f`, starting at rest (zero velocity) on the first
//! command: position on every sample,
//! speed on first differences `(d_{i+1} − d_i) f`, acceleration on second
//! differences `(d_{i+1} − 2 d_i + d_{i−1}) f²`. The exported signal is C¹
//! (piecewise cubic), so its second differences converge to its
//! acceleration as `f` grows; where a gait takes in slack the slack-free
//! signal turns within one simulation step and reads as a large
//! acceleration — which is what the motor would be asked for.

use crate::drive::DeviceLimits;
use crate::error::Violation;

/// Every limit `d` (device units, sampled at `rate` Hz from `t = 0`, the
/// device at rest on `rest` one period before; pass `d[0]` to start at rest
/// on the first sample) breaks: the worst sample per limit.
pub(crate) fn check(
    channel: &str,
    unit: &str,
    d: &[f64],
    rate: f64,
    rest: f64,
    lim: &DeviceLimits,
) -> Vec<Violation> {
    let full: Vec<f64> = std::iter::once(rest).chain(d.iter().copied()).collect();
    let mut out = Vec::new();
    // `offset`: sample index of `full` → time (i − 1 + offset) / rate.
    let mut worst = |limit: &'static str,
                     unit: String,
                     values: &mut dyn Iterator<Item = (usize, f64)>,
                     bound: &dyn Fn(f64) -> Option<f64>,
                     offset: f64| {
        let mut count = 0;
        let mut w: Option<(usize, f64, f64, f64)> = None;
        for (i, v) in values {
            if let Some(b) = bound(v) {
                count += 1;
                let excess = (v - b).abs();
                if w.is_none_or(|(_, _, _, e)| excess > e) {
                    w = Some((i, v, b, excess));
                }
            }
        }
        if let Some((i, v, b, _)) = w {
            out.push(Violation {
                channel: channel.into(),
                limit,
                time: (i as f64 - 1.0 + offset) / rate,
                value: v,
                bound: b,
                unit,
                samples: count,
            });
        }
    };
    let (lo, hi) = lim.range;
    // A relative slack of 1e-9 keeps exact boundary values (a ceiling the
    // control sits on) from reading as violations through rounding.
    let tol = 1e-9 * (hi - lo).abs();
    worst(
        "position",
        unit.into(),
        &mut full.iter().copied().enumerate().skip(1),
        &|v| {
            if v < lo - tol {
                Some(lo)
            } else if v > hi + tol {
                Some(hi)
            } else {
                None
            }
        },
        0.0,
    );
    if let Some(vmax) = lim.speed {
        worst(
            "speed",
            format!("{unit}/s"),
            &mut full.windows(2).map(|w| (w[1] - w[0]) * rate).enumerate(),
            &|v| (v.abs() > vmax * (1.0 + 1e-9)).then_some(vmax.copysign(v)),
            0.5,
        );
    }
    if let Some(amax) = lim.accel {
        // From rest: the first difference is taken against zero velocity.
        let accel = std::iter::once((0, (full[1] - full[0]) * rate * rate)).chain(
            full.windows(3)
                .map(|w| (w[2] - 2.0 * w[1] + w[0]) * rate * rate)
                .enumerate()
                .map(|(i, a)| (i + 1, a)),
        );
        worst(
            "acceleration",
            format!("{unit}/s²"),
            &mut accel.take(full.len().saturating_sub(1)),
            &|a| (a.abs() > amax * (1.0 + 1e-9)).then_some(amax.copysign(a)),
            0.0,
        );
    }
    out
}

/// Saturates `d` to the limits: a tracker that starts at rest on `rest`
/// and follows the target clamped to the position range within the speed
/// and acceleration limits. It moves with the target's own velocity plus a
/// correction that closes the remaining gap `e` no faster than the braking
/// curve (≈ `√(1.8 a |e|)`, exact for steps of `1/rate`), and never
/// approaches a bound of the range faster than it can stop there (planned
/// with 90 % of the deceleration, so the acceleration limit holds; checked
/// again after clipping). A signal within the limits passes unchanged.
/// Returns the largest deviation from the unclipped signal.
pub(crate) fn clip(d: &mut [f64], rate: f64, rest: f64, lim: &DeviceLimits) -> f64 {
    let (lo, hi) = lim.range;
    let original = d.to_vec();
    let target: Vec<f64> = std::iter::once(rest)
        .chain(d.iter().copied())
        .map(|v| v.clamp(lo, hi))
        .collect();
    let dt = 1.0 / rate;
    let vmax = lim.speed.unwrap_or(f64::INFINITY);
    let amax = lim.accel.unwrap_or(f64::INFINITY);
    // The fastest speed from which the follower still stops within `dist`
    // decelerating by at most `a' dt` per step (a' = 0.9 a): the discrete
    // braking curve `a' dt (√(¼ + 2 d / (a' dt²)) − ½)` ≈ `√(2 a' d)`.
    let brake = |dist: f64| {
        if amax.is_finite() {
            let a = 0.9 * amax;
            a * dt * ((0.25 + 2.0 * dist.max(0.0) / (a * dt * dt)).sqrt() - 0.5)
        } else {
            f64::INFINITY
        }
    };
    let (mut x, mut v) = (target[0], 0.0);
    for i in 1..target.len() {
        // The target's own velocity, plus a correction that closes the gap
        // `e` left at the last sample no faster than the braking curve.
        let feed = (target[i] - target[i - 1]) / dt;
        let e = target[i - 1] - x;
        let closing = (e / dt).signum() * (e / dt).abs().min(brake(e.abs()));
        let mut vd = (feed + closing).clamp(-vmax, vmax);
        // Room to stop before either bound of the range, and never past
        // it within a step.
        vd = vd
            .min(brake(hi - x).min((hi - x) / dt))
            .max(-brake(x - lo).min((x - lo) / dt));
        v = vd.clamp(v - amax * dt, v + amax * dt);
        let next = (x + v * dt).clamp(lo, hi);
        v = (next - x) / dt;
        x = next;
        d[i - 1] = x;
    }
    d.iter()
        .zip(&original)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lim() -> DeviceLimits {
        DeviceLimits {
            range: (-100.0, 100.0),
            speed: Some(1000.0),
            accel: Some(20000.0),
        }
    }

    #[test]
    fn a_slow_signal_passes_and_a_fast_one_is_caught_with_its_time() {
        let rate = 1000.0;
        // From rest: 50 (1 − cos 2t).
        let slow: Vec<f64> = (0..1000)
            .map(|i| 50.0 * (1.0 - (i as f64 / 1000.0 * 2.0).cos()))
            .collect();
        assert!(check("a", "counts", &slow, rate, 0.0, &lim()).is_empty());
        // 50 sin(20 t): speed 1000 at t = 0 (exactly the limit, passes),
        // acceleration 20 000 at its peaks; 60 sin(20 t) breaks both and the range.
        let fast: Vec<f64> = (0..1000)
            .map(|i| 120.0 * (i as f64 / 1000.0 * 20.0).sin())
            .collect();
        let v = check("a", "counts", &fast, rate, 0.0, &lim());
        let kinds: Vec<&str> = v.iter().map(|v| v.limit).collect();
        assert_eq!(kinds, ["position", "speed", "acceleration"]);
        // The speed is worst at the zero crossings: t = k π / 20.
        let t = v[1].time;
        let k = (t * 20.0 / std::f64::consts::PI).round();
        assert!((t - k * std::f64::consts::PI / 20.0).abs() < 2e-3, "{t}");
        assert!((v[1].value.abs() - 2400.0).abs() < 5.0);
        // A jump from rest onto the first command is checked too.
        let away = vec![50.0; 10];
        let v = check("a", "counts", &away, rate, 0.0, &lim());
        assert!(
            v.iter().any(|v| v.limit == "speed" && v.time < 0.0),
            "{v:?}"
        );
    }

    #[test]
    fn clipping_respects_every_limit() {
        let rate = 1000.0;
        let mut d: Vec<f64> = (0..2000)
            .map(|i| 120.0 * (i as f64 / 1000.0 * 20.0).sin())
            .collect();
        let dev = clip(&mut d, rate, 0.0, &lim());
        assert!(dev > 20.0);
        let after = check("a", "counts", &d, rate, 0.0, &lim());
        assert!(after.is_empty(), "{after:?}");
        // A target that runs into a bound of the range at speed: the
        // tracker brakes in time, so acceleration holds there too.
        let mut ramp: Vec<f64> = (0..400).map(|i| 0.9 * i as f64).collect();
        clip(&mut ramp, rate, 0.0, &lim());
        let after = check("a", "counts", &ramp, rate, 0.0, &lim());
        assert!(after.is_empty(), "{after:?}");
        assert_eq!(*ramp.last().unwrap(), 100.0);
        // A slow signal is left alone.
        let mut s: Vec<f64> = (0..1000)
            .map(|i| 30.0 * (i as f64 / 1000.0 * 2.0).cos() - 30.0)
            .collect();
        let dev = clip(&mut s, rate, 0.0, &lim());
        assert!(dev < 1e-9, "{dev}");
    }
}
