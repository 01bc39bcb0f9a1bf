//! One call from a gait setup to optimized, post-processed, written
//! results: used by `pliant optimize`, `pliant demo` and the gait examples.

use super::{GaitSetup, GaitSummary, write_gait};
use crate::{Result, ScenarioError};
use pliant_optim::{Method, OptimizeResult, OptimizeSettings, ProgressFn, optimize};
use std::path::{Path, PathBuf};

/// Result of [`optimize_gait`].
#[derive(Debug)]
pub struct GaitRun {
    /// The optimizer's result (controls `z`, objective, history, work).
    pub result: OptimizeResult,
    /// Speed and displacement of the optimized rollout.
    pub summary: GaitSummary,
    /// Files written.
    pub files: Vec<PathBuf>,
}

/// Whether [`optimize_gait`] checkpoints, and whether it resumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checkpoints {
    /// No checkpoint is read or written (an old one is removed).
    Off,
    /// An old checkpoint is removed; every iteration is checkpointed.
    Fresh,
    /// A run killed earlier continues from its last checkpoint (its history
    /// kept); every iteration is checkpointed.
    Resume,
}

/// Optimizes `setup` from `z0` with `method` for at most `iters`
/// iterations (0: just evaluate and write `z0`) and writes the results into
/// `out/<name>/`, checkpointing there as `checkpoints` says.
pub fn optimize_gait(
    setup: &GaitSetup,
    z0: &[f64],
    method: Method,
    iters: u64,
    out: &Path,
    checkpoints: Checkpoints,
    progress: Option<ProgressFn>,
) -> Result<GaitRun> {
    let (shooting, ctx) = setup.problem(z0)?;
    let dir = out.join(&setup.name);
    // The checkpoint's name identifies the problem, the solver and the start,
    // so a run never resumes someone else's optimization.
    let zbits: Vec<u64> = z0.iter().map(|z| z.to_bits()).collect();
    let key = format!("{:016x}-{:?}-{:?}", setup.fingerprint(), method, zbits);
    let key_hash = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let name = format!("checkpoint-{key_hash:016x}");
    let ckpt = dir.join(format!("{name}.arg"));
    let history = pliant_optim::history_path(&dir, &name);
    let resume = checkpoints == Checkpoints::Resume;
    if !resume {
        for f in [&ckpt, &history] {
            if f.exists() {
                std::fs::remove_file(f).map_err(ScenarioError::io(f))?;
            }
        }
    } else if iters > 0 && ckpt.exists() {
        println!("resuming from {}", ckpt.display());
    }
    let settings = OptimizeSettings {
        method,
        max_iters: iters,
        checkpoint: (checkpoints != Checkpoints::Off && iters > 0).then(|| (dir.clone(), name)),
    };
    let (result, shooting) = optimize(shooting, z0, &settings, progress)?;
    for (stage, value) in [
        ("initial", result.initial_objective),
        ("final", result.objective),
    ] {
        if !value.is_finite() {
            return Err(ScenarioError::NonFiniteObjective {
                name: setup.name.clone(),
                stage,
                value,
            });
        }
    }
    let tr = shooting.rollout_z(&result.z)?;
    let summary = ctx.summary(setup, &tr, result.objective);
    let files = write_gait(&dir, setup, &ctx, &tr, &result.z, &result.history, &summary)?;
    Ok(GaitRun {
        result,
        summary,
        files,
    })
}
