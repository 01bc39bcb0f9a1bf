//! Trajectory output, written while the run goes: `trajectory.csv` (one row
//! per recorded step) and `trajectory.json`, streamed through buffers as
//! frames arrive (memory does not grow with the run) and closed on every
//! way a run ends, so a failed or interrupted run keeps every step it
//! finished.

use pliant_scenarios::{Result, ScenarioError};
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The I/O error of `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ScenarioError + '_ {
    move |source| ScenarioError::Io {
        path: path.to_path_buf(),
        source,
    }
}

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

/// Writes frames to `DIR/trajectory.csv` and `DIR/trajectory.json` as they
/// come. The JSON document is `{"dim": …, "dt": …, "frames": [Frame, …]}`;
/// the CSV has step, time, COM, kinetic energy, Newton iterations,
/// residual, the energies' observables (cable tension and slack, …), then
/// every DOF.
pub struct TrajectoryWriter {
    csv: csv::Writer<BufWriter<File>>,
    csv_path: PathBuf,
    json: BufWriter<File>,
    json_path: PathBuf,
    frames: usize,
    dofs: usize,
    observables: usize,
}

/// Bytes a frame of `dofs` DOFs and `observables` observables takes in both
/// files, roughly (for the disk budget of a run).
pub fn frame_bytes(dofs: usize, observables: usize) -> u64 {
    // CSV: ~20 characters per value; JSON: ~24, plus the observables' names.
    (44 * (dofs + observables + 8) + 32 * observables) as u64
}

/// Bytes a ParaView frame of `model` takes, roughly: per node its position,
/// velocity and a few force vectors (8-byte values); per element its cell
/// (up to 5 indices and a type, 4 bytes each) and two fields (8 bytes each).
pub fn vtk_frame_bytes(model: &pliant_core::Model) -> u64 {
    let nodes = model.layout().n_nodes() as u64;
    let elements: u64 = model
        .energies()
        .iter()
        .map(|e| e.elements().len() as u64)
        .sum();
    nodes * 8 * 3 * 6 + elements * (6 * 4 + 2 * 8)
}

impl TrajectoryWriter {
    /// Creates `dir` and both files, and writes their headers; the column
    /// set is that of `first`.
    pub fn create(dir: &Path, dim: usize, dt: f64, first: &Frame) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let csv_path = dir.join("trajectory.csv");
        let json_path = dir.join("trajectory.json");
        let csv_file = File::create(&csv_path).map_err(io(&csv_path))?;
        let json_file = File::create(&json_path).map_err(io(&json_path))?;
        let mut w = Self {
            csv: csv::Writer::from_writer(BufWriter::new(csv_file)),
            csv_path,
            json: BufWriter::new(json_file),
            json_path,
            frames: 0,
            dofs: first.q.len(),
            observables: first.observables.len(),
        };
        let axes = ["x", "y", "z"];
        let mut header: Vec<String> = vec!["step".into(), "time_s".into()];
        header.extend((0..dim).map(|a| format!("com_{}_m", axes[a])));
        header.extend([
            "kinetic_J".into(),
            "newton_iterations".into(),
            "residual_N".into(),
        ]);
        header.extend(first.observables.iter().map(|(name, _)| name.clone()));
        header.extend((0..w.dofs).map(|i| format!("q{i}")));
        w.csv.write_record(&header).map_err(|e| w.csv_err(e))?;
        let head = format!(
            "{{\"dim\":{dim},\"dt\":{},\"frames\":[",
            serde_json::to_string(&dt).map_err(|e| w.json_err(e.to_string()))?
        );
        w.json
            .write_all(head.as_bytes())
            .map_err(|e| w.json_err(e.to_string()))?;
        Ok(w)
    }

    fn csv_err(&self, e: csv::Error) -> ScenarioError {
        ScenarioError::Output {
            path: self.csv_path.clone(),
            message: e.to_string(),
        }
    }

    fn json_err(&self, message: String) -> ScenarioError {
        ScenarioError::Output {
            path: self.json_path.clone(),
            message,
        }
    }

    /// Appends a frame to both files.
    pub fn push(&mut self, f: &Frame) -> Result<()> {
        let mut row = vec![f.step.to_string(), format!("{:.9}", f.time)];
        row.extend(f.com.iter().map(|c| format!("{c:.9e}")));
        row.push(format!("{:.9e}", f.kinetic));
        row.push(f.newton_iterations.to_string());
        row.push(format!("{:.3e}", f.residual));
        // The columns of the header, whatever a frame reports (an energy
        // that fails may report none): missing values are NaN.
        row.extend((0..self.observables).map(|k| {
            f.observables
                .get(k)
                .map_or("NaN".to_string(), |(_, v)| format!("{v:.9e}"))
        }));
        row.extend((0..self.dofs).map(|k| {
            f.q.get(k)
                .map_or("NaN".to_string(), |v| format!("{v:.12e}"))
        }));
        self.csv.write_record(&row).map_err(|e| self.csv_err(e))?;
        if self.frames > 0 {
            self.json
                .write_all(b",")
                .map_err(|e| self.json_err(e.to_string()))?;
        }
        serde_json::to_writer(&mut self.json, f).map_err(|e| self.json_err(e.to_string()))?;
        self.frames += 1;
        Ok(())
    }

    /// Frames written so far.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Closes the JSON document and flushes both files.
    pub fn finish(mut self) -> Result<()> {
        self.csv.flush().map_err(|e| self.csv_err(e.into()))?;
        self.json
            .write_all(b"]}")
            .and_then(|_| self.json.flush())
            .map_err(|e| self.json_err(e.to_string()))
    }
}
