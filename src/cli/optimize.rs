//! `pliant optimize` and `pliant export`: a gait optimization and its
//! report, and hardware export with its report.

use anyhow::{Context, Result};
use pliant::gait::OptimizeSpec;
use pliant::provenance::RunRecord;

/// Exports the controls of run directory `run` through `profile` and
/// `backend`, printing what was written and every limit it met.
pub(crate) fn export_and_report(
    run: &std::path::Path,
    profile: &std::path::Path,
    backend: &str,
    opts: pliant_hardware::ExportOptions,
    out: Option<&std::path::Path>,
) -> Result<()> {
    let profile = pliant_hardware::HardwareProfile::from_file(profile)?;
    let t = std::time::Instant::now();
    let r = pliant_hardware::export(run, &profile, backend, opts, out)?;
    println!(
        "exported {} channels ({}) x {} samples at {} Hz with profile `{}` through `{backend}` in {:.3} s",
        r.channels.len(),
        r.channels.join(", "),
        r.samples,
        r.rate_hz,
        profile.name,
        t.elapsed().as_secs_f64()
    );
    let what = if opts.limits == pliant_hardware::LimitPolicy::Clip {
        "clipped"
    } else {
        "warning, written unchanged"
    };
    for v in &r.violations {
        println!("  {what}: {v}");
    }
    for (c, d) in r.channels.iter().zip(&r.clip_deviation) {
        if *d > 0.0 {
            println!("  channel `{c}`: clipping moved the commands by up to {d:.3} device units");
        }
    }
    println!("  commands: {}", r.output.display());
    println!("  plot:     {}", r.plot.display());
    Ok(())
}

/// Optimizes `spec` into `out/<name>/`, printing progress, the result and
/// the files written; exports the result when `export` names a profile.
pub(crate) fn optimize_and_report(
    spec: &OptimizeSpec,
    out: &std::path::Path,
    checkpoints: pliant::gait::Checkpoints,
    export: Option<(&std::path::Path, &str, pliant_hardware::LimitPolicy)>,
    spec_path: Option<&std::path::Path>,
) -> Result<()> {
    let started = std::time::Instant::now();
    let spec_text = serde_json::to_string(spec)?;
    let record = RunRecord::start(spec_path, Some(&spec_text), Vec::new(), "iterations");
    let setup = spec.setup()?;
    let z0 = spec.z0(&setup)?;
    println!(
        "{}: {} ({} nodes), {} motors, {} parameters, {} steps of {} s, {} ({} iterations at most)",
        setup.name,
        setup.robot.name,
        setup.robot.n_nodes(),
        setup.gait.motors.len(),
        setup.gait.nz(),
        setup.steps(),
        setup.h,
        spec.method,
        spec.iterations
    );
    let progress: pliant::optim::ProgressFn = Box::new(|h| println!("  {h}"));
    let run = pliant::gait::optimize_gait(
        &setup,
        &z0,
        spec.method(),
        spec.iterations,
        out,
        checkpoints,
        Some(progress),
    )?;
    let (r, s) = (&run.result, &run.summary);
    match r.resumed_at {
        Some(k) if k == r.iterations => println!(
            "already finished: the checkpoint in {} is at iteration {k} of a budget of {}; outputs rewritten from it (--iterations N continues, --fresh starts over)",
            out.join(&setup.name).display(),
            spec.iterations
        ),
        _ => {}
    }
    println!(
        "objective {:.4e} -> {:.4e} in {} iterations ({}); {} rollouts in this run, {:.2} Newton iterations per step",
        r.initial_objective,
        r.objective,
        r.iterations,
        r.termination,
        r.stats.rollouts,
        s.newton_per_step
    );
    println!("{s}");
    // The record is not worth failing a finished optimization over.
    let record = record
        .finish(
            &out.join(&setup.name),
            started,
            r.iterations,
            format!("finished: {}", r.termination),
        )
        .inspect_err(|e| log::warn!("run.json not written: {e}"))
        .ok();
    println!("outputs:");
    for f in run.files.iter().chain(record.as_ref()) {
        println!("  {}", f.display());
    }
    if let Some((profile, backend, limits)) = export {
        export_and_report(
            &out.join(&setup.name),
            profile,
            backend,
            pliant_hardware::ExportOptions {
                rate_hz: None,
                limits,
            },
            None,
        )
        .context("exporting the optimized controls (the optimization's outputs above are kept)")?;
    }
    Ok(())
}
