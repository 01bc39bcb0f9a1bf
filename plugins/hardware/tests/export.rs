//! Hardware export end to end on small runs written here: round trips
//! through every backend, RoboClaw packets byte for byte, limits, bad input,
//! a live stream over a pseudo-terminal, the C header through a C compiler.

use pliant_hardware::{
    Drive, ExportOptions, HardwareError, HardwareProfile, LimitPolicy, RunControls, backend,
    backends, build, roboclaw,
};
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pliant-hw-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn shipped(name: &str) -> HardwareProfile {
    HardwareProfile::from_file(&manifest().join("../../examples/hardware").join(name)).unwrap()
}

/// A gait-like run: `h` = 33 ms steps, two motors whose splines are
/// zero-slope keyframes every 6 steps, amplitude `amp` m; slack removed on
/// the first five steps, tapering off (u_post > u there).
fn gait_run(dir: &Path, amp: f64) {
    let h = 0.033;
    let steps = 48;
    let motors = ["middle_leg_front", "middle_leg_back"];
    let keys = |m: usize, j: usize| -> f64 {
        if j == 0 {
            0.0
        } else {
            amp * [0.2, 1.0, -0.3, 0.6][(j + 2 * m) % 4]
        }
    };
    let knot_t: Vec<f64> = (0..=steps / 6).map(|j| (6 * j) as f64 * h).collect();
    let u = |m: usize, t: f64| -> f64 {
        let j = ((t / (6.0 * h)).floor() as usize).min(steps / 6 - 1);
        let s = (t - knot_t[j]) / (6.0 * h);
        let h1 = 3.0 * s * s - 2.0 * s * s * s;
        keys(m, j) * (1.0 - h1) + keys(m, j + 1) * h1
    };
    let slack = |k: usize| if k < 6 { 0.00005 * (6 - k) as f64 } else { 0.0 };
    let mut csv = String::from(
        "step,time_s,middle_leg_front_u_m,middle_leg_back_u_m,middle_leg_front_u_post_m,middle_leg_back_u_post_m\n",
    );
    for k in 1..=steps {
        let t = k as f64 * h;
        let (a, b) = (u(0, t), u(1, t));
        csv.push_str(&format!("{k},{t},{a},{b},{},{}\n", a + slack(k), b));
    }
    std::fs::write(dir.join("controls.csv"), csv).unwrap();
    let splines: serde_json::Map<String, serde_json::Value> = motors
        .iter()
        .enumerate()
        .map(|(m, name)| {
            (
                name.to_string(),
                serde_json::json!({
                    "t_s": knot_t,
                    "value": (0..knot_t.len()).map(|j| keys(m, j)).collect::<Vec<_>>(),
                    "slope_per_s": vec![0.0; knot_t.len()],
                }),
            )
        })
        .collect();
    let summary =
        serde_json::json!({"summary": {"name": "synthetic_gait"}, "splines": splines, "h_s": h});
    std::fs::write(dir.join("summary.json"), summary.to_string()).unwrap();
}

/// A pressure run: nine channels `pIJ` sampled at 30 Hz for 2 s.
fn pressure_run(dir: &Path) {
    let mut csv = String::from("time_s");
    for i in 1..=3 {
        for j in 1..=3 {
            csv.push_str(&format!(",p{i}{j}_Pa"));
        }
    }
    csv.push('\n');
    for k in 0..=60 {
        let t = k as f64 / 30.0;
        csv.push_str(&format!("{t}"));
        for c in 0..9 {
            let p = 1.5e5 + 1.4e5 * (std::f64::consts::TAU * 0.5 * t + c as f64 * 0.7).sin();
            csv.push_str(&format!(",{p}"));
        }
        csv.push('\n');
    }
    std::fs::write(dir.join("controls.csv"), csv).unwrap();
}

fn opts(rate: f64) -> ExportOptions {
    ExportOptions {
        rate_hz: Some(rate),
        ..Default::default()
    }
}

/// Writes `table` through `name`, decodes it and checks every command and
/// the control it maps back to (within one quantization step; `f32` for
/// the C header's float signals).
fn round_trip(name: &str, table: &pliant_hardware::CommandTable, profile: &HardwareProfile) {
    let b = backend(name).unwrap();
    let mut bytes = Vec::new();
    b.write(table, &mut bytes).unwrap();
    let d = b.decode(&bytes, profile).unwrap();
    if let Some(r) = d.rate_hz {
        assert_eq!(r, table.rate_hz, "{name}");
    }
    for c in &table.channels {
        let got = d.channel(&c.name).unwrap_or_else(|| {
            panic!(
                "{name}: channel {} missing from {:?}",
                c.name,
                d.channels
                    .iter()
                    .map(|c| (&c.0, c.1.len()))
                    .collect::<Vec<_>>()
            )
        });
        assert_eq!(got.len(), table.samples, "{name} {}", c.name);
        let q = c.drive.control_quantum();
        let gain = (c.drive.to_device(1.0) - c.drive.to_device(0.0)).abs();
        for (i, (&g, &u)) in got.iter().zip(&c.control).enumerate() {
            // What the format itself loses: f32 in the C header, seven
            // decimals of a volt in the DAQ table.
            let format_tol = match name {
                "c-header" => 1.2e-7 * g.abs(),
                "daq-voltage" => 5.1e-8,
                _ => 1e-12 * g.abs(),
            };
            assert!(
                (g - c.device[i]).abs() <= format_tol,
                "{name} {} sample {i}: wrote {} read {g}",
                c.name,
                c.device[i]
            );
            let back = c.drive.to_control(g);
            let tol = 0.5 * q + format_tol / gain + 1e-12 * u.abs().max(1e-9);
            assert!(
                (back - u).abs() <= tol,
                "{name} {} sample {i}: control {u} came back as {back} (quantum {q})",
                c.name
            );
        }
    }
}

#[test]
fn every_file_backend_round_trips_a_gait_and_a_pressure_run() {
    let dir = tmp("roundtrip");
    let gait = dir.join("gait");
    std::fs::create_dir_all(&gait).unwrap();
    gait_run(&gait, 0.0015);
    let run = RunControls::read(&gait).unwrap();
    for profile in [
        shipped("tripod_pololu_roboclaw.json"),
        shipped("tripod_hobby_servos.json"),
    ] {
        let table = build(&run, &profile, opts(1000.0)).unwrap();
        assert!(table.violations.is_empty(), "{:?}", table.violations);
        let roboclaw_ok = profile.name.contains("roboclaw");
        for name in ["csv", "json", "c-header", "serial"] {
            round_trip(name, &table, &profile);
        }
        if roboclaw_ok {
            // 1 kHz is too fast for a 460800-baud bus; 100 Hz fits.
            let slow = build(&run, &profile, opts(100.0)).unwrap();
            round_trip("roboclaw", &slow, &profile);
        } else {
            let e = backend("roboclaw").unwrap().check(&table).unwrap_err();
            assert!(matches!(e, HardwareError::Unsupported { .. }), "{e}");
        }
        let e = backend("daq-voltage").unwrap().check(&table).unwrap_err();
        assert!(
            matches!(e, HardwareError::Unsupported { kind, .. } if kind != "pressure_regulator")
        );
    }
    let press = dir.join("pressure");
    std::fs::create_dir_all(&press).unwrap();
    pressure_run(&press);
    let profile = shipped("snake_itv3050_daq.json");
    let run = RunControls::read(&press).unwrap();
    let table = build(&run, &profile, opts(1000.0)).unwrap();
    assert_eq!(table.channels.len(), 9);
    // 0–3 bar on 0–10 V over 0–9 bar: at most 3.33 V.
    let vmax = table
        .channels
        .iter()
        .flat_map(|c| c.device.iter().copied())
        .fold(0.0, f64::max);
    assert!(vmax > 3.0 && vmax <= 10.0 / 3.0 + 1e-3, "{vmax}");
    for name in ["csv", "json", "c-header", "daq-voltage", "serial"] {
        round_trip(name, &table, &profile);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn exported_signal_is_the_optimizers_spline_where_taut_and_exact_at_every_step() {
    let dir = tmp("spline");
    gait_run(&dir, 0.0015);
    let run = RunControls::read(&dir).unwrap();
    let c = &run.channels[0];
    assert_eq!(
        c.interpolation,
        pliant_hardware::Interpolation::SplinePlusSlack
    );
    // Exact at every step (slack-free samples).
    for (t, v) in c.times.iter().zip(&c.samples) {
        assert!((c.value(*t) - v).abs() < 1e-15, "t = {t}");
    }
    // Between taut steps it is the cubic Hermite keyframe spline, not a
    // line between samples: midway between steps 20 and 21 (keyframes at 18
    // and 24 steps, s = 0.4167).
    let h = 0.033;
    let t = 20.5 * h;
    let s: f64 = (20.5 - 18.0) / 6.0;
    let h1 = 3.0 * s * s - 2.0 * s * s * s;
    let (k3, k4) = (0.0015 * 0.6, 0.0015 * 0.2); // keyframes 3 and 4 of motor 0
    let want = k3 * (1.0 - h1) + k4 * h1;
    assert!(
        (c.value(t) - want).abs() < 1e-15,
        "{} vs {want}",
        c.value(t)
    );
    let linear = 0.5 * (c.samples[19] + c.samples[20]);
    assert!((c.value(t) - linear).abs() > 1e-6);
    // C¹ across the slack steps: no jump in slope at the samples.
    for &tk in &c.times[..8] {
        let e = 1e-7;
        let left = (c.value(tk) - c.value(tk - e)) / e;
        let right = (c.value(tk + e) - c.value(tk)) / e;
        assert!(
            (left - right).abs() < 1e-3 * (1.0 + left.abs()),
            "slope jump at {tk}: {left} vs {right}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn roboclaw_packets_follow_the_manual_byte_for_byte() {
    // CRC-16/XMODEM check value.
    assert_eq!(roboclaw::crc16(b"123456789"), 0x31C3);
    // Command 65 (Buffered Drive M1 with signed Speed, Accel, Deccel and
    // Position): [address, 65, accel(4), speed(4), deccel(4), position(4),
    // buffer, crc(2)], high byte first. Expected bytes computed
    // independently (Python's binascii.crc_hqx(packet, 0)).
    let cmd = |accel, speed, deccel, position| roboclaw::PositionCommand {
        accel,
        speed,
        deccel,
        position,
    };
    let hex = |s: &str| -> Vec<u8> {
        s.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect()
    };
    assert_eq!(
        roboclaw::drive_position(0x80, 1, cmd(1000, 2000, 1000, 5000), 1),
        hex("80 41 00 00 03 e8 00 00 07 d0 00 00 03 e8 00 00 13 88 01 9d f9")
    );
    // Negative positions are two's complement; buffer 0 queues.
    assert_eq!(
        roboclaw::drive_position(0x80, 1, cmd(1000, 2000, 1000, -5000), 0),
        hex("80 41 00 00 03 e8 00 00 07 d0 00 00 03 e8 ff ff ec 78 00 40 76")
    );
    // Command 66: M2.
    assert_eq!(
        roboclaw::drive_position(0x82, 2, cmd(50000, 4767, 50000, 0), 1),
        hex("82 42 00 00 c3 50 00 00 12 9f 00 00 c3 50 00 00 00 00 01 58 c3")
    );
    // Command 67: both motors, M1's four fields then M2's, then buffer, CRC.
    let both = roboclaw::drive_both_positions(
        0x81,
        cmd(50000, 4767, 50000, -123),
        cmd(50000, 4767, 50000, 7150),
        1,
    );
    assert_eq!(
        both,
        hex(
            "81 43 00 00 c3 50 00 00 12 9f 00 00 c3 50 ff ff ff 85 00 00 c3 50 00 00 12 9f 00 00 c3 50 00 00 1b ee 01 92 cc"
        )
    );
    // The CRC over a packet including its CRC is zero; parse checks it.
    assert_eq!(roboclaw::crc16(&both), 0);
    let parsed = roboclaw::parse(&both).unwrap();
    assert_eq!(parsed[0].motors[1].1.position, 7150);
    let mut bad = both.clone();
    bad[20] ^= 1;
    let e = roboclaw::parse(&bad).unwrap_err().to_string();
    assert!(e.contains("CRC"), "{e}");
}

#[test]
fn the_roboclaw_stream_uses_each_controllers_outputs_and_limits() {
    let dir = tmp("roboclaw");
    gait_run(&dir, 0.0015);
    let run = RunControls::read(&dir).unwrap();
    let profile = shipped("tripod_pololu_roboclaw.json");
    let table = build(&run, &profile, opts(100.0)).unwrap();
    let mut bytes = Vec::new();
    backend("roboclaw")
        .unwrap()
        .write(&table, &mut bytes)
        .unwrap();
    // One 37-byte command 67 per tick (both motors on controller 0x80).
    assert_eq!(bytes.len(), 37 * table.samples);
    let packets = roboclaw::parse(&bytes).unwrap();
    for (i, p) in packets.iter().enumerate() {
        assert_eq!((p.address, p.buffer), (0x80, 1));
        let (m1, m2) = (p.motors[0].1, p.motors[1].1);
        assert_eq!((m1.accel, m1.deccel), (200000, 200000));
        // Speed: to the start pose at the limit, then the tick's planned
        // speed with 25 % headroom, between 1 and the limit.
        let want = if i == 0 {
            5958.0
        } else {
            let c = &table.channels[0].device;
            ((c[i] - c[i - 1]).abs() * 100.0 * roboclaw::SPEED_HEADROOM)
                .ceil()
                .clamp(1.0, 5958.0)
        };
        assert_eq!(m1.speed as f64, want, "tick {i}");
        assert_eq!(m1.position as f64, table.channels[0].device[i]);
        assert_eq!(m2.position as f64, table.channels[1].device[i]);
    }
    // The link check: 37 + 1 bytes × 10 bits × 1000 Hz > 115200 baud.
    let mut slow = profile.clone();
    slow.link = Some(pliant_hardware::Link { baud: 115200 });
    let fast = build(&run, &slow, opts(1000.0)).unwrap();
    let e = backend("roboclaw").unwrap().check(&fast).unwrap_err();
    assert!(
        matches!(e, HardwareError::Bandwidth { baud: 115200, .. }),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_motor_too_slow_for_the_gait_is_reported_with_channel_and_time() {
    let dir = tmp("limits");
    // 4 cm keyframe swings in 0.2 s: about 0.3 m/s of cable.
    gait_run(&dir, 0.04);
    let run = RunControls::read(&dir).unwrap();
    let profile = shipped("tripod_pololu_roboclaw.json");
    let e = build(&run, &profile, opts(1000.0)).unwrap_err();
    let HardwareError::Limits { violations } = &e else {
        panic!("{e}")
    };
    let speed = violations
        .iter()
        .find(|v| v.limit == "speed" && v.channel == "middle_leg_front")
        .unwrap_or_else(|| panic!("{e}"));
    assert!(speed.value.abs() > 5958.0 && speed.unit == "counts/s");
    assert!(speed.time > 0.0 && speed.time < run.duration());
    let msg = e.to_string();
    assert!(
        msg.contains("middle_leg_front") && msg.contains("t = ") && msg.contains("--clip"),
        "{msg}"
    );
    // --clip saturates: every limit holds afterwards, and the deviation is reported.
    let clipped = build(
        &run,
        &profile,
        ExportOptions {
            rate_hz: Some(1000.0),
            limits: LimitPolicy::Clip,
        },
    )
    .unwrap();
    assert!(!clipped.violations.is_empty());
    for (c, dev) in clipped.channels.iter().zip(&clipped.clip_deviation) {
        let lim = c.drive.limits();
        let v = c
            .device
            .windows(2)
            .map(|w| ((w[1] - w[0]) * 1000.0).abs())
            .fold(0.0, f64::max);
        // Quantized to whole counts: one count per sample of extra speed at most.
        assert!(v <= lim.speed.unwrap() + 1000.0 + 1e-9, "{} {v}", c.name);
        assert!(
            c.device
                .iter()
                .all(|d| (lim.range.0..=lim.range.1).contains(d))
        );
        assert!(*dev > 0.0);
    }
    // --warn-limits writes the commands unchanged.
    let warned = build(
        &run,
        &profile,
        ExportOptions {
            rate_hz: Some(1000.0),
            limits: LimitPolicy::Warn,
        },
    )
    .unwrap();
    assert_eq!(warned.violations.len(), violations.len());
    let c = &warned.channels[0];
    for (d, u) in c.device.iter().zip(&c.control) {
        assert!((d - c.drive.to_device(*u)).abs() <= 0.5);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_gets_typed_errors() {
    let dir = tmp("bad");
    gait_run(&dir, 0.0015);
    let profile = shipped("tripod_pololu_roboclaw.json");
    // Unknown backend.
    let e = pliant_hardware::export(&dir, &profile, "telepathy", ExportOptions::default(), None)
        .unwrap_err();
    assert!(
        matches!(e, HardwareError::UnknownBackend { ref known, .. } if known.contains(&"roboclaw".to_string())),
        "{e}"
    );
    // A profile missing a channel the run has.
    let mut one = profile.clone();
    one.channels.remove("middle_leg_back");
    let e = pliant_hardware::export(&dir, &one, "csv", ExportOptions::default(), None).unwrap_err();
    assert!(
        matches!(e, HardwareError::MissingChannel { ref channel, .. } if channel == "middle_leg_back"),
        "{e}"
    );
    // Zero spool radius.
    let text = std::fs::read_to_string(
        manifest().join("../../examples/hardware/tripod_pololu_roboclaw.json"),
    )
    .unwrap()
    .replacen("\"spool_radius_m\": 0.005", "\"spool_radius_m\": 0.0", 1);
    let e = HardwareProfile::from_json(&text, "zero.json").unwrap_err();
    assert!(
        matches!(e, HardwareError::BadValue { ref field, .. } if field.ends_with("spool_radius_m")),
        "{e}"
    );
    // Rate ≤ 0.
    for rate in [0.0, -5.0, f64::NAN] {
        let e = pliant_hardware::export(&dir, &profile, "csv", opts(rate), None).unwrap_err();
        assert!(matches!(e, HardwareError::BadRate { .. }), "{e}");
    }
    // Fields each in range that overflow together: a non-finite map.
    let huge = text
        .replacen(
            "\"counts_per_motor_rev\": 12",
            "\"counts_per_motor_rev\": 1e308",
            1,
        )
        .replacen("\"spool_radius_m\": 0.0,", "\"spool_radius_m\": 1e-300,", 1);
    let e = HardwareProfile::from_json(&huge, "huge.json").unwrap_err();
    assert!(
        matches!(e, HardwareError::BadValue { ref expected, .. } if expected.contains("finite")),
        "{e}"
    );
    // A summary.json whose splines are not the ones controls.csv sampled.
    let stale = tmp("stale");
    gait_run(&stale, 0.0015);
    let csv = std::fs::read_to_string(stale.join("controls.csv")).unwrap();
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    let mut f: Vec<String> = lines[20].split(',').map(str::to_string).collect();
    f[2] = format!("{}", f[2].parse::<f64>().unwrap() + 1e-4);
    lines[20] = f.join(",");
    std::fs::write(stale.join("controls.csv"), lines.join("\n") + "\n").unwrap();
    let e = RunControls::read(&stale).unwrap_err().to_string();
    assert!(e.contains("not from one run"), "{e}");
    std::fs::remove_dir_all(&stale).ok();
    // Two columns that are one channel once their units are stripped.
    let twice = tmp("twice");
    std::fs::write(
        twice.join("controls.csv"),
        "time_s,a_m,a_rad\n0,0,0\n0.1,0,0\n",
    )
    .unwrap();
    let e = RunControls::read(&twice).unwrap_err().to_string();
    assert!(e.contains("two columns are channel `a`"), "{e}");
    std::fs::remove_dir_all(&twice).ok();
    // DAQ columns are positional: analogue outputs must be 0..n once each.
    let mut snake = shipped("snake_itv3050_daq.json");
    if let Drive::PressureRegulator(p) = snake.channels.get_mut("p12").unwrap() {
        p.ao_channel = Some(0);
    }
    let press = tmp("press");
    pressure_run(&press);
    let t = build(
        &RunControls::read(&press).unwrap(),
        &snake,
        ExportOptions::default(),
    )
    .unwrap();
    let e = backend("daq-voltage")
        .unwrap()
        .check(&t)
        .unwrap_err()
        .to_string();
    assert!(e.contains("positional"), "{e}");
    std::fs::remove_dir_all(&press).ok();
    // An absurd rate is refused before anything is allocated.
    let e = pliant_hardware::export(&dir, &profile, "csv", opts(1e12), None).unwrap_err();
    assert!(matches!(e, HardwareError::TooManySamples { .. }), "{e}");
    // A run directory without controls, and one that does not exist.
    let empty = tmp("empty");
    let e = pliant_hardware::export(&empty, &profile, "csv", ExportOptions::default(), None)
        .unwrap_err();
    assert!(
        matches!(e, HardwareError::Run { ref message, .. } if message.contains("no controls.csv")),
        "{e}"
    );
    let e = RunControls::read(&empty.join("nowhere")).unwrap_err();
    assert!(matches!(e, HardwareError::Run { .. }), "{e}");
    // Malformed controls: a non-number names line and column; times must increase.
    std::fs::write(empty.join("controls.csv"), "time_s,a_m\n0,0\n0.1,oops\n").unwrap();
    let e = RunControls::read(&empty).unwrap_err().to_string();
    assert!(e.contains("line 3") && e.contains("`a_m`"), "{e}");
    std::fs::write(empty.join("controls.csv"), "time_s,a_m\n0,0\n0,1\n").unwrap();
    let e = RunControls::read(&empty).unwrap_err().to_string();
    assert!(e.contains("must increase"), "{e}");
    // A pressure run on a motor profile: unit mismatch.
    pressure_run(&empty);
    let mut motors = profile.clone();
    let m = motors.channels["middle_leg_front"].clone();
    motors.channels = (1..=3)
        .flat_map(|i| (1..=3).map(move |j| format!("p{i}{j}")))
        .map(|n| (n, m.clone()))
        .collect();
    let e = build(
        &RunControls::read(&empty).unwrap(),
        &motors,
        ExportOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e, HardwareError::UnitMismatch { ref found, .. } if found == "Pa"),
        "{e}"
    );
    // Serial without a port.
    let e = pliant_hardware::export(&dir, &profile, "serial", ExportOptions::default(), None)
        .unwrap_err();
    assert!(matches!(e, HardwareError::BadValue { .. }), "{e}");
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&empty).ok();
}

#[test]
fn every_built_in_backend_is_listed() {
    let names: Vec<String> = backends().into_iter().map(|b| b.name).collect();
    for n in [
        "c-header",
        "csv",
        "daq-voltage",
        "json",
        "roboclaw",
        "serial",
    ] {
        assert!(names.contains(&n.to_string()), "{names:?}");
    }
}

#[test]
fn the_c_header_compiles() {
    let dir = tmp("cheader");
    std::fs::create_dir_all(dir.join("run")).unwrap();
    gait_run(&dir.join("run"), 0.0015);
    let run = RunControls::read(&dir.join("run")).unwrap();
    let mut profile = shipped("tripod_pololu_roboclaw.json");
    // A servo and a regulator too, so every C type appears.
    let servo = shipped("tripod_hobby_servos.json");
    profile.channels.insert(
        "middle_leg_back".into(),
        servo.channels["middle_leg_back"].clone(),
    );
    let table = build(&run, &profile, opts(200.0)).unwrap();
    let header = dir.join("gait.h");
    backend("c-header")
        .unwrap()
        .deliver(&table, &header)
        .unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    if std::process::Command::new(&cc)
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no C compiler (`{cc}`) on this machine");
        return;
    }
    let main = dir.join("use.c");
    std::fs::write(
        &main,
        "#include \"gait.h\"\nint32_t at(unsigned i) { return pliant_middle_leg_front[i % PLIANT_SAMPLES] + (int32_t)pliant_middle_leg_back[0] + (int32_t)PLIANT_RATE_HZ + pliant_channel_names[0][0]; }\n",
    )
    .unwrap();
    let out = std::process::Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-c"])
        .arg(&main)
        .arg("-o")
        .arg(dir.join("use.o"))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(unix)]
#[test]
fn the_serial_backend_streams_to_a_pseudo_terminal_and_waits_for_acknowledgements() {
    use serialport::SerialPort;
    use std::io::{Read, Write};
    let dir = tmp("serial");
    gait_run(&dir, 0.0015);
    let run = RunControls::read(&dir).unwrap();
    let profile = shipped("tripod_pololu_roboclaw.json");
    let table = build(&run, &profile, opts(100.0)).unwrap();
    let (mut device, mut host) = serialport::TTYPort::pair().expect("a pseudo-terminal pair");
    device
        .set_timeout(std::time::Duration::from_secs(5))
        .unwrap();
    let expected = table.samples;
    // The "controller": reads packets, checks them, answers 0xFF.
    let controller = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut positions = Vec::new();
        while positions.len() < expected {
            let mut b = [0u8; 64];
            let n = device.read(&mut b).expect("reading the stream");
            buf.extend_from_slice(&b[..n]);
            while buf.len() >= 37 {
                let p = roboclaw::parse(&buf[..37]).expect("a valid packet");
                positions.push((p[0].motors[0].1.position, p[0].motors[1].1.position));
                buf.drain(..37);
                device.write_all(&[roboclaw::ACK]).unwrap();
            }
        }
        // Keep the port open until the host has read the last acknowledgement.
        (positions, device)
    });
    host.set_timeout(std::time::Duration::from_millis(20))
        .unwrap();
    let report = pliant_hardware::stream(&table, &mut host, "pty");
    let (positions, _device) = controller.join().unwrap();
    let report = report.unwrap();
    assert_eq!(report.ticks, table.samples);
    assert_eq!(report.acks, table.samples);
    for (i, (a, b)) in positions.iter().enumerate() {
        assert_eq!(
            (*a as f64, *b as f64),
            (table.channels[0].device[i], table.channels[1].device[i])
        );
    }
    // A controller that stays silent: the stream stops at the first tick.
    let (_silent, mut host) = serialport::TTYPort::pair().unwrap();
    host.set_timeout(std::time::Duration::from_millis(20))
        .unwrap();
    let e = pliant_hardware::stream(&table, &mut host, "pty")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no acknowledgement") && e.contains("tick 0"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn profile_drives_map_counts_exactly() {
    let p = shipped("tripod_pololu_roboclaw.json");
    let Drive::CableMotor(m) = &p.channels["middle_leg_front"] else {
        panic!()
    };
    // One spool turn: 2π r of cable, gear × cpr counts.
    let d = &p.channels["middle_leg_front"];
    let turn = std::f64::consts::TAU * m.spool_radius_m;
    assert!((d.to_device(turn) - m.gear_ratio * m.counts_per_motor_rev).abs() < 1e-9);
}
