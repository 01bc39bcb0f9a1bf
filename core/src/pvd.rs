//! A time series of per-frame files plus the `.pvd` collection that
//! ParaView opens as one animated data set. Plugins write the frames in
//! their own format (tetrahedral grids, rod polylines); this keeps the
//! directory, the frame names and the index.

use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Writing a series failed.
#[derive(Debug, Error)]
pub enum SeriesError {
    /// File system error, with the path.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The frame's writer refused the data, or the data are inconsistent.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// Frames `<name>_00000.<ext>`, `<name>_00001.<ext>`, … in one directory,
/// indexed by `<name>.pvd` with their times (s).
#[derive(Debug)]
pub struct PvdSeries {
    dir: PathBuf,
    name: String,
    frames: Vec<(f64, String)>,
}

impl PvdSeries {
    /// A series `name` in directory `dir` (created if needed).
    pub fn new(dir: &Path, name: &str) -> Result<Self, SeriesError> {
        std::fs::create_dir_all(dir).map_err(|source| SeriesError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(Self {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            frames: vec![],
        })
    }
    /// The series name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Path and file name of the next frame, with extension `ext`.
    pub fn next_frame(&self, ext: &str) -> (PathBuf, String) {
        let file = format!("{}_{:05}.{ext}", self.name, self.frames.len());
        (self.dir.join(&file), file)
    }
    /// Records the frame `file` (written by the caller) at time `t` (s)
    /// and rewrites the index, so a run stopped early leaves a valid series.
    pub fn push(&mut self, t: f64, file: String) -> Result<(), SeriesError> {
        self.frames.push((t, file));
        let path = self.dir.join(format!("{}.pvd", self.name));
        let io = |source| SeriesError::Io {
            path: path.clone(),
            source,
        };
        let mut body = String::from(
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n",
        );
        for (t, file) in &self.frames {
            body.push_str(&format!(
                "    <DataSet timestep=\"{t}\" part=\"0\" file=\"{file}\"/>\n"
            ));
        }
        body.push_str("  </Collection>\n</VTKFile>\n");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).map_err(io)?);
        f.write_all(body.as_bytes()).map_err(io)?;
        f.flush().map_err(io)
    }
    /// Number of frames written.
    pub fn len(&self) -> usize {
        self.frames.len()
    }
    /// Whether no frame was written.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}
