//! Gait optimization of a scene file: the paper robots' generated scenes
//! (`examples/robots/*.json`) optimized through a `"scene"` spec give
//! bitwise the iterates of the built-in `"robot"` path, and bad scene specs
//! are typed errors naming the spec file and the field.

use pliant::gait::{Checkpoints, OptimizeSpec, optimize_gait};
use pliant::scenarios::ScenarioError;
use std::path::Path;

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/optimize")
}

/// A spec read as if it were the file `examples/optimize/<name>`.
fn spec(name: &str, text: &str) -> OptimizeSpec {
    let mut s = OptimizeSpec::from_json(text, name).unwrap_or_else(|e| panic!("{e}"));
    s.base_dir = Some(examples());
    s
}

fn out_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("pliant-gait-scenes-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

const SHORT: &str = r#""prep_steps": 6, "cycle_steps": 24, "cycles": 2, "target": {"type": "straight", "speed": 0.0187}"#;
const TRIPOD_HEADING: &str = r#""heading": {
    "rear": {"box": {"min": [-1, -1, 0.0405], "max": [0.0005, 1, 1]}},
    "front": {"box": {"min": [0.1395, -1, 0.0405], "max": [1, 1, 1]}}}"#;

#[test]
fn the_tripod_scene_file_optimizes_bitwise_like_the_built_in_tripod() {
    pliant::init();
    let built_in = spec("built-in", &format!(r#"{{"robot": "tripod", {SHORT}}}"#));
    let from_file = spec(
        "scene",
        &format!(
            r#"{{"scene": "../robots/tripod.json", "body_length": 0.14, {TRIPOD_HEADING},
                "actuators": {{"motors": ["middle_leg_front", "middle_leg_back"]}}, {SHORT}}}"#
        ),
    );
    let mut runs = Vec::new();
    for (s, tag) in [(&built_in, "a"), (&from_file, "b")] {
        let setup = s.setup().unwrap();
        assert_eq!(setup.name, "tripod_walk");
        // The scene file carries the gaits' Newton settings.
        assert_eq!(setup.newton, pliant::core::NewtonSettings::fast());
        let z0 = s.z0(&setup).unwrap();
        let out = out_dir(tag);
        let run = optimize_gait(&setup, &z0, s.method(), 2, &out, Checkpoints::Off, None).unwrap();
        let _ = std::fs::remove_dir_all(&out);
        runs.push(run);
    }
    let (a, b) = (&runs[0], &runs[1]);
    assert!(a.result.objective < a.result.initial_objective);
    assert_eq!(a.result.history.len(), b.result.history.len());
    for (x, y) in a.result.history.iter().zip(&b.result.history) {
        assert_eq!(x.objective.to_bits(), y.objective.to_bits());
    }
    let bits = |z: &[f64]| z.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a.result.z), bits(&b.result.z));
    assert_eq!(
        a.summary.body_lengths_per_minute.to_bits(),
        b.summary.body_lengths_per_minute.to_bits()
    );
}

#[test]
fn the_shipped_puppy_spec_is_the_built_in_symmetric_puppy() {
    pliant::init();
    let path = examples().join("puppy_walk.json");
    let shipped = OptimizeSpec::from_file(&path).unwrap();
    let text =
        r#"{"robot": "puppy", "symmetric": true, "target": {"type": "straight", "speed": 0.0217}}"#;
    let built_in = spec("built-in", text);
    let (a, b) = (built_in.setup().unwrap(), shipped.setup().unwrap());
    assert_eq!(a.gait, b.gait);
    assert_eq!(a.robot.scene_text(), b.robot.scene_text());
    let model = a.robot.model().unwrap();
    assert_eq!(
        a.robot.heading_nodes(&model).unwrap(),
        b.robot.heading_nodes(&model).unwrap()
    );
    // One rollout of each: residuals bitwise equal.
    let z0 = built_in.z0(&a).unwrap();
    let (pa, _) = a.problem(&z0).unwrap();
    let (pb, _) = b.problem(&z0).unwrap();
    let w = pa.w_of(&z0);
    let (ra, rb) = (pa.residuals(&w).unwrap(), pb.residuals(&w).unwrap());
    assert_eq!(
        ra.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        rb.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

fn spec_error(text: &str) -> (String, String, String) {
    let e = match spec("bad.json", text).setup() {
        Err(e) => e,
        Ok(_) => panic!("{text} was accepted"),
    };
    match e {
        ScenarioError::Spec {
            origin,
            field,
            message,
        } => (origin, field, message),
        other => panic!("{text}: not a spec error: {other}"),
    }
}

#[test]
fn bad_scene_specs_name_the_file_and_the_field() {
    pliant::init();
    let cases = [
        (
            r#"{"scene": "../robots/tripod.json", "actuators": {"motors": ["middle_leg_front", "tail"]}}"#,
            "actuators.motors[1]",
            "`tail` is not a control channel",
        ),
        (
            r#"{"scene": "../robots/tripod.json", "actuators": {"motors": [{"name": "pair", "channels": ["middle_leg_front", "middle_leg_front"]}]}}"#,
            "actuators.motors[0].channels[1]",
            "driven by two motors",
        ),
        (
            r#"{"scene": "../robots/puppy.json", "actuators": {"mirror": [["rear_left_front", "hind"]]}}"#,
            "actuators.mirror[0][1]",
            "`hind` is not a motor",
        ),
        (
            r#"{"scene": "../robots/tripod.json", "actuators": {"bounds": [0.001, 0.01]}}"#,
            "actuators.bounds",
            "contain 0",
        ),
        (
            r#"{"scene": "../robots/tripod.json", "heading": {"rear": {"box": {"min": [5, 5, 5], "max": [6, 6, 6]}}, "front": {"nodes": [0]}}}"#,
            "heading.rear",
            "selects no node",
        ),
        (
            r#"{"scene": "../robots/tripod.json", "heading": {"rear": {"region": "tail"}, "front": {"nodes": [0]}}}"#,
            "heading.rear",
            "tail",
        ),
        (
            r#"{"scene": "../robots/kitten.json"}"#,
            "scene",
            "kitten.json",
        ),
        (
            r#"{"scene": "../robots/tripod.json", "robot": "tripod"}"#,
            "robot",
            "not both",
        ),
        (r#"{"iterations": 3}"#, "scene", "missing"),
        (
            r#"{"scene": "../robots/puppy.json", "actuators": {"mirror": [["rear_left_front", "rear_right_front"], ["rear_right_front", "front_right_front"]]}}"#,
            "actuators.mirror[0][1]",
            "do not chain",
        ),
        (
            r#"{"scene": "../robots/tripod.json", "heading": {"rear": {"nodes": [0]}, "front": {"nodes": [0]}}}"#,
            "heading",
            "apart",
        ),
        (
            r#"{"scene": "../robots/tripod.json", "body_length": -0.1}"#,
            "body_length",
            "positive",
        ),
        (
            r#"{"scene": "../robots/tripod.json", "settle_steps": 100000}"#,
            "cycles",
            "settle_steps",
        ),
        (
            r#"{"robot": "puppy", "actuators": {"mirror": []}}"#,
            "actuators",
            "belongs to a `scene` spec",
        ),
        (
            r#"{"scene": "../robots/puppy.json", "symmetric": true}"#,
            "symmetric",
            "actuators.mirror",
        ),
    ];
    for (text, field, needle) in cases {
        let (origin, f, message) = spec_error(text);
        assert_eq!(f, field, "{text}: {message}");
        assert!(message.contains(needle), "{text}: {message}");
        assert!(origin.contains("bad.json"), "{text}: {origin}");
    }
}

#[test]
fn an_incline_rotates_the_scene_gravity() {
    pliant::init();
    let s = spec(
        "incline.json",
        r#"{"scene": "../robots/tripod.json", "incline_degrees": 10}"#,
    );
    let setup = s.setup().unwrap();
    let scene: serde_json::Value = serde_json::from_str(setup.robot.scene_text()).unwrap();
    let gravity: Vec<&serde_json::Value> = scene["energies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "gravity")
        .collect();
    assert_eq!(gravity.len(), 1);
    let g: Vec<f64> = serde_json::from_value(gravity[0]["g"].clone()).unwrap();
    // The rotated scene still builds.
    setup.robot.model().unwrap();
    let a = 10f64.to_radians();
    assert!((g[0] + 9.81 * a.sin()).abs() < 1e-12 && (g[2] + 9.81 * a.cos()).abs() < 1e-12);
    // The built-in incline rotates it the same way.
    let puppy = pliant::gait::GaitSetup::puppy_incline(10.0).unwrap();
    assert!(
        puppy
            .robot
            .scene_text()
            .contains(&format!("{}", -9.81 * a.sin()))
    );
}

#[test]
fn a_malformed_motor_says_what_a_motor_is() {
    let text = r#"{"scene": "../robots/tripod.json", "actuators": {"motors": [{"name": "pair", "channel": ["middle_leg_front"]}]}}"#;
    match OptimizeSpec::from_json(text, "bad.json") {
        Err(ScenarioError::Spec { field, message, .. }) => {
            assert_eq!(field, "actuators.motors[0]", "{message}");
            assert!(message.contains("control channel's name"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}
