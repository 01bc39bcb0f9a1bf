//! Simulating a scene for the command line: stepping with a progress bar
//! (keeping the frames computed before a failure) and writing the
//! trajectory as CSV and JSON.

mod output;
mod run;

pub use output::{Frame, Recording, write};
pub use run::{RunResult, run};
