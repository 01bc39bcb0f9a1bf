//! An export backend in its own crate, loaded at run time:
//! `pliant export RUN --profile hw.json --plugin target/release/libpliant_example_lines.so --backend lines`.
//!
//! Each sample is one line: the time in seconds, then every channel's
//! command in device units, separated by spaces; a first line starting with
//! `;` names the columns. This is the whole of a backend: a name, a
//! summary, an extension, a writer and a decoder (so that it can be round-
//! trip tested like the built-in ones).

use pliant_hardware::{Backend, CommandTable, Decoded, HardwareError, HardwareProfile, Result};
use std::io::Write;

/// The `lines` backend.
#[derive(Debug, Default)]
pub struct Lines;

impl Backend for Lines {
    fn name(&self) -> &str {
        "lines"
    }
    fn summary(&self) -> &str {
        "one line per sample: time (s) and commands separated by spaces (example plugin)"
    }
    fn extension(&self) -> &str {
        "txt"
    }
    fn write(&self, t: &CommandTable, w: &mut dyn Write) -> Result<()> {
        let names: Vec<&str> = t.channels.iter().map(|c| c.name.as_str()).collect();
        writeln!(w, "; t_s {}", names.join(" ")).map_err(HardwareError::from_io)?;
        for i in 0..t.samples {
            let row: Vec<String> = t.channels.iter().map(|c| c.device[i].to_string()).collect();
            writeln!(w, "{} {}", t.time(i), row.join(" ")).map_err(HardwareError::from_io)?;
        }
        Ok(())
    }
    fn decode(&self, bytes: &[u8], _profile: &HardwareProfile) -> Result<Decoded> {
        let bad = |m: String| HardwareError::Decode {
            backend: "lines".into(),
            message: m,
        };
        let text = std::str::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
        let mut lines = text.lines();
        let names: Vec<String> = lines
            .next()
            .and_then(|l| l.strip_prefix("; t_s"))
            .ok_or_else(|| bad("no `; t_s …` header".into()))?
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let mut cols = vec![Vec::new(); names.len()];
        for (no, l) in lines.enumerate() {
            let v: Vec<f64> = l
                .split_whitespace()
                .skip(1)
                .map(|s| {
                    s.parse()
                        .map_err(|_| bad(format!("line {}: `{s}`", no + 2)))
                })
                .collect::<Result<_>>()?;
            if v.len() != names.len() {
                return Err(bad(format!(
                    "line {}: {} values for {} channels",
                    no + 2,
                    v.len(),
                    names.len()
                )));
            }
            for (c, x) in cols.iter_mut().zip(v) {
                c.push(x);
            }
        }
        Ok(Decoded {
            rate_hz: None,
            channels: names.into_iter().zip(cols).collect(),
        })
    }
}

pliant_hardware::export_backends!(Lines);
