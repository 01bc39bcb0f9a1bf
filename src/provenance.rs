//! `run.json`: how an output directory was made — pliant's version and git
//! commit, the command line, the whole input (scene or spec), plugins with
//! their ABI tag, threads, wall time, how far the run got and why it
//! stopped. Re-running `pliant simulate` on the recorded `input` (with the
//! recorded command-line overrides) reproduces the trajectory bitwise
//! (tested); mesh files a scene names are recorded by path, not content.

use serde::Serialize;
use std::path::{Path, PathBuf};

/// A plugin library loaded for the run.
#[derive(Debug, Clone, Serialize)]
pub struct PluginRecord {
    /// The library's path as given.
    pub path: String,
    /// What it registered.
    pub names: Vec<String>,
    /// The ABI tag it matched (pliant-core's for energy plugins).
    pub abi_tag: String,
}

/// The record written to `OUT/run.json`.
#[derive(Debug, Clone, Serialize)]
pub struct RunRecord {
    /// `pliant`'s version.
    pub pliant_version: &'static str,
    /// The git commit the binary was built from (`+modified` if the
    /// checkout had changes), when built from a checkout.
    pub git_commit: Option<&'static str>,
    /// The command line.
    pub command: Vec<String>,
    /// The input file's path as given.
    pub input_path: Option<String>,
    /// The input itself (scene or spec), as parsed JSON.
    pub input: serde_json::Value,
    /// Plugins loaded.
    pub plugins: Vec<PluginRecord>,
    /// Worker threads (rayon's pool).
    pub threads: usize,
    /// Start, seconds since the Unix epoch (UTC).
    pub started_unix_s: f64,
    /// Wall time, s.
    pub wall_time_s: f64,
    /// Steps (simulate) or iterations (optimize) done.
    pub progress: u64,
    /// What `progress` counts.
    pub progress_unit: &'static str,
    /// Why it stopped: `finished`, `interrupted`, or the error.
    pub stopped: String,
    /// Peak resident memory of the process, bytes (`VmHWM` of
    /// `/proc/self/status`; absent where that does not exist).
    pub peak_memory_bytes: Option<u64>,
}

/// The process's peak resident set size, bytes (Linux's `VmHWM`).
pub fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

impl RunRecord {
    /// A record of the command running now, reading its input from `input`.
    pub fn start(
        input: Option<&Path>,
        text: Option<&str>,
        plugins: Vec<PluginRecord>,
        progress_unit: &'static str,
    ) -> Self {
        let commit = env!("PLIANT_GIT_COMMIT");
        Self {
            pliant_version: env!("CARGO_PKG_VERSION"),
            git_commit: (!commit.is_empty()).then_some(commit),
            command: std::env::args().collect(),
            input_path: input.map(|p| p.display().to_string()),
            input: text
                .and_then(|t| serde_json::from_str(t).ok())
                .unwrap_or(serde_json::Value::Null),
            plugins,
            threads: rayon::current_num_threads(),
            started_unix_s: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
            wall_time_s: 0.0,
            progress: 0,
            progress_unit,
            stopped: String::new(),
            peak_memory_bytes: None,
        }
    }

    /// Fills in the end and writes `dir/run.json`.
    pub fn finish(
        mut self,
        dir: &Path,
        started: std::time::Instant,
        progress: u64,
        stopped: String,
    ) -> anyhow::Result<PathBuf> {
        self.wall_time_s = started.elapsed().as_secs_f64();
        self.progress = progress;
        self.stopped = stopped;
        self.peak_memory_bytes = peak_memory_bytes();
        std::fs::create_dir_all(dir)?;
        let path = dir.join("run.json");
        std::fs::write(&path, serde_json::to_string_pretty(&self)? + "\n")?;
        Ok(path)
    }
}
