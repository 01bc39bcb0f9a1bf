//! Recording output: CSV (one row per step) and JSON.

use pliant_scenarios::{Result, ScenarioError};
use serde::Serialize;
use std::path::Path;

/// One recorded step.
#[derive(Debug, Clone, Serialize)]
pub struct Frame {
    /// Step index (0 = initial state).
    pub step: usize,
    /// Time, s.
    pub time: f64,
    /// Centre of mass, m.
    pub com: Vec<f64>,
    /// Kinetic energy, J.
    pub kinetic: f64,
    /// Newton iterations of this step.
    pub newton_iterations: usize,
    /// Final residual of this step, N.
    pub residual: f64,
    /// Energies' observables at this state (e.g. `belly.tension` in N,
    /// `belly.slack` in m), in model order.
    pub observables: Vec<(String, f64)>,
    /// Full state `q` (m, rad).
    pub q: Vec<f64>,
}

/// A recorded rollout.
#[derive(Debug, Clone, Serialize)]
pub struct Recording {
    /// Spatial dimension.
    pub dim: usize,
    /// Step size, s.
    pub dt: f64,
    /// Frames, initial state first.
    pub frames: Vec<Frame>,
}

/// Writes `trajectory.csv` (step, time, COM, kinetic energy, Newton
/// iterations, residual, the energies' observables such as cable tension
/// and slack, then every DOF) and `trajectory.json` into `dir`.
pub fn write(dir: &Path, rec: &Recording) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|source| ScenarioError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let csv_path = dir.join("trajectory.csv");
    write_csv(&csv_path, rec).map_err(|e| ScenarioError::Output {
        path: csv_path.clone(),
        message: e.to_string(),
    })?;
    let json_path = dir.join("trajectory.json");
    let json_err = |message: String| ScenarioError::Output {
        path: json_path.clone(),
        message,
    };
    let file = std::fs::File::create(&json_path).map_err(|e| json_err(e.to_string()))?;
    serde_json::to_writer(std::io::BufWriter::new(file), rec).map_err(|e| json_err(e.to_string()))
}

fn write_csv(path: &Path, rec: &Recording) -> std::result::Result<(), csv::Error> {
    let mut w = csv::Writer::from_path(path)?;
    let axes = ["x", "y", "z"];
    let n = rec.frames.first().map_or(0, |f| f.q.len());
    let mut header: Vec<String> = vec!["step".into(), "time_s".into()];
    header.extend((0..rec.dim).map(|a| format!("com_{}_m", axes[a])));
    header.extend([
        "kinetic_J".into(),
        "newton_iterations".into(),
        "residual_N".into(),
    ]);
    if let Some(f) = rec.frames.first() {
        header.extend(f.observables.iter().map(|(name, _)| name.clone()));
    }
    header.extend((0..n).map(|i| format!("q{i}")));
    w.write_record(&header)?;
    for f in &rec.frames {
        let mut row = vec![f.step.to_string(), format!("{:.9}", f.time)];
        row.extend(f.com.iter().map(|c| format!("{c:.9e}")));
        row.push(format!("{:.9e}", f.kinetic));
        row.push(f.newton_iterations.to_string());
        row.push(format!("{:.3e}", f.residual));
        row.extend(f.observables.iter().map(|(_, v)| format!("{v:.9e}")));
        row.extend(f.q.iter().map(|v| format!("{v:.12e}")));
        w.write_record(&row)?;
    }
    w.flush()?;
    Ok(())
}
