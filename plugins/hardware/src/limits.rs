//! Checking command signals against a device's limits, and saturating them
//! (`--clip`).
//!
//! Limits are checked on the device signal before quantization (whole
//! counts would read as speed spikes of one count per sample), sampled at
//! the controller rate `f`: position on the samples, speed on first
//! differences `(d_{i+1} − d_i) f`, acceleration on second differences over
//! the run's own step `h` (`w = round(h f)` samples):
//! `(d_{i+w} − 2 d_i + d_{i−w}) / (w/f)²`. The run resolved the motion at `h`;
//! a kink in the slack-free controls (a cable going from slack to taut) is a
//! change of slope `Δv` that reads as `Δv / h` there, and as `Δv f` — growing
//! with the export rate — over one controller period.

use crate::drive::DeviceLimits;
use crate::error::Violation;

/// Every limit `d` (device units, sampled at `rate` Hz from `t0` = 0)
/// breaks: the worst sample per limit.
pub(crate) fn check(
    channel: &str,
    unit: &str,
    d: &[f64],
    rate: f64,
    accel_window: usize,
    lim: &DeviceLimits,
) -> Vec<Violation> {
    let mut out = Vec::new();
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
                time: (i as f64 + offset) / rate,
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
        &mut d.iter().copied().enumerate(),
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
            &mut d.windows(2).map(|w| (w[1] - w[0]) * rate).enumerate(),
            &|v| (v.abs() > vmax * (1.0 + 1e-9)).then_some(vmax.copysign(v)),
            0.5,
        );
    }
    if let Some(amax) = lim.accel {
        let w = accel_window.max(1);
        let span = w as f64 / rate;
        worst(
            "acceleration",
            format!("{unit}/s²"),
            &mut (w..d.len().saturating_sub(w))
                .map(|i| (i - w, (d[i + w] - 2.0 * d[i] + d[i - w]) / (span * span))),
            &|a| (a.abs() > amax * (1.0 + 1e-9)).then_some(amax.copysign(a)),
            w as f64,
        );
    }
    out
}

/// Saturates `d` to the limits: positions clamped to the range, then a
/// tracker that follows the clamped target within the speed and
/// acceleration limits: it moves with the target's own velocity plus a
/// correction that closes the remaining gap `e` no faster than the braking
/// curve `√(1.8 a |e|)` (planned with 90 % of the deceleration, so it stops
/// without overshooting). A signal within the limits passes unchanged.
/// Starts at rest on the first (clamped) sample. Returns the largest
/// deviation from the unclipped signal.
pub(crate) fn clip(d: &mut [f64], rate: f64, lim: &DeviceLimits) -> f64 {
    let (lo, hi) = lim.range;
    let target: Vec<f64> = d.iter().map(|v| v.clamp(lo, hi)).collect();
    let original = d.to_vec();
    let dt = 1.0 / rate;
    let vmax = lim.speed.unwrap_or(f64::INFINITY);
    let amax = lim.accel.unwrap_or(f64::INFINITY);
    let mut v = 0.0;
    let Some(&first) = target.first() else {
        return 0.0;
    };
    d[0] = first;
    for i in 1..d.len() {
        // The target's own velocity, plus a correction that closes the gap
        // `e` left at the last sample no faster than the braking curve.
        let feed = (target[i] - target[i - 1]) / dt;
        let e = target[i - 1] - d[i - 1];
        let mut closing = e / dt;
        if amax.is_finite() {
            closing = closing.signum() * closing.abs().min((1.8 * amax * e.abs()).sqrt());
        }
        let mut vd = feed + closing;
        vd = vd.clamp(-vmax, vmax);
        v = vd.clamp(v - amax * dt, v + amax * dt);
        d[i] = (d[i - 1] + v * dt).clamp(lo, hi);
        if d[i] == lo || d[i] == hi {
            v = (d[i] - d[i - 1]) / dt;
        }
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
        let slow: Vec<f64> = (0..1000)
            .map(|i| 50.0 * (i as f64 / 1000.0 * 2.0).sin())
            .collect();
        assert!(check("a", "counts", &slow, rate, 1, &lim()).is_empty());
        // 50 sin(20 t): speed 1000 at t = 0 (exactly the limit, passes),
        // acceleration 20 000 at its peaks; 60 sin(20 t) breaks both and the range.
        let fast: Vec<f64> = (0..1000)
            .map(|i| 120.0 * (i as f64 / 1000.0 * 20.0).sin())
            .collect();
        let v = check("a", "counts", &fast, rate, 1, &lim());
        let kinds: Vec<&str> = v.iter().map(|v| v.limit).collect();
        assert_eq!(kinds, ["position", "speed", "acceleration"]);
        // The speed is worst at the zero crossings: t = k π / 20.
        let t = v[1].time;
        let k = (t * 20.0 / std::f64::consts::PI).round();
        assert!((t - k * std::f64::consts::PI / 20.0).abs() < 2e-3, "{t}");
        assert!((v[1].value.abs() - 2400.0).abs() < 5.0);
        // Over a 33-sample window the same signal's acceleration (48 000 at
        // the peaks, slightly less averaged) is still caught.
        let v = check("a", "counts", &fast, rate, 33, &lim());
        assert!(
            v.iter()
                .any(|v| v.limit == "acceleration" && v.value.abs() > 40000.0)
        );
        // A kink (slope change of 100 counts/s at t = 0.5 s) reads as
        // 100 × 1000 per s² over one sample but 100 / 0.033 over 33.
        let kink: Vec<f64> = (0..1000)
            .map(|i| if i < 500 { 0.0 } else { 0.1 * (i - 500) as f64 })
            .collect();
        let lim = DeviceLimits {
            range: (-1e3, 1e3),
            speed: None,
            accel: Some(20000.0),
        };
        assert_eq!(check("a", "c", &kink, rate, 1, &lim).len(), 1);
        assert!(check("a", "c", &kink, rate, 33, &lim).is_empty());
    }

    #[test]
    fn clipping_respects_every_limit() {
        let rate = 1000.0;
        let mut d: Vec<f64> = (0..2000)
            .map(|i| 120.0 * (i as f64 / 1000.0 * 20.0).sin())
            .collect();
        let dev = clip(&mut d, rate, &lim());
        assert!(dev > 20.0);
        let after = check("a", "counts", &d, rate, 1, &lim());
        assert!(after.is_empty(), "{after:?}");
        // A slow signal is left alone.
        let mut s: Vec<f64> = (0..1000)
            .map(|i| 30.0 * (i as f64 / 1000.0 * 2.0).cos() - 30.0)
            .collect();
        let dev = clip(&mut s, rate, &lim());
        assert!(dev < 1e-9, "{dev}");
    }
}
