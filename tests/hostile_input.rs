//! Careless and hostile input to the `pliant` binary: every refusal is a
//! non-zero exit with a message that names what was wrong, nothing hangs,
//! nothing is written outside `--out`, and an interrupted run keeps the
//! steps it finished.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn pliant() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pliant"))
}

/// A fresh temporary directory for test `name`.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pliant-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `cmd` in `dir`, killing it after `limit` (a hang fails the test
/// instead of stalling the suite).
fn run_within(mut cmd: Command, dir: &Path, limit: Duration) -> Output {
    let mut child = cmd
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("{cmd:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Asserts `out` failed with a message containing every one of `needles`
/// and no panic.
fn refused(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "accepted; stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in: {err}");
    }
}

/// The README's hanging chain as JSON, to mutate.
fn chain() -> serde_json::Value {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/scenes/hanging_chain.json"),
    )
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn simulate(dir: &Path, scene: &serde_json::Value, extra: &[&str]) -> Output {
    std::fs::write(dir.join("scene.json"), scene.to_string()).unwrap();
    let mut c = pliant();
    c.args(["simulate", "scene.json", "--out", "out"])
        .args(extra);
    run_within(c, dir, Duration::from_secs(60))
}

#[test]
fn scenes_that_would_be_read_silently_wrong_are_refused() {
    let dir = tmp("scenes");
    // Newton settings as an array would be read positionally.
    let mut s = chain();
    s["newton"] = serde_json::json!([1, 2]);
    refused(&simulate(&dir, &s, &[]), &["`newton`", "object"]);
    // No steps, no dt: no silent defaults.
    for field in ["steps", "dt"] {
        let mut s = chain();
        s.as_object_mut().unwrap().remove(field);
        refused(
            &simulate(&dir, &s, &[]),
            &[&format!("missing field `{field}`")],
        );
    }
    // Text after the document.
    std::fs::write(dir.join("scene.json"), format!("{} garbage", chain())).unwrap();
    let mut c = pliant();
    c.args(["simulate", "scene.json", "--out", "out"]);
    refused(
        &run_within(c, &dir, Duration::from_secs(60)),
        &["unexpected text after the scene"],
    );
    // A directory, and an endless device, as the scene.
    let mut c = pliant();
    c.args(["simulate", ".", "--out", "out"]);
    refused(
        &run_within(c, &dir, Duration::from_secs(60)),
        &["is a directory"],
    );
    if Path::new("/dev/zero").exists() {
        let mut c = pliant();
        c.args(["simulate", "/dev/zero", "--out", "out"]);
        refused(
            &run_within(c, &dir, Duration::from_secs(60)),
            &["larger than 64 MiB"],
        );
    }
    assert!(!dir.join("out").exists(), "a refused scene wrote output");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_that_would_fill_the_disk_needs_an_explicit_every() {
    let dir = tmp("every");
    let mut s = chain();
    s["steps"] = serde_json::json!(1_000_000_000_000u64);
    refused(&simulate(&dir, &s, &[]), &["--every", "GB"]);
    s["steps"] = serde_json::json!(u64::MAX);
    refused(&simulate(&dir, &s, &[]), &["--every"]);
    // --every 0 is not a stride.
    s["steps"] = serde_json::json!(10);
    refused(&simulate(&dir, &s, &["--every", "0"]), &["--every"]);
    // With --every, a long run writes every N-th step and the last one.
    s["steps"] = serde_json::json!(25);
    let out = simulate(&dir, &s, &["--every", "10"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/trajectory.json")).unwrap())
            .unwrap();
    let steps: Vec<u64> = json["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, [0, 10, 20, 25]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn an_interrupted_simulation_keeps_its_finished_steps() {
    for signal in ["INT", "TERM"] {
        let dir = tmp(&format!("signal-{signal}"));
        let mut s = chain();
        s["steps"] = serde_json::json!(100_000_000u64);
        std::fs::write(dir.join("scene.json"), s.to_string()).unwrap();
        let child = pliant()
            .args(["simulate", "scene.json", "--out", "out", "--every", "100"])
            .current_dir(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until steps were written, then interrupt.
        let csv = dir.join("out/trajectory.csv");
        let start = Instant::now();
        while std::fs::metadata(&csv).map_or(0, |m| m.len()) < 100_000 {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no output after 60 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let killed = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let out = child.wait_with_output().unwrap();
        refused(&out, &["interrupted after"]);
        assert_eq!(out.status.code(), Some(130), "{signal}");
        // Both files are complete documents with the same frames.
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("out/trajectory.json")).unwrap(),
        )
        .expect("trajectory.json is valid JSON after the interruption");
        let frames = json["frames"].as_array().unwrap();
        let rows = std::fs::read_to_string(&csv).unwrap().lines().count() - 1;
        assert!(
            frames.len() > 1 && rows == frames.len(),
            "{} frames, {rows} rows",
            frames.len()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A small, fast optimization spec (the Tripod, 14 steps).
fn spec() -> serde_json::Value {
    serde_json::json!({
        "robot": "tripod", "prep_steps": 2, "cycle_steps": 12, "cycles": 1,
        "keyframes": 2, "iterations": 0
    })
}

fn optimize(dir: &Path, spec: &serde_json::Value, extra: &[&str]) -> Output {
    std::fs::write(dir.join("spec.json"), spec.to_string()).unwrap();
    let mut c = pliant();
    c.args(["optimize", "spec.json", "--out", "out"])
        .args(extra);
    run_within(c, dir, Duration::from_secs(120))
}

#[test]
fn specs_that_hang_escape_or_overflow_are_refused() {
    let dir = tmp("specs");
    let cases: Vec<(serde_json::Value, Vec<&str>)> = vec![
        // Hung in the plotting library (an infinite axis).
        (
            serde_json::json!({"type": "arc", "radius": 1e308, "angle": 3.0}),
            vec!["target.radius", "1e308"],
        ),
        (
            serde_json::json!({"type": "arc", "radius": 0.05, "angle": 1e308}),
            vec!["target.angle"],
        ),
        (
            serde_json::json!({"type": "straight", "speed": 1e308}),
            vec!["target.speed"],
        ),
    ];
    for (target, needles) in cases {
        let mut s = spec();
        s["target"] = target;
        refused(&optimize(&dir, &s, &[]), &needles);
    }
    for name in [
        "../escaped",
        "/tmp/pliant-escaped",
        "a/b",
        "..",
        "",
        ".hidden",
    ] {
        let mut s = spec();
        s["name"] = serde_json::json!(name);
        refused(&optimize(&dir, &s, &[]), &["`name`", "plain file name"]);
    }
    for (field, value, needle) in [
        ("keyframes", 13u64, "between 1 and cycle_steps"),
        ("keyframes", 1_000_000, "between 1 and cycle_steps"),
        ("cycles", 1_000_000, "at most 4096 steps"),
        ("cycle_steps", u64::MAX, "at most 4096 steps"),
    ] {
        let mut s = spec();
        s[field] = serde_json::json!(value);
        refused(&optimize(&dir, &s, &[]), &[needle]);
    }
    // Nothing was written anywhere, inside or outside --out.
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["spec.json"]);
    assert!(!dir.parent().unwrap().join("escaped").exists());
    assert!(!Path::new("/tmp/pliant-escaped").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_resumed_optimization_keeps_its_history_and_a_finished_one_says_so() {
    let dir = tmp("resume");
    let progress = dir.join("out/tripod_walk/progress.csv");
    let rows = || -> Vec<Vec<String>> {
        std::fs::read_to_string(&progress)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(String::from).collect())
            .collect()
    };
    let mut s = spec();
    s["iterations"] = serde_json::json!(1);
    let ok = |o: Output| {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    ok(optimize(&dir, &s, &[]));
    let first = rows();
    assert_eq!(first.len(), 1);
    // Continued to 2 iterations: both rows, counters carried on.
    let out = ok(optimize(&dir, &s, &["--iterations", "2"]));
    assert!(out.contains("resuming from"), "{out}");
    let both = rows();
    assert_eq!(both.len(), 2);
    assert_eq!(both[0], first[0]);
    assert_eq!((both[0][0].as_str(), both[1][0].as_str()), ("1", "2"));
    let rollouts = |r: &Vec<String>| r[4].parse::<usize>().unwrap();
    let seconds = |r: &Vec<String>| r[5].parse::<f64>().unwrap();
    assert!(rollouts(&both[1]) > rollouts(&both[0]) && seconds(&both[1]) > seconds(&both[0]));
    // Run again: nothing to do, and it says so; the history stays.
    let out = ok(optimize(&dir, &s, &["--iterations", "2"]));
    assert!(out.contains("already finished"), "{out}");
    assert_eq!(rows(), both);
    // --fresh starts over, and is itself resumable (it checkpoints).
    ok(optimize(&dir, &s, &["--fresh"]));
    assert_eq!(rows().len(), 1);
    let checkpoints = std::fs::read_dir(dir.join("out/tripod_walk"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".arg")
        })
        .count();
    assert_eq!(checkpoints, 1);
    let _ = std::fs::remove_dir_all(&dir);
}
