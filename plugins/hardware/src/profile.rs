//! Hardware profiles: what drives each actuator channel of a robot (JSON,
//! checked with field-path errors like scene files).
//!
//! ```json
//! {
//!   "name": "tripod-pololu-298-roboclaw",
//!   "rate_hz": 100,
//!   "link": { "baud": 460800 },
//!   "sources": { "gear_ratio": "Pololu micro metal gearmotor datasheet" },
//!   "channels": {
//!     "middle_leg_front": {
//!       "kind": "cable_motor", "spool_radius_m": 0.005, "gear_ratio": 297.92,
//!       "counts_per_motor_rev": 12,
//!       "limits": { "position_counts": [-7150, 7150],
//!                   "speed_counts_per_s": 5958, "accel_counts_per_s2": 200000 },
//!       "roboclaw": { "address": 128, "motor": 1 }
//!     }
//!   }
//! }
//! ```
//!
//! Units: SI for physical quantities (m, Pa, rad, s); device units where
//! the device counts (encoder counts, volts, microseconds).

use crate::drive::Drive;
use crate::error::{HardwareError, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// A robot's hardware: one [`Drive`] per actuator channel. Read it with
/// [`HardwareProfile::from_json`] or [`HardwareProfile::from_file`], which
/// check every field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HardwareProfile {
    /// Name, recorded in every export.
    pub name: String,
    /// Free text: the robot, the set-up.
    pub description: String,
    /// Default controller rate, Hz (`--rate` overrides it).
    pub rate_hz: f64,
    /// The serial link to the controllers, for streaming backends.
    #[serde(default)]
    pub link: Option<Link>,
    /// Where each number comes from (datasheet, manual, measurement,
    /// assumption), keyed by the field it documents.
    #[serde(default)]
    pub sources: BTreeMap<String, String>,
    /// What drives each channel, by the run's channel (motor) name.
    pub channels: BTreeMap<String, Drive>,
}

/// A profile as read, before each drive is parsed by its kind.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    name: String,
    #[serde(default)]
    description: String,
    rate_hz: f64,
    #[serde(default)]
    link: Option<Link>,
    #[serde(default)]
    sources: BTreeMap<String, String>,
    channels: BTreeMap<String, serde_json::Value>,
}

/// A serial link to motor controllers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// Baud rate (bits per second on the wire; 10 bits per byte with start
    /// and stop bits).
    pub baud: u32,
}

impl HardwareProfile {
    /// Parses and checks a profile; `origin` names it in errors (a file path).
    pub fn from_json(text: &str, origin: &str) -> Result<Self> {
        let err = |prefix: &str, e: serde_path_to_error::Error<serde_json::Error>| {
            let inner = e.path().to_string();
            let field = match (prefix, inner.as_str()) {
                ("", ".") => String::new(),
                (p, ".") => p.to_string(),
                ("", i) => i.to_string(),
                (p, i) => format!("{p}.{i}"),
            };
            HardwareError::Profile {
                path: origin.into(),
                field,
                message: e.into_inner().to_string(),
            }
        };
        // Channels are read one by one by their `kind`, so an error inside a
        // drive names its field (serde's tagged enums lose the path).
        let de = &mut serde_json::Deserializer::from_str(text);
        let raw: RawProfile = serde_path_to_error::deserialize(de).map_err(|e| err("", e))?;
        let mut channels = BTreeMap::new();
        let schema = |field: String, message: String| HardwareError::Profile {
            path: origin.into(),
            field,
            message,
        };
        const KINDS: &str = "cable_motor, pressure_regulator, servo";
        for (name, mut v) in raw.channels {
            let at = format!("channels.{name}");
            let kind = match v.as_object_mut().map(|o| o.remove("kind")) {
                Some(Some(serde_json::Value::String(k))) => k,
                Some(_) => {
                    let m = format!("missing or not a string: one of {KINDS}");
                    return Err(schema(format!("{at}.kind"), m));
                }
                None => return Err(schema(at, "a drive is an object with a `kind`".into())),
            };
            let drive = match kind.as_str() {
                "cable_motor" => serde_path_to_error::deserialize(v).map(Drive::CableMotor),
                "pressure_regulator" => {
                    serde_path_to_error::deserialize(v).map(Drive::PressureRegulator)
                }
                "servo" => serde_path_to_error::deserialize(v).map(Drive::Servo),
                other => {
                    let m = format!("unknown drive kind `{other}`; expected one of {KINDS}");
                    return Err(schema(format!("{at}.kind"), m));
                }
            }
            .map_err(|e| err(&at, e))?;
            channels.insert(name, drive);
        }
        let profile = Self {
            name: raw.name,
            description: raw.description,
            rate_hz: raw.rate_hz,
            link: raw.link,
            sources: raw.sources,
            channels,
        };
        profile.validate()?;
        Ok(profile)
    }

    /// Reads and checks a profile file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(HardwareError::io(path))?;
        Self::from_json(&text, &path.display().to_string())
    }

    /// Checks every number against its physical range; errors name the field.
    pub fn validate(&self) -> Result<()> {
        if !(self.rate_hz.is_finite() && self.rate_hz > 0.0) {
            return Err(HardwareError::bad(
                "rate_hz",
                self.rate_hz,
                "a positive rate in Hz",
            ));
        }
        if let Some(l) = self.link
            && l.baud == 0
        {
            return Err(HardwareError::bad("link.baud", 0, "a positive baud rate"));
        }
        if self.channels.is_empty() {
            return Err(HardwareError::bad("channels", "{}", "at least one channel"));
        }
        for (name, d) in &self.channels {
            d.validate(&format!("channels.{name}"))?;
        }
        // Two channels on one RoboClaw motor output would fight.
        let mut seen = BTreeMap::new();
        for (name, d) in &self.channels {
            if let Drive::CableMotor(m) = d
                && let Some(r) = m.roboclaw
                && let Some(other) = seen.insert((r.address, r.motor), name)
            {
                return Err(HardwareError::bad(
                    format!("channels.{name}.roboclaw"),
                    format!("address {} motor {}", r.address, r.motor),
                    &format!("a controller output of its own (channel `{other}` uses it)"),
                ));
            }
        }
        Ok(())
    }

    /// The drive of `channel`, or a [`HardwareError::MissingChannel`].
    pub fn drive(&self, channel: &str) -> Result<&Drive> {
        self.channels
            .get(channel)
            .ok_or_else(|| HardwareError::MissingChannel {
                channel: channel.into(),
                profile: self.name.clone(),
                known: self.channels.keys().cloned().collect(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{
        "name": "t", "rate_hz": 100,
        "channels": {
            "a": { "kind": "cable_motor", "spool_radius_m": 0.005, "gear_ratio": 297.92,
                   "counts_per_motor_rev": 12,
                   "limits": { "position_counts": [-7000, 7000], "speed_counts_per_s": 6000,
                               "accel_counts_per_s2": 60000 } }
        }
    }"#;

    #[test]
    fn a_valid_profile_parses() {
        let p = HardwareProfile::from_json(OK, "ok.json").unwrap();
        assert_eq!(p.channels.len(), 1);
        assert!(
            p.drive("b")
                .unwrap_err()
                .to_string()
                .contains("has no drive for it")
        );
    }

    #[test]
    fn zero_spool_radius_is_named_by_its_field() {
        let text = OK.replace("0.005", "0.0");
        let e = HardwareProfile::from_json(&text, "p.json").unwrap_err();
        assert!(
            matches!(e, HardwareError::BadValue { ref field, .. } if field == "channels.a.spool_radius_m"),
            "{e}"
        );
    }

    #[test]
    fn schema_errors_carry_the_json_path() {
        let text = OK.replace("\"gear_ratio\": 297.92", "\"gear_ratio\": \"fast\"");
        let e = HardwareProfile::from_json(&text, "p.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("p.json") && e.contains("channels.a.gear_ratio"),
            "{e}"
        );
        let text = OK.replace("cable_motor", "warp_drive");
        let e = HardwareProfile::from_json(&text, "p.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("warp_drive") && e.contains("channels.a.kind"),
            "{e}"
        );
        let text = OK.replace("\"speed_counts_per_s\": 6000", "\"speed\": 6000");
        let e = HardwareProfile::from_json(&text, "p.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("channels.a.limits") && e.contains("speed"),
            "{e}"
        );
    }

    #[test]
    fn bad_rate_and_empty_channels_are_refused() {
        let e = HardwareProfile::from_json(&OK.replace("\"rate_hz\": 100", "\"rate_hz\": 0"), "p")
            .unwrap_err();
        assert!(matches!(e, HardwareError::BadValue { ref field, .. } if field == "rate_hz"));
        let e = HardwareProfile::from_json(r#"{"name": "x", "rate_hz": 1, "channels": {}}"#, "p")
            .unwrap_err();
        assert!(matches!(e, HardwareError::BadValue { ref field, .. } if field == "channels"));
    }
}
