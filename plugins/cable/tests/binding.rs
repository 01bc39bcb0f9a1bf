//! Binding and validation: vertices bound into the test bar, points outside
//! the mesh, every bad scene input as an error (never a panic), the scene
//! format and the registry entry.

mod common;

use common::{bar, builder, node, tet_vertices};
use pliant_cable::{Cable, CableControl, CableError, CableVertex, bind_points_in_tets};
use pliant_core::registry::builtin;
use pliant_core::{CoreError, EnergySpec, ModelBuilder, ParamChannel};

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
    b.add(c);
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
    b.add(Cable::new("c", v, length_ctl(), 10.0));
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
    let obs = m.energies()[0].observables(&pliant_core::EvalState {
        q: m.q0(),
        q_prev: m.q0(),
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
    b.add(Cable::new(
        "c",
        vec![
            CableVertex::on_node(9),
            CableVertex::new(vec![3, 1, 9], vec![0.2, 0.3, 0.5]),
            CableVertex::on_node(2),
        ],
        length_ctl(),
        10.0,
    ));
    let m = b.build().unwrap();
    let set = m.energies()[0].elements();
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
            "`vertices[1].nodes`: node index 99 is out of range (the model has 16 nodes)",
        ),
        (
            with(&|c| c.vertices.truncate(1)),
            "`vertices` has 1 entries, needs at least 2",
        ),
        (
            with(&|c| c.vertices.clear()),
            "`vertices` has 0 entries, needs at least 2",
        ),
        (
            with(&|c| c.vertices[2].weights[0] += 1e-6),
            "`vertices[2]`: weights sum to",
        ),
        (
            with(&|c| c.vertices[0].weights[3] = f64::NAN),
            "`vertices[0]`: has a non-finite weight",
        ),
        (
            with(&|c| c.vertices[3] = CableVertex::new(vec![], vec![])),
            "`vertices[3]`: has 0 nodes",
        ),
        (
            with(&|c| c.vertices[3] = CableVertex::new(vec![0, 1, 2, 3, 4], vec![0.2; 5])),
            "`vertices[3]`: has 5 nodes",
        ),
        (
            with(&|c| c.vertices[1].weights.pop().map(|_| ()).unwrap()),
            "`vertices[1]`: has 4 nodes but 3 weights",
        ),
        (
            with(&|c| c.vertices[0] = CableVertex::new(vec![5, 5], vec![0.5, 0.5])),
            "`vertices[0]`: lists node 5 twice",
        ),
        (with(&|c| c.stiffness = 0.0), "`stiffness` is"),
        (with(&|c| c.stiffness = -3.0), "`stiffness` is"),
        (with(&|c| c.stiffness = f64::NAN), "`stiffness` is"),
        (with(&|c| c.stiffness = f64::INFINITY), "`stiffness` is"),
        (with(&|c| c.smoothing = -1e-4), "`smoothing` is"),
        (with(&|c| c.smoothing = f64::NAN), "`smoothing` is"),
        (
            with(&|c| c.assembly_length = Some(0.0)),
            "`assembly_length` is",
        ),
        (
            with(&|c| c.assembly_length = Some(f64::NAN)),
            "`assembly_length` is",
        ),
        (
            with(&|c| {
                c.control = CableControl::Length {
                    channel: "nope".into(),
                }
            }),
            "`control.channel`: unknown parameter channel `nope` (defined: u, u2, tau)",
        ),
        (
            with(&|c| {
                c.control = CableControl::Tension {
                    channel: "motor".into(),
                }
            }),
            "unknown parameter channel `motor`",
        ),
        (with(&|c| c.name.clear()), "`name`: must not be empty"),
        (
            with(&|c| c.vertices.insert(2, c.vertices[1].clone())),
            "`vertices[1..=2]`: segment 1 has zero length in the initial state",
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
            "(cable `pair`): `vertices[0..=1]`: segment 0 has zero length",
        ),
    ];
    for (c, want) in cases {
        let label = if c.name.is_empty() {
            "energies[0] (cable): ".to_string()
        } else {
            format!("energies[0] (cable `{}`): ", c.name)
        };
        let msg = build_err(c);
        eprintln!("{msg}");
        assert!(msg.contains(want), "`{msg}` lacks `{want}`");
        // Every message names the energy and the cable.
        assert!(msg.contains(&label), "`{msg}` lacks `{label}`");
    }
}

#[test]
fn a_2d_model_is_rejected() {
    let mut b = ModelBuilder::new(2).unwrap();
    b.add_node(&[0.0, 0.0], 1.0).unwrap();
    b.add_node(&[1.0, 0.0], 1.0).unwrap();
    b.add_param(ParamChannel::control("u", 0.0)).unwrap();
    b.add(Cable::new(
        "c",
        vec![CableVertex::on_node(0), CableVertex::on_node(1)],
        length_ctl(),
        1.0,
    ));
    let e = b.build().unwrap_err();
    assert!(
        matches!(
            e.innermost(),
            CoreError::Dimension {
                expected: 3,
                found: 2,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("(cable `c`)"), "{e}");
}

#[test]
fn scene_format_defaults_and_unknown_fields() {
    let c: Box<dyn EnergySpec> = serde_json::from_str(
        r#"{"type": "cable", "name": "t", "stiffness": 2.0,
            "vertices": [{"nodes": [0, 1], "weights": [0.5, 0.5]}, {"nodes": [2], "weights": [1]}],
            "control": {"type": "tension", "channel": "tau"}}"#,
    )
    .unwrap();
    assert_eq!(c.type_name(), "cable");
    let json = pliant_core::to_json(c.as_ref()).unwrap();
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
            serde_json::from_str::<Box<dyn EnergySpec>>(bad).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn the_registry_example_deserializes_and_binds() {
    pliant_cable::link();
    let info = builtin()
        .into_iter()
        .find(|e| e.name == "cable")
        .expect("cable is registered");
    assert_eq!(info.provider, "pliant-cable");
    let e: Box<dyn EnergySpec> = serde_json::from_str(info.example).unwrap();
    assert_eq!(e.type_name(), "cable");
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    b.add_node(&[0.1, 0.0, 0.0], 1.0).unwrap();
    b.add_param(ParamChannel::control("u", 0.0)).unwrap();
    b.add_boxed(e);
    let m = b.build().unwrap();
    assert_eq!(m.energies()[0].elements().stencil_size(), 6);
}
