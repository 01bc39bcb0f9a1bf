//! What can go wrong between an optimized run and the hardware.

use std::path::PathBuf;
use thiserror::Error;

/// Result of this crate.
pub type Result<T, E = HardwareError> = std::result::Result<T, E>;

/// One limit a command signal broke: where, when and by how much.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// Actuator channel.
    pub channel: String,
    /// Which limit (`position`, `speed`, `acceleration`, `pressure`, …).
    pub limit: &'static str,
    /// Time of the worst sample, s from the start of the run.
    pub time: f64,
    /// The value there, in `unit`.
    pub value: f64,
    /// The limit it broke, in `unit` (the bound on the side it left).
    pub bound: f64,
    /// Unit of `value` and `bound` (device units: counts, counts/s, V, µs, …).
    pub unit: String,
    /// Samples beyond the limit on this channel.
    pub samples: usize,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "channel `{}`: {} {:.6} {} at t = {:.4} s is beyond the limit {:.6} {} ({} samples beyond)",
            self.channel,
            self.limit,
            self.value,
            self.unit,
            self.time,
            self.bound,
            self.unit,
            self.samples
        )
    }
}

/// Why an export failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum HardwareError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A profile file does not parse or does not match the schema.
    #[error("hardware profile {path}{}: {message}", if field.is_empty() { String::new() } else { format!(", field `{field}`") })]
    Profile {
        /// File (or origin) of the profile.
        path: String,
        /// JSON path of the offending field (empty for the whole file).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A profile value is out of its physical range (zero spool radius, …).
    #[error("hardware profile, field `{field}` = {value}: {expected}")]
    BadValue {
        /// JSON path of the field.
        field: String,
        /// The value found.
        value: String,
        /// What it must be.
        expected: String,
    },
    /// The run directory is missing something or is malformed.
    #[error("run {path}: {message}")]
    Run {
        /// The run directory or file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The run has an actuator channel the profile does not describe.
    #[error(
        "the run has channel `{channel}` but the hardware profile `{profile}` has no drive for it (it has: {})",
        known.join(", ")
    )]
    MissingChannel {
        /// The channel.
        channel: String,
        /// The profile's name.
        profile: String,
        /// Channels the profile describes.
        known: Vec<String>,
    },
    /// A channel's control unit does not suit its drive (a pressure mapped to
    /// a cable motor).
    #[error(
        "channel `{channel}`: the run's control is in `{found}` but a {kind} takes `{expected}`"
    )]
    UnitMismatch {
        /// The channel.
        channel: String,
        /// The run's unit.
        found: String,
        /// The drive kind.
        kind: &'static str,
        /// The unit the drive takes.
        expected: &'static str,
    },
    /// The controller rate is not a positive finite number.
    #[error("controller rate {rate} Hz: must be a positive, finite number of samples per second")]
    BadRate {
        /// The rate given.
        rate: f64,
    },
    /// The rate asks for more samples than an export makes.
    #[error(
        "{rate} Hz over {duration} s is {samples:.0} samples per channel, more than {max}; lower --rate"
    )]
    TooManySamples {
        /// The rate, Hz.
        rate: f64,
        /// The run's duration, s.
        duration: f64,
        /// Samples it would take.
        samples: f64,
        /// The cap.
        max: usize,
    },
    /// No backend of that name is registered.
    #[error("no export backend `{name}`; available: {}", known.join(", "))]
    UnknownBackend {
        /// The name asked for.
        name: String,
        /// Registered names.
        known: Vec<String>,
    },
    /// A backend cannot drive a channel of this kind.
    #[error("backend `{backend}` cannot drive channel `{channel}` (a {kind}); {hint}")]
    Unsupported {
        /// The backend.
        backend: String,
        /// The channel.
        channel: String,
        /// Its drive kind.
        kind: &'static str,
        /// What to do instead.
        hint: String,
    },
    /// Commands break the hardware's limits (not clipped: `--clip` saturates).
    #[error(
        "{} limit violation(s) (--clip saturates the commands and reports, --warn-limits writes them unchanged and reports):\n  {}",
        violations.len(),
        violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  ")
    )]
    Limits {
        /// Every violation, worst sample per channel and limit.
        violations: Vec<Violation>,
    },
    /// Clipping could not bring a channel within its limits (a range too
    /// narrow for its speed and acceleration, say).
    #[error(
        "clipping left {} violation(s):\n  {}",
        violations.len(),
        violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  ")
    )]
    ClipFailed {
        /// What is still broken.
        violations: Vec<Violation>,
    },
    /// A control or command is not a finite number (a degenerate profile or
    /// run).
    #[error("channel `{channel}` at t = {time} s: control {control}, command {device}: not finite")]
    NonFinite {
        /// The channel.
        channel: String,
        /// The time, s.
        time: f64,
        /// The control value.
        control: f64,
        /// The device value.
        device: f64,
    },
    /// A command does not fit the device's number format.
    #[error("channel `{channel}`: {value} {unit} does not fit the device's {format}")]
    Overflow {
        /// The channel.
        channel: String,
        /// The value.
        value: f64,
        /// Its unit.
        unit: String,
        /// The format (e.g. `signed 32-bit encoder count`).
        format: &'static str,
    },
    /// The serial link cannot carry the stream at the asked rate.
    #[error(
        "backend `{backend}`: {bytes_per_s:.0} bytes/s at {rate} Hz needs {needed_baud:.0} baud, more than the link's {baud}; lower --rate or raise the profile's `link.baud`"
    )]
    Bandwidth {
        /// The backend.
        backend: String,
        /// Controller rate, Hz.
        rate: f64,
        /// Bytes per second the stream needs.
        bytes_per_s: f64,
        /// Baud the stream needs (10 bits per byte on a UART).
        needed_baud: f64,
        /// The link's baud rate.
        baud: u32,
    },
    /// Decoding a written file failed (round trips, `decode`).
    #[error("decoding `{backend}` output: {message}")]
    Decode {
        /// The backend.
        backend: String,
        /// What is wrong, with the byte offset or line where possible.
        message: String,
    },
    /// The serial port failed or the device did not acknowledge.
    #[error("serial port {port}: {message}")]
    Serial {
        /// The port path.
        port: String,
        /// What happened (after how many ticks).
        message: String,
    },
    /// Drawing the plot failed.
    #[error("plot {path}: {message}")]
    Plot {
        /// The plot file.
        path: PathBuf,
        /// The drawing backend's message.
        message: String,
    },
    /// A library without the backend entry points.
    #[error(
        "plugin {path}: no `{symbol}` entry point; is it a backend plugin built with `pliant_hardware::export_backends!`? (energy plugins load with `--plugin` on simulate/energies)"
    )]
    NotABackendPlugin {
        /// The library.
        path: PathBuf,
        /// The missing symbol.
        symbol: String,
    },
    /// A backend plugin panicked (caught inside the plugin).
    #[error("backend `{backend}` (a plugin) panicked: {message}")]
    PluginPanic {
        /// The backend.
        backend: String,
        /// The panic message.
        message: String,
    },
    /// A plugin's backend name is taken already.
    #[error("backend plugin {path}: backend `{name}` is already provided by {existing}")]
    DuplicateBackend {
        /// The plugin.
        path: PathBuf,
        /// The name.
        name: String,
        /// Who provides it.
        existing: String,
    },
    /// A backend plugin could not be loaded.
    #[error(transparent)]
    Plugin(#[from] pliant_core::plugin::PluginError),
}

impl HardwareError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| HardwareError::Io { path, source }
    }
    pub(crate) fn bad(field: impl Into<String>, value: impl ToString, expected: &str) -> Self {
        HardwareError::BadValue {
            field: field.into(),
            value: value.to_string(),
            expected: expected.into(),
        }
    }
    pub(crate) fn decode(backend: &str, message: impl Into<String>) -> Self {
        HardwareError::Decode {
            backend: backend.into(),
            message: message.into(),
        }
    }
}
