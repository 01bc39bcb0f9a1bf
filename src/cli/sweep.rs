//! `pliant sweep`: run, list or gather a design sweep.

use anyhow::{Context, Result, bail};
use std::path::PathBuf;

/// Lists the points (`list`), runs point `task_id` alone, or runs every
/// point `jobs` at a time and gathers (`gather`: only gathers).
pub(crate) fn sweep(
    spec: PathBuf,
    out: PathBuf,
    jobs: u64,
    task_id: Option<usize>,
    gather: bool,
    list: bool,
) -> Result<()> {
    let sweep = pliant::sweep::Sweep::from_file(&spec)?;
    let labels: Vec<&str> = sweep.spec().parameters.iter().map(|p| p.label()).collect();
    if list {
        println!("{} points of {}:", sweep.points().len(), labels.join(", "));
        for (k, p) in sweep.points().iter().enumerate() {
            let v: Vec<String> = p.iter().map(|v| v.to_string()).collect();
            println!("  {k:>4}  {}", v.join(", "));
        }
        return Ok(());
    }
    let report = |r: &pliant::sweep::PointResult| {
        let what = match (&r.error, r.skipped) {
            (Some(e), _) => format!("failed: {e}"),
            (None, true) => "already finished".to_string(),
            (None, false) => "finished".to_string(),
        };
        let obj = r
            .values
            .iter()
            .find(|(n, _)| n == sweep.objective())
            .map_or(String::new(), |(n, v)| format!(", {n} = {v:.6e}"));
        println!("point {:>4} {what}{obj}", r.index);
    };
    if let Some(k) = task_id {
        let r = sweep.run_point(&out, k)?;
        report(&r);
        if let Some(e) = r.error {
            bail!("point {k} failed: {e}");
        }
        return Ok(());
    }
    if !gather {
        let started = std::time::Instant::now();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs as usize)
            .build()
            .context("starting the worker threads")?;
        let n = sweep.points().len();
        println!(
            "sweep `{}`: {n} points, {jobs} at a time",
            sweep.spec().name
        );
        let results: Vec<Result<pliant::sweep::PointResult, pliant::sweep::SweepError>> = pool
            .install(|| {
                use rayon::prelude::*;
                (0..n)
                    .into_par_iter()
                    .map(|k| {
                        let r = sweep.run_point(&out, k);
                        if let Ok(r) = &r {
                            report(r);
                        }
                        r
                    })
                    .collect()
            });
        for r in results {
            r?;
        }
        println!("{n} points in {:.2} s", started.elapsed().as_secs_f64());
    }
    let g = sweep.gather(&out)?;
    println!(
        "{} of {} points finished; wrote {}",
        g.finished(),
        g.points.len(),
        g.csv.display()
    );
    if let Some(p) = &g.plot {
        println!("wrote {}", p.display());
    }
    Ok(())
}
