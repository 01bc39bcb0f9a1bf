//! Simulating a scene for the command line: stepping with a progress bar
//! and writing the trajectory (CSV and JSON) as it goes, so a failed or
//! interrupted run keeps the steps it finished.

mod output;
mod run;

pub use output::{Frame, TrajectoryWriter, frame_bytes, vtk_frame_bytes};
pub use run::{RunResult, run, stop_on_signals};
