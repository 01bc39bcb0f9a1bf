//! What drives one actuator channel, and the map from the channel's control
//! value (SI: m of contracted cable, Pa gauge pressure, or the channel's own
//! unit for a servo) to device units and back.

use crate::error::{HardwareError, Result};
use serde::{Deserialize, Serialize};
use std::f64::consts::TAU;

/// The drive of one channel (in profiles: an object with `"kind"` and the
/// fields of its struct).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Drive {
    /// A geared DC motor winding the cable on a spool, with a quadrature
    /// encoder: commands are encoder counts.
    CableMotor(CableMotor),
    /// An electro-pneumatic proportional pressure regulator commanded by an
    /// analogue signal: commands are volts (or the signal's unit).
    PressureRegulator(PressureRegulator),
    /// A hobby servo commanded by PWM pulse width: commands are µs.
    Servo(Servo),
}

/// A cable motor (cable paper §II-B: `u = r θ`, `θ` the spool angle).
///
/// Counts `c = zero + sign · u / r · gear / 2π · cpr`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CableMotor {
    /// Spool radius `r`, m (where the cable wraps: spool core plus half the
    /// cable's diameter).
    pub spool_radius_m: f64,
    /// Gearbox ratio (motor revolutions per spool revolution).
    pub gear_ratio: f64,
    /// Encoder counts per motor-shaft revolution (quadrature: both edges of
    /// both channels).
    pub counts_per_motor_rev: f64,
    /// +1 if positive counts wind the cable in, −1 if they let it out.
    #[serde(default = "one")]
    pub sign: f64,
    /// Encoder count at assembly (`u = 0`).
    #[serde(default)]
    pub zero_offset_counts: i64,
    /// The motor's limits, in counts.
    pub limits: MotorLimits,
    /// Which RoboClaw output drives it (packet-serial address 0x80–0x87 and
    /// motor 1 or 2), for the `roboclaw` backend.
    #[serde(default)]
    pub roboclaw: Option<RoboclawOutput>,
}

fn one() -> f64 {
    1.0
}

/// A motor's position, speed and acceleration limits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotorLimits {
    /// Allowed encoder range `[lo, hi]`, counts.
    pub position_counts: [i64; 2],
    /// Largest speed, counts/s (at the encoder).
    pub speed_counts_per_s: f64,
    /// Largest acceleration, counts/s².
    pub accel_counts_per_s2: f64,
}

/// A RoboClaw motor output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoboclawOutput {
    /// Packet-serial address, 128–135 (0x80–0x87).
    pub address: u8,
    /// Motor output, 1 or 2.
    pub motor: u8,
}

/// A proportional pressure regulator (the snake's SMC ITV3050s, driven with
/// 0–10 V from a DAQ card): gauge pressure linear in the command signal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PressureRegulator {
    /// Gauge pressures at the two ends of the signal range, Pa.
    pub pressure_range_pa: [f64; 2],
    /// Command signal range (e.g. `[0, 10]` V).
    pub signal_range: [f64; 2],
    /// Unit of the signal (`V`, `mA`).
    #[serde(default = "volts")]
    pub signal_unit: String,
    /// Highest pressure the actuator may see, Pa (the snake's 3 bar
    /// ceiling); below the regulator's own maximum.
    #[serde(default)]
    pub ceiling_pa: Option<f64>,
    /// Fastest allowed pressure change, Pa/s (none: unlimited).
    #[serde(default)]
    pub max_rate_pa_per_s: Option<f64>,
    /// The analogue output that makes the signal, for quantization.
    #[serde(default)]
    pub dac: Option<Dac>,
    /// Analogue output index on the card (column order of `daq-voltage`).
    #[serde(default)]
    pub ao_channel: Option<u32>,
}

fn volts() -> String {
    "V".into()
}

/// An analogue output converter: `bits` over `range`, codes `k = 0 … 2^bits − 1`
/// at `lo + k (hi − lo) / 2^bits` (the usual bipolar convention: 0 V is a
/// code, one LSB of a 16-bit ±10 V output is 305 µV).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dac {
    /// Resolution, bits (1–32).
    pub bits: u32,
    /// Output range `[lo, hi]` in the signal's unit.
    pub range: [f64; 2],
}

/// A hobby servo: angle `θ = center + rad_per_unit · u`, pulse width linear
/// in the angle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Servo {
    /// Radians of horn per unit of control (for a cable on a horn of radius
    /// `r`: `1/r` rad/m; negative to turn the other way).
    pub rad_per_unit: f64,
    /// Angle at `u = 0`, rad.
    #[serde(default)]
    pub center_rad: f64,
    /// Reachable angles `[lo, hi]`, rad.
    pub angle_range_rad: [f64; 2],
    /// Pulse widths at the two ends of the angle range, µs.
    pub pulse_range_us: [f64; 2],
    /// Pulse-width resolution, µs.
    #[serde(default = "one")]
    pub pulse_resolution_us: f64,
    /// Fastest horn speed, rad/s (none: unlimited).
    #[serde(default)]
    pub speed_rad_per_s: Option<f64>,
}

/// Limits of one channel in device units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceLimits {
    /// Allowed command range `[lo, hi]`.
    pub range: (f64, f64),
    /// Largest rate of change, per s.
    pub speed: Option<f64>,
    /// Largest second derivative, per s².
    pub accel: Option<f64>,
}

fn positive(field: String, v: f64, what: &str) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(HardwareError::bad(field, v, what))
    }
}

fn interval(field: String, r: [f64; 2], what: &str) -> Result<()> {
    if r[0].is_finite() && r[1].is_finite() && r[0] != r[1] {
        Ok(())
    } else {
        Err(HardwareError::bad(field, format!("{r:?}"), what))
    }
}

impl Drive {
    /// Name of the drive kind as in profiles.
    pub fn kind(&self) -> &'static str {
        match self {
            Drive::CableMotor(_) => "cable_motor",
            Drive::PressureRegulator(_) => "pressure_regulator",
            Drive::Servo(_) => "servo",
        }
    }

    /// The device unit of commands.
    pub fn device_unit(&self) -> &str {
        match self {
            Drive::CableMotor(_) => "counts",
            Drive::PressureRegulator(p) => &p.signal_unit,
            Drive::Servo(_) => "us",
        }
    }

    /// The control's unit (for plots and headers).
    pub fn control_unit(&self) -> &'static str {
        match self {
            Drive::CableMotor(_) => "m",
            Drive::PressureRegulator(_) => "Pa",
            Drive::Servo(_) => "unit",
        }
    }

    pub(crate) fn validate(&self, at: &str) -> Result<()> {
        let f = |name: &str| format!("{at}.{name}");
        match self {
            Drive::CableMotor(m) => {
                positive(
                    f("spool_radius_m"),
                    m.spool_radius_m,
                    "a positive spool radius in m",
                )?;
                positive(f("gear_ratio"), m.gear_ratio, "a positive gear ratio")?;
                positive(
                    f("counts_per_motor_rev"),
                    m.counts_per_motor_rev,
                    "a positive number of encoder counts per motor revolution",
                )?;
                if m.sign != 1.0 && m.sign != -1.0 {
                    return Err(HardwareError::bad(f("sign"), m.sign, "+1 or -1"));
                }
                let [lo, hi] = m.limits.position_counts;
                if lo >= hi || !(lo..=hi).contains(&m.zero_offset_counts) {
                    return Err(HardwareError::bad(
                        f("limits.position_counts"),
                        format!("[{lo}, {hi}]"),
                        "lo < hi, containing zero_offset_counts (the assembly position)",
                    ));
                }
                positive(
                    f("limits.speed_counts_per_s"),
                    m.limits.speed_counts_per_s,
                    "a positive speed in counts/s",
                )?;
                positive(
                    f("limits.accel_counts_per_s2"),
                    m.limits.accel_counts_per_s2,
                    "a positive acceleration in counts/s²",
                )?;
                if let Some(r) = m.roboclaw {
                    if !(0x80..=0x87).contains(&r.address) {
                        return Err(HardwareError::bad(
                            f("roboclaw.address"),
                            r.address,
                            "a packet-serial address 128–135 (0x80–0x87)",
                        ));
                    }
                    if !(1..=2).contains(&r.motor) {
                        return Err(HardwareError::bad(f("roboclaw.motor"), r.motor, "1 or 2"));
                    }
                }
            }
            Drive::PressureRegulator(p) => {
                interval(
                    f("pressure_range_pa"),
                    p.pressure_range_pa,
                    "two different finite pressures in Pa",
                )?;
                interval(
                    f("signal_range"),
                    p.signal_range,
                    "two different finite signal values",
                )?;
                if let Some(c) = p.ceiling_pa {
                    positive(f("ceiling_pa"), c, "a positive gauge pressure in Pa")?;
                    if c <= p.pressure_range_pa[0].min(p.pressure_range_pa[1]) {
                        return Err(HardwareError::bad(
                            f("ceiling_pa"),
                            c,
                            "above the low end of pressure_range_pa",
                        ));
                    }
                }
                if let Some(r) = p.max_rate_pa_per_s {
                    positive(f("max_rate_pa_per_s"), r, "a positive rate in Pa/s")?;
                }
                if let Some(d) = p.dac {
                    if !(1..=32).contains(&d.bits) {
                        return Err(HardwareError::bad(f("dac.bits"), d.bits, "1 to 32 bits"));
                    }
                    interval(f("dac.range"), d.range, "two different finite values")?;
                    let (lo, hi) = (d.range[0].min(d.range[1]), d.range[0].max(d.range[1]));
                    let (slo, shi) = (
                        p.signal_range[0].min(p.signal_range[1]),
                        p.signal_range[0].max(p.signal_range[1]),
                    );
                    if slo < lo || shi > hi {
                        return Err(HardwareError::bad(
                            f("dac.range"),
                            format!("{:?}", d.range),
                            "a range containing the signal range",
                        ));
                    }
                }
            }
            Drive::Servo(s) => {
                if s.pulse_resolution_us.fract() != 0.0 {
                    return Err(HardwareError::bad(
                        f("pulse_resolution_us"),
                        s.pulse_resolution_us,
                        "a whole number of µs (pulse widths are integers on the device)",
                    ));
                }
                if !(s.rad_per_unit.is_finite() && s.rad_per_unit != 0.0) {
                    return Err(HardwareError::bad(
                        f("rad_per_unit"),
                        s.rad_per_unit,
                        "a finite, non-zero number of radians per control unit",
                    ));
                }
                interval(
                    f("angle_range_rad"),
                    s.angle_range_rad,
                    "two different angles in rad",
                )?;
                interval(
                    f("pulse_range_us"),
                    s.pulse_range_us,
                    "two different pulse widths in µs",
                )?;
                positive(
                    f("pulse_resolution_us"),
                    s.pulse_resolution_us,
                    "a positive resolution in µs",
                )?;
                if let Some(v) = s.speed_rad_per_s {
                    positive(f("speed_rad_per_s"), v, "a positive speed in rad/s")?;
                }
                if !s.center_rad.is_finite() {
                    return Err(HardwareError::bad(
                        f("center_rad"),
                        s.center_rad,
                        "a finite angle",
                    ));
                }
            }
        }
        self.validate_map(at)
    }

    /// Checks that the map is finite and invertible (fields each in range
    /// can still overflow together: 1e308 counts per revolution).
    pub(crate) fn validate_map(&self, at: &str) -> Result<()> {
        let (g, o) = (self.gain(), self.offset());
        let lim = self.limits();
        let ok = g.is_finite()
            && g != 0.0
            && o.is_finite()
            && lim.range.0.is_finite()
            && lim.range.1.is_finite();
        if ok {
            Ok(())
        } else {
            Err(HardwareError::bad(
                at,
                format!("{g} {} per {}", self.device_unit(), self.control_unit()),
                "a finite, non-zero map from control to device units (check the sizes of the fields together)",
            ))
        }
    }

    /// Device units per control unit (the map is affine).
    fn gain(&self) -> f64 {
        match self {
            Drive::CableMotor(m) => {
                m.sign * m.gear_ratio * m.counts_per_motor_rev / (TAU * m.spool_radius_m)
            }
            Drive::PressureRegulator(p) => {
                (p.signal_range[1] - p.signal_range[0])
                    / (p.pressure_range_pa[1] - p.pressure_range_pa[0])
            }
            Drive::Servo(s) => {
                s.rad_per_unit * (s.pulse_range_us[1] - s.pulse_range_us[0])
                    / (s.angle_range_rad[1] - s.angle_range_rad[0])
            }
        }
    }

    /// Device value at control 0.
    fn offset(&self) -> f64 {
        match self {
            Drive::CableMotor(m) => m.zero_offset_counts as f64,
            Drive::PressureRegulator(p) => p.signal_range[0] - self.gain() * p.pressure_range_pa[0],
            Drive::Servo(s) => {
                s.pulse_range_us[0]
                    + (s.center_rad - s.angle_range_rad[0])
                        * (s.pulse_range_us[1] - s.pulse_range_us[0])
                        / (s.angle_range_rad[1] - s.angle_range_rad[0])
            }
        }
    }

    /// The device command for control `u` (not yet quantized).
    pub fn to_device(&self, u: f64) -> f64 {
        self.offset() + self.gain() * u
    }

    /// The control a device command stands for (inverse of [`Drive::to_device`]).
    pub fn to_control(&self, d: f64) -> f64 {
        (d - self.offset()) / self.gain()
    }

    /// The nearest command the device can represent.
    pub fn quantize(&self, d: f64) -> f64 {
        match self {
            Drive::CableMotor(_) => d.round(),
            Drive::PressureRegulator(p) => match p.dac {
                Some(dac) => {
                    let codes = (1u64 << dac.bits) as f64;
                    let lsb = (dac.range[1] - dac.range[0]) / codes;
                    let k = ((d - dac.range[0]) / lsb).round().clamp(0.0, codes - 1.0);
                    dac.range[0] + k * lsb
                }
                None => d,
            },
            Drive::Servo(s) => (d / s.pulse_resolution_us).round() * s.pulse_resolution_us,
        }
    }

    /// One quantization step of the device, in device units (0 when the
    /// device takes any value).
    pub fn device_quantum(&self) -> f64 {
        match self {
            Drive::CableMotor(_) => 1.0,
            Drive::PressureRegulator(p) => p.dac.map_or(0.0, |dac| {
                ((dac.range[1] - dac.range[0]) / (1u64 << dac.bits) as f64).abs()
            }),
            Drive::Servo(s) => s.pulse_resolution_us,
        }
    }

    /// One quantization step in control units (m, Pa, …): how closely a
    /// decoded command can reproduce the control.
    pub fn control_quantum(&self) -> f64 {
        self.device_quantum() / self.gain().abs()
    }

    /// The limits in device units.
    pub fn limits(&self) -> DeviceLimits {
        let ordered = |a: f64, b: f64| (a.min(b), a.max(b));
        match self {
            Drive::CableMotor(m) => DeviceLimits {
                range: (
                    m.limits.position_counts[0] as f64,
                    m.limits.position_counts[1] as f64,
                ),
                speed: Some(m.limits.speed_counts_per_s),
                accel: Some(m.limits.accel_counts_per_s2),
            },
            Drive::PressureRegulator(p) => {
                let (plo, mut phi) = ordered(p.pressure_range_pa[0], p.pressure_range_pa[1]);
                if let Some(c) = p.ceiling_pa {
                    phi = phi.min(c);
                }
                let (a, b) = (self.to_device(plo), self.to_device(phi));
                DeviceLimits {
                    range: ordered(a, b),
                    speed: p.max_rate_pa_per_s.map(|r| r * self.gain().abs()),
                    accel: None,
                }
            }
            Drive::Servo(s) => {
                let (a, b) = (s.pulse_range_us[0], s.pulse_range_us[1]);
                let per_rad = ((b - a) / (s.angle_range_rad[1] - s.angle_range_rad[0])).abs();
                DeviceLimits {
                    range: ordered(a, b),
                    speed: s.speed_rad_per_s.map(|v| v * per_rad),
                    accel: None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn motor() -> Drive {
        Drive::CableMotor(CableMotor {
            spool_radius_m: 0.005,
            gear_ratio: 297.92,
            counts_per_motor_rev: 12.0,
            sign: -1.0,
            zero_offset_counts: 100,
            limits: MotorLimits {
                position_counts: [-8000, 8000],
                speed_counts_per_s: 6000.0,
                accel_counts_per_s2: 60000.0,
            },
            roboclaw: None,
        })
    }

    #[test]
    fn cable_motor_counts_follow_u_equals_r_theta() {
        let d = motor();
        // One spool turn of cable (2π r) is gear · cpr counts, wound in the
        // negative direction for sign −1.
        let turn = TAU * 0.005;
        assert!((d.to_device(turn) - (100.0 - 297.92 * 12.0)).abs() < 1e-9);
        assert!((d.to_control(d.to_device(0.0123)) - 0.0123).abs() < 1e-15);
        assert!((d.control_quantum() - turn / (297.92 * 12.0)).abs() < 1e-18);
    }

    #[test]
    fn regulator_maps_pressure_to_volts_and_caps_at_the_ceiling() {
        let d = Drive::PressureRegulator(PressureRegulator {
            pressure_range_pa: [0.0, 9e5],
            signal_range: [0.0, 10.0],
            signal_unit: "V".into(),
            ceiling_pa: Some(3e5),
            max_rate_pa_per_s: None,
            dac: Some(Dac {
                bits: 16,
                range: [-10.0, 10.0],
            }),
            ao_channel: Some(0),
        });
        assert!((d.to_device(3e5) - 10.0 / 3.0).abs() < 1e-12);
        let lim = d.limits();
        assert_eq!(lim.range.0, 0.0);
        assert!((lim.range.1 - 10.0 / 3.0).abs() < 1e-12);
        // 16 bits over 20 V; 0 V is a code.
        assert!((d.device_quantum() - 20.0 / 65536.0).abs() < 1e-15);
        let q = d.quantize(1.23456);
        assert!((q - 1.23456).abs() <= 0.5 * 20.0 / 65536.0 + 1e-15);
        assert_eq!(d.quantize(0.0), 0.0);
    }

    #[test]
    fn servo_pulses_are_linear_in_the_angle() {
        let d = Drive::Servo(Servo {
            rad_per_unit: 100.0,
            center_rad: 0.0,
            angle_range_rad: [-1.0, 1.0],
            pulse_range_us: [1000.0, 2000.0],
            pulse_resolution_us: 1.0,
            speed_rad_per_s: Some(5.0),
        });
        assert_eq!(d.to_device(0.0), 1500.0);
        assert_eq!(d.to_device(0.01), 2000.0);
        assert_eq!(d.limits().speed, Some(2500.0));
    }
}
