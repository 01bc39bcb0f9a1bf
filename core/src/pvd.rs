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
/// indexed by `<name>.pvd` with their times (s). The index is appended to
/// as frames arrive (constant work and memory per frame) and is a complete
/// document after every frame, so a run stopped early leaves a valid
/// series.
#[derive(Debug)]
pub struct PvdSeries {
    dir: PathBuf,
    name: String,
    frames: usize,
    index: Option<std::fs::File>,
}

/// The end of the index, rewritten after every frame.
const TAIL: &str = "  </Collection>\n</VTKFile>\n";

/// `s` escaped for an XML attribute.
fn xml_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
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
            frames: 0,
            index: None,
        })
    }
    /// The series name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    /// Path and file name of the next frame, with extension `ext`.
    pub fn next_frame(&self, ext: &str) -> (PathBuf, String) {
        let file = format!("{}_{:05}.{ext}", self.name, self.frames);
        (self.dir.join(&file), file)
    }
    /// Records the frame `file` (written by the caller) at time `t` (s).
    pub fn push(&mut self, t: f64, file: String) -> Result<(), SeriesError> {
        self.push_parts(t, &[(String::new(), file)])
    }
    /// Records a frame of several parts (one file each, relative to the
    /// series directory; a file may repeat from frame to frame, such as a
    /// fixed ground) at time `t` (s). Part `k` of every frame is the same
    /// piece; ParaView shows the parts as blocks named by `name`.
    pub fn push_parts(&mut self, t: f64, parts: &[(String, String)]) -> Result<(), SeriesError> {
        use std::io::{Seek, SeekFrom};
        let path = self.dir.join(format!("{}.pvd", self.name));
        let io = |source| SeriesError::Io {
            path: path.clone(),
            source,
        };
        let mut body = String::new();
        if self.index.is_none() {
            self.index = Some(std::fs::File::create(&path).map_err(io)?);
            body.push_str(
                "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n",
            );
        }
        for (k, (name, file)) in parts.iter().enumerate() {
            let name = if name.is_empty() {
                String::new()
            } else {
                format!(" name=\"{}\"", xml_attr(name))
            };
            body.push_str(&format!(
                "    <DataSet timestep=\"{t}\" part=\"{k}\"{name} file=\"{}\"/>\n",
                xml_attr(file)
            ));
        }
        let f = self.index.as_mut().expect("opened above");
        f.write_all(body.as_bytes()).map_err(io)?;
        f.write_all(TAIL.as_bytes()).map_err(io)?;
        f.flush().map_err(io)?;
        // The next frame overwrites the tail.
        f.seek(SeekFrom::Current(-(TAIL.len() as i64)))
            .map_err(io)?;
        self.frames += 1;
        Ok(())
    }
    /// Number of frames written.
    pub fn len(&self) -> usize {
        self.frames
    }
    /// Whether no frame was written.
    pub fn is_empty(&self) -> bool {
        self.frames == 0
    }
}
