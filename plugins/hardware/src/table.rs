//! The export pipeline: a run's controls resampled at the controller rate,
//! mapped through the profile to device commands, checked against every
//! limit (or saturated), quantized — one [`CommandTable`] every backend
//! writes.

use crate::drive::Drive;
use crate::error::{HardwareError, Result, Violation};
use crate::limits;
use crate::profile::HardwareProfile;
use crate::run::RunControls;

/// Most samples per channel an export makes (10⁷: 2.8 hours at 1 kHz).
pub const MAX_SAMPLES: usize = 10_000_000;

/// pliant's version, recorded in every export.
pub const PLIANT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// What to do when commands break a limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LimitPolicy {
    /// Fail with every violation (the default).
    #[default]
    Fail,
    /// Saturate the commands to the limits and report what was saturated.
    Clip,
    /// Write the commands unchanged and report the violations (a bench
    /// test with the motors off the robot, a motor known to be faster than
    /// its profile says).
    Warn,
}

/// How to export.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExportOptions {
    /// Controller rate, Hz (default: the profile's `rate_hz`).
    pub rate_hz: Option<f64>,
    /// What a limit violation does.
    pub limits: LimitPolicy,
}

/// One channel's commands.
#[derive(Debug, Clone)]
pub struct ChannelCommands {
    /// Channel name (the run's motor or control channel).
    pub name: String,
    /// What drives it.
    pub drive: Drive,
    /// The control at each sample time, before limits (m, Pa, …).
    pub control: Vec<f64>,
    /// The device command at each sample time, after limits and
    /// quantization (counts, V, µs).
    pub device: Vec<f64>,
}

/// Where a table came from, for headers.
#[derive(Debug, Clone)]
pub struct ExportMeta {
    /// The profile used.
    pub profile: HardwareProfile,
    /// The run directory.
    pub source: String,
    /// The run's name.
    pub run_name: String,
    /// pliant's version.
    pub pliant_version: &'static str,
    /// How the signal between the run's samples was obtained.
    pub interpolation: String,
}

/// Device commands at a fixed rate: sample `i` at `t = i / rate_hz`.
#[derive(Debug, Clone)]
pub struct CommandTable {
    /// Controller rate, Hz.
    pub rate_hz: f64,
    /// Number of samples.
    pub samples: usize,
    /// Channels in the run's order.
    pub channels: Vec<ChannelCommands>,
    /// Provenance.
    pub meta: ExportMeta,
    /// The limits the commands broke, when the policy let the export go on
    /// (saturated with [`LimitPolicy::Clip`], unchanged with
    /// [`LimitPolicy::Warn`]).
    pub violations: Vec<Violation>,
    /// Largest deviation clipping made per channel, device units.
    pub clip_deviation: Vec<f64>,
}

impl CommandTable {
    /// Time of sample `i`, s.
    pub fn time(&self, i: usize) -> f64 {
        i as f64 / self.rate_hz
    }
}

/// Builds the command table of `run` on `profile` (see the module
/// documentation). Fails on a channel the profile lacks, a bad rate, a unit
/// mismatch, or — with [`LimitPolicy::Fail`] — any limit violation, listing
/// them all.
pub fn build(
    run: &RunControls,
    profile: &HardwareProfile,
    opts: ExportOptions,
) -> Result<CommandTable> {
    let rate = opts.rate_hz.unwrap_or(profile.rate_hz);
    if !(rate.is_finite() && rate > 0.0) {
        return Err(HardwareError::BadRate { rate });
    }
    let duration = run.duration();
    // Up to the first sample at or after the run's end.
    let count = (duration * rate - 1e-9).ceil().max(0.0) + 1.0;
    if count > MAX_SAMPLES as f64 {
        return Err(HardwareError::TooManySamples {
            rate,
            duration,
            samples: count,
            max: MAX_SAMPLES,
        });
    }
    let samples = count as usize;
    for name in profile.channels.keys() {
        if !run.channels.iter().any(|c| &c.name == name) {
            log::warn!(
                "profile `{}` drives `{name}`, which the run does not have: not exported",
                profile.name
            );
        }
    }
    let mut channels = Vec::with_capacity(run.channels.len());
    let mut violations = Vec::new();
    let mut clip_deviation = Vec::new();
    for ch in &run.channels {
        let drive = profile.drive(&ch.name)?.clone();
        let expected = drive.control_unit();
        if expected != "unit" && !ch.unit.is_empty() && ch.unit != expected {
            return Err(HardwareError::UnitMismatch {
                channel: ch.name.clone(),
                found: ch.unit.clone(),
                kind: drive.kind(),
                expected,
            });
        }
        let control: Vec<f64> = (0..samples).map(|i| ch.value(i as f64 / rate)).collect();
        let mut device: Vec<f64> = control.iter().map(|&u| drive.to_device(u)).collect();
        if let Some(i) = (0..samples).find(|&i| !(control[i].is_finite() && device[i].is_finite()))
        {
            return Err(HardwareError::NonFinite {
                channel: ch.name.clone(),
                time: i as f64 / rate,
                control: control[i],
                device: device[i],
            });
        }
        let lim = drive.limits();
        // The device starts at rest on the first command (a robot is moved
        // to its start pose before the stream begins; from the assembly
        // position that is the initial slack take-up, about a
        // millimetre for the paper's gaits).
        let rest = device[0];
        let v = limits::check(&ch.name, drive.device_unit(), &device, rate, rest, &lim);
        let mut deviation = 0.0;
        if !v.is_empty() && opts.limits == LimitPolicy::Clip {
            deviation = limits::clip(&mut device, rate, rest, &lim);
            // The tracker starts at the first command brought into range.
            let start = rest.clamp(lim.range.0, lim.range.1);
            let after = limits::check(&ch.name, drive.device_unit(), &device, rate, start, &lim);
            if !after.is_empty() {
                return Err(HardwareError::ClipFailed { violations: after });
            }
        }
        violations.extend(v);
        clip_deviation.push(deviation);
        for d in &mut device {
            *d = drive.quantize(*d);
        }
        channels.push(ChannelCommands {
            name: ch.name.clone(),
            drive,
            control,
            device,
        });
    }
    if !violations.is_empty() && opts.limits == LimitPolicy::Fail {
        return Err(HardwareError::Limits { violations });
    }
    let mut methods: Vec<&str> = run
        .channels
        .iter()
        .map(|c| c.interpolation.describe())
        .collect();
    methods.dedup();
    Ok(CommandTable {
        rate_hz: rate,
        samples,
        channels,
        meta: ExportMeta {
            profile: profile.clone(),
            source: run.dir.display().to_string(),
            run_name: run.name.clone(),
            pliant_version: PLIANT_VERSION,
            interpolation: methods.join("; "),
        },
        violations,
        clip_deviation,
    })
}
