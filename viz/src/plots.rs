//! Plots of what a run measured, as SVG: time series recorded with bounded
//! memory ([`TimeSeries`]) and drawn in panels with units on the axes
//! ([`plot_panels`]).

use crate::error::VizError;
use plotters::prelude::*;
use std::path::Path;

/// Named curves sampled at common times, with bounded memory: at most
/// `max_samples` samples are kept; when full, every other sample is
/// dropped and the sampling stride doubles (the first sample is always
/// kept; [`TimeSeries::push_last`] keeps the run's last one).
#[derive(Debug, Clone)]
pub struct TimeSeries {
    names: Vec<String>,
    times: Vec<f64>,
    values: Vec<Vec<f64>>,
    max: usize,
    stride: usize,
    seen: usize,
}

impl TimeSeries {
    /// An empty series keeping at most `max_samples` (≥ 2) samples.
    pub fn new(max_samples: usize) -> Self {
        Self {
            names: Vec::new(),
            times: Vec::new(),
            values: Vec::new(),
            max: max_samples.max(2),
            stride: 1,
            seen: 0,
        }
    }

    fn keep(&mut self, t: f64, values: &[(String, f64)]) {
        // A name repeated within one sample (two rods both called "rod")
        // is a curve of its own: "rod.length", "rod.length (2)", ….
        let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (name, v) in values {
            let count = seen.entry(name.as_str()).or_insert(0);
            *count += 1;
            let name = &if *count == 1 {
                name.clone()
            } else {
                format!("{name} ({count})")
            };
            let k = match self.names.iter().position(|n| n == name) {
                Some(k) => k,
                None => {
                    // A curve that appears late has no value before.
                    self.names.push(name.clone());
                    self.values.push(vec![f64::NAN; self.times.len()]);
                    self.names.len() - 1
                }
            };
            self.values[k].push(*v);
        }
        self.times.push(t);
        // A curve absent from this sample gets a gap.
        for v in &mut self.values {
            if v.len() < self.times.len() {
                v.push(f64::NAN);
            }
        }
    }

    /// Offers the sample `values` at time `t` (s).
    pub fn push(&mut self, t: f64, values: &[(String, f64)]) {
        if self.seen.is_multiple_of(self.stride) && self.times.len() == self.max {
            let even = |v: &mut Vec<f64>| {
                let mut i = 0;
                v.retain(|_| {
                    i += 1;
                    (i - 1) % 2 == 0
                });
            };
            even(&mut self.times);
            self.values.iter_mut().for_each(even);
            self.stride *= 2;
        }
        if self.seen.is_multiple_of(self.stride) {
            self.keep(t, values);
        }
        self.seen += 1;
    }

    /// Keeps the run's last sample unless it is the last one kept.
    pub fn push_last(&mut self, t: f64, values: &[(String, f64)]) {
        if self.times.last() != Some(&t) {
            self.keep(t, values);
        }
    }

    /// Samples kept.
    pub fn len(&self) -> usize {
        self.times.len()
    }
    /// Whether no sample was kept.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
    /// The times kept, s.
    pub fn times(&self) -> &[f64] {
        &self.times
    }
    /// The curve `name`, one value per kept time.
    pub fn curve(&self, name: &str) -> Option<&[f64]> {
        let k = self.names.iter().position(|n| n == name)?;
        Some(&self.values[k])
    }
    /// The curves' names, in order of first appearance.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// One panel: a title, the y-axis label with its unit, and curves
/// `(legend, points)`.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Panel title.
    pub title: String,
    /// Y-axis label with unit, e.g. `"position (m)"`.
    pub y_label: String,
    /// Curves: legend and `(x, y)` points (non-finite points are gaps).
    pub curves: Vec<(String, Vec<(f64, f64)>)>,
}

const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// A range that plotters can draw: finite, non-empty, padded by 5 %.
fn padded(lo: f64, hi: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) || lo > hi {
        return (-1.0, 1.0);
    }
    let span = hi - lo;
    let pad = if span > 0.0 {
        0.05 * span
    } else if lo == 0.0 {
        // A curve that stays at zero (an idle cable's tension): a unit
        // range, so the axis labels read 0 rather than ±1e-9 rounded.
        1.0
    } else {
        0.5 * lo.abs()
    };
    (lo - pad, hi + pad)
}

/// Draws `panels` stacked vertically in one SVG file at `path`, sharing
/// the x-axis label `x_label` (with unit). Empty panels are skipped;
/// returns whether a file was written (not when every panel is empty).
pub fn plot_panels(path: &Path, x_label: &str, panels: &[Panel]) -> Result<bool, VizError> {
    let fail = |e: &dyn std::fmt::Display| VizError::Format {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let panels: Vec<&Panel> = panels
        .iter()
        .filter(|p| {
            p.curves
                .iter()
                .any(|c| c.1.iter().any(|(x, y)| x.is_finite() && y.is_finite()))
        })
        .collect();
    if panels.is_empty() {
        return Ok(false);
    }
    let root = SVGBackend::new(path, (900, 280 * panels.len() as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let areas = root.split_evenly((panels.len(), 1));
    for (area, panel) in areas.iter().zip(panels) {
        let finite = || {
            panel
                .curves
                .iter()
                .flat_map(|c| c.1.iter())
                .filter(|(x, y)| x.is_finite() && y.is_finite())
        };
        let (x0, x1) = finite().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
        let (y0, y1) = finite().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.1), b.max(p.1))
        });
        let (x0, x1) = if x1 > x0 { (x0, x1) } else { padded(x0, x1) };
        let (y0, y1) = padded(y0, y1);
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(panel.y_label.as_str())
            .draw()
            .map_err(|e| fail(&e))?;
        for (k, (legend, pts)) in panel.curves.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            // Gaps at non-finite points: one line series per finite run.
            let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
            for &(x, y) in pts {
                if x.is_finite() && y.is_finite() {
                    runs.last_mut().expect("never empty").push((x, y));
                } else if !runs.last().expect("never empty").is_empty() {
                    runs.push(Vec::new());
                }
            }
            let mut first = true;
            for run in runs.into_iter().filter(|r| !r.is_empty()) {
                let s = chart
                    .draw_series(LineSeries::new(run, colour.stroke_width(2)))
                    .map_err(|e| fail(&e))?;
                if first {
                    s.label(legend.as_str()).legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                    });
                    first = false;
                }
            }
        }
        if panel.curves.len() > 1 || !panel.curves[0].0.is_empty() {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|e| fail(&e))?;
        }
    }
    root.present().map_err(|e| fail(&e))?;
    Ok(true)
}

/// The SI unit of an observable from its name's last part (`"belly.tension"`
/// → N), as the energies document them; empty when unknown.
pub fn observable_unit(name: &str) -> &'static str {
    match name.rsplit('.').next().unwrap_or("") {
        "tension" | "force" => "N",
        // `x`, `y`, `z`: an output group's centroid (`tip.x`).
        "slack" | "length" | "gap" | "distance" | "x" | "y" | "z" => "m",
        "pressure" => "Pa",
        "volume" => "m^3",
        "area" => "m^2",
        "angle" => "rad",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_the_observable_names() {
        assert_eq!(observable_unit("belly.tension"), "N");
        assert_eq!(observable_unit("foot_back.z"), "m");
        assert_eq!(observable_unit("cavity.pressure"), "Pa");
        assert_eq!(observable_unit("cell.mystery"), "");
        // A flat zero curve gets a readable unit range.
        assert_eq!(padded(0.0, 0.0), (-1.0, 1.0));
        assert_eq!(padded(2.0, 2.0), (1.0, 3.0));
    }

    #[test]
    fn bounded_series_keeps_first_and_last_and_stays_within_its_bound() {
        let mut s = TimeSeries::new(16);
        for k in 0..1000 {
            s.push(k as f64, &[("a".into(), 2.0 * k as f64)]);
        }
        s.push_last(999.0, &[("a".into(), 1998.0)]);
        assert!(s.len() <= 17, "{}", s.len());
        assert_eq!(s.times()[0], 0.0);
        assert_eq!(*s.times().last().unwrap(), 999.0);
        // Every kept value belongs to its time.
        for (t, v) in s.times().iter().zip(s.curve("a").unwrap()) {
            assert_eq!(*v, 2.0 * t);
        }
        // Uniformly spaced except the last.
        let d = s.times()[1] - s.times()[0];
        assert!(
            s.times()[..s.len() - 1]
                .windows(2)
                .all(|w| w[1] - w[0] == d)
        );
    }

    #[test]
    fn repeated_names_in_a_sample_are_separate_curves() {
        let mut s = TimeSeries::new(8);
        for k in 0..3 {
            let t = k as f64;
            s.push(
                t,
                &[("rod.length".into(), t), ("rod.length".into(), 10.0 + t)],
            );
        }
        assert_eq!(s.curve("rod.length").unwrap(), [0.0, 1.0, 2.0]);
        assert_eq!(s.curve("rod.length (2)").unwrap(), [10.0, 11.0, 12.0]);
    }

    #[test]
    fn late_curves_get_gaps_and_plots_are_written() {
        let mut s = TimeSeries::new(8);
        s.push(0.0, &[("a".into(), 1.0)]);
        s.push(1.0, &[("a".into(), 2.0), ("b".into(), 3.0)]);
        assert!(s.curve("b").unwrap()[0].is_nan());
        let dir = std::env::temp_dir().join(format!("pliant-plots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.svg");
        let pts = |c: &str| {
            s.times()
                .iter()
                .copied()
                .zip(s.curve(c).unwrap().iter().copied())
                .collect()
        };
        plot_panels(
            &path,
            "time (s)",
            &[Panel {
                title: "test".into(),
                y_label: "value (m)".into(),
                curves: vec![("a".into(), pts("a")), ("b".into(), pts("b"))],
            }],
        )
        .unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("value (m)") && svg.contains("time (s)"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
