//! `c-header`: the commands as `const` arrays for microcontroller firmware,
//! with the rate and sizes as macros. Encoder counts are `int32_t`, pulse
//! widths `uint16_t` (µs), signals (V, mA) `float`.

use super::{number, provenance};
use crate::backend::{Backend, Decoded};
use crate::drive::Drive;
use crate::error::{HardwareError, Result};
use crate::profile::HardwareProfile;
use crate::table::CommandTable;
use std::io::Write;

/// The `c-header` backend.
#[derive(Debug, Default)]
pub struct CHeader;

crate::register_backend!(CHeader);

/// The C identifier of a channel's array.
pub(crate) fn ident(channel: &str) -> String {
    let body: String = channel
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("pliant_{body}")
}

fn c_type(d: &Drive) -> &'static str {
    match d {
        Drive::CableMotor(_) => "int32_t",
        Drive::Servo(_) => "uint16_t",
        Drive::PressureRegulator(_) => "float",
    }
}

impl Backend for CHeader {
    fn name(&self) -> &str {
        "c-header"
    }
    fn summary(&self) -> &str {
        "C header with const arrays per channel (int32_t counts, uint16_t us, float V) and the rate, for firmware"
    }
    fn extension(&self) -> &str {
        "h"
    }
    fn check(&self, t: &CommandTable) -> Result<()> {
        let mut seen = std::collections::BTreeMap::new();
        for c in &t.channels {
            if let Some(other) = seen.insert(ident(&c.name), &c.name) {
                return Err(HardwareError::Unsupported {
                    backend: self.name().into(),
                    channel: c.name.clone(),
                    kind: c.drive.kind(),
                    hint: format!(
                        "its C name `{}` is also channel `{other}`'s; rename one",
                        ident(&c.name)
                    ),
                });
            }
            let (lo, hi, format) = match c.drive {
                Drive::CableMotor(_) => (
                    i32::MIN as f64,
                    i32::MAX as f64,
                    "signed 32-bit encoder count",
                ),
                Drive::Servo(_) => (0.0, u16::MAX as f64, "unsigned 16-bit pulse width"),
                Drive::PressureRegulator(_) => (f32::MIN as f64, f32::MAX as f64, "32-bit float"),
            };
            if let Some(&v) = c.device.iter().find(|&&v| !(lo..=hi).contains(&v)) {
                return Err(HardwareError::Overflow {
                    channel: c.name.clone(),
                    value: v,
                    unit: c.drive.device_unit().into(),
                    format,
                });
            }
        }
        Ok(())
    }
    fn write(&self, t: &CommandTable, w: &mut dyn Write) -> Result<()> {
        self.check(t)?;
        let io = HardwareError::from_io;
        writeln!(w, "/*").map_err(io)?;
        for line in provenance(t, self.name()) {
            writeln!(w, " * {}", line.replace("*/", "* /")).map_err(io)?;
        }
        writeln!(w, " */").map_err(io)?;
        writeln!(
            w,
            "#ifndef PLIANT_COMMANDS_H\n#define PLIANT_COMMANDS_H\n\n#include <stdint.h>\n"
        )
        .map_err(io)?;
        writeln!(
            w,
            "/* Controller rate: sample i is sent at t = i / PLIANT_RATE_HZ seconds. */"
        )
        .map_err(io)?;
        writeln!(w, "#define PLIANT_RATE_HZ {:?}", t.rate_hz).map_err(io)?;
        writeln!(w, "#define PLIANT_SAMPLES {}u", t.samples).map_err(io)?;
        writeln!(w, "#define PLIANT_CHANNELS {}u\n", t.channels.len()).map_err(io)?;
        let names: Vec<String> = t
            .channels
            .iter()
            .map(|c| format!("\"{}\"", c.name.replace('"', "\\\"")))
            .collect();
        writeln!(
            w,
            "static const char *const pliant_channel_names[PLIANT_CHANNELS] = {{{}}};\n",
            names.join(", ")
        )
        .map_err(io)?;
        for c in &t.channels {
            writeln!(
                w,
                "/* {}: {}, commands in {} */",
                c.name,
                c.drive.kind(),
                c.drive.device_unit()
            )
            .map_err(io)?;
            writeln!(
                w,
                "static const {} {}[PLIANT_SAMPLES] = {{",
                c_type(&c.drive),
                ident(&c.name)
            )
            .map_err(io)?;
            for chunk in c.device.chunks(12) {
                let items: Vec<String> = chunk
                    .iter()
                    .map(|&v| match c.drive {
                        Drive::PressureRegulator(_) => format!("{:?}f", v as f32),
                        _ => number(v),
                    })
                    .collect();
                writeln!(w, "    {},", items.join(", ")).map_err(io)?;
            }
            writeln!(w, "}};\n").map_err(io)?;
        }
        writeln!(w, "#endif /* PLIANT_COMMANDS_H */").map_err(io)
    }
    fn decode(&self, bytes: &[u8], profile: &HardwareProfile) -> Result<Decoded> {
        let bad = |m: String| HardwareError::decode("c-header", m);
        let text = std::str::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
        let rate_hz = text
            .lines()
            .find_map(|l| l.strip_prefix("#define PLIANT_RATE_HZ "))
            .and_then(|r| r.trim().parse().ok());
        let mut channels = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find("static const ") {
            rest = &rest[start + "static const ".len()..];
            let decl_end = rest
                .find('=')
                .ok_or_else(|| bad("a declaration without `=`".into()))?;
            let decl = &rest[..decl_end];
            let Some(id) = decl
                .split_whitespace()
                .nth(1)
                .and_then(|s| s.split('[').next())
            else {
                continue;
            };
            let Some(name) = profile.channels.keys().find(|n| ident(n) == id) else {
                continue;
            };
            let open = rest
                .find('{')
                .ok_or_else(|| bad(format!("`{id}` has no `{{`")))?;
            let close = rest
                .find("};")
                .ok_or_else(|| bad(format!("`{id}` has no `}};`")))?;
            let values = rest[open + 1..close]
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| {
                    s.trim_end_matches('f')
                        .parse::<f64>()
                        .map_err(|_| bad(format!("`{id}`: `{s}` is not a number")))
                })
                .collect::<Result<Vec<f64>>>()?;
            channels.push((name.clone(), values));
            rest = &rest[close..];
        }
        Ok(Decoded { rate_hz, channels })
    }
}
