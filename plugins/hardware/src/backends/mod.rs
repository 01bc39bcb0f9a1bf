//! The built-in backends.

pub(crate) mod c_header;
pub(crate) mod csv_table;
pub(crate) mod daq;
pub(crate) mod json;
pub mod roboclaw;
pub(crate) mod serial;

use crate::table::CommandTable;

/// Provenance lines every text backend writes in its header (without a
/// comment marker): pliant's version, the run, the rate, the interpolation
/// and the whole profile (one line of JSON).
pub(crate) fn provenance(table: &CommandTable, backend: &str) -> Vec<String> {
    let m = &table.meta;
    let mut lines = vec![
        format!(
            "pliant {} hardware export, backend {backend}",
            m.pliant_version
        ),
        format!("source: {} (run {})", m.source, m.run_name),
        format!("rate_hz: {}", table.rate_hz),
        format!("samples: {}", table.samples),
        format!("interpolation: {}", m.interpolation),
    ];
    for (c, dev) in table.channels.iter().zip(&table.clip_deviation) {
        lines.push(format!(
            "channel {}: {} in {}, control in {}, one step = {:.4e} {}{}",
            c.name,
            c.drive.kind(),
            c.drive.device_unit(),
            c.drive.control_unit(),
            c.drive.control_quantum(),
            c.drive.control_unit(),
            if *dev > 0.0 {
                format!(", CLIPPED by up to {dev} {}", c.drive.device_unit())
            } else {
                String::new()
            }
        ));
    }
    for v in &table.violations {
        lines.push(format!("limit broken: {v}"));
    }
    lines.push(format!(
        "profile: {}",
        serde_json::to_string(&m.profile).expect("profiles serialize")
    ));
    lines
}

/// `value` as text that parses back to the same number (integers without a
/// fraction).
pub(crate) fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}
