//! # pliant-hardware
//!
//! From an optimized gait to what the motors and valves run. A run's
//! controls (the slack-free cable contractions `u_post` of a gait
//! optimization, or any sampled control channels) are resampled at the
//! controller's rate from the optimizer's own cubic Hermite splines, mapped
//! through a [`HardwareProfile`] — cable motors (`u = r θ`, cable paper
//! §II-B) to encoder counts, pressure regulators to command voltages, servos
//! to pulse widths — checked against every position, speed and acceleration
//! limit (an error naming channel and time, or saturated with
//! [`LimitPolicy::Clip`]), quantized, and written by a named [`Backend`]:
//! `csv`, `json`, `c-header`, `roboclaw` (packet serial), `daq-voltage`,
//! or streamed live by `serial`. Backends register by name like energies;
//! a crate of your own adds one with [`register_backend!`], a runtime
//! plugin with [`export_backends!`].
//!
//! ```no_run
//! use pliant_hardware::{ExportOptions, HardwareProfile, export};
//! use std::path::Path;
//!
//! let profile = HardwareProfile::from_file(Path::new("examples/hardware/tripod_pololu_roboclaw.json"))?;
//! let report = export(
//!     Path::new("out/demo/demo_tripod"),
//!     &profile,
//!     "csv",
//!     ExportOptions { rate_hz: Some(1000.0), ..Default::default() },
//!     None,
//! )?;
//! println!("{} samples → {}", report.samples, report.output.display());
//! # Ok::<(), pliant_hardware::HardwareError>(())
//! ```
//!
//! Units: SI (m, Pa, rad, s) for controls; device units (counts, V, µs)
//! for commands.
#![warn(missing_docs)]

mod backend;
mod backends;
mod drive;
mod error;
mod limits;
mod plot;
pub mod plugin;
mod profile;
mod run;
mod spline;
mod table;

pub use backend::{Backend, BackendFactory, BackendListing, Decoded, backend, backends};
pub use backends::roboclaw;
pub use backends::serial::{StreamReport, stream};
pub use drive::{
    CableMotor, Dac, DeviceLimits, Drive, MotorLimits, PressureRegulator, RoboclawOutput, Servo,
};
pub use error::{HardwareError, Result, Violation};
pub use plot::plot;
pub use profile::{HardwareProfile, Link};
pub use run::{Interpolation, RunChannel, RunControls};
pub use table::{
    ChannelCommands, CommandTable, ExportMeta, ExportOptions, LimitPolicy, PLIANT_VERSION, build,
};

#[doc(hidden)]
pub use inventory;

use std::path::{Path, PathBuf};

/// What [`export`] did.
#[derive(Debug, Clone)]
pub struct ExportReport {
    /// Where the commands went (a file, or the serial port).
    pub output: PathBuf,
    /// The plot of the commands over the run's controls.
    pub plot: PathBuf,
    /// Samples per channel.
    pub samples: usize,
    /// The rate, Hz.
    pub rate_hz: f64,
    /// Channels exported.
    pub channels: Vec<String>,
    /// Limits broken and let through by the policy (saturated with
    /// [`LimitPolicy::Clip`], unchanged with [`LimitPolicy::Warn`]).
    pub violations: Vec<Violation>,
    /// Largest deviation clipping made per channel, device units.
    pub clip_deviation: Vec<f64>,
}

/// Exports the run in `run_dir` with `profile` through the backend named
/// `backend`: to `out`, or by default to `run_dir/commands_<backend>.<ext>`
/// (a streaming backend needs `out`, the port). Writes the plot next to the
/// output (`<output>.svg`; for a port, into the run directory). Nothing is
/// written when the run, the profile or the limits fail.
pub fn export(
    run_dir: &Path,
    profile: &HardwareProfile,
    backend: &str,
    opts: ExportOptions,
    out: Option<&Path>,
) -> Result<ExportReport> {
    let b = crate::backend(backend)?;
    let run = RunControls::read(run_dir)?;
    let table = build(&run, profile, opts)?;
    b.check(&table)?;
    let streaming = b.streams();
    let output = match out {
        Some(o) => o.to_path_buf(),
        None if streaming => {
            return Err(HardwareError::bad(
                "--out",
                "none",
                "the port to stream to (e.g. /dev/ttyUSB0)",
            ));
        }
        None => run_dir.join(format!("commands_{}.{}", b.name(), b.extension())),
    };
    let plot_path = if streaming {
        run_dir.join(format!("commands_{}.svg", b.name()))
    } else {
        let mut p = output.clone().into_os_string();
        p.push(".svg");
        PathBuf::from(p)
    };
    if let Some(dir) = plot_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(HardwareError::io(dir))?;
    }
    plot(&table, &run, &plot_path)?;
    b.deliver(&table, &output)?;
    Ok(ExportReport {
        output,
        plot: plot_path,
        samples: table.samples,
        rate_hz: table.rate_hz,
        channels: table.channels.iter().map(|c| c.name.clone()).collect(),
        violations: table.violations.clone(),
        clip_deviation: table.clip_deviation.clone(),
    })
}
