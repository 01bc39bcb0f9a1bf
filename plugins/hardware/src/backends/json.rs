//! `json`: the command table as one JSON document, with pliant's version,
//! the run, the rate, the interpolation and the whole profile.

use crate::backend::{Backend, Decoded};
use crate::error::{HardwareError, Result};
use crate::profile::HardwareProfile;
use crate::table::CommandTable;
use serde_json::{Value, json};
use std::io::Write;

/// The `json` backend.
#[derive(Debug, Default)]
pub struct Json;

crate::register_backend!(Json);

fn value(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

impl Backend for Json {
    fn name(&self) -> &str {
        "json"
    }
    fn summary(&self) -> &str {
        "one JSON document: provenance, profile, rate and per-channel command arrays in device units"
    }
    fn extension(&self) -> &str {
        "json"
    }
    fn write(&self, t: &CommandTable, w: &mut dyn Write) -> Result<()> {
        let m = &t.meta;
        let doc = json!({
            "format": "pliant-hardware-commands",
            "pliant_version": m.pliant_version,
            "source": m.source,
            "run": m.run_name,
            "rate_hz": t.rate_hz,
            "samples": t.samples,
            "interpolation": m.interpolation,
            "profile": m.profile,
            "channels": t.channels.iter().zip(&t.clip_deviation).map(|(c, dev)| json!({
                "name": c.name,
                "kind": c.drive.kind(),
                "unit": c.drive.device_unit(),
                "control_unit": c.drive.control_unit(),
                "control_quantum": c.drive.control_quantum(),
                "clipped_by": dev,
                "commands": c.device.iter().map(|&v| value(v)).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        });
        serde_json::to_writer(&mut *w, &doc)
            .map_err(|e| HardwareError::from_io(std::io::Error::other(e)))?;
        writeln!(w).map_err(HardwareError::from_io)
    }
    fn decode(&self, bytes: &[u8], _profile: &HardwareProfile) -> Result<Decoded> {
        let bad = |m: String| HardwareError::decode("json", m);
        let doc: Value = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
        if doc["format"] != "pliant-hardware-commands" {
            return Err(bad("not a pliant-hardware-commands document".into()));
        }
        let channels = doc["channels"]
            .as_array()
            .ok_or_else(|| bad("no `channels` array".into()))?
            .iter()
            .map(|c| {
                let name = c["name"]
                    .as_str()
                    .ok_or_else(|| bad("a channel without a name".into()))?;
                let cmds = c["commands"]
                    .as_array()
                    .ok_or_else(|| bad(format!("channel `{name}`: no commands")))?
                    .iter()
                    .map(|v| {
                        v.as_f64()
                            .ok_or_else(|| bad(format!("channel `{name}`: `{v}` is not a number")))
                    })
                    .collect::<Result<Vec<f64>>>()?;
                Ok((name.to_string(), cmds))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Decoded {
            rate_hz: doc["rate_hz"].as_f64(),
            channels,
        })
    }
}
