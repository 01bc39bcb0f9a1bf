#![cfg(target_os = "linux")]
//! Runtime energy plugins: the example DEA plugin loaded from its shared
//! library, used from scenes, checked against physics, derivatives,
//! sensitivities and the same code compiled into the host; and every refusal.

use pliant::core::derivcheck::{Tolerances, check};
use pliant::core::plugin::{self, PluginError};
use pliant::core::scene::Scene;
use pliant::core::{
    ElementList, Energy, EnergySpec, EvalState, Integrator, ModelBuilder, NewtonSettings,
    ParamChannel, Simulator,
};
use pliant::environment::{Gravity, Spring, Springs};
use pliant::optim::rollout_with_sensitivity;
use pliant_example_dea::DeaSpring;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A shared library built next to this test binary (a dev-dependency).
fn lib(name: &str) -> PathBuf {
    let dir = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let p = dir.join(format!(
        "{}{name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    assert!(
        p.exists(),
        "{} missing: build with `cargo test --workspace`",
        p.display()
    );
    p
}

fn dea() -> PathBuf {
    lib("pliant_example_dea")
}

/// Loads the example plugin once per test process.
fn ensure_loaded() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        pliant::init();
        let names = plugin::load(&dea()).unwrap();
        assert_eq!(names, ["dea_spring"]);
    });
}

const L0: f64 = 0.05;
const M: f64 = 0.02;
const G: f64 = 9.81;

fn strip_json(channel: &str) -> String {
    format!(
        r#"{{"nodes": [0, 1], "rest_length": {L0}, "youngs_modulus": 1e6, "area": 1e-5, "thickness": 5e-5, "permittivity": 4.7, "voltage": "{channel}"}}"#
    )
}

/// A DEA strip hanging a mass: node 0 fixed, node 1 below it.
fn hanging_scene(volts: f64, integrator: &str) -> String {
    format!(
        r#"{{
  "dim": 3,
  "nodes": [[0, 0, 0], [0, 0, -{L0}]],
  "mass": [0.001, {M}],
  "constraints": [{{ "node": 0 }}],
  "params": [{{ "name": "V", "kind": "control", "value": {volts} }}],
  "energies": [
    {{ "type": "gravity", "g": [0, 0, -{G}] }},
    {{ "type": "dea_spring", "elements": [{}] }}
  ],
  "integrator": "{integrator}",
  "dt": 0.002,
  "steps": 1
}}"#,
        strip_json("V")
    )
}

fn strip() -> DeaSpring {
    serde_json::from_str(&strip_json("V")).unwrap()
}

#[test]
fn plugin_energy_hangs_a_mass_where_hand_computation_says() {
    ensure_loaded();
    for volts in [0.0, 2000.0, 3000.0] {
        let mut sim = Scene::from_json(&hanging_scene(volts, "static"), "hanging")
            .unwrap()
            .into_simulator()
            .unwrap()
            .simulator;
        sim.step().unwrap();
        // k = Y A / L0 = 200 N/m; L(V) = L0 (1 + ε0 εr V²/(2 Y t²)); l = L(V) + m g / k.
        let eps0 = 8.854_187_812_8e-12;
        let l_v = L0 * (1.0 + eps0 * 4.7 * volts * volts / (2.0 * 1e6 * 25e-10));
        let expected = l_v + M * G / 200.0;
        let l = -sim.q()[5];
        eprintln!("V = {volts} V: length {l:.9} m, hand-computed {expected:.9} m");
        assert!((l - expected).abs() < 1e-10, "{l} vs {expected}");
    }
}

#[test]
fn plugin_derivatives_pass_the_check_across_the_boundary() {
    ensure_loaded();
    let sc = Scene::from_json(&hanging_scene(2500.0, "bdf1"), "hanging").unwrap();
    let m = sc.build_model().unwrap();
    let e: &dyn Energy = m.energies()[1].as_ref();
    assert_eq!(m.energy_name(1), "dea_spring");
    // Built by the plugin library (runtime energies hide their type).
    assert!(e.as_any().is_none());
    let q = [0.0, 0.0, 0.0, 0.003, -0.001, -0.052];
    let s = EvalState {
        q: &q,
        q_prev: &q,
        p: &[2500.0],
        h: 0.002,
        dt: 0.002,
        t: 0.0,
    };
    let tol = Tolerances {
        exact: 1e-9,
        fd: 1e-5,
        step: 1e-7,
    };
    check(e, &s, &tol).assert_within(&tol);
}

#[test]
fn voltage_sensitivity_of_a_rollout_matches_finite_differences() {
    ensure_loaded();
    let build = || {
        Scene::from_json(&hanging_scene(0.0, "implicit_euler"), "hanging")
            .unwrap()
            .into_simulator()
            .unwrap()
            .simulator
    };
    let (v, steps) = (2000.0, 40);
    let r = rollout_with_sensitivity(&mut build(), &[v], &[0], steps).unwrap();
    let end = |v: f64| {
        let mut s = build();
        for _ in 0..steps {
            s.step_with(&[v], false).unwrap();
        }
        s.q()[5]
    };
    let eps = 1e-3;
    let fd = (end(v + eps) - end(v - eps)) / (2.0 * eps);
    eprintln!("dz/dV = {:.6e} m/V (FD {fd:.6e})", r.dx_dp[0][5]);
    assert!(fd.abs() > 1e-7);
    assert!((r.dx_dp[0][5] - fd).abs() < 1e-6 * fd.abs());
}

fn model_with(energy: Box<dyn EnergySpec>) -> Simulator {
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 0.001).unwrap();
    b.add_node(&[0.01, 0.0, -L0], M).unwrap();
    b.fix_node(0).unwrap();
    b.add_param(ParamChannel::control("V", 0.0).with_keyframes(vec![(0.0, 0.0), (0.1, 3000.0)]))
        .unwrap();
    b.add(Gravity::new(&[0.0, 0.0, -G]));
    b.add_boxed(energy);
    Simulator::new(
        b.build().unwrap(),
        Integrator::ImplicitMidpoint,
        0.002,
        NewtonSettings::default(),
    )
    .unwrap()
}

fn trajectory(mut sim: Simulator) -> Vec<f64> {
    let mut out = Vec::new();
    for _ in 0..100 {
        sim.step().unwrap();
        out.extend_from_slice(sim.q());
    }
    out
}

#[test]
fn plugin_and_builtin_energies_give_the_same_trajectories() {
    ensure_loaded();
    let json = format!(
        r#"{{"type": "dea_spring", "elements": [{}]}}"#,
        strip_json("V")
    );
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let runtime = pliant::core::registry::spec_from_json(&value, "test", "energies[0]").unwrap();
    let from_plugin = trajectory(model_with(runtime));
    // The same element compiled into this binary: bitwise identical.
    let compiled = trajectory(model_with(Box::new(ElementList::new(vec![strip()]))));
    assert!(
        from_plugin
            .iter()
            .zip(&compiled)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "plugin vs compiled-in differ"
    );
    // The built-in spring with the DEA's rest-length change as a (negative)
    // contraction: identical up to round-off (different operation order).
    let d = strip();
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 0.001).unwrap();
    b.add_node(&[0.01, 0.0, -L0], M).unwrap();
    b.fix_node(0).unwrap();
    let keys: Vec<(f64, f64)> = (0..=100)
        .map(|i| {
            let t = 0.001 * i as f64;
            let v: f64 = 3000.0 * (t / 0.1).min(1.0);
            (t, -L0 * d.strain_per_volt2() * v * v)
        })
        .collect();
    b.add_param(ParamChannel::control("u", 0.0).with_keyframes(keys))
        .unwrap();
    b.add(Gravity::new(&[0.0, 0.0, -G]));
    b.add(Springs::with_contraction(
        vec![Spring {
            nodes: [0, 1],
            stiffness: d.stiffness(),
            rest_length: Some(L0),
        }],
        "u",
    ));
    let builtin = trajectory(
        Simulator::new(
            b.build().unwrap(),
            Integrator::ImplicitMidpoint,
            0.002,
            NewtonSettings::default(),
        )
        .unwrap(),
    );
    // Rest lengths are sampled at step ends (t = 2 ms · k), where the 1 ms
    // keyframes reproduce V(t)² exactly.
    let worst = from_plugin
        .iter()
        .zip(&builtin)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    eprintln!("plugin vs built-in spring: max difference {worst:.3e} m");
    assert!(worst < 1e-12, "{worst}");
}

#[test]
fn refusals_are_typed_errors() {
    ensure_loaded();
    // Another core version.
    match plugin::load(&lib("pliant_test_wrong_abi")) {
        Err(PluginError::AbiMismatch {
            found, expected, ..
        }) => {
            assert!(
                found.contains("pliant-core 0.0.1") && expected.contains(env!("CARGO_PKG_VERSION"))
            );
        }
        other => panic!("expected AbiMismatch, got {other:?}"),
    }
    // A real library without the entry point.
    assert!(matches!(
        plugin::load(std::path::Path::new("libc.so.6")),
        Err(PluginError::MissingEntryPoint { .. })
    ));
    // Loading the same file again is a no-op that returns its names...
    assert_eq!(plugin::load(&dea()).unwrap(), ["dea_spring"]);
    // ...but another file providing a name already taken is refused.
    let other = dea().with_file_name(format!("libdea_again_{}.so", std::process::id()));
    if std::fs::hard_link(dea(), &other).is_err() {
        std::fs::copy(dea(), &other).unwrap();
    }
    let dup = plugin::load(&other);
    let _ = std::fs::remove_file(&other);
    match dup {
        Err(PluginError::DuplicateName { name, existing, .. }) => {
            assert_eq!(name, "dea_spring");
            assert!(existing.contains("pliant_example_dea"), "{existing}");
        }
        other => panic!("expected DuplicateName, got {other:?}"),
    }
    // Not a library.
    let dir = std::env::temp_dir().join(format!("pliant-plugins-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let txt = dir.join("notes.so");
    std::fs::write(&txt, "not a library").unwrap();
    assert!(matches!(
        plugin::load(&txt),
        Err(PluginError::NotALibrary { .. })
    ));
    // Truncated copies of a real plugin (the loader would map segments past
    // the end of the file and die with SIGBUS): refused before dlopen.
    let bytes = std::fs::read(dea()).unwrap();
    for percent in [5, 50, 95] {
        let cut = dir.join(format!("cut_{percent}.so"));
        std::fs::write(&cut, &bytes[..bytes.len() * percent / 100]).unwrap();
        match plugin::load(&cut) {
            Err(e @ PluginError::NotALibrary { .. }) => {
                assert!(e.to_string().contains("truncated"), "{percent} %: {e}")
            }
            other => panic!("{percent} %: expected NotALibrary, got {other:?}"),
        }
        std::fs::remove_file(&cut).unwrap();
    }
    // A missing file.
    assert!(matches!(
        plugin::load(&dir.join("missing.so")),
        Err(PluginError::MissingFile { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
    // Nothing refused was registered.
    let names: Vec<String> = plugin::runtime_energies()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, ["dea_spring"]);
}

#[test]
fn cli_loads_plugins_from_flags_and_scene_files() {
    let dir = std::env::temp_dir().join(format!("pliant-plugin-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = env!("CARGO_BIN_EXE_pliant");
    // --plugin flag.
    let scene = dir.join("hanging.json");
    std::fs::write(&scene, hanging_scene(1000.0, "implicit_euler")).unwrap();
    let out = std::process::Command::new(bin)
        .args(["simulate"])
        .arg(&scene)
        .args(["--steps", "5", "--plugin"])
        .arg(dea())
        .arg("--out")
        .arg(dir.join("out1"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // "plugins" in the scene, relative to the scene file (a link next to it).
    let link = dir.join("libdea.so");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(dea(), &link).unwrap();
    let with_plugins = hanging_scene(1000.0, "implicit_euler").replacen(
        "\"dim\": 3,",
        "\"dim\": 3, \"plugins\": [\"libdea.so\"],",
        1,
    );
    let scene2 = dir.join("hanging_plugins.json");
    std::fs::write(&scene2, with_plugins).unwrap();
    let out = std::process::Command::new(bin)
        .args(["simulate"])
        .arg(&scene2)
        .arg("--out")
        .arg(dir.join("out2"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Without the plugin the energy is unknown, and the message says so.
    let out = std::process::Command::new(bin)
        .args(["simulate"])
        .arg(&scene)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("dea_spring") && err.contains("energies[1]"),
        "{err}"
    );
    // `pliant energies` lists the runtime energy with its library.
    let out = std::process::Command::new(bin)
        .args(["energies", "--plugin"])
        .arg(dea())
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("plugin energies:")
            && s.contains("dea_spring")
            && s.contains("pliant_example_dea"),
        "{s}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An export backend from a runtime plugin (`examples/plugins/lines_backend`):
/// listed, used and round-tripped like a built-in one; a library without
/// the backend entry points and a wrong-ABI library are refused.
#[test]
fn export_backends_load_from_plugins() {
    use pliant_hardware::{ExportOptions, HardwareError, HardwareProfile, LimitPolicy};
    let lines = lib("pliant_example_lines");
    // From the command line.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pliant"))
        .args(["export", "--list", "--plugin"])
        .arg(&lines)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        s.contains("lines") && s.contains("pliant_example_lines"),
        "{s}"
    );
    // In process: load (twice: the same names), export, decode.
    assert_eq!(pliant_hardware::plugin::load(&lines).unwrap(), ["lines"]);
    assert_eq!(pliant_hardware::plugin::load(&lines).unwrap(), ["lines"]);
    let dir = std::env::temp_dir().join(format!("pliant-backend-plugin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut csv = String::from("time_s,middle_leg_front_m,middle_leg_back_m\n");
    for k in 0..=30 {
        let t = k as f64 * 0.033;
        // Both from rest.
        csv.push_str(&format!(
            "{t},{},{}\n",
            0.002 * (1.0 - (3.0 * t).cos()),
            -0.001 * t * t
        ));
    }
    std::fs::write(dir.join("controls.csv"), csv).unwrap();
    let profile = HardwareProfile::from_file(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/hardware/tripod_pololu_roboclaw.json"
    )))
    .unwrap();
    let opts = ExportOptions {
        rate_hz: Some(500.0),
        limits: LimitPolicy::Fail,
    };
    let out = dir.join("gait.txt");
    let report = pliant_hardware::export(&dir, &profile, "lines", opts, Some(&out)).unwrap();
    let run = pliant_hardware::RunControls::read(&dir).unwrap();
    let table = pliant_hardware::build(&run, &profile, opts).unwrap();
    let decoded = pliant_hardware::backend("lines")
        .unwrap()
        .decode(&std::fs::read(&out).unwrap(), &profile)
        .unwrap();
    assert_eq!(report.samples, table.samples);
    for c in &table.channels {
        assert_eq!(decoded.channel(&c.name).unwrap(), c.device.as_slice());
    }
    // Not a backend plugin (an energy plugin has no pliant_hardware_abi).
    let e = pliant_hardware::plugin::load(&dea()).unwrap_err();
    assert!(
        matches!(e, HardwareError::NotABackendPlugin { ref symbol, .. } if symbol == "pliant_hardware_abi"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
