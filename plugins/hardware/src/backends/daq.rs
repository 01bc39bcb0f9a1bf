//! `daq-voltage`: per-channel analogue-output sample tables for DAQ cards
//! (the snake set-up: SMC ITV3050 regulators driven 0–10 V from a National
//! Instruments card under MATLAB/Simulink Desktop Real-Time). One row per
//! sample, one column per analogue output in `ao_channel` order, volts with
//! seven decimals; the header lines start with `%`, so MATLAB's `load` and
//! `readmatrix`, NumPy's `loadtxt(comments="%")` read it as a matrix.

use super::provenance;
use crate::backend::{Backend, Decoded};
use crate::drive::Drive;
use crate::error::{HardwareError, Result};
use crate::profile::HardwareProfile;
use crate::table::{ChannelCommands, CommandTable};
use std::io::Write;

/// The `daq-voltage` backend.
#[derive(Debug, Default)]
pub struct DaqVoltage;

crate::register_backend!(DaqVoltage);

/// Channels in analogue-output order (by `ao_channel`, then name).
fn ordered<'a>(channels: impl Iterator<Item = (&'a str, &'a Drive)>) -> Vec<(&'a str, &'a Drive)> {
    let mut v: Vec<(&str, &Drive)> = channels.collect();
    v.sort_by_key(|(n, d)| {
        let ao = match d {
            Drive::PressureRegulator(p) => p.ao_channel.unwrap_or(u32::MAX),
            _ => u32::MAX,
        };
        (ao, n.to_string())
    });
    v
}

impl Backend for DaqVoltage {
    fn name(&self) -> &str {
        "daq-voltage"
    }
    fn summary(&self) -> &str {
        "analogue-output voltage matrix for DAQ cards (pressure regulators), `%` header, one column per AO channel"
    }
    fn extension(&self) -> &str {
        "txt"
    }
    fn check(&self, t: &CommandTable) -> Result<()> {
        // Columns are positional: analogue outputs must be 0, 1, … n−1, each
        // once (or none given: profile order).
        let aos: Vec<Option<u32>> = t
            .channels
            .iter()
            .map(|c| match &c.drive {
                Drive::PressureRegulator(p) => p.ao_channel,
                _ => None,
            })
            .collect();
        if aos.iter().any(Option::is_some) {
            let mut given: Vec<u32> = aos.iter().flatten().copied().collect();
            given.sort_unstable();
            let expected: Vec<u32> = (0..t.channels.len() as u32).collect();
            if given != expected {
                let c = &t.channels[0];
                return Err(HardwareError::Unsupported {
                    backend: self.name().into(),
                    channel: c.name.clone(),
                    kind: c.drive.kind(),
                    hint: format!(
                        "the exported channels' ao_channel values are {given:?}; its columns are positional, so they must be 0..{} each once",
                        t.channels.len()
                    ),
                });
            }
        }
        for c in &t.channels {
            match &c.drive {
                Drive::PressureRegulator(p) if p.signal_unit == "V" => {}
                d => {
                    return Err(HardwareError::Unsupported {
                        backend: self.name().into(),
                        channel: c.name.clone(),
                        kind: d.kind(),
                        hint: "it writes voltages for analogue outputs: only pressure regulators with a `V` signal; use `csv` or `c-header` for motors and servos".into(),
                    });
                }
            }
        }
        Ok(())
    }
    fn write(&self, t: &CommandTable, w: &mut dyn Write) -> Result<()> {
        self.check(t)?;
        let io = HardwareError::from_io;
        for line in provenance(t, self.name()) {
            writeln!(w, "% {line}").map_err(io)?;
        }
        let by_name = |n: &str| -> &ChannelCommands {
            t.channels
                .iter()
                .find(|c| c.name == n)
                .expect("own channel")
        };
        let cols = ordered(t.channels.iter().map(|c| (c.name.as_str(), &c.drive)));
        let desc: Vec<String> = cols
            .iter()
            .map(|(n, d)| match d {
                Drive::PressureRegulator(p) => format!(
                    "{n}=ao{}",
                    p.ao_channel.map_or("?".into(), |a| a.to_string())
                ),
                _ => n.to_string(),
            })
            .collect();
        writeln!(w, "% columns (V): {}", desc.join(" ")).map_err(io)?;
        let cols: Vec<&ChannelCommands> = cols.iter().map(|(n, _)| by_name(n)).collect();
        for i in 0..t.samples {
            let row: Vec<String> = cols.iter().map(|c| format!("{:.7}", c.device[i])).collect();
            writeln!(w, "{}", row.join(" ")).map_err(io)?;
        }
        Ok(())
    }
    fn decode(&self, bytes: &[u8], _profile: &HardwareProfile) -> Result<Decoded> {
        let bad = |m: String| HardwareError::decode("daq-voltage", m);
        let text = std::str::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
        let mut names: Vec<String> = Vec::new();
        let mut rate_hz = None;
        let mut rows: Vec<Vec<f64>> = Vec::new();
        for (no, line) in text.lines().enumerate() {
            if let Some(c) = line.strip_prefix('%') {
                let c = c.trim();
                if let Some(r) = c.strip_prefix("rate_hz:") {
                    rate_hz = r.trim().parse().ok();
                }
                if let Some(cols) = c.strip_prefix("columns (V):") {
                    names = cols
                        .split_whitespace()
                        .map(|s| s.split_once('=').map_or(s, |(n, _)| n).to_string())
                        .collect();
                }
                continue;
            }
            let row = line
                .split_whitespace()
                .map(|s| {
                    s.parse::<f64>()
                        .map_err(|_| bad(format!("line {}: `{s}` is not a number", no + 1)))
                })
                .collect::<Result<Vec<f64>>>()?;
            if row.len() != names.len() {
                return Err(bad(format!(
                    "line {}: {} values for {} columns",
                    no + 1,
                    row.len(),
                    names.len()
                )));
            }
            rows.push(row);
        }
        let channels = names
            .iter()
            .enumerate()
            .map(|(k, n)| (n.clone(), rows.iter().map(|r| r[k]).collect()))
            .collect();
        Ok(Decoded { rate_hz, channels })
    }
}
