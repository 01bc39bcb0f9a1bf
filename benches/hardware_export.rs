//! Hardware export benchmark (release; medians of 11 runs, single process).
//!
//! `cargo bench --bench hardware_export [-- RUN_DIR]`
//!
//! Exports a 168-step, 8-channel gait (the Puppy's layout: 24 preparatory
//! steps and two 72-step cycles of 33 ms, four keyframes, eight motors, the
//! optimizer's spline knots and some slack removed) at 1 kHz with the
//! shipped Puppy profile: reading the run, resampling and mapping (the
//! command table), each file backend writing to memory, the plot, and the
//! whole `export` to a file as `pliant export` does it. With `RUN_DIR` (a
//! `pliant optimize` output of the Puppy) that run is used instead of the
//! generated one.

use pliant::hardware::{
    ExportOptions, HardwareProfile, LimitPolicy, RunControls, backend, build, export, plot,
};
use pliant::optim::{Gait, Motor};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    let samples = (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64()
        })
        .collect();
    median(samples)
}

/// Writes a Puppy-layout run (controls.csv and summary.json with knots).
fn puppy_like_run(dir: &Path) {
    let names = [
        "rear_right_front",
        "rear_right_back",
        "rear_left_front",
        "rear_left_back",
        "front_right_front",
        "front_right_back",
        "front_left_front",
        "front_left_back",
    ];
    let gait = Gait {
        motors: names
            .iter()
            .map(|n| Motor {
                name: n.to_string(),
                channels: vec![n.to_string()],
                mirror_of: None,
            })
            .collect(),
        keyframes: 4,
        prep_steps: 24,
        cycle_steps: 72,
        cycles: 2,
        bounds: Some((-0.01, 0.015)),
    };
    let h = 0.033;
    // Keyframes within ±1 cm (deterministic).
    let z: Vec<f64> = (0..gait.nz())
        .map(|i| 0.01 * ((i as f64 * 2.39).sin()))
        .collect();
    let keys = gait.keys_from_z(&z).unwrap();
    let mut csv = String::from("step,time_s");
    for n in names {
        csv.push_str(&format!(",{n}_u_m"));
    }
    for n in names {
        csv.push_str(&format!(",{n}_u_post_m"));
    }
    csv.push('\n');
    for k in 1..=gait.steps() {
        let u: Vec<f64> = (0..8).map(|m| gait.value_at(&keys, m, k as f64)).collect();
        csv.push_str(&format!("{k},{}", k as f64 * h));
        for v in &u {
            csv.push_str(&format!(",{v}"));
        }
        for v in &u {
            // Slack taken in where the spline lets a cable out.
            csv.push_str(&format!(",{}", v.max(-0.002)));
        }
        csv.push('\n');
    }
    std::fs::write(dir.join("controls.csv"), csv).unwrap();
    let splines: serde_json::Map<String, serde_json::Value> = names
        .iter()
        .enumerate()
        .map(|(m, n)| {
            let knots = gait.knots(&keys, m);
            (
                n.to_string(),
                serde_json::json!({
                    "t_s": knots.iter().map(|k| k.0 * h).collect::<Vec<_>>(),
                    "value": knots.iter().map(|k| k.1).collect::<Vec<_>>(),
                    "slope_per_s": vec![0.0; knots.len()],
                }),
            )
        })
        .collect();
    let summary = serde_json::json!({"summary": {"name": "puppy_layout"}, "splines": splines});
    std::fs::write(dir.join("summary.json"), summary.to_string()).unwrap();
}

fn main() {
    let arg = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let scratch = std::env::temp_dir().join(format!("pliant-export-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let run_dir: PathBuf = match arg {
        Some(d) => PathBuf::from(d),
        None => {
            puppy_like_run(&scratch);
            scratch.clone()
        }
    };
    let profile = HardwareProfile::from_file(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/hardware/puppy_pololu_roboclaw.json"
    )))
    .unwrap();
    // Clip: a generated gait may break a limit; the cost is the same.
    let opts = ExportOptions {
        rate_hz: Some(1000.0),
        limits: LimitPolicy::Clip,
    };
    let run = RunControls::read(&run_dir).unwrap();
    let table = build(&run, &profile, opts).unwrap();
    println!(
        "run {}: {} channels, {} steps, {:.3} s; exported at 1 kHz: {} samples per channel ({} limit violations clipped)",
        run_dir.display(),
        run.channels.len(),
        run.channels[0].times.len(),
        run.duration(),
        table.samples,
        table.violations.len()
    );
    let runs = 11;
    println!("medians of {runs} runs:");
    let t = time(runs, || RunControls::read(&run_dir).unwrap());
    println!("  read the run directory        {:8.3} ms", 1e3 * t);
    let t = time(runs, || build(&run, &profile, opts).unwrap());
    println!("  resample, map, check, quantize {:7.3} ms", 1e3 * t);
    for name in ["csv", "json", "c-header"] {
        let b = backend(name).unwrap();
        let mut bytes = Vec::new();
        let t = time(runs, || {
            bytes.clear();
            b.write(&table, &mut bytes).unwrap();
        });
        println!(
            "  write {name:<10} ({:>8} bytes) {:8.3} ms",
            bytes.len(),
            1e3 * t
        );
    }
    let t = time(runs, || {
        plot(&table, &run, &scratch.join("bench.svg")).unwrap()
    });
    println!("  plot (SVG)                    {:8.3} ms", 1e3 * t);
    let out = scratch.join("commands.csv");
    let t = time(runs, || {
        export(&run_dir, &profile, "csv", opts, Some(&out)).unwrap()
    });
    println!("  whole export to csv + plot    {:8.3} ms", 1e3 * t);
    let _ = std::fs::remove_dir_all(&scratch);
}
