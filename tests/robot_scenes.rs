//! The committed robot scene files (`examples/scenes/*_drop.json`,
//! `examples/robots/*.json`) are what the builders in `pliant::robots` produce (regenerate with
//! `cargo run --example robot_scenes`), and a model loaded from them steps
//! exactly like the model built in code.

use pliant::core::scene::Scene;
use pliant::core::{Integrator, NewtonSettings, Simulator};
use pliant::robots::{RobotKind, drop_scene_text};

#[test]
fn committed_robot_scenes_match_the_builders_and_run_identically() {
    pliant::init();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let dir = examples.join("scenes");
    for kind in [RobotKind::Tripod, RobotKind::Puppy] {
        let (name, robot) = (kind.name(), kind.build().unwrap());
        let gait_scene = examples.join(format!("robots/{name}.json"));
        assert!(
            std::fs::read_to_string(&gait_scene).unwrap()
                == pliant::gait::paper_gait_scene_text(kind).unwrap(),
            "{} is stale: run `cargo run --example robot_scenes`",
            gait_scene.display()
        );
        let path = dir.join(format!("{name}_drop.json"));
        let on_disk = std::fs::read_to_string(&path).unwrap();
        assert!(
            on_disk == drop_scene_text(kind).unwrap(),
            "{} is stale: run `cargo run --example robot_scenes`",
            path.display()
        );
        let run = Scene::from_file(&path).unwrap().into_simulator().unwrap();
        assert_eq!(run.settings.steps, 61);
        let mut from_file = run.simulator;
        let built = robot
            .on_ground(0.005, [0.0, 0.0, -9.81], pliant::gait::table_friction())
            .unwrap();
        let expected_mass = robot.body_mass + robot.motor_mass;
        assert!((from_file.model().total_mass() - expected_mass).abs() < 1e-12);
        assert_eq!(from_file.model().q0(), built.q0());
        assert_eq!(from_file.model().mass(), built.mass());
        assert_eq!(from_file.model().energies().len(), built.energies().len());
        let mut in_code =
            Simulator::new(built, Integrator::Bdf1, 0.033, NewtonSettings::default()).unwrap();
        for _ in 0..3 {
            from_file.step().unwrap();
            in_code.step().unwrap();
        }
        assert_eq!(
            from_file.q(),
            in_code.q(),
            "{name}: scene and builder differ"
        );
    }
}
