//! `serial`: streams a command table to a device over a serial port at the
//! controller rate (`--out /dev/ttyUSB0`).
//!
//! When every channel is a RoboClaw motor the stream is the `roboclaw`
//! backend's packets, and each packet's 0xFF acknowledgement is awaited
//! (a missing or wrong acknowledgement stops the stream with the tick it
//! happened at). Otherwise each tick is one text line
//! `sample,command,command…\n` for firmware of your own, after a header
//! line `#sample,<channel>,…`. Tick `i` is sent at
//! `i / rate` after the start (a deadline schedule: a late tick does not
//! shift the ones after it); how late ticks were is reported. The baud rate
//! comes from the profile's `link`. `write` produces the exact bytes a
//! stream sends, so a stream can be recorded to a file and checked.

use super::number;
use super::roboclaw::{self, ACK};
use crate::backend::{Backend, Decoded};
use crate::drive::{CableMotor, Drive};
use crate::error::{HardwareError, Result};
use crate::profile::HardwareProfile;
use crate::table::CommandTable;
use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// The `serial` backend.
#[derive(Debug, Default)]
pub struct Serial;

crate::register_backend!(Serial);

/// How long to wait for a controller's acknowledgement.
const ACK_TIMEOUT: Duration = Duration::from_millis(200);

/// What a stream did.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamReport {
    /// Ticks sent.
    pub ticks: usize,
    /// Bytes sent.
    pub bytes: usize,
    /// Acknowledgements received.
    pub acks: usize,
    /// Ticks sent later than their deadline by more than one period.
    pub late_ticks: usize,
    /// Largest lateness, s.
    pub max_late_s: f64,
}

fn roboclaw_only(t: &CommandTable) -> bool {
    t.channels.iter().all(|c| {
        matches!(
            c.drive,
            Drive::CableMotor(CableMotor {
                roboclaw: Some(_),
                ..
            })
        )
    })
}

/// The frames of every tick: the packets (RoboClaw) or one text line.
fn frames(t: &CommandTable) -> Result<(Vec<Vec<Vec<u8>>>, bool)> {
    if roboclaw_only(t) {
        let by = roboclaw::check_stream("serial", t)?;
        Ok((
            (0..t.samples).map(|i| roboclaw::tick(t, &by, i)).collect(),
            true,
        ))
    } else {
        let mut lines: Vec<Vec<Vec<u8>>> = (0..t.samples)
            .map(|i| {
                let mut s = i.to_string();
                for c in &t.channels {
                    s.push(',');
                    s.push_str(&number(c.device[i]));
                }
                s.push('\n');
                vec![s.into_bytes()]
            })
            .collect();
        // A header line names the columns (firmware skips lines with `#`).
        let names: Vec<&str> = t.channels.iter().map(|c| c.name.as_str()).collect();
        if let Some(first) = lines.first_mut() {
            first.insert(0, format!("#sample,{}\n", names.join(",")).into_bytes());
        }
        Ok((lines, false))
    }
}

/// Streams `t` to an open port (anything that reads and writes bytes).
pub fn stream(t: &CommandTable, port: &mut dyn ReadWrite, name: &str) -> Result<StreamReport> {
    let (ticks, ack) = frames(t)?;
    let fail = |m: String| HardwareError::Serial {
        port: name.into(),
        message: m,
    };
    let start = Instant::now();
    let period = 1.0 / t.rate_hz;
    let mut report = StreamReport {
        ticks: 0,
        bytes: 0,
        acks: 0,
        late_ticks: 0,
        max_late_s: 0.0,
    };
    for (i, packets) in ticks.iter().enumerate() {
        let due = Duration::from_secs_f64(i as f64 * period);
        let now = start.elapsed();
        if now < due {
            std::thread::sleep(due - now);
        } else {
            let late = (now - due).as_secs_f64();
            report.max_late_s = report.max_late_s.max(late);
            if late > period {
                report.late_ticks += 1;
            }
        }
        for p in packets {
            port.write_all(p).map_err(|e| {
                fail(format!(
                    "writing tick {i} (t = {:.4} s): {e}",
                    i as f64 * period
                ))
            })?;
            report.bytes += p.len();
            if ack {
                let mut b = [0u8; 1];
                let deadline = Instant::now() + ACK_TIMEOUT;
                loop {
                    match port.read(&mut b) {
                        Ok(1) => break,
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e)
                            if e.kind() != std::io::ErrorKind::TimedOut
                                && e.kind() != std::io::ErrorKind::WouldBlock =>
                        {
                            return Err(fail(format!(
                                "reading the acknowledgement of tick {i}: {e}"
                            )));
                        }
                        Err(_) => {}
                    }
                    if Instant::now() > deadline {
                        return Err(fail(format!(
                            "no acknowledgement from controller {:#04x} for tick {i} (t = {:.4} s) within {} ms; {} ticks were acknowledged",
                            p[0],
                            i as f64 * period,
                            ACK_TIMEOUT.as_millis(),
                            i
                        )));
                    }
                }
                if b[0] != ACK {
                    return Err(fail(format!(
                        "controller {:#04x} answered {:#04x} instead of {ACK:#04x} at tick {i} (a CRC or framing error on the link)",
                        p[0], b[0]
                    )));
                }
                report.acks += 1;
            }
        }
        port.flush().map_err(|e| fail(e.to_string()))?;
        report.ticks += 1;
    }
    Ok(report)
}

/// Read + Write, for [`stream`].
pub trait ReadWrite: Read + Write {}
impl<T: Read + Write + ?Sized> ReadWrite for T {}

impl Backend for Serial {
    fn name(&self) -> &str {
        "serial"
    }
    fn summary(&self) -> &str {
        "streams the commands to a serial port at the controller rate (RoboClaw packets with acknowledgements, else text lines); --out is the port"
    }
    fn extension(&self) -> &str {
        "bin"
    }
    fn streams(&self) -> bool {
        true
    }
    fn check(&self, t: &CommandTable) -> Result<()> {
        let Some(link) = t.meta.profile.link else {
            return Err(HardwareError::bad(
                "link",
                "none",
                "a `link` with the serial port's `baud`, to stream",
            ));
        };
        let (ticks, ack) = frames(t)?;
        if !ack {
            // Text lines: the longest tick sets what the link must carry.
            let longest = ticks
                .iter()
                .map(|p| p.iter().map(Vec::len).sum::<usize>())
                .max()
                .unwrap_or(0);
            let bytes_per_s = longest as f64 * t.rate_hz;
            if 10.0 * bytes_per_s > link.baud as f64 {
                return Err(HardwareError::Bandwidth {
                    backend: self.name().into(),
                    rate: t.rate_hz,
                    bytes_per_s,
                    needed_baud: 10.0 * bytes_per_s,
                    baud: link.baud,
                });
            }
        }
        Ok(())
    }
    fn write(&self, t: &CommandTable, w: &mut dyn Write) -> Result<()> {
        let (ticks, _) = frames(t)?;
        for p in ticks.iter().flatten() {
            w.write_all(p).map_err(HardwareError::from_io)?;
        }
        Ok(())
    }
    fn deliver(&self, t: &CommandTable, target: &Path) -> Result<()> {
        self.check(t)?;
        let baud = t.meta.profile.link.expect("checked").baud;
        let name = target.display().to_string();
        let mut port = serialport::new(name.clone(), baud)
            .timeout(Duration::from_millis(20))
            .open()
            .map_err(|e| HardwareError::Serial {
                port: name.clone(),
                message: e.to_string(),
            })?;
        // Bytes left from before (a controller's boot message) are not
        // acknowledgements.
        port.clear(serialport::ClearBuffer::Input)
            .map_err(|e| HardwareError::Serial {
                port: name.clone(),
                message: e.to_string(),
            })?;
        let r = stream(t, &mut port, &name)?;
        log::info!(
            "streamed {} ticks ({} bytes, {} acknowledged) to {name}; {} ticks late by more than a period, at worst {:.1} ms",
            r.ticks,
            r.bytes,
            r.acks,
            r.late_ticks,
            1e3 * r.max_late_s
        );
        Ok(())
    }
    fn decode(&self, bytes: &[u8], profile: &HardwareProfile) -> Result<Decoded> {
        if bytes.first().is_some_and(|b| (0x80..=0x87).contains(b)) {
            return roboclaw::Roboclaw.decode(bytes, profile);
        }
        let bad = |m: String| HardwareError::decode("serial", m);
        let text = std::str::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
        let mut names: Option<Vec<String>> = None;
        let mut cols: Vec<Vec<f64>> = Vec::new();
        for (no, line) in text.lines().enumerate() {
            if let Some(h) = line.strip_prefix('#') {
                let n: Vec<String> = h.split(',').skip(1).map(str::to_string).collect();
                cols = vec![Vec::new(); n.len()];
                names = Some(n);
                continue;
            }
            if names.is_none() {
                return Err(bad(format!(
                    "line {}: commands before the `#sample,…` header",
                    no + 1
                )));
            }
            let vals = line
                .split(',')
                .skip(1)
                .map(|s| {
                    s.parse::<f64>()
                        .map_err(|_| bad(format!("line {}: `{s}`", no + 1)))
                })
                .collect::<Result<Vec<f64>>>()?;
            if vals.len() != cols.len() {
                return Err(bad(format!(
                    "line {}: {} values, expected {}",
                    no + 1,
                    vals.len(),
                    cols.len()
                )));
            }
            for (c, v) in cols.iter_mut().zip(vals) {
                c.push(v);
            }
        }
        Ok(Decoded {
            rate_hz: None,
            channels: names.unwrap_or_default().into_iter().zip(cols).collect(),
        })
    }
}
