//! Binding and validation: vertices bound into the test bar, points outside
//! the mesh, every bad scene input as an error (never a panic), the scene
//! format and the registry entry.

mod common;

use common::{bar, builder, node, tet_vertices};
use pliant_cable::{Cable, CableControl, CableError, CableVertex, bind_points_in_tets};
use pliant_core::registry::energies;
use pliant_core::{CoreError, Energy, ModelBuilder, ParamChannel, ParamKind};

fn length_ctl() -> CableControl {
    CableControl::Length {
        channel: "u".into(),
    }
}

fn ok_cable() -> Cable {
    Cable::new("flexor", tet_vertices(), length_ctl(), 500.0)
}

/// Builds the bar model with `c` and returns the error message.
fn build_err(c: Cable) -> String {
    let mut b = builder();
    b.add_energy(Box::new(c));
    let e = b.build().expect_err("expected a binding error");
    e.to_string()
}

#[test]
fn a_point_outside_the_mesh_is_named() {
    let (nodes, tets) = bar();
    let pts = [[0.05, 0.05, 0.05], [0.15, 0.05, 0.05], [0.35, 0.05, 0.05]];
    let e = bind_points_in_tets(&pts, &nodes, &tets, 1e-9).unwrap_err();
    assert_eq!(
        e,
        CableError::OutsideMesh {
            vertex: 2,
            point: [0.35, 0.05, 0.05]
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains("vertex 2") && msg.contains("(0.350000, 0.050000, 0.050000) m"),
        "{msg}"
    );
    // Through `?` in core code it becomes a model error with the same text.
    let core: CoreError = e.into();
    assert!(core.to_string().contains("vertex 2"), "{core}");
}

#[test]
fn every_point_inside_the_bar_binds_and_reproduces_its_position() {
    let (nodes, tets) = bar();
    let mut pts = vec![];
    for i in 0..15 {
        let s = i as f64 / 14.0;
        pts.push([0.005 + 0.29 * s, 0.01 + 0.08 * s, 0.09 - 0.08 * s]);
    }
    let v = bind_points_in_tets(&pts, &nodes, &tets, 1e-9).unwrap();
    for (p, v) in pts.iter().zip(&v) {
        v.validate().unwrap();
        let x = v.position_in(&nodes).unwrap();
        for a in 0..3 {
            assert!((x[a] - p[a]).abs() < 1e-14);
        }
    }
    // The bound cable's length is the polyline length through the points.
    let mut b = builder();
    b.add_energy(Box::new(Cable::new("c", v, length_ctl(), 10.0)));
    let m = b.build().unwrap();
    let want: f64 = pts
        .windows(2)
        .map(|w| {
            (0..3)
                .map(|a| (w[1][a] - w[0][a]).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .sum();
    let obs = m.energies[0].observables(&pliant_core::EvalState {
        q: &m.q0,
        q_prev: &m.q0,
        p: &[0.0, 0.0, 0.0],
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    });
    assert_eq!(obs[0], ("c.tension".to_string(), 0.0));
    assert_eq!(obs[1], ("c.slack".to_string(), 0.0));
    assert_eq!(obs[2].0, "c.length");
    assert!((obs[2].1 - want).abs() < 1e-14, "{} vs {want}", obs[2].1);
}

#[test]
fn the_stencil_is_the_sorted_union_of_the_vertex_nodes() {
    let mut b = builder();
    b.add_energy(Box::new(Cable::new(
        "c",
        vec![
            CableVertex::on_node(9),
            CableVertex::new(vec![3, 1, 9], vec![0.2, 0.3, 0.5]),
            CableVertex::on_node(2),
        ],
        length_ctl(),
        10.0,
    )));
    let m = b.build().unwrap();
    let set = m.energies[0].elements();
    assert_eq!(
        (set.len(), set.stencil_size(), set.param_size()),
        (1, 12, 1)
    );
    let mut d = vec![0; 12];
    set.dofs(0, &mut d);
    let want: Vec<usize> = [1, 2, 3, 9].iter().flat_map(|n| 3 * n..3 * n + 3).collect();
    assert_eq!(d, want);
    assert!(!set.uses_history());
}

#[test]
fn bad_inputs_are_errors_naming_the_cable_and_field() {
    let with = |f: &dyn Fn(&mut Cable)| {
        let mut c = ok_cable();
        f(&mut c);
        c
    };
    let cases: Vec<(Cable, &str)> = vec![
        (
            with(&|c| c.vertices[1].nodes[2] = 99),
            "cable `flexor` vertices[1].nodes: node index 99 is out of range (the model has 16 nodes)",
        ),
        (
            with(&|c| c.vertices.truncate(1)),
            "`vertices` has 1 entries",
        ),
        (with(&|c| c.vertices.clear()), "`vertices` has 0 entries"),
        (
            with(&|c| c.vertices[2].weights[0] += 1e-6),
            "vertices[2] weights sum to",
        ),
        (
            with(&|c| c.vertices[0].weights[3] = f64::NAN),
            "vertices[0] has a non-finite weight",
        ),
        (
            with(&|c| c.vertices[3] = CableVertex::new(vec![], vec![])),
            "vertices[3] has 0 nodes",
        ),
        (
            with(&|c| c.vertices[3] = CableVertex::new(vec![0, 1, 2, 3, 4], vec![0.2; 5])),
            "vertices[3] has 5 nodes",
        ),
        (
            with(&|c| c.vertices[1].weights.pop().map(|_| ()).unwrap()),
            "vertices[1] has 4 nodes but 3 weights",
        ),
        (
            with(&|c| c.vertices[0] = CableVertex::new(vec![5, 5], vec![0.5, 0.5])),
            "vertices[0] lists node 5 twice",
        ),
        (with(&|c| c.stiffness = 0.0), "`stiffness` must be positive"),
        (
            with(&|c| c.stiffness = -3.0),
            "`stiffness` must be positive",
        ),
        (
            with(&|c| c.stiffness = f64::NAN),
            "`stiffness` must be positive",
        ),
        (
            with(&|c| c.stiffness = f64::INFINITY),
            "`stiffness` must be positive",
        ),
        (
            with(&|c| c.smoothing = -1e-4),
            "`smoothing` must be finite and ≥ 0",
        ),
        (
            with(&|c| c.smoothing = f64::NAN),
            "`smoothing` must be finite and ≥ 0",
        ),
        (
            with(&|c| c.assembly_length = Some(0.0)),
            "`assembly_length` must be positive",
        ),
        (
            with(&|c| c.assembly_length = Some(f64::NAN)),
            "`assembly_length` must be positive",
        ),
        (
            with(&|c| {
                c.control = CableControl::Length {
                    channel: "nope".into(),
                }
            }),
            "cable `flexor` control.channel: unknown parameter channel `nope` (defined: u, u2, tau)",
        ),
        (
            with(&|c| {
                c.control = CableControl::Tension {
                    channel: "motor".into(),
                }
            }),
            "unknown parameter channel `motor`",
        ),
        (with(&|c| c.name.clear()), "`name` must not be empty"),
        (
            with(&|c| c.vertices.insert(2, c.vertices[1].clone())),
            "cable `flexor`: segment 1 (vertices 1 and 2) has zero length in the initial state",
        ),
        (
            Cable::new(
                "pair",
                vec![
                    CableVertex::on_node(node(1, 0, 0)),
                    CableVertex::on_node(node(1, 0, 0)),
                ],
                length_ctl(),
                1.0,
            ),
            "cable `pair`: segment 0 (vertices 0 and 1) has zero length",
        ),
    ];
    for (c, want) in cases {
        let msg = build_err(c);
        eprintln!("{msg}");
        assert!(msg.contains(want), "`{msg}` lacks `{want}`");
    }
}

#[test]
fn a_2d_model_is_rejected() {
    let mut b = ModelBuilder::new(2).unwrap();
    b.add_node(&[0.0, 0.0], 1.0).unwrap();
    b.add_node(&[1.0, 0.0], 1.0).unwrap();
    b.add_param(ParamChannel {
        name: "u".into(),
        kind: ParamKind::Control,
        value: 0.0,
        keyframes: vec![],
    })
    .unwrap();
    b.add_energy(Box::new(Cable::new(
        "c",
        vec![CableVertex::on_node(0), CableVertex::on_node(1)],
        length_ctl(),
        1.0,
    )));
    let e = b.build().unwrap_err().to_string();
    assert!(
        e.contains("cable `c`: cables need a 3-D model, this one is 2-D"),
        "{e}"
    );
}

#[test]
fn scene_format_defaults_and_unknown_fields() {
    let c: Box<dyn Energy> = serde_json::from_str(
        r#"{"type": "cable", "name": "t", "stiffness": 2.0,
            "vertices": [{"nodes": [0, 1], "weights": [0.5, 0.5]}, {"nodes": [2], "weights": [1]}],
            "control": {"type": "tension", "channel": "tau"}}"#,
    )
    .unwrap();
    assert_eq!(c.typetag_name(), "cable");
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["smoothing"], 1e-4);
    assert_eq!(json["control"]["type"], "tension");
    assert!(json.get("assembly_length").is_none());
    for bad in [
        r#"{"type": "cable", "name": "t", "stiffness": 2.0, "vertices": [], "control": {"type": "length", "channel": "u"}, "stifness": 1}"#,
        r#"{"type": "cable", "name": "t", "stiffness": 2.0, "vertices": [{"nodes": [0], "weights": [1], "w": 0}], "control": {"type": "length", "channel": "u"}}"#,
        r#"{"type": "cable", "name": "t", "stiffness": 2.0, "vertices": [], "control": {"type": "speed", "channel": "u"}}"#,
        r#"{"type": "cable", "name": "t", "stiffness": 2.0, "vertices": [], "control": {"type": "length", "channel": "u", "gain": 2}}"#,
    ] {
        assert!(
            serde_json::from_str::<Box<dyn Energy>>(bad).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn the_registry_example_deserializes_and_binds() {
    pliant_cable::link();
    let info = energies()
        .into_iter()
        .find(|e| e.name == "cable")
        .expect("cable is registered");
    assert_eq!(info.provider, "pliant-cable");
    let e: Box<dyn Energy> = serde_json::from_str(info.example).unwrap();
    assert_eq!(e.typetag_name(), "cable");
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    b.add_node(&[0.1, 0.0, 0.0], 1.0).unwrap();
    b.add_param(ParamChannel {
        name: "u".into(),
        kind: ParamKind::Control,
        value: 0.0,
        keyframes: vec![],
    })
    .unwrap();
    b.add_energy(e);
    let m = b.build().unwrap();
    assert_eq!(m.energies[0].elements().stencil_size(), 6);
}
