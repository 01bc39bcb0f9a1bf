//! `snake -- table`: Table I measured over start phases.
//!
//! The paper gives neither the phase of the rotation at which its gaits
//! start nor the window of its velocities; a 15 s mean moves with the
//! first (`pliant::soft_snake::table_i`). This runs planar and spatial
//! rolling at `n` start phases `φ₀ + 2π k/n` (`φ₀` from `--start-phase`,
//! default 0) and reports, per gait, the mean and range over them of the
//! velocity over the whole 15 s and of the steady velocity, next to the
//! paper's model and prototype. The runs share the machine's cores, one
//! run per core; each run is deterministic on its own.

use super::{Overrides, output::csv};
use pliant::soft_snake::gait::GaitKind;
use pliant::soft_snake::table_i::{RunVelocities, STEADY_AFTER, run_velocities};
use pliant::soft_snake::{TABLE_I_MODEL, TABLE_I_PROTOTYPE};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Runs the study and prints and writes (`DIR/table_i.csv`) its table.
pub(crate) fn table(o: &Overrides, n: usize, out: &Path) -> anyhow::Result<()> {
    let first = o.start_phase.unwrap_or(0.0);
    let phase = |k: usize| first + std::f64::consts::TAU * k as f64 / n as f64;
    let kinds = [GaitKind::Planar, GaitKind::Spatial];
    let jobs: Vec<(GaitKind, usize)> = kinds
        .iter()
        .flat_map(|&g| (0..n).map(move |k| (g, k)))
        .collect();
    let workers = std::thread::available_parallelism()
        .map_or(1, |c| c.get())
        .min(jobs.len());
    println!(
        "Table I over {n} start phases: {} runs of the default snake, {workers} at a time",
        jobs.len()
    );
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<RunVelocities, String>>>> =
        jobs.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(kind, k)) = jobs.get(j) else { break };
                    let mut snake = o.snake(kind);
                    snake.gait.start_phase = phase(k);
                    let r = run_velocities(&snake).map_err(|e| e.to_string());
                    match &r {
                        Ok(v) => println!(
                            "  {:7} φ₀ = {:.4} rad: 15 s Vx {:6.2}, Vy {:6.2}; steady Vx {:6.2}, Vy {:6.2} cm/s; per cycle {} cm/s",
                            label(kind),
                            phase(k),
                            100.0 * v.whole[0],
                            100.0 * v.whole[1],
                            100.0 * v.steady[0],
                            100.0 * v.steady[1],
                            v.cycles
                                .iter()
                                .map(|c| format!("{:.1}", 100.0 * c))
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                        Err(e) => println!("  {:7} φ₀ = {:.4} rad failed: {e}", label(kind), phase(k)),
                    }
                    if let Ok(mut slot) = results[j].lock() {
                        *slot = Some(r);
                    }
                }
            });
        }
    });
    let results: Vec<Option<Result<RunVelocities, String>>> = results
        .into_iter()
        .map(|m| m.into_inner().ok().flatten())
        .collect();
    let mut rows = vec![];
    let mut failed = vec![];
    println!(
        "\n| gait | Vx, Vy over 15 s: mean (range), cm/s | steady from {STEADY_AFTER} s: Vx, Vy mean (range) | paper model | prototype | steady Vy / model |"
    );
    println!("|---|---|---|---|---|---|");
    for (row, &kind) in kinds.iter().enumerate() {
        let mut runs = vec![];
        for (j, &(g, k)) in jobs.iter().enumerate() {
            if g != kind {
                continue;
            }
            match &results[j] {
                Some(Ok(v)) => {
                    runs.push(v.clone());
                    rows.push(vec![
                        row as f64,
                        phase(k),
                        100.0 * v.whole[0],
                        100.0 * v.whole[1],
                        100.0 * v.steady[0],
                        100.0 * v.steady[1],
                    ]);
                }
                Some(Err(e)) => failed.push(format!("{} at φ₀ = {:.4}: {e}", label(g), phase(k))),
                None => failed.push(format!("{} at φ₀ = {:.4}: no result", label(g), phase(k))),
            }
        }
        if runs.is_empty() {
            continue;
        }
        let stat = |f: &dyn Fn(&RunVelocities) -> f64| {
            let v: Vec<f64> = runs.iter().map(|r| 100.0 * f(r)).collect();
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let (lo, hi) = v
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                    (a.min(x), b.max(x))
                });
            (mean, format!("{mean:.2} ({lo:.2} to {hi:.2})"))
        };
        let (_, wx) = stat(&|r| r.whole[0]);
        let (_, wy) = stat(&|r| r.whole[1]);
        let (_, sx) = stat(&|r| r.steady[0]);
        let (sy_mean, sy) = stat(&|r| r.steady[1]);
        let (mx, my) = TABLE_I_MODEL[row];
        let (px, py) = TABLE_I_PROTOTYPE[row];
        println!(
            "| {} ({} runs) | {wx}, {wy} | {sx}, {sy} | {mx}, {my} | {px}, {py} | {:+.1} % |",
            label(kind),
            runs.len(),
            100.0 * (sy_mean / my - 1.0)
        );
    }
    std::fs::create_dir_all(out)?;
    let file = out.join("table_i.csv");
    csv(
        &file,
        &[
            "gait_0_planar_1_spatial",
            "start_phase_rad",
            "vx_15s_cm_s",
            "vy_15s_cm_s",
            "vx_steady_cm_s",
            "vy_steady_cm_s",
        ],
        &rows,
    )?;
    println!(
        "\nwall {:.0} s; per run: {}",
        started.elapsed().as_secs_f64(),
        file.display()
    );
    anyhow::ensure!(
        failed.is_empty(),
        "{} of {} runs failed (the others are in the table):\n  {}",
        failed.len(),
        jobs.len(),
        failed.join("\n  ")
    );
    Ok(())
}

fn label(kind: GaitKind) -> &'static str {
    match kind {
        GaitKind::Planar => "planar",
        GaitKind::Spatial => "spatial",
        GaitKind::Still => "drop",
    }
}
