//! The `pliant` binary: demo, energies, simulate (including its errors).

use std::process::Command;

fn pliant() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pliant"))
}

/// A small built-in scene (200 steps).
const HANGING_CHAIN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/scenes/hanging_chain.json"
);
/// The shipped Tripod hardware profile.
const TRIPOD_PROFILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/hardware/tripod_pololu_roboclaw.json"
);

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("pliant-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs `pliant simulate SCENE --out OUT_DIR`, asserts it succeeded and
/// returns the written `trajectory.csv`.
fn simulate(scene: &std::path::Path, out_dir: &std::path::Path) -> String {
    let out = pliant()
        .arg("simulate")
        .arg(scene)
        .arg("--out")
        .arg(out_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(out_dir.join("trajectory.csv")).unwrap()
}

#[cfg(unix)]
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let mut child = pliant()
        .arg("energies")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Close the pipe before it prints (as `| true` does).
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn energies_lists_the_builtins() {
    let out = pliant().arg("energies").output().unwrap();
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    for n in ["gravity", "ground", "spring", "viscous_damping"] {
        assert!(s.contains(n), "{n} not listed:\n{s}");
    }
}

#[test]
fn simulate_writes_trajectories() {
    let out_dir = tmp("sim");
    let scene = HANGING_CHAIN;
    let csv = simulate(scene.as_ref(), &out_dir);
    let rows = csv.lines().count();
    assert_eq!(rows, 1 + 1 + 200, "header + initial + 200 steps");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("trajectory.json")).unwrap())
            .unwrap();
    assert_eq!(json["frames"].as_array().unwrap().len(), 201);
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn simulate_records_run_json_and_its_input_reproduces_the_trajectory() {
    let out_dir = tmp("provenance");
    let scene = HANGING_CHAIN;
    let first = simulate(scene.as_ref(), &out_dir);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(record["pliant_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(record["stopped"], "finished");
    assert_eq!(record["progress"], 200);
    assert_eq!(record["progress_unit"], "steps");
    assert!(record["threads"].as_u64().unwrap() >= 1);
    assert!(record["wall_time_s"].as_f64().unwrap() > 0.0);
    assert!(record["command"][1] == "simulate");
    // The recorded input, run again from another file, gives the same
    // trajectory bit for bit.
    let again = out_dir.join("again");
    std::fs::create_dir_all(&again).unwrap();
    let input = again.join("scene.json");
    std::fs::write(&input, serde_json::to_string(&record["input"]).unwrap()).unwrap();
    let second = simulate(&input, &again.join("out"));
    assert!(
        first == second,
        "the recorded input does not reproduce the trajectory"
    );
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn simulate_reports_a_bad_scene_without_panicking() {
    let dir = tmp("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.json");
    std::fs::write(
        &f,
        r#"{"dim": 3, "nodes": [[0,0,0]], "mass": 1, "energies": [{"type": "nope"}], "dt": 0.01, "steps": 1}"#,
    )
    .unwrap();
    let out = pliant().args(["simulate"]).arg(&f).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nope") && err.contains("energies[0]") && !err.contains("panicked"),
        "{err}"
    );
    let out = pliant()
        .args(["simulate", "missing.json"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.json"));
    // A bad value deep in an energy: named by its path, said once.
    std::fs::write(
        &f,
        r#"{"dim": 3, "nodes": [[0,0,0], [0.1,0,0]], "mass": 1, "dt": 0.01, "steps": 1,
            "energies": [{"type": "spring", "springs": [{"nodes": [0, 1], "stiffness": -5}]}]}"#,
    )
    .unwrap();
    let out = pliant().args(["simulate"]).arg(&f).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("energies[0] (spring)") && err.contains("`springs[0].stiffness` is -5"),
        "{err}"
    );
    assert_eq!(err.matches("is -5").count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lattice_demo_runs_and_settles() {
    let out_dir = tmp("demo");
    let out = pliant()
        .args(["demo", "lattice", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("trajectory.csv"), "{s}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("trajectory.json")).unwrap())
            .unwrap();
    let last = json["frames"].as_array().unwrap().last().unwrap().clone();
    assert!(
        last["kinetic"].as_f64().unwrap() < 1e-9,
        "the block comes to rest"
    );
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn lattice_demo_is_bitwise_identical_with_one_and_two_threads() {
    // JSON floats are written in shortest round-trip form: equal text means
    // bitwise-equal states.
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let dir = tmp(&format!("threads{threads}"));
        let out = pliant()
            .env("RAYON_NUM_THREADS", threads)
            .args(["demo", "lattice", "--out"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        outputs.push(std::fs::read(dir.join("trajectory.json")).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        outputs[0] == outputs[1],
        "trajectories differ between RAYON_NUM_THREADS=1 and 2"
    );
}

#[test]
fn gait_demo_optimizes_and_is_identical_with_one_and_two_threads() {
    // The default demo: a short Tripod gait optimization, end to end. Its
    // optimized controls and COM path must not depend on the thread count.
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let dir = tmp(&format!("gait{threads}"));
        let out = pliant()
            .env("RAYON_NUM_THREADS", threads)
            .args(["demo", "--out"])
            .arg(&dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("body lengths per minute"), "{stdout}");
        let d = dir.join("demo_tripod");
        for f in [
            "controls.csv",
            "com.csv",
            "com.svg",
            "summary.json",
            "demo_tripod.pvd",
        ] {
            assert!(d.join(f).exists(), "{f} missing");
        }
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("summary.json")).unwrap())
                .unwrap();
        let progress = std::fs::read_to_string(d.join("progress.csv")).unwrap();
        assert!(progress.lines().count() >= 2, "{progress}");
        if threads == "1" {
            export_the_demo(&d);
        }
        outputs.push((
            std::fs::read(d.join("controls.csv")).unwrap(),
            std::fs::read(d.join("com.csv")).unwrap(),
            summary["z"].clone(),
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        outputs[0] == outputs[1],
        "optimized gaits differ between RAYON_NUM_THREADS=1 and 2"
    );
}

/// `pliant export` on the demo's output with the shipped Tripod profile
/// (Pololu 298:1 gearmotors, 5 mm spools, RoboClaw): the short demo gait
/// winds cable faster than the motor's no-load speed, which is reported with
/// channel and time; written anyway (`--warn-limits`) at one sample per
/// step, every motor position's spool travel equals the slack-free cable
/// contraction of that step within one encoder count.
fn export_the_demo(run: &std::path::Path) {
    let profile = TRIPOD_PROFILE;
    let out = pliant()
        .args(["export"])
        .arg(run)
        .args(["--profile", profile])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{e}");
    assert!(
        e.contains("limit violation")
            && e.contains("channel `middle_leg_front`: speed")
            && e.contains("at t = "),
        "{e}"
    );
    let json = run.join("commands.json");
    let out = pliant()
        .args(["export"])
        .arg(run)
        .args([
            "--profile",
            profile,
            "--backend",
            "json",
            "--warn-limits",
            "--rate",
            "30.303030303030305",
            "--out",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("warning, written unchanged") && run.join("commands.json.svg").exists(),
        "{stdout}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(profile).unwrap()).unwrap();
    let controls = std::fs::read_to_string(run.join("controls.csv")).unwrap();
    let header: Vec<&str> = controls.lines().next().unwrap().split(',').collect();
    for motor in ["middle_leg_front", "middle_leg_back"] {
        let m = &p["channels"][motor];
        let (r, gear, cpr) = (
            m["spool_radius_m"].as_f64().unwrap(),
            m["gear_ratio"].as_f64().unwrap(),
            m["counts_per_motor_rev"].as_f64().unwrap(),
        );
        let per_count = std::f64::consts::TAU * r / (gear * cpr);
        let col = header
            .iter()
            .position(|h| *h == format!("{motor}_u_post_m"))
            .unwrap();
        let counts = doc["channels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == motor)
            .unwrap()["commands"]
            .as_array()
            .unwrap()
            .clone();
        let mut checked = 0;
        for line in controls.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let k: usize = f[0].parse().unwrap();
            let u_post: f64 = f[col].parse().unwrap();
            let travel = counts[k].as_f64().unwrap() * per_count;
            assert!(
                (travel - u_post).abs() <= per_count,
                "{motor} step {k}: spool travel {travel} m, cable contraction {u_post} m (one count = {per_count} m)"
            );
            checked += 1;
        }
        assert!(checked > 50, "{checked}");
    }
}

#[test]
fn export_lists_backends_and_refuses_bad_input() {
    let out = pliant().args(["export", "--list"]).output().unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{s}");
    for b in [
        "csv",
        "json",
        "c-header",
        "roboclaw",
        "daq-voltage",
        "serial",
    ] {
        assert!(s.contains(b), "{b} missing: {s}");
    }
    let dir = tmp("export-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let profile = TRIPOD_PROFILE;
    // Each bad input fails with its reason on stderr.
    let fails_with = |args: &[&str], reason: &str| {
        let out = pliant()
            .arg("export")
            .arg(&dir)
            .args(args)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains(reason), "{e}");
    };
    fails_with(&["--profile", profile], "no controls.csv");
    fails_with(
        &["--profile", profile, "--backend", "carrier-pigeon"],
        "no export backend `carrier-pigeon`",
    );
    fails_with(
        &["--profile", "/nonexistent/hw.json"],
        "/nonexistent/hw.json",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn optimize_reports_bad_specs_with_their_location() {
    let dir = tmp("badspec");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("spec.json");
    std::fs::write(
        &spec,
        r#"{"robot": "tripod", "keyframes": 0, "iterations": 1}"#,
    )
    .unwrap();
    let out = pliant().arg("optimize").arg(&spec).output().unwrap();
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("`keyframes`") && e.contains("between 1 and cycle_steps"),
        "{e}"
    );
    std::fs::write(&spec, r#"{"robot": "tripod", "speed": 3}"#).unwrap();
    let out = pliant().arg("optimize").arg(&spec).output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("speed"), "{e}");
    std::fs::write(&spec, r#"{"robot": "hexapod"}"#).unwrap();
    let out = pliant().arg("optimize").arg(&spec).output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("hexapod"), "{e}");
    // `--damping` is a Levenberg–Marquardt setting: refused with another
    // solver before anything is simulated.
    std::fs::write(&spec, r#"{"robot": "tripod", "iterations": 1}"#).unwrap();
    let out = pliant()
        .args(["optimize", "--method", "lbfgs", "--damping", "nielsen"])
        .arg(&spec)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && e.contains("`damping`") && e.contains("lbfgs"),
        "{e}"
    );
    let out = pliant()
        .args(["optimize", "--method", "lbfgs", "--no-forecast-cuts"])
        .arg(&spec)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && e.contains("`forecast_cuts`") && e.contains("lbfgs"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn simulate_writes_cable_tension_and_slack_columns() {
    let dir = tmp("cable");
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("cable.json");
    // A mass on a spring, pulled back by a cable whose motor reels in 1 cm
    // over 0.1 s: slack at first, then taut.
    std::fs::write(
        &scene,
        r#"{
  "dim": 3,
  "nodes": [[0, 0, 0], [0.1, 0, 0]],
  "mass": 0.01,
  "constraints": [{ "node": 0 }],
  "params": [{ "name": "u", "kind": "control", "keyframes": [[0, -0.002], [0.1, 0.01]] }],
  "energies": [
    { "type": "spring", "springs": [{ "nodes": [0, 1], "stiffness": 100.0 }] },
    { "type": "cable", "name": "line", "stiffness": 1000.0,
      "vertices": [{ "nodes": [0], "weights": [1] }, { "nodes": [1], "weights": [1] }],
      "control": { "type": "length", "channel": "u" } },
    { "type": "viscous_damping", "coefficient": 0.05 }
  ],
  "integrator": "bdf1",
  "dt": 0.01,
  "steps": 20
}"#,
    )
    .unwrap();
    let out_dir = dir.join("out");
    let csv = simulate(&scene, &out_dir);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{name} missing: {header:?}"))
    };
    let (t, s) = (col("line.tension"), col("line.slack"));
    let rows: Vec<Vec<f64>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert!(
        rows[1][s] > 0.0 && rows[1][t] == 0.0,
        "slack at first: {:?}",
        rows[1]
    );
    // At rest, spring and cable in series share the contraction beyond the
    // smoothing half-width: T = k_s k_c / (k_s + k_c) (u − ε/2).
    let expected = 100.0 * 1000.0 / 1100.0 * (0.01 - 0.5e-4);
    let last = rows.last().unwrap();
    assert!(
        (last[t] - expected).abs() < 1e-3 * expected && last[s] == 0.0,
        "taut at the end with {expected} N: {last:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The header and the last row (as numbers) of a trajectory CSV.
fn last_row(csv: &str) -> (Vec<&str>, Vec<f64>) {
    let header = csv.lines().next().unwrap().split(',').collect();
    let last = csv
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    (header, last)
}

#[test]
fn a_rod_scene_file_simulates_and_drapes_over_the_sphere() {
    let out_dir = tmp("rod_drape");
    let scene = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/scenes/rod_drape.json"
    );
    let csv = simulate(scene.as_ref(), &out_dir);
    let (header, last) = last_row(&csv);
    assert!(header.contains(&"rod.bend_energy"), "{header:?}");
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    // The middle node rests on top of the sphere (centre z = 0.02 m, R = 3 cm,
    // rod radius 1 mm), and the bent rod stores bending energy.
    let mid_z = last[col("q32")];
    assert!((mid_z - 0.051).abs() < 1e-3, "middle node at z = {mid_z}");
    assert!(last[col("rod.bend_energy")] > 0.0);
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn a_shell_scene_file_simulates_and_drapes_over_the_sphere() {
    let out_dir = tmp("sheet_drape");
    let scene = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/scenes/sheet_drape.json"
    );
    let csv = simulate(scene.as_ref(), &out_dir);
    let (header, last) = last_row(&csv);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    // The sheet's centre node (24) rests on top of the sphere (centre
    // z = 0.02 m, R = 3 cm, contact half-thickness 0.5 mm); its corners hang
    // lower, towards the ground.
    let centre = last[col("q74")];
    assert!((centre - 0.0505).abs() < 1.5e-3, "centre at z = {centre}");
    for corner in [0, 6, 42, 48] {
        let z = last[col(&format!("q{}", 3 * corner + 2))];
        assert!(
            z < centre - 0.01,
            "corner {corner} at z = {z}, centre {centre}"
        );
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn a_pneumatic_muscle_scene_lifts_its_load_to_the_static_extension() {
    let out_dir = tmp("pma_lift");
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/scenes/pma_lift.json");
    let csv = simulate(scene.as_ref(), &out_dir);
    let (header, last) = last_row(&csv);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    // At 4 bar each half of the muscle (stiffness 2K) extends by
    // (p A − its load)/(2K): the top half carries 1 kg, the bottom half
    // 1.01 kg.
    let (pa, k, g) = (4e5 * 3.5625e-4, 1900.0, 9.81);
    let expected = 0.15 + (pa - g) / (2.0 * k) + (pa - 1.01 * g) / (2.0 * k);
    let top = last[col("q8")];
    assert!(
        (top - expected).abs() < 1e-6,
        "top at {top} m, expected {expected} m"
    );
    assert!((last[col("pma.length")] - expected).abs() < 1e-6);
    assert!((last[col("pma.pressure")] - 4e5).abs() < 1e-9);
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn mesh_fills_a_surface_and_writes_groups_gmsh_reads() {
    let dir = tmp("mesh");
    std::fs::create_dir_all(&dir).unwrap();
    let stl = dir.join("ball.stl");
    pliant::mesh::SurfaceMesh::icosphere(0.02, [0.0, 0.0, 0.03], 3)
        .write_stl(&stl)
        .unwrap();
    let msh = dir.join("ball.msh");
    // `pliant mesh STL --out MSH [--voxel 0.002]`.
    let mesh = |voxel: bool| {
        let mut c = pliant();
        c.arg("mesh").arg(&stl).arg("--out").arg(&msh);
        if voxel {
            c.args(["--voxel", "0.002"]);
        }
        c.output().unwrap()
    };
    let out = mesh(true);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("closed surface of 1280 triangles"), "{text}");
    let g = pliant::fem::GmshMesh::read(&msh).unwrap();
    let body = g.group("body").unwrap();
    assert_eq!(body.tets.len(), g.tets.len());
    let surface = g.group("surface").unwrap();
    assert_eq!(surface.triangles.len(), g.triangles.len());
    let body_mesh = pliant::fem::TetMesh::from_gmsh(&g).unwrap();
    let exact = 4.0 / 3.0 * std::f64::consts::PI * 0.02f64.powi(3);
    assert!(
        (body_mesh.volume() / exact - 1.0).abs() < 0.05,
        "{}",
        body_mesh.volume()
    );
    // A Gmsh input keeps its named groups: the box's `bottom` and `top`
    // faces (as point sets) and its `body` volume.
    let boxed = dir.join("box_out.msh");
    let out = pliant()
        .arg("mesh")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/plugins/fem/tests/data/box_v22_ascii.msh"
        ))
        .arg("--out")
        .arg(&boxed)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && said.contains("`bottom`"), "{said}");
    let g = pliant::fem::GmshMesh::read(&boxed).unwrap();
    let original = pliant::fem::GmshMesh::read(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/plugins/fem/tests/data/box_v22_ascii.msh"
    )))
    .unwrap();
    for name in ["bottom", "top"] {
        let (a, b) = (g.group(name).unwrap(), original.group(name).unwrap());
        assert_eq!(a.nodes.len(), b.nodes.len(), "{name}");
        // The same positions.
        let pos = |m: &pliant::fem::GmshMesh, n: &[usize]| {
            let mut v: Vec<[u64; 3]> = n.iter().map(|&i| m.nodes[i].map(f64::to_bits)).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(pos(&g, &a.nodes), pos(&original, &b.nodes), "{name}");
    }
    // A surface without --voxel, and an open one: errors naming the file.
    let e = mesh(false);
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(
        !e.status.success() && err.contains("ball.stl") && err.contains("--voxel"),
        "{err}"
    );
    let mut open = pliant::mesh::SurfaceMesh::icosphere(0.02, [0.0; 3], 1);
    open.triangles.truncate(70);
    open.write_stl(&stl).unwrap();
    let e = mesh(true);
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(!e.status.success() && err.contains("not closed"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
