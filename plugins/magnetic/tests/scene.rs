//! The registered scene types: their examples read, write back and build
//! models; a whole scene with both energies runs.

use pliant_core::scene::Scene;
use pliant_core::{EnergySpec, registry};
use pliant_magnetic::{JointsEnergy, MagneticConnectorsEnergy};

#[test]
fn registered_examples_read_and_write_back() {
    pliant_magnetic::link();
    let list = registry::builtin();
    for name in ["magnetic_connectors", "joints"] {
        let info = list
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("{name} is not registered"));
        assert_eq!(info.provider, "pliant-magnetic");
        let spec: Box<dyn EnergySpec> = serde_json::from_str(info.example).unwrap();
        assert_eq!(spec.type_name(), name);
        let json = pliant_core::to_json(spec.as_ref()).unwrap();
        assert_eq!(json["type"], name);
        let again: Box<dyn EnergySpec> = serde_json::from_value(json).unwrap();
        assert_eq!(again.type_name(), name);
    }
}

#[test]
fn a_scene_with_dipoles_and_joints_runs() {
    pliant_magnetic::link();
    // Two 3-node bodies in 3-D held together by stiff joints: dipoles on
    // their tips, coaxial and aligned (attracting), 1 cm apart.
    let scene = Scene::from_json(
        r#"{
          "dim": 3,
          "nodes": [[0, 0, 0], [0.01, 0, 0], [0.005, 0.005, 0],
                    [0.02, 0, 0], [0.03, 0, 0], [0.025, 0.005, 0]],
          "mass": 0.001,
          "params": [{"name": "on", "kind": "control", "value": 0.0,
                      "keyframes": [[0, 0], [0.05, 1]]}],
          "energies": [
            {"type": "joints", "name": "frames", "joints": [
              {"nodes": [0, 1], "stiffness": 200}, {"nodes": [1, 2], "stiffness": 200},
              {"nodes": [2, 0], "stiffness": 200}, {"nodes": [3, 4], "stiffness": 200},
              {"nodes": [4, 5], "stiffness": 200}, {"nodes": [5, 3], "stiffness": 200}]},
            {"type": "magnetic_connectors", "model": "dipole", "radius": 0.03,
             "name": "tips",
             "connectors": [
               {"node": 1, "body": 0, "strength": 0.05, "axis": [0, 1], "channel": "on"},
               {"node": 3, "body": 1, "strength": 0.05, "axis": [3, 4], "channel": "on"}]}
          ],
          "integrator": "implicit_euler", "dt": 0.002, "steps": 40
        }"#,
        "<test>",
    )
    .unwrap();
    let mut run = scene.into_simulator().unwrap();
    let gap0 = run.simulator.q()[9] - run.simulator.q()[3];
    for _ in 0..run.settings.steps {
        run.simulator.step().unwrap();
    }
    let sim = &run.simulator;
    let gap = sim.q()[9] - sim.q()[3];
    assert!(gap < gap0, "the tips attracted: {gap0} → {gap}");
    let p = sim.model().params_at(sim.time());
    let obs = sim.observables(&p);
    let names: Vec<&str> = obs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "frames.broken",
            "frames.max_force",
            "tips.pairs",
            "tips.min_distance"
        ]
    );
    assert_eq!(obs[2].1, 1.0);
    assert_eq!(sim.model().energies_of::<JointsEnergy>().len(), 1);
    let connectors = sim.model().energies_of::<MagneticConnectorsEnergy>()[0];
    assert_eq!(connectors.pairs(), &[(0, 1)]);
    // Drawn as two points on nodes 1 and 3, switched on by now (t = 0.08 s).
    use pliant_core::Energy;
    use pliant_core::geometry::{CellKind, Point, Shape};
    let s = pliant_core::EvalState::at_rest(sim.q(), &p, 0.002, sim.time());
    let [Shape::Cells(c)] = &connectors.geometry(&s)[..] else {
        panic!("one set of points")
    };
    c.check().unwrap();
    assert_eq!(c.kind, CellKind::Vertex);
    assert_eq!(c.points, [Point::Node(1), Point::Node(3)]);
    let field = |n: &str| &c.fields.iter().find(|f| f.name == n).unwrap().values;
    assert_eq!(field("strength"), &vec![0.05, 0.05]);
    assert_eq!(field("activation"), &vec![1.0, 1.0]);
}
