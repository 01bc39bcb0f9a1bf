//! Scene files and bad input: every mistake gets an error that says what and
//! where, never a panic.

use pliant::core::scene::Scene;
use pliant::core::{CoreError, Integrator, ModelBuilder, NewtonSettings, Simulator, registry};
use pliant::environment::Gravity;

const CHAIN: &str = r#"{
  "dim": 3,
  "nodes": [[0, 0, 0], [0, 0, -0.1], [0, 0, -0.2]],
  "mass": 0.01,
  "constraints": [{ "node": 0 }],
  "energies": [
    { "type": "gravity", "g": [0, 0, -9.81] },
    { "type": "spring", "springs": [{ "nodes": [0, 1], "stiffness": 50.0 }, { "nodes": [1, 2], "stiffness": 50.0 }] },
    { "type": "viscous_damping", "coefficient": 0.05 }
  ],
  "integrator": "implicit_midpoint",
  "dt": 0.01,
  "steps": 20
}"#;

fn build(text: &str) -> Result<pliant::core::Model, CoreError> {
    pliant::init();
    Scene::from_json(text, "test.json")?.build_model()
}

fn err(text: &str) -> String {
    match build(text) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_valid_scene_builds_and_runs() {
    let sc = Scene::from_json(CHAIN, "chain").unwrap();
    assert_eq!(sc.integrator, Integrator::ImplicitMidpoint);
    let run = sc.into_simulator().unwrap();
    let mut sim = run.simulator;
    assert_eq!(sim.model().n_dofs(), 9);
    for _ in 0..run.settings.steps {
        sim.step().unwrap();
    }
    assert!(sim.q()[8] < -0.2, "the chain stretches under gravity");
}

#[test]
fn malformed_json_names_line_and_column() {
    let e = err("{ \"dim\": 3, \"nodes\": [[0,0,0]], ");
    assert!(e.contains("test.json") && e.contains("line"), "{e}");
}

#[test]
fn unknown_field_is_named_with_its_path() {
    let bad = CHAIN.replace("\"stiffness\": 50.0 }, {", "\"stiffnes\": 50.0 }, {");
    let e = err(&bad);
    assert!(e.contains("stiffnes") && e.contains("energies[1]"), "{e}");
    let bad = CHAIN.replace("\"steps\": 20", "\"step\": 20");
    let e = err(&bad);
    assert!(e.contains("unknown field `step`"), "{e}");
}

#[test]
fn unknown_energy_name_lists_the_known_ones() {
    let bad = CHAIN.replace("\"type\": \"gravity\"", "\"type\": \"gravitty\"");
    let e = err(&bad);
    assert!(
        e.contains("gravitty") && e.contains("energies[0]") && e.contains("spring"),
        "{e}"
    );
}

#[test]
fn out_of_range_node_index_is_reported() {
    let bad = CHAIN.replace("\"nodes\": [1, 2]", "\"nodes\": [1, 7]");
    let e = err(&bad);
    assert!(
        e.contains("node index 7") && e.contains("springs[1]") && e.contains("3 nodes"),
        "{e}"
    );
    let bad = CHAIN.replace("{ \"node\": 0 }", "{ \"node\": 5 }");
    let e = err(&bad);
    assert!(
        e.contains("constraints[0]") && e.contains("node index 5"),
        "{e}"
    );
}

#[test]
fn non_finite_initial_state_is_rejected() {
    // JSON has no NaN; an overflowing literal is refused by the parser...
    let bad = CHAIN.replace("[0, 0, -0.2]", "[0, 0, -1e999]");
    let e = err(&bad);
    assert!(e.contains("nodes"), "{e}");
    // ...and a NaN from the API by the model builder.
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, f64::NAN, 0.0], 1.0).unwrap();
    let e = b.build().unwrap_err().to_string();
    assert!(
        e.contains("initial state") && e.contains("NaN") && e.contains("index 1"),
        "{e}"
    );
}

#[test]
fn zero_length_spring_and_bad_stiffness_are_rejected() {
    let bad = CHAIN.replace("[0, 0, -0.1]", "[0, 0, 0]");
    assert!(err(&bad).contains("zero-length"));
    let bad = CHAIN.replace("\"stiffness\": 50.0 }]", "\"stiffness\": -5.0 }]");
    let e = err(&bad);
    assert!(
        e.contains("energies[1] (spring)") && e.contains("`springs[1].stiffness` is -5"),
        "{e}"
    );
}

#[test]
fn missing_file_is_named() {
    let e = Scene::from_file(std::path::Path::new("does/not/exist.json"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("does/not/exist.json"), "{e}");
}

#[test]
fn newton_failure_is_a_typed_error_and_keeps_the_state() {
    // A free body under gravity with an absurd step: the first iterate falls
    // 5·10⁷ m; with a 2-iteration budget on a stiff ground Newton cannot
    // converge, and says so.
    let d = pliant::lattice::lattice_drop().unwrap();
    let settings = NewtonSettings {
        max_iterations: 2,
        ..Default::default()
    };
    let mut sim = Simulator::new(d.model, d.settings.integrator, 1e3, settings).unwrap();
    let before = sim.q().to_vec();
    match sim.step() {
        Err(CoreError::NewtonDiverged {
            step,
            iterations,
            residual,
            tolerance,
            ..
        }) => {
            assert_eq!(step, 1);
            assert_eq!(iterations, 2);
            assert!(residual > tolerance);
        }
        other => panic!("expected NewtonDiverged, got {other:?}"),
    }
    assert_eq!(sim.q(), &before[..], "state kept after a failed step");
    assert_eq!(sim.steps_done(), 0);
}

#[test]
fn step_halving_rescues_a_hard_step() {
    // A chain released horizontally swings down: one 0.4 s step is far from
    // its starting guess and needs more than 3 Newton iterations; halved steps need fewer.
    let run = |halvings| {
        let sc = Scene::from_json(
            &CHAIN.replace("[0, 0, -0.1], [0, 0, -0.2]", "[0.1, 0, 0], [0.2, 0, 0]"),
            "chain",
        )
        .unwrap();
        let m = sc.build_model().unwrap();
        let settings = NewtonSettings {
            max_iterations: 3,
            max_step_halvings: halvings,
            ..Default::default()
        };
        let mut sim = Simulator::new(m, Integrator::ImplicitEuler, 0.4, settings).unwrap();
        sim.step().map(|r| (r, sim.q().to_vec()))
    };
    assert!(matches!(run(0), Err(CoreError::NewtonDiverged { .. })));
    let (r, q) = run(8).unwrap();
    eprintln!("{r:?}");
    assert!(r.substeps > 1, "expected the step to be split, got {r:?}");
    assert!(q[8] < -0.1, "the chain swung down");
}

#[test]
fn bad_time_step_and_parameters_are_rejected() {
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    let m = b.build().unwrap();
    assert!(Simulator::new(m, Integrator::Bdf1, -0.1, NewtonSettings::default()).is_err());
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    b.add(Gravity::new(&[0.0, -9.81]));
    let e = b.build().unwrap_err();
    assert!(
        matches!(e.innermost(), CoreError::Count { field, found: 2, expected: 3 } if field == "g"),
        "{e}"
    );
}

#[test]
fn every_registered_energy_example_deserializes_to_its_name() {
    pliant::init();
    let list = registry::builtin();
    let names: Vec<&str> = list.iter().map(|e| e.name).collect();
    for expected in ["gravity", "ground", "spring", "viscous_damping"] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    for e in list {
        let energy: Box<dyn pliant::core::EnergySpec> =
            serde_json::from_str(e.example).unwrap_or_else(|err| panic!("{}: {err}", e.name));
        assert_eq!(energy.type_name(), e.name);
        // Written back, it names its type and reads again.
        let json = pliant::core::to_json(energy.as_ref()).unwrap();
        assert_eq!(json["type"], e.name);
        let again: Box<dyn pliant::core::EnergySpec> = serde_json::from_value(json).unwrap();
        assert_eq!(again.type_name(), e.name);
    }
}
