//! `roboclaw`: the binary stream of RoboClaw packet-serial commands that
//! drive each motor to its position with speed and acceleration limits,
//! one group of packets per controller tick.
//!
//! Framing as the RoboClaw series user manual's packet-serial chapter
//! specifies: `[address, command, data…, CRC16]`, address 0x80–0x87,
//! multi-byte values high byte first, the CRC16 (polynomial 0x1021, initial
//! 0, no reflection: CRC-16/XMODEM) over address, command and data, sent high
//! byte first; the controller answers a valid write with 0xFF. Commands:
//! - 65 / 66, "Buffered Drive M1 / M2 with signed Speed, Accel, Deccel and
//!   Position": `[addr, 65|66, accel u32, speed u32, deccel u32, position
//!   i32, buffer u8, crc u16]` (21 bytes);
//! - 67, the same for both motors: `[addr, 67, accel₁, speed₁, deccel₁,
//!   position₁, accel₂, speed₂, deccel₂, position₂, buffer, crc]` (37 bytes).
//!
//! Speeds in encoder counts/s, accelerations in counts/s², positions in
//! counts (two's complement). Buffer 1 = "execute immediately" (stop the
//! running command and drop the queue): each tick's position supersedes the
//! last, which is what streaming at a fixed rate needs. Speed is the tick's
//! planned speed with 25 % headroom (capped at the profile's limit),
//! acceleration and deceleration the profile's limit. A controller with
//! both outputs in the profile gets one command 67 per tick, otherwise 65 or
//! 66. The stream does not set or reset encoders: zero them with the robot
//! at assembly (`u = 0`).

use crate::backend::{Backend, Decoded};
use crate::drive::{CableMotor, Drive};
use crate::error::{HardwareError, Result};
use crate::profile::HardwareProfile;
use crate::table::CommandTable;
use std::collections::BTreeMap;
use std::io::Write;

/// The `roboclaw` backend.
#[derive(Debug, Default)]
pub struct Roboclaw;

crate::register_backend!(Roboclaw);

/// Drive M1 to a position with speed, acceleration and deceleration.
pub const DRIVE_M1_POSITION: u8 = 65;
/// Drive M2 to a position with speed, acceleration and deceleration.
pub const DRIVE_M2_POSITION: u8 = 66;
/// Drive both motors to positions with speeds, accelerations, decelerations.
pub const DRIVE_M1_M2_POSITION: u8 = 67;
/// The acknowledgement of a valid write command.
pub const ACK: u8 = 0xFF;

/// The RoboClaw CRC16 (CRC-16/XMODEM: polynomial 0x1021, initial value 0,
/// most significant bit first, no final XOR) of `bytes`.
pub fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in bytes {
        crc ^= (b as u16) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// One motor's position command: limits and target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PositionCommand {
    /// Acceleration, counts/s².
    pub accel: u32,
    /// Speed, counts/s.
    pub speed: u32,
    /// Deceleration, counts/s².
    pub deccel: u32,
    /// Target, encoder counts.
    pub position: i32,
}

impl PositionCommand {
    fn push(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.accel.to_be_bytes());
        out.extend_from_slice(&self.speed.to_be_bytes());
        out.extend_from_slice(&self.deccel.to_be_bytes());
        out.extend_from_slice(&self.position.to_be_bytes());
    }
    fn read(b: &[u8]) -> Self {
        let u = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Self {
            accel: u(0),
            speed: u(4),
            deccel: u(8),
            position: u(12) as i32,
        }
    }
}

fn finish(mut p: Vec<u8>) -> Vec<u8> {
    let crc = crc16(&p);
    p.extend_from_slice(&crc.to_be_bytes());
    p
}

/// Command 65 (motor 1) or 66 (motor 2), framed with its CRC.
pub fn drive_position(address: u8, motor: u8, cmd: PositionCommand, buffer: u8) -> Vec<u8> {
    let code = if motor == 1 {
        DRIVE_M1_POSITION
    } else {
        DRIVE_M2_POSITION
    };
    let mut p = vec![address, code];
    cmd.push(&mut p);
    p.push(buffer);
    finish(p)
}

/// Command 67 (both motors), framed with its CRC.
pub fn drive_both_positions(
    address: u8,
    m1: PositionCommand,
    m2: PositionCommand,
    buffer: u8,
) -> Vec<u8> {
    let mut p = vec![address, DRIVE_M1_M2_POSITION];
    m1.push(&mut p);
    m2.push(&mut p);
    p.push(buffer);
    finish(p)
}

/// A decoded position packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// Controller address.
    pub address: u8,
    /// `(motor, command)` pairs it carries.
    pub motors: Vec<(u8, PositionCommand)>,
    /// The buffer byte.
    pub buffer: u8,
}

/// Splits a stream of position packets (65, 66, 67), checking every CRC.
pub fn parse(bytes: &[u8]) -> Result<Vec<Packet>> {
    let bad = |at: usize, m: String| HardwareError::decode("roboclaw", format!("byte {at}: {m}"));
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes.len() - i < 2 {
            return Err(bad(i, "truncated packet".into()));
        }
        let (address, code) = (bytes[i], bytes[i + 1]);
        if !(0x80..=0x87).contains(&address) {
            return Err(bad(i, format!("address {address:#04x} outside 0x80–0x87")));
        }
        let len = match code {
            DRIVE_M1_POSITION | DRIVE_M2_POSITION => 21,
            DRIVE_M1_M2_POSITION => 37,
            c => return Err(bad(i, format!("command {c} is not a position command"))),
        };
        if bytes.len() - i < len {
            return Err(bad(
                i,
                format!(
                    "truncated command {code}: {} of {len} bytes",
                    bytes.len() - i
                ),
            ));
        }
        let p = &bytes[i..i + len];
        let crc = u16::from_be_bytes([p[len - 2], p[len - 1]]);
        let want = crc16(&p[..len - 2]);
        if crc != want {
            return Err(bad(i, format!("CRC {crc:#06x}, expected {want:#06x}")));
        }
        let motors = match code {
            DRIVE_M1_POSITION => vec![(1, PositionCommand::read(&p[2..18]))],
            DRIVE_M2_POSITION => vec![(2, PositionCommand::read(&p[2..18]))],
            _ => vec![
                (1, PositionCommand::read(&p[2..18])),
                (2, PositionCommand::read(&p[18..34])),
            ],
        };
        out.push(Packet {
            address,
            motors,
            buffer: p[len - 3],
        });
        i += len;
    }
    Ok(out)
}

/// The motors of a table by controller: address → [(motor, channel index)],
/// motor 1 before motor 2, one channel per output.
fn controllers(backend: &str, t: &CommandTable) -> Result<BTreeMap<u8, Vec<(u8, usize)>>> {
    let mut by: BTreeMap<u8, Vec<(u8, usize)>> = BTreeMap::new();
    for (k, c) in t.channels.iter().enumerate() {
        match &c.drive {
            Drive::CableMotor(CableMotor {
                roboclaw: Some(r), ..
            }) => {
                let outputs = by.entry(r.address).or_default();
                if let Some(&(_, other)) = outputs.iter().find(|(m, _)| *m == r.motor) {
                    return Err(HardwareError::Unsupported {
                        backend: backend.into(),
                        channel: c.name.clone(),
                        kind: c.drive.kind(),
                        hint: format!(
                            "controller {:#04x} motor {} already drives channel `{}`",
                            r.address, r.motor, t.channels[other].name
                        ),
                    });
                }
                outputs.push((r.motor, k));
            }
            d => {
                return Err(HardwareError::Unsupported {
                    backend: backend.into(),
                    channel: c.name.clone(),
                    kind: d.kind(),
                    hint: "only cable motors with a `roboclaw` output (address and motor) in the profile".into(),
                });
            }
        }
    }
    for v in by.values_mut() {
        v.sort();
    }
    Ok(by)
}

/// The profile's acceleration and speed limits as packet fields.
fn limits(c: &CableMotor) -> (u32, u32) {
    (
        c.limits
            .accel_counts_per_s2
            .round()
            .clamp(1.0, u32::MAX as f64) as u32,
        c.limits
            .speed_counts_per_s
            .round()
            .clamp(1.0, u32::MAX as f64) as u32,
    )
}

/// Headroom on a tick's planned speed, so that a motor slightly behind
/// catches up within the tick.
pub const SPEED_HEADROOM: f64 = 1.25;

/// The packets of one tick, in address order. Each motor gets its target,
/// the profile's acceleration as accel and deccel, and as speed the speed
/// the plan asks for in this tick (`|c_i − c_{i−1}| · rate`) times
/// [`SPEED_HEADROOM`], between 1 count/s and the profile's limit: the
/// controller's trapezoid then arrives about when the next target comes,
/// instead of sprinting at full speed and waiting. The first tick goes to
/// the start pose at up to the profile's speed.
pub(crate) fn tick(
    t: &CommandTable,
    by: &BTreeMap<u8, Vec<(u8, usize)>>,
    i: usize,
) -> Vec<Vec<u8>> {
    let cmd = |k: usize| {
        let c = &t.channels[k];
        let (accel, max_speed) = match &c.drive {
            Drive::CableMotor(m) => limits(m),
            _ => (1, 1), // `controllers` admits cable motors only
        };
        // The first tick brings the motor to the start pose at up to the
        // profile's speed; later ones follow the plan.
        let planned = if i == 0 {
            max_speed as f64
        } else {
            ((c.device[i] - c.device[i - 1]).abs() * t.rate_hz * SPEED_HEADROOM).ceil()
        };
        PositionCommand {
            accel,
            speed: planned.clamp(1.0, max_speed as f64) as u32,
            deccel: accel,
            position: c.device[i] as i32,
        }
    };
    by.iter()
        .flat_map(|(&addr, motors)| match motors.as_slice() {
            [(1, a), (2, b)] => vec![drive_both_positions(addr, cmd(*a), cmd(*b), 1)],
            single => single
                .iter()
                .map(|&(m, k)| drive_position(addr, m, cmd(k), 1))
                .collect(),
        })
        .collect()
}

/// Bytes per tick of the stream.
pub(crate) fn bytes_per_tick(by: &BTreeMap<u8, Vec<(u8, usize)>>) -> usize {
    by.values()
        .map(|m| if m.len() == 2 { 37 } else { 21 })
        .sum()
}

/// Checks the channels and, with a `link` in the profile, that the link
/// carries the stream (10 bits per byte on a UART, plus one acknowledgement
/// byte back per packet on the same half-duplex bus).
pub(crate) fn check_stream(
    backend: &str,
    t: &CommandTable,
) -> Result<BTreeMap<u8, Vec<(u8, usize)>>> {
    let by = controllers(backend, t)?;
    for c in &t.channels {
        if let Some(&v) = c
            .device
            .iter()
            .find(|&&v| !(i32::MIN as f64..=i32::MAX as f64).contains(&v))
        {
            return Err(HardwareError::Overflow {
                channel: c.name.clone(),
                value: v,
                unit: "counts".into(),
                format: "signed 32-bit encoder count",
            });
        }
    }
    match t.meta.profile.link {
        Some(link) => {
            let bytes_per_s = (bytes_per_tick(&by) + by.len()) as f64 * t.rate_hz;
            let needed_baud = 10.0 * bytes_per_s;
            if needed_baud > link.baud as f64 {
                return Err(HardwareError::Bandwidth {
                    backend: backend.into(),
                    rate: t.rate_hz,
                    bytes_per_s,
                    needed_baud,
                    baud: link.baud,
                });
            }
        }
        None => log::warn!(
            "profile `{}` has no `link`: not checking that the serial link carries {} bytes per tick at {} Hz",
            t.meta.profile.name,
            bytes_per_tick(&by),
            t.rate_hz
        ),
    }
    Ok(by)
}

impl Backend for Roboclaw {
    fn name(&self) -> &str {
        "roboclaw"
    }
    fn summary(&self) -> &str {
        "RoboClaw packet-serial position commands (65/66/67, speed and acceleration limits, CRC16), one group per tick"
    }
    fn extension(&self) -> &str {
        "bin"
    }
    fn check(&self, t: &CommandTable) -> Result<()> {
        check_stream(self.name(), t).map(|_| ())
    }
    fn write(&self, t: &CommandTable, w: &mut dyn Write) -> Result<()> {
        let by = check_stream(self.name(), t)?;
        for i in 0..t.samples {
            for p in tick(t, &by, i) {
                w.write_all(&p).map_err(HardwareError::from_io)?;
            }
        }
        Ok(())
    }
    fn decode(&self, bytes: &[u8], profile: &HardwareProfile) -> Result<Decoded> {
        let mut by_output: BTreeMap<(u8, u8), &str> = BTreeMap::new();
        for (name, d) in &profile.channels {
            if let Drive::CableMotor(CableMotor {
                roboclaw: Some(r), ..
            }) = d
            {
                by_output.insert((r.address, r.motor), name);
            }
        }
        let mut channels: Vec<(String, Vec<f64>)> = Vec::new();
        for p in parse(bytes)? {
            for (motor, cmd) in p.motors {
                let name = by_output.get(&(p.address, motor)).ok_or_else(|| {
                    HardwareError::decode(
                        "roboclaw",
                        format!(
                            "address {:#04x} motor {motor} is not in the profile",
                            p.address
                        ),
                    )
                })?;
                match channels.iter_mut().find(|(n, _)| n == name) {
                    Some((_, v)) => v.push(cmd.position as f64),
                    None => channels.push((name.to_string(), vec![cmd.position as f64])),
                }
            }
        }
        Ok(Decoded {
            rate_hz: None,
            channels,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_is_crc16_xmodem() {
        // The catalogue check value of CRC-16/XMODEM.
        assert_eq!(crc16(b"123456789"), 0x31C3);
        assert_eq!(crc16(b""), 0);
    }
}
