//! The picture of a design sweep: the objective over the parameters, as a
//! heat map (two grid parameters, each cell labelled with its value), a
//! curve (one parameter) or one scatter panel per parameter (random and
//! Latin-hypercube designs, or more than two parameters).

use crate::error::VizError;
use plotters::prelude::*;
use std::path::Path;

/// Viridis at a few stops, interpolated linearly.
fn colour(u: f64) -> RGBColor {
    const STOPS: [(u8, u8, u8); 5] = [
        (68, 1, 84),
        (59, 82, 139),
        (33, 145, 140),
        (94, 201, 98),
        (253, 231, 37),
    ];
    let u = if u.is_finite() {
        u.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let s = u * (STOPS.len() - 1) as f64;
    let i = (s.floor() as usize).min(STOPS.len() - 2);
    let f = s - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + f * (b as f64 - a as f64)).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Sorted distinct values.
fn levels(v: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut l: Vec<f64> = v.collect();
    l.sort_by(f64::total_cmp);
    l.dedup();
    l
}

fn short(v: f64) -> String {
    if v != 0.0 && (v.abs() >= 1e4 || v.abs() < 1e-2) {
        format!("{v:.3e}")
    } else {
        format!("{v:.4}")
    }
}

/// Labels a heat map's axis: cell `i` spans `[i, i + 1]`, so its level is
/// written at `i + 0.5` and nothing elsewhere.
fn cell_label(levels: &[f64]) -> impl Fn(&f64) -> String + '_ {
    move |v| {
        let i = (v - 0.5).round();
        if (v - 0.5 - i).abs() < 1e-9 && i >= 0.0 && (i as usize) < levels.len() {
            short(levels[i as usize])
        } else {
            String::new()
        }
    }
}

/// Writes the sweep picture to `path` (SVG). `samples` are `(parameter
/// values, objective)` of the finished points, `failed` the parameter
/// values of points that failed (grey cells of a heat map, crosses on the
/// lower axis of the other plots); `labels` name the parameters; `grid`
/// says the points form a full grid.
pub fn plot_sweep(
    path: &Path,
    title: &str,
    labels: &[&str],
    objective: &str,
    samples: &[(Vec<f64>, f64)],
    failed: &[Vec<f64>],
    grid: bool,
) -> Result<(), VizError> {
    let fail = |e: &dyn std::fmt::Display| VizError::Format {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    if samples.is_empty() {
        return Err(fail(&"no finished point to plot"));
    }
    let (lo, hi) = samples
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), s| {
            (a.min(s.1), b.max(s.1))
        });
    let unit = |v: f64| if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
    if grid && labels.len() == 2 {
        let xs = levels(
            samples
                .iter()
                .map(|s| s.0[0])
                .chain(failed.iter().map(|f| f[0])),
        );
        let ys = levels(
            samples
                .iter()
                .map(|s| s.0[1])
                .chain(failed.iter().map(|f| f[1])),
        );
        let root = SVGBackend::new(path, (900, 720)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let (nx, ny) = (xs.len(), ys.len());
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "{title} (colour: {} … {}{})",
                    short(lo),
                    short(hi),
                    if failed.is_empty() {
                        ""
                    } else {
                        "; grey: failed"
                    }
                ),
                ("sans-serif", 20),
            )
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(90)
            .build_cartesian_2d(0.0..nx as f64, 0.0..ny as f64)
            .map_err(|e| fail(&e))?;
        let (x_label, y_label) = (cell_label(&xs), cell_label(&ys));
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(labels[0])
            .y_desc(labels[1])
            .x_labels(nx.min(12) * 2 + 1)
            .y_labels(ny.min(12) * 2 + 1)
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .draw()
            .map_err(|e| fail(&e))?;
        for (x, v) in samples {
            let (Some(i), Some(j)) = (
                xs.iter().position(|a| *a == x[0]),
                ys.iter().position(|a| *a == x[1]),
            ) else {
                continue;
            };
            let (i, j) = (i as f64, j as f64);
            let c = colour(unit(*v));
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(i, j), (i + 1.0, j + 1.0)],
                    c.filled(),
                )))
                .map_err(|e| fail(&e))?;
            let ink = if unit(*v) > 0.6 { BLACK } else { WHITE };
            chart
                .draw_series(std::iter::once(Text::new(
                    short(*v),
                    (i + 0.2, j + 0.55),
                    ("sans-serif", 16).into_font().color(&ink),
                )))
                .map_err(|e| fail(&e))?;
        }
        for x in failed {
            let (Some(i), Some(j)) = (
                xs.iter().position(|a| *a == x[0]),
                ys.iter().position(|a| *a == x[1]),
            ) else {
                continue;
            };
            let (i, j) = (i as f64, j as f64);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(i, j), (i + 1.0, j + 1.0)],
                    RGBColor(190, 190, 190).filled(),
                )))
                .map_err(|e| fail(&e))?;
            chart
                .draw_series(std::iter::once(Text::new(
                    "failed",
                    (i + 0.2, j + 0.55),
                    ("sans-serif", 16).into_font().color(&BLACK),
                )))
                .map_err(|e| fail(&e))?;
        }
        root.present().map_err(|e| fail(&e))?;
        return Ok(());
    }
    let n = labels.len();
    let root = SVGBackend::new(path, (900, 320 * n as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let areas = root.split_evenly((n, 1));
    let pad = if hi > lo {
        0.05 * (hi - lo)
    } else {
        0.5 * lo.abs().max(1e-12)
    };
    for (c, area) in areas.iter().enumerate() {
        let (x0, x1) = samples
            .iter()
            .map(|s| s.0[c])
            .chain(failed.iter().map(|f| f[c]))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        let (x0, x1) = if x1 > x0 {
            (x0, x1)
        } else {
            (
                x0 - 0.5 * x0.abs().max(1e-12),
                x1 + 0.5 * x1.abs().max(1e-12),
            )
        };
        let mut chart = ChartBuilder::on(area)
            .caption(
                if c == 0 {
                    title.to_string()
                } else {
                    String::new()
                },
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(90)
            .build_cartesian_2d(x0..x1, (lo - pad)..(hi + pad))
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .x_desc(labels[c])
            .y_desc(objective)
            .x_label_formatter(&|v| short(*v))
            .y_label_formatter(&|v| short(*v))
            .draw()
            .map_err(|e| fail(&e))?;
        if n == 1 {
            let mut line: Vec<(f64, f64)> = samples.iter().map(|s| (s.0[0], s.1)).collect();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart
                .draw_series(LineSeries::new(line, BLUE.stroke_width(2)))
                .map_err(|e| fail(&e))?;
        }
        chart
            .draw_series(
                samples
                    .iter()
                    .map(|s| Circle::new((s.0[c], s.1), 5, colour(unit(s.1)).filled())),
            )
            .map_err(|e| fail(&e))?;
        chart
            .draw_series(
                failed
                    .iter()
                    .map(|f| Cross::new((f[c], lo - pad), 6, RED.stroke_width(2))),
            )
            .map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}
