//! Output helpers shared by the examples: CSV tables and SVG line plots
//! (plotters). Included with `#[path = "common/output.rs"] mod output;`.

#![allow(dead_code)]

use anyhow::Context;
use plotters::prelude::*;
use std::path::Path;

/// Writes `rows` under `header` as CSV.
pub fn csv(path: &Path, header: &[&str], rows: &[Vec<f64>]) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_path(path).with_context(|| path.display().to_string())?;
    w.write_record(header)?;
    for r in rows {
        w.write_record(r.iter().map(|v| format!("{v}")))?;
    }
    w.flush()?;
    Ok(())
}

/// A labelled curve and its colour.
pub type Line = (String, Vec<(f64, f64)>, RGBColor);

/// The bounding box `(x0, x1, y0, y1)` of points.
pub fn bounds<'a>(pts: impl Iterator<Item = &'a (f64, f64)>) -> (f64, f64, f64, f64) {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in pts {
        x0 = x0.min(p.0);
        x1 = x1.max(p.0);
        y0 = y0.min(p.1);
        y1 = y1.max(p.1);
    }
    (x0, x1, y0, y1)
}

/// Curves against time (or any `x`), axes labelled with units by the caller.
pub fn plot_lines(
    path: &Path,
    title: &str,
    xl: &str,
    yl: &str,
    lines: &[Line],
) -> anyhow::Result<()> {
    let (x0, x1, y0, y1) = bounds(lines.iter().flat_map(|l| l.1.iter()));
    let pad = 0.05 * (y1 - y0).max(1e-9);
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))?;
    chart.configure_mesh().x_desc(xl).y_desc(yl).draw()?;
    for (label, pts, color) in lines {
        let c = *color;
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), &c))?
            .label(label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

/// The square window `(x0, x1, y0, y1)` around `bounds`, 8 % larger than
/// its longer side: equal scales on both axes.
pub fn square((x0, x1, y0, y1): (f64, f64, f64, f64)) -> (f64, f64, f64, f64) {
    let span = (x1 - x0).max(y1 - y0) * 1.08;
    let (cx, cy) = (0.5 * (x0 + x1), 0.5 * (y0 + y1));
    (
        cx - span / 2.0,
        cx + span / 2.0,
        cy - span / 2.0,
        cy + span / 2.0,
    )
}

/// A line segment in the plot plane.
type Segment = ((f64, f64), (f64, f64));

/// Snapshots of triangle meshes (and lines) side by side, drawn as wire
/// frames in an oblique view (`x` right, `z` up, `y` receding up-right at
/// 30°) with equal scales, one panel per `(title, positions)`.
pub fn plot_snapshots(
    path: &Path,
    frames: &[(String, Vec<[f64; 3]>)],
    triangles: &[[usize; 3]],
    lines: &[[usize; 2]],
) -> anyhow::Result<()> {
    let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
    let view = |p: &[f64; 3]| (p[0] + 0.5 * c * p[1], p[2] + 0.5 * s * p[1]);
    let mut segs: Vec<Vec<Segment>> = Vec::new();
    for (_, x) in frames {
        let mut v = Vec::new();
        for t in triangles {
            for k in 0..3 {
                v.push((view(&x[t[k]]), view(&x[t[(k + 1) % 3]])));
            }
        }
        for l in lines {
            v.push((view(&x[l[0]]), view(&x[l[1]])));
        }
        segs.push(v);
    }
    let pts: Vec<(f64, f64)> = segs.iter().flatten().flat_map(|(a, b)| [*a, *b]).collect();
    let (x0, x1, y0, y1) = square(bounds(pts.iter()));
    let side = 420;
    let root = SVGBackend::new(path, (side * frames.len() as u32, side + 40)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((1, frames.len()));
    for ((area, (title, _)), v) in areas.iter().zip(frames).zip(&segs) {
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(40)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc("x + y·cos30°/2 (m)")
            .y_desc("z + y·sin30°/2 (m)")
            .draw()?;
        for (a, b) in v {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![*a, *b],
                BLUE.mix(0.6),
            )))?;
        }
    }
    root.present()?;
    Ok(())
}
