//! `pliant gradient`: a rollout spec's objective and adjoint gradient.

use anyhow::{Context, Result};
use std::path::PathBuf;

/// Prints (and with `out` writes as JSON) the objective, its terms and
/// `∇_z O` at `z` (default: the scene's own values), with central
/// differences beside it when `check` gives their step.
pub(crate) fn gradient(
    spec: PathBuf,
    z: Option<String>,
    check: Option<f64>,
    out: Option<PathBuf>,
) -> Result<()> {
    let rollout = pliant::rollout::Rollout::from_file(&spec)?;
    let z: Vec<f64> = match z {
        Some(text) => serde_json::from_str(&text).context("--z: a JSON array of numbers")?,
        None => rollout.z0().to_vec(),
    };
    let e = rollout.evaluate(&z, true)?;
    println!(
        "{} steps of {} s, {} variables, {} Newton iterations",
        rollout.steps(),
        rollout.dt(),
        z.len(),
        e.newton_iterations
    );
    println!("objective {:e}", e.value);
    for (l, t) in rollout.objective_labels().iter().zip(&e.terms) {
        println!("  {l:<24} {t:e}");
    }
    let fd = check.map(|eps| rollout.gradient_fd(&z, eps)).transpose()?;
    println!("{:<24} {:>14} {:>14}", "variable", "z", "dO/dz");
    for (i, n) in rollout.variable_names().iter().enumerate() {
        print!("{n:<24} {:>14.6e} {:>14.6e}", z[i], e.gradient[i]);
        if let Some(fd) = &fd {
            print!("  (central differences {:.6e})", fd[i]);
        }
        println!();
    }
    if let Some(out) = out {
        let mut doc = serde_json::json!({
            "variables": rollout.variable_names(),
            "objectives": rollout.objective_labels(),
            "z": z,
            "value": e.value,
            "terms": e.terms,
            "gradient": e.gradient,
        });
        if let Some(fd) = fd {
            doc["fd_gradient"] = serde_json::json!(fd);
        }
        std::fs::write(&out, serde_json::to_string_pretty(&doc)? + "\n")
            .with_context(|| format!("writing {}", out.display()))?;
        println!("wrote {}", out.display());
    }
    Ok(())
}
