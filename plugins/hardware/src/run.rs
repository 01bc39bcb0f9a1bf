//! The controls of a finished run, read from its output directory.
//!
//! A run directory holds `controls.csv`: a `time_s` (or `t_s`) column and
//! one column per actuator channel named `<channel>_<unit>` (`_m`, `_Pa`,
//! `_rad`). A gait optimization (`pliant optimize`) writes both the
//! optimized spline `<motor>_u_m` and the slack-free controls
//! `<motor>_u_post_m` (cable paper §III-B.2); the slack-free ones are
//! exported. Its `summary.json` records each motor's spline as cubic
//! Hermite knots (`splines`), so between two steps where no slack was
//! removed (every cable of the motor taut) the signal is the optimizer's
//! own spline, exactly; across steps where slack was removed it is the
//! cubic Hermite through the slack-free samples, with the spline's slope
//! where it joins the spline and the monotone (PCHIP) slope elsewhere — C¹
//! and exact at every step. Without knots (any other run), the samples
//! themselves are interpolated monotonically (PCHIP).

use crate::error::{HardwareError, Result};
use crate::spline::Hermite;
use std::path::{Path, PathBuf};

/// How a channel's signal between samples is obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    /// The optimizer's Hermite spline where taut, a cubic through the
    /// slack-free samples where slack was removed.
    SplinePlusSlack,
    /// The monotone cubic interpolant (PCHIP) of the samples.
    MonotoneSamples,
}

impl Interpolation {
    /// Short description for headers.
    pub fn describe(self) -> &'static str {
        match self {
            Interpolation::SplinePlusSlack => {
                "optimizer's cubic Hermite keyframe spline where taut; cubic Hermite through the slack-free samples where slack was removed"
            }
            Interpolation::MonotoneSamples => "monotone cubic (PCHIP) through the samples",
        }
    }
}

/// One actuator channel of a run.
#[derive(Debug, Clone)]
pub struct RunChannel {
    /// Channel (motor) name.
    pub name: String,
    /// Unit of the control (`m`, `Pa`, `rad`, or empty).
    pub unit: String,
    /// Sample times, s.
    pub times: Vec<f64>,
    /// The exported control at the sample times (slack-free for gaits).
    pub samples: Vec<f64>,
    /// The optimizer's raw spline values at the sample times, if recorded.
    pub raw: Option<Vec<f64>>,
    signal: Signal,
    /// How the signal between samples is obtained.
    pub interpolation: Interpolation,
}

/// A channel's continuous signal.
#[derive(Debug, Clone)]
enum Signal {
    /// Monotone cubic through the samples.
    Samples(Hermite),
    /// The optimizer's spline where no slack was removed, and a cubic
    /// through the slack-free samples where some was.
    SlackFree {
        spline: Hermite,
        /// Slack `u_post − u` at the samples, m.
        slack: Vec<f64>,
        /// Slope of the slack-free signal at each sample: the spline's where
        /// the cable was taut, the monotone interpolant's where not.
        slopes: Vec<f64>,
    },
}

impl RunChannel {
    /// The control at time `t`, s.
    pub fn value(&self, t: f64) -> f64 {
        match &self.signal {
            Signal::Samples(h) => h.value(t),
            Signal::SlackFree {
                spline,
                slack,
                slopes,
            } => {
                let (ts, vs) = (&self.times, &self.samples);
                let n = ts.len();
                if t <= ts[0] {
                    // Before the first step: the spline, shifted by that
                    // step's slack (continuous at it).
                    return spline.value(t) + slack[0];
                }
                if t >= ts[n - 1] {
                    return spline.value(t) + slack[n - 1];
                }
                let k = ts.partition_point(|&x| x <= t) - 1;
                if slack[k] == 0.0 && slack[k + 1] == 0.0 {
                    return spline.value(t);
                }
                let dt = ts[k + 1] - ts[k];
                let s = (t - ts[k]) / dt;
                let (s2, s3) = (s * s, s * s * s);
                vs[k] * (2.0 * s3 - 3.0 * s2 + 1.0)
                    + dt * slopes[k] * (s3 - 2.0 * s2 + s)
                    + vs[k + 1] * (-2.0 * s3 + 3.0 * s2)
                    + dt * slopes[k + 1] * (s3 - s2)
            }
        }
    }
}

/// The controls of a run directory.
#[derive(Debug, Clone)]
pub struct RunControls {
    /// The directory.
    pub dir: PathBuf,
    /// The run's name (from `summary.json`, else the directory's name).
    pub name: String,
    /// Channels in the file's column order.
    pub channels: Vec<RunChannel>,
}

fn run_err(path: &Path, message: impl Into<String>) -> HardwareError {
    HardwareError::Run {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

const UNITS: [&str; 3] = ["m", "Pa", "rad"];

/// Splits `name_unit` into `(name, unit)` for the units pliant writes.
fn split_unit(header: &str) -> (String, String) {
    match header.rsplit_once('_') {
        Some((n, u)) if UNITS.contains(&u) && !n.is_empty() => (n.into(), u.into()),
        _ => (header.into(), String::new()),
    }
}

impl RunControls {
    /// Reads `dir/controls.csv` (and `dir/summary.json` if present).
    pub fn read(dir: &Path) -> Result<Self> {
        if !dir.is_dir() {
            return Err(run_err(
                dir,
                "not a directory (give the output directory of a run)",
            ));
        }
        let csv_path = dir.join("controls.csv");
        if !csv_path.is_file() {
            return Err(run_err(
                dir,
                "no controls.csv: is this the output directory of `pliant optimize` (OUT/<name>/) or of a run that records its controls?",
            ));
        }
        let mut rd =
            csv::Reader::from_path(&csv_path).map_err(|e| run_err(&csv_path, e.to_string()))?;
        let headers: Vec<String> = rd
            .headers()
            .map_err(|e| run_err(&csv_path, e.to_string()))?
            .iter()
            .map(str::to_string)
            .collect();
        let time_col = headers
            .iter()
            .position(|h| h == "time_s" || h == "t_s")
            .ok_or_else(|| run_err(&csv_path, "no `time_s` column"))?;
        let mut rows: Vec<Vec<f64>> = Vec::new();
        for (i, rec) in rd.records().enumerate() {
            let rec = rec.map_err(|e| run_err(&csv_path, e.to_string()))?;
            let line = i + 2;
            let row = rec
                .iter()
                .enumerate()
                .map(|(c, s)| {
                    s.trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|v| v.is_finite())
                        .ok_or_else(|| {
                            run_err(
                                &csv_path,
                                format!(
                                    "line {line}, column `{}`: `{s}` is not a finite number",
                                    headers[c]
                                ),
                            )
                        })
                })
                .collect::<Result<Vec<f64>>>()?;
            rows.push(row);
        }
        if rows.is_empty() {
            return Err(run_err(
                &csv_path,
                "no control samples (the file has a header only)",
            ));
        }
        let times: Vec<f64> = rows.iter().map(|r| r[time_col]).collect();
        if let Some(w) = times.windows(2).position(|w| w[1] <= w[0]) {
            return Err(run_err(
                &csv_path,
                format!(
                    "times must increase: line {} has t = {} after {}",
                    w + 3,
                    times[w + 1],
                    times[w]
                ),
            ));
        }
        if times[0] < 0.0 {
            return Err(run_err(&csv_path, format!("negative time {} s", times[0])));
        }
        let col = |i: usize| -> Vec<f64> { rows.iter().map(|r| r[i]).collect() };
        // Knots of the optimizer's splines, if recorded.
        let summary_path = dir.join("summary.json");
        let summary: Option<serde_json::Value> = if summary_path.is_file() {
            let text =
                std::fs::read_to_string(&summary_path).map_err(HardwareError::io(&summary_path))?;
            Some(serde_json::from_str(&text).map_err(|e| run_err(&summary_path, e.to_string()))?)
        } else {
            None
        };
        let name = summary
            .as_ref()
            .and_then(|s| s.pointer("/summary/name"))
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| {
                dir.file_name()
                    .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into())
            });
        let post: Vec<usize> = (0..headers.len())
            .filter(|&i| headers[i].ends_with("_u_post_m"))
            .collect();
        let mut channels = Vec::new();
        if !post.is_empty() {
            for &i in &post {
                let motor = headers[i].trim_end_matches("_u_post_m").to_string();
                let raw_col = headers.iter().position(|h| *h == format!("{motor}_u_m"));
                let knots = summary
                    .as_ref()
                    .and_then(|s| s.get("splines"))
                    .and_then(|s| s.get(&motor));
                let samples = col(i);
                let (signal, interpolation, raw) = match (knots, raw_col) {
                    (Some(k), Some(rc)) => {
                        let spline = read_knots(k, &summary_path, &motor)?;
                        let raw = col(rc);
                        // The knots must be the spline the steps sampled (a
                        // summary.json from another run is refused).
                        if let Some(k) = (0..times.len()).find(|&k| {
                            (spline.value(times[k]) - raw[k]).abs() > 1e-9 + 1e-9 * raw[k].abs()
                        }) {
                            return Err(run_err(
                                &summary_path,
                                format!(
                                    "splines.{motor} gives {} at t = {} s but controls.csv has {} there: the two files are not from one run",
                                    spline.value(times[k]),
                                    times[k],
                                    raw[k]
                                ),
                            ));
                        }
                        let slack: Vec<f64> =
                            samples.iter().zip(&raw).map(|(p, u)| p - u).collect();
                        let mono = Hermite::pchip(times.clone(), samples.clone());
                        let last = times.len() - 1;
                        let slopes = (0..times.len())
                            .map(|k| {
                                // The first and last steps join the spline
                                // (shifted by their slack) outside the samples.
                                if slack[k] == 0.0 || k == 0 || k == last {
                                    spline.slope(times[k])
                                } else {
                                    mono.knot_slopes()[k]
                                }
                            })
                            .collect();
                        (
                            Signal::SlackFree {
                                spline,
                                slack,
                                slopes,
                            },
                            Interpolation::SplinePlusSlack,
                            Some(raw),
                        )
                    }
                    _ => (
                        Signal::Samples(Hermite::pchip(times.clone(), samples.clone())),
                        Interpolation::MonotoneSamples,
                        raw_col.map(col),
                    ),
                };
                channels.push(RunChannel {
                    name: motor,
                    unit: "m".into(),
                    times: times.clone(),
                    samples,
                    raw,
                    signal,
                    interpolation,
                });
            }
        } else {
            for (i, h) in headers.iter().enumerate() {
                if i == time_col || h == "step" {
                    continue;
                }
                let (name, unit) = split_unit(h);
                let samples = col(i);
                channels.push(RunChannel {
                    name,
                    unit,
                    times: times.clone(),
                    signal: Signal::Samples(Hermite::pchip(times.clone(), samples.clone())),
                    samples,
                    raw: None,
                    interpolation: Interpolation::MonotoneSamples,
                });
            }
        }
        if channels.is_empty() {
            return Err(run_err(&csv_path, "no control channels besides the time"));
        }
        for (k, c) in channels.iter().enumerate() {
            if channels[..k].iter().any(|o| o.name == c.name) {
                return Err(run_err(
                    &csv_path,
                    format!(
                        "two columns are channel `{}` (names must be unique without their unit suffix)",
                        c.name
                    ),
                ));
            }
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            name,
            channels,
        })
    }

    /// The last sample time, s.
    pub fn duration(&self) -> f64 {
        self.channels
            .iter()
            .map(|c| *c.times.last().expect("non-empty"))
            .fold(0.0, f64::max)
    }
}

fn read_knots(k: &serde_json::Value, path: &Path, motor: &str) -> Result<Hermite> {
    let arr = |key: &str| -> Result<Vec<f64>> {
        k.get(key)
            .and_then(|v| v.as_array())
            .ok_or_else(|| {
                run_err(
                    path,
                    format!("splines.{motor}.{key}: missing or not an array"),
                )
            })?
            .iter()
            .map(|x| {
                x.as_f64().filter(|v| v.is_finite()).ok_or_else(|| {
                    run_err(
                        path,
                        format!("splines.{motor}.{key}: `{x}` is not a finite number"),
                    )
                })
            })
            .collect()
    };
    let (t, v, d) = (arr("t_s")?, arr("value")?, arr("slope_per_s")?);
    if t.is_empty() || t.len() != v.len() || t.len() != d.len() {
        return Err(run_err(
            path,
            format!(
                "splines.{motor}: t_s, value and slope_per_s must be non-empty and of one length"
            ),
        ));
    }
    if t.windows(2).any(|w| w[1] <= w[0]) {
        return Err(run_err(path, format!("splines.{motor}.t_s must increase")));
    }
    Ok(Hermite::new(t, v, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_suffixes_split_off() {
        assert_eq!(split_unit("p11_Pa"), ("p11".into(), "Pa".into()));
        assert_eq!(split_unit("left_leg_m"), ("left_leg".into(), "m".into()));
        assert_eq!(split_unit("valve"), ("valve".into(), String::new()));
    }
}
