//! A picture of an export: per channel, the exported commands mapped back
//! to control units (a line at the controller rate) over the run's own
//! controls (dots at its steps), so a person sees the two agree — and where
//! clipping made them differ.

use crate::error::{HardwareError, Result};
use crate::run::RunControls;
use crate::table::CommandTable;
use plotters::prelude::*;
use std::path::Path;

/// Writes the SVG plot of `table` against `run` to `path`.
pub fn plot(table: &CommandTable, run: &RunControls, path: &Path) -> Result<()> {
    draw(table, run, path).map_err(|e| HardwareError::Plot {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn draw(
    table: &CommandTable,
    run: &RunControls,
    path: &Path,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let n = table.channels.len();
    let root = SVGBackend::new(path, (900, 60 + 230 * n as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        &format!(
            "{}: exported at {} Hz ({}) over the optimized controls",
            table.meta.run_name, table.rate_hz, table.meta.profile.name
        ),
        ("sans-serif", 18),
    )?;
    let panels = root.split_evenly((n, 1));
    let t_end = table.time(table.samples.saturating_sub(1)).max(1e-9);
    for (k, (panel, (c, rc))) in panels
        .iter()
        .zip(table.channels.iter().zip(&run.channels))
        .enumerate()
    {
        let unit = c.drive.control_unit();
        // Centimetres read better than metres for cables.
        let scale = if unit == "m" {
            100.0
        } else if unit == "Pa" {
            1e-3
        } else {
            1.0
        };
        let shown = if unit == "m" {
            "cm"
        } else if unit == "Pa" {
            "kPa"
        } else {
            unit
        };
        // At most ~5000 points per curve (a long 1 kHz export would make
        // a file no viewer opens).
        let stride = c.device.len().div_ceil(5000).max(1);
        let exported: Vec<(f64, f64)> = c
            .device
            .iter()
            .enumerate()
            .step_by(stride)
            .map(|(i, &d)| (table.time(i), scale * c.drive.to_control(d)))
            .collect();
        let samples: Vec<(f64, f64)> = rc
            .times
            .iter()
            .zip(&rc.samples)
            .map(|(&t, &v)| (t, scale * v))
            .collect();
        let raw: Vec<(f64, f64)> = rc
            .raw
            .as_ref()
            .map(|r| {
                rc.times
                    .iter()
                    .zip(r)
                    .map(|(&t, &v)| (t, scale * v))
                    .collect()
            })
            .unwrap_or_default();
        let all = exported.iter().chain(&samples).chain(&raw);
        if let Some(p) = all.clone().find(|p| !p.1.is_finite()) {
            return Err(
                format!("channel `{}`: a non-finite value at t = {} s", c.name, p.0).into(),
            );
        }
        let (lo, hi) = all.fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
        let pad = 0.08 * (hi - lo).max(1e-6);
        let mut chart = ChartBuilder::on(panel)
            .caption(
                format!(
                    "{} ({}, commands in {})",
                    c.name,
                    c.drive.kind(),
                    c.drive.device_unit()
                ),
                ("sans-serif", 15),
            )
            .margin(8)
            .x_label_area_size(32)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_end, (lo - pad)..(hi + pad))?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc(format!("control ({shown})"))
            .draw()?;
        if !raw.is_empty() {
            chart
                .draw_series(LineSeries::new(
                    raw,
                    RGBColor(150, 150, 150).stroke_width(1),
                ))?
                .label("optimized spline u (with slack)")
                .legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], RGBColor(150, 150, 150))
                });
        }
        chart
            .draw_series(LineSeries::new(exported, BLUE.stroke_width(2)))?
            .label(format!(
                "exported commands, mapped back ({} Hz)",
                table.rate_hz
            ))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
        chart
            .draw_series(samples.iter().map(|&p| Circle::new(p, 3, RED.filled())))?
            .label(match rc.interpolation {
                crate::run::Interpolation::SplinePlusSlack => {
                    "run's controls at its steps (slack-free)"
                }
                crate::run::Interpolation::MonotoneSamples => "run's controls at its samples",
            })
            .legend(|(x, y)| Circle::new((x + 10, y), 3, RED.filled()));
        if k > 0 {
            // One legend, on the first panel, leaves the others' curves clear.
            continue;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 11))
            .draw()?;
    }
    root.present()?;
    Ok(())
}
