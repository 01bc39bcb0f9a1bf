//! `csv`: a time-stamped command table in device units, with a `#` header
//! recording pliant's version, the run, the rate and the profile.

use super::{number, provenance};
use crate::backend::{Backend, Decoded};
use crate::error::{HardwareError, Result};
use crate::profile::HardwareProfile;
use crate::table::CommandTable;
use std::io::Write;

/// The `csv` backend.
#[derive(Debug, Default)]
pub struct Csv;

crate::register_backend!(Csv);

impl Backend for Csv {
    fn name(&self) -> &str {
        "csv"
    }
    fn summary(&self) -> &str {
        "time-stamped commands in device units (counts, V, us), `#` header with run, rate and profile"
    }
    fn extension(&self) -> &str {
        "csv"
    }
    fn write(&self, t: &CommandTable, w: &mut dyn Write) -> Result<()> {
        let io = HardwareError::from_io;
        for line in provenance(t, self.name()) {
            writeln!(w, "# {line}").map_err(io)?;
        }
        let mut header = vec!["sample".to_string(), "time_s".to_string()];
        header.extend(
            t.channels
                .iter()
                .map(|c| format!("{}_{}", c.name, c.drive.device_unit())),
        );
        writeln!(w, "{}", header.join(",")).map_err(io)?;
        for i in 0..t.samples {
            write!(w, "{i},{}", t.time(i)).map_err(io)?;
            for c in &t.channels {
                write!(w, ",{}", number(c.device[i])).map_err(io)?;
            }
            writeln!(w).map_err(io)?;
        }
        Ok(())
    }
    fn decode(&self, bytes: &[u8], profile: &HardwareProfile) -> Result<Decoded> {
        decode_table(self.name(), bytes, profile, b'#')
    }
}

/// Reads a commented table whose columns are `sample`, `time_s` and
/// `<channel>_<unit>`; the rate from a `rate_hz:` comment.
pub(crate) fn decode_table(
    backend: &str,
    bytes: &[u8],
    profile: &HardwareProfile,
    comment: u8,
) -> Result<Decoded> {
    let text =
        std::str::from_utf8(bytes).map_err(|e| HardwareError::decode(backend, e.to_string()))?;
    let rate_hz = text
        .lines()
        .filter(|l| l.as_bytes().first() == Some(&comment))
        .find_map(|l| l[1..].trim().strip_prefix("rate_hz:"))
        .and_then(|r| r.trim().parse().ok());
    let mut rd = csv::ReaderBuilder::new()
        .comment(Some(comment))
        .from_reader(bytes);
    let headers: Vec<String> = rd
        .headers()
        .map_err(|e| HardwareError::decode(backend, e.to_string()))?
        .iter()
        .map(str::to_string)
        .collect();
    let mut cols: Vec<(usize, String)> = Vec::new();
    for (i, h) in headers.iter().enumerate() {
        if let Some((name, _unit)) = h.rsplit_once('_')
            && profile.channels.contains_key(name)
        {
            cols.push((i, name.to_string()));
        }
    }
    let mut channels: Vec<(String, Vec<f64>)> =
        cols.iter().map(|(_, n)| (n.clone(), Vec::new())).collect();
    for (line, rec) in rd.records().enumerate() {
        let rec = rec.map_err(|e| HardwareError::decode(backend, e.to_string()))?;
        for (k, (i, _)) in cols.iter().enumerate() {
            let v: f64 = rec
                .get(*i)
                .and_then(|s| s.trim().parse().ok())
                .ok_or_else(|| {
                    HardwareError::decode(
                        backend,
                        format!("record {line}, column {i}: not a number"),
                    )
                })?;
            channels[k].1.push(v);
        }
    }
    Ok(Decoded { rate_hz, channels })
}
