//! Files a gait optimization writes: the optimized controls (raw and with
//! slack removed), every cable's tension and slack per step, the
//! centre-of-mass path against its target (CSV and an
//! SVG plot), pictures of the final rollout (ParaView series, replay.html,
//! plots), the optimizer's progress and a JSON summary.

use super::{GaitContext, GaitSetup, GaitSummary};
use crate::{Result, ScenarioError};
use pliant_optim::{IterationRecord, Trajectory};
use pliant_viz::plots::Panel;
use pliant_viz::{Recorder, RecorderOptions, StateView};
use plotters::prelude::*;
use std::path::Path;

/// Writes everything about an optimized gait into `dir`; returns the paths
/// written.
pub fn write_gait(
    dir: &Path,
    setup: &GaitSetup,
    problem: &GaitContext,
    tr: &Trajectory,
    z: &[f64],
    history: &[IterationRecord],
    summary: &GaitSummary,
) -> Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir).map_err(ScenarioError::io(dir))?;
    let mut written = Vec::new();
    // Controls.
    let u_post = crate::gait::remove_slack(tr, &problem.cables, &problem.model, &problem.motors)?;
    let idx: Vec<usize> = problem
        .motors
        .iter()
        .map(|m| problem.model.layout().param(&m.channels[0], "gait output"))
        .collect::<Result<_, _>>()?;
    let path = dir.join("controls.csv");
    write_csv(&path, |w| {
        let mut header = vec!["step".to_string(), "time_s".to_string()];
        header.extend(problem.motors.iter().map(|m| format!("{}_u_m", m.name)));
        header.extend(
            problem
                .motors
                .iter()
                .map(|m| format!("{}_u_post_m", m.name)),
        );
        w.write_record(&header)?;
        for k in 1..=tr.steps() {
            let mut row = vec![k.to_string(), format!("{}", tr.t[k])];
            row.extend(idx.iter().map(|&c| format!("{}", tr.p[k - 1][c])));
            row.extend(u_post[k - 1].iter().map(|v| format!("{v}")));
            w.write_record(&row)?;
        }
        Ok(())
    })?;
    written.push(path);
    // Cable tension and slack per step.
    let path = dir.join("cables.csv");
    write_csv(&path, |w| {
        let mut header = vec!["step".to_string(), "time_s".to_string()];
        for c in &problem.cables {
            header.push(format!("{}_tension_N", c.name()));
            header.push(format!("{}_slack_m", c.name()));
        }
        w.write_record(&header)?;
        for k in 1..=tr.steps() {
            let mut row = vec![k.to_string(), format!("{}", tr.t[k])];
            for c in &problem.cables {
                let p = &tr.p[k - 1];
                row.push(format!("{}", c.tension(&tr.x[k], p)));
                row.push(format!("{}", (-c.deformation(&tr.x[k], p).gamma).max(0.0)));
            }
            w.write_record(&row)?;
        }
        Ok(())
    })?;
    written.push(path);
    // COM path.
    let path = dir.join("com.csv");
    let achieved: Vec<Vec<f64>> = tr.x.iter().map(|x| problem.com.of(x)).collect();
    write_csv(&path, |w| {
        w.write_record([
            "step",
            "time_s",
            "target_x_m",
            "target_y_m",
            "com_x_m",
            "com_y_m",
        ])?;
        for k in 1..=tr.steps() {
            let t = &problem.targets[k - 1];
            w.write_record([
                k.to_string(),
                format!("{}", tr.t[k]),
                format!("{}", t[0]),
                format!("{}", t[1]),
                format!("{}", achieved[k][0]),
                format!("{}", achieved[k][1]),
            ])?;
        }
        Ok(())
    })?;
    written.push(path);
    // Plot: target vs achieved, top view.
    let path = dir.join("com.svg");
    plot_com(&path, &problem.targets, &achieved, &setup.name)
        .map_err(ScenarioError::output(&path))?;
    written.push(path);
    // Optimizer progress.
    let path = dir.join("progress.csv");
    write_csv(&path, |w| {
        for h in history {
            w.serialize(h)?;
        }
        Ok(())
    })?;
    written.push(path);
    // Progress plot: objective and gradient norm per iteration.
    let path = dir.join("progress.svg");
    let log = |f: fn(&IterationRecord) -> f64| -> Vec<(f64, f64)> {
        history
            .iter()
            .map(|h| (h.iter as f64, f(h).log10()))
            .collect()
    };
    let drawn = pliant_viz::plots::plot_panels(
        &path,
        "iteration",
        &[
            Panel {
                title: format!(
                    "{}: objective (weights in 1/m², so dimensionless)",
                    setup.name
                ),
                y_label: "log10 objective ½‖r‖² (1)".into(),
                curves: vec![(String::new(), log(|h| h.objective))],
            },
            Panel {
                title: "gradient norm with respect to the controls z (m)".into(),
                y_label: "log10 ‖∇‖ (1/m)".into(),
                curves: vec![(String::new(), log(|h| h.gradient_norm))],
            },
        ],
    )
    .map_err(ScenarioError::output(&path))?;
    if drawn {
        written.push(path);
    }
    // Summary.
    let path = dir.join("summary.json");
    // Each motor's optimized signal `u` as cubic Hermite knots (time s,
    // value m, slope m/s): what hardware export resamples at the
    // controller's rate.
    let keys = setup.gait.keys_from_z(z)?;
    let splines: serde_json::Map<String, serde_json::Value> = problem
        .motors
        .iter()
        .enumerate()
        .map(|(m, mo)| {
            let knots = setup.gait.knots(&keys, m);
            (
                mo.name.clone(),
                serde_json::json!({
                    "t_s": knots.iter().map(|k| k.0 * setup.h).collect::<Vec<_>>(),
                    "value": knots.iter().map(|k| k.1).collect::<Vec<_>>(),
                    "slope_per_s": vec![0.0; knots.len()],
                }),
            )
        })
        .collect();
    let json = serde_json::json!({
        "splines": splines,
        "summary": summary,
        "z": z,
        "motors": problem.motors.iter().map(|m| m.name.clone()).collect::<Vec<_>>(),
        "keyframes": setup.gait.keyframes,
        // The whole control layout, so that exporters can evaluate the
        // optimized spline at any rate (`Gait::value_at`).
        "gait": &setup.gait,
        "h_s": setup.h,
        "steps": tr.steps(),
    });
    let text = serde_json::to_string_pretty(&json).map_err(ScenarioError::output(&path))?;
    std::fs::write(&path, text + "\n").map_err(ScenarioError::io(&path))?;
    written.push(path);
    // Pictures of the final rollout: a ParaView series of every energy's
    // shape (every second step), replay.html and plots of every step.
    let opts = RecorderOptions {
        vtk_every: 2,
        ..Default::default()
    };
    let title = format!("{}: optimized gait", setup.name);
    let mut rec = Recorder::new(dir, &setup.name, &title, &problem.model, opts)
        .map_err(ScenarioError::output(dir))?;
    let view = |k: usize| StateView {
        q: &tr.x[k],
        v: &tr.v[k],
        p: &tr.p[k.saturating_sub(1).min(tr.steps().saturating_sub(1))],
        t: tr.t[k],
        dt: setup.h,
    };
    let observables = |k: usize| -> Vec<(String, f64)> {
        let p = &tr.p[k.saturating_sub(1).min(tr.steps().saturating_sub(1))];
        problem
            .cables
            .iter()
            .flat_map(|c| {
                [
                    (format!("{}.tension", c.name()), c.tension(&tr.x[k], p)),
                    (
                        format!("{}.slack", c.name()),
                        (-c.deformation(&tr.x[k], p).gamma).max(0.0),
                    ),
                ]
            })
            .collect()
    };
    for k in 0..tr.steps() {
        rec.frame(&problem.model, view(k), &observables(k))
            .map_err(ScenarioError::output(dir))?;
    }
    let last = tr.steps();
    written.extend(
        rec.finish(&problem.model, view(last), &observables(last))
            .map_err(ScenarioError::output(dir))?,
    );
    Ok(written)
}

/// Writes a CSV file with `f`, naming the file in any error.
fn write_csv(
    path: &Path,
    f: impl FnOnce(&mut csv::Writer<std::fs::File>) -> std::result::Result<(), csv::Error>,
) -> Result<()> {
    let mut w = csv::Writer::from_path(path).map_err(ScenarioError::output(path))?;
    f(&mut w).map_err(ScenarioError::output(path))?;
    w.flush().map_err(ScenarioError::io(path))
}

fn plot_com(
    path: &Path,
    targets: &[Vec<f64>],
    achieved: &[Vec<f64>],
    title: &str,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    // Non-finite values never reach the plotting library (an infinite axis
    // range makes it loop); a rollout or target with one is refused.
    let all = targets.iter().chain(achieved);
    if let Some(p) = all
        .clone()
        .find(|p| !(p[0].is_finite() && p[1].is_finite()))
    {
        return Err(format!("a non-finite point ({}, {}) cannot be plotted", p[0], p[1]).into());
    }
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in all {
        x0 = x0.min(p[0]);
        x1 = x1.max(p[0]);
        y0 = y0.min(p[1]);
        y1 = y1.max(p[1]);
    }
    let pad = 0.1 * (x1 - x0).max(y1 - y0).max(1e-3);
    if !(x1 - x0 + 2.0 * pad).is_finite() || !(y1 - y0 + 2.0 * pad).is_finite() {
        return Err(format!("the range {x0}..{x1} × {y0}..{y1} m cannot be plotted").into());
    }
    let root = SVGBackend::new(path, (800, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{title}: centre of mass, top view (m)"),
            ("sans-serif", 20),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), (y0 - pad)..(y1 + pad))?;
    chart
        .configure_mesh()
        .x_desc("x (m)")
        .y_desc("y (m)")
        .draw()?;
    chart
        .draw_series(LineSeries::new(targets.iter().map(|p| (p[0], p[1])), &BLUE))?
        .label("target")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    chart
        .draw_series(LineSeries::new(achieved.iter().map(|p| (p[0], p[1])), &RED))?
        .label("achieved")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
