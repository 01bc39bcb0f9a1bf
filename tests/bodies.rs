//! Bodies from mesh files in scene files, and named regions: a Gmsh box
//! with physical groups held by its `bottom` group and loaded on its `top`
//! group; a voxelized STL body; selectors by box; and every bad input
//! (missing file, unknown region, a selector that selects nothing, a
//! surface without a voxel size) as an error naming the field.

use pliant::core::scene::Scene;
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pliant-bodies-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn box_msh() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("plugins/fem/tests/data/box_v22_ascii.msh")
}

/// A scene with the 2 × 1 × 1 cm Gmsh box as body `box`, one extra node
/// of its own first, and `extra` fields (regions, constraints, masses).
fn scene(mesh: &str, extra: &str) -> String {
    format!(
        r#"{{
  "dim": 3,
  "nodes": [[0.5, 0.5, 0.5]],
  "mass": 0.001,
  "constraints": [{{"node": 0}}],
  "energies": [
    {{"type": "tet_body", "name": "box", "mesh": "{mesh}", "density": 100,
      "material": {{"type": "constant", "youngs_modulus": 1e5, "poisson_ratio": 0.3}}}},
    {{"type": "gravity", "g": [0, 0, -9.81]}}
  ],
  {extra}
  "integrator": "static", "dt": 1, "steps": 1
}}"#
    )
}

fn build(text: &str, d: &Path) -> pliant::core::Result<pliant::core::scene::SceneSimulator> {
    pliant::init();
    let path = d.join("scene.json");
    std::fs::write(&path, text).unwrap();
    Scene::from_file(&path)?.into_simulator()
}

#[test]
fn a_gmsh_body_is_held_and_loaded_by_its_group_names() {
    let d = dir("groups");
    std::fs::copy(box_msh(), d.join("box.msh")).unwrap();
    let text = scene(
        "box.msh",
        r#""regions": [{"name": "tip", "select": {"region": "box", "box": {"min": [0.019, 0, 0], "max": [0.02, 0.01, 0.01]}}}],"#,
    )
    .replace(
        r#""constraints": [{"node": 0}],"#,
        r#""constraints": [{"node": 0}, {"select": {"region": "box.bottom"}}],
  "point_masses": [{"select": {"region": "tip"}, "mass": 0.05}],"#,
    );
    let mut run = build(&text, &d).unwrap();
    let sim = &mut run.simulator;
    let model = sim.model();
    // 1 scene node + the box's 62.
    assert_eq!(model.layout().n_nodes(), 63);
    let regions: Vec<&str> = model.layout().region_names().collect();
    for r in [
        "box",
        "box.body",
        "box.bottom",
        "box.top",
        "box.surface",
        "tip",
    ] {
        assert!(regions.contains(&r), "{r} missing from {regions:?}");
    }
    let bottom = model
        .layout()
        .region("box.bottom", "test")
        .unwrap()
        .to_vec();
    assert_eq!(bottom.len(), 18);
    assert!(
        bottom.iter().all(|&n| n >= 1),
        "the body's nodes follow the scene's"
    );
    // The bottom group is held; the 50 g on the tip sag the free end.
    let before = sim.q().to_vec();
    sim.step().unwrap();
    for &n in &bottom {
        let b = model_dof(sim.model(), n);
        assert_eq!(sim.q()[b..b + 3], before[b..b + 3]);
    }
    let tip = sim.model().layout().region("tip", "test").unwrap().to_vec();
    let sag: f64 = tip
        .iter()
        .map(|&n| before[model_dof(sim.model(), n) + 2] - sim.q()[model_dof(sim.model(), n) + 2])
        .sum::<f64>()
        / tip.len() as f64;
    assert!(sag > 1e-5, "the tip sags {sag} m");
    // Its mass is the body's ρV plus the 50 g spread over the tip.
    let total = sim.model().total_mass();
    let expected = 0.001 + 100.0 * 0.02 * 0.01 * 0.01 + 0.05;
    assert!((total - expected).abs() < 1e-9, "{total} vs {expected}");
    let _ = std::fs::remove_dir_all(&d);
}

fn model_dof(m: &pliant::core::Model, node: usize) -> usize {
    m.layout().node_base()[node]
}

#[test]
fn what_pliant_mesh_writes_is_a_body_a_scene_can_use() {
    let d = dir("cli");
    let stl = d.join("ball.stl");
    pliant::mesh::SurfaceMesh::icosphere(0.01, [0.0, 0.0, 0.02], 2)
        .write_stl(&stl)
        .unwrap();
    let r = pliant::mesh_file::mesh_file(&stl, &d.join("ball.msh"), Some(0.002), 1.0).unwrap();
    let text = scene("ball.msh", "").replace(
        r#""constraints": [{"node": 0}],"#,
        r#""constraints": [{"node": 0}, {"select": {"region": "box.surface", "half_space": {"point": [0, 0, 0.0125], "normal": [0, 0, 1]}}}],"#,
    );
    let run = build(&text, &d).unwrap();
    let m = run.simulator.model();
    assert_eq!(m.layout().n_nodes(), 1 + r.nodes);
    // The mesh's own `surface` and `body` groups: `box.surface` is the
    // boundary once, `box.body` every node.
    assert_eq!(m.layout().region("box.body", "t").unwrap().len(), r.nodes);
    let constrained = (0..m.n_dofs()).filter(|&i| !m.is_free(i)).count();
    assert!(constrained > 3, "{constrained}");
    // Scene export refuses what it cannot write back.
    let e = pliant::core::scene::scene_json(m, &run.settings).unwrap_err();
    assert!(e.to_string().contains("mesh files"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_voxelized_stl_body_has_its_volume_and_mass() {
    let d = dir("stl");
    pliant::mesh::SurfaceMesh::icosphere(0.01, [0.0, 0.0, 0.02], 3)
        .write_stl(&d.join("ball.stl"))
        .unwrap();
    let text = scene("ball.stl", "").replace(
        r#""mesh": "ball.stl","#,
        r#""mesh": "ball.stl", "voxel": 0.001,"#,
    );
    let run = build(&text, &d).unwrap();
    let m = run.simulator.model();
    let exact = 4.0 / 3.0 * std::f64::consts::PI * 1e-6;
    let body_mass = m.total_mass() - 0.001;
    assert!(
        (body_mass / (100.0 * exact) - 1.0).abs() < 0.05,
        "{body_mass}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_bodies_and_selectors_are_errors_naming_the_field() {
    let d = dir("bad");
    std::fs::copy(box_msh(), d.join("box.msh")).unwrap();
    let err = |text: String| build(&text, &d).unwrap_err().to_string();
    // A missing mesh file.
    let e = err(scene("nowhere.msh", ""));
    assert!(
        e.contains("energies[0]") && e.contains("nowhere.msh"),
        "{e}"
    );
    // A region not in the mesh.
    let e = err(scene("box.msh", "").replace(
        r#""constraints": [{"node": 0}],"#,
        r#""constraints": [{"select": {"region": "box.left"}}],"#,
    ));
    assert!(
        e.contains("constraints[0].select.region")
            && e.contains("box.left")
            && e.contains("box.bottom"),
        "{e}"
    );
    // A box that misses the body.
    let e = err(scene("box.msh", "").replace(
        r#""constraints": [{"node": 0}],"#,
        r#""constraints": [{"select": {"region": "box", "box": {"min": [1, 1, 1], "max": [2, 2, 2]}}}],"#,
    ));
    assert!(
        e.contains("constraints[0].select") && e.contains("selects no node"),
        "{e}"
    );
    // A surface without a voxel size.
    pliant::mesh::SurfaceMesh::icosphere(0.01, [0.0; 3], 1)
        .write_stl(&d.join("ball.stl"))
        .unwrap();
    let e = err(scene("ball.stl", ""));
    assert!(e.contains("ball.stl") && e.contains("voxel"), "{e}");
    // Both a node and a selector.
    let e = err(scene("box.msh", "").replace(
        r#""constraints": [{"node": 0}],"#,
        r#""constraints": [{"node": 0, "select": {"nodes": [1]}}],"#,
    ));
    assert!(
        e.contains("constraints[0]") && e.contains("exactly one"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// The box held by its `bottom` group, a cable from the centroid of its
/// `top` group to a point near the far bottom edge, contracted 2 mm.
fn routed(route: &str) -> String {
    scene("box.msh", r#""params": [{"name": "u", "kind": "control", "value": 0.002}],"#)
        .replace(
            r#""constraints": [{"node": 0}],"#,
            r#""constraints": [{"node": 0}, {"select": {"region": "box.bottom"}}],"#,
        )
        .replace(
            r#"{"type": "gravity", "g": [0, 0, -9.81]}"#,
            &format!(
                r#"{{"type": "gravity", "g": [0, 0, -9.81]}},
    {{"type": "cable", "name": "tendon", "stiffness": 500, "control": {{"type": "length", "channel": "u"}},
     "route": {route}}}"#
            ),
        )
}

#[test]
fn a_cable_routed_through_a_gmsh_body_is_anchored_by_group_name() {
    let d = dir("route");
    std::fs::copy(box_msh(), d.join("box.msh")).unwrap();
    let text =
        routed(r#"{"body": "box", "points": [{"region": "box.top"}, [0.019, 0.005, 0.002]]}"#);
    let mut run = build(&text, &d).unwrap();
    let sim = &mut run.simulator;
    let model = sim.model();
    let top: Vec<usize> = model
        .layout()
        .region("box.top", "test")
        .unwrap()
        .iter()
        .map(|&n| model_dof(model, n))
        .collect();
    let centroid = |q: &[f64]| -> [f64; 3] {
        let mut c = [0.0; 3];
        for &b in &top {
            (0..3).for_each(|a| c[a] += q[b + a] / top.len() as f64);
        }
        c
    };
    let c0 = centroid(model.q0());
    let cable = model.energies_of::<pliant::cable::CableEnergy>()[0].clone();
    // Bound at the top's centroid: the rest length is the distance to the
    // second point.
    let far = [0.019, 0.005, 0.002];
    let dist = |c: [f64; 3]| (0..3).map(|a| (c[a] - far[a]).powi(2)).sum::<f64>().sqrt();
    assert!((cable.length(model.q0()) - dist(c0)).abs() < 1e-12);
    sim.step().unwrap();
    let q = sim.q().to_vec();
    let (l0, l1) = (cable.length(sim.model().q0()), cable.length(&q));
    assert!(
        l0 - l1 > 1e-4,
        "pulled 2 mm, the cable shortens: {l0} m → {l1} m"
    );
    // The top's centroid moved towards the anchor point at the far end.
    assert!(dist(centroid(&q)) < dist(c0) - 1e-4);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_cable_routes_are_errors_naming_the_field() {
    let d = dir("bad-route");
    std::fs::copy(box_msh(), d.join("box.msh")).unwrap();
    let err = |route: &str| match build(&routed(route), &d) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{route} was accepted"),
    };
    for (route, needles) in [
        (
            r#"{"body": "bag", "points": [[0.01, 0.005, 0.005], [0.019, 0.005, 0.002]]}"#,
            &["route.body", "bag", "box"][..],
        ),
        (
            r#"{"body": "box", "points": [[0.01, 0.005, 0.005], [0.5, 0.005, 0.002]]}"#,
            &["route.points", "outside"],
        ),
        (
            r#"{"body": "box", "points": [{"region": "box.side"}, [0.019, 0.005, 0.002]]}"#,
            &["route.points[0]", "box.side"],
        ),
        (
            r#"{"body": "box", "points": [[0.01, 0.005, 0.005]]}"#,
            &["route.points", "2"],
        ),
        (
            r#"{"body": "box", "points": [[0.01, 0.005], [0.019, 0.005, 0.002]]}"#,
            &["route.points[0]", "[x, y, z]"],
        ),
    ] {
        let e = err(route);
        for n in needles {
            assert!(e.contains(n), "{route}: `{e}` lacks `{n}`");
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_platform_stiffens_the_tetrahedra_its_selector_picks() {
    let d = dir("stiffen");
    std::fs::copy(box_msh(), d.join("box.msh")).unwrap();
    // The box clamped at its x = 0 end, sagging under gravity and a tip mass.
    let base = scene("box.msh", "").replace(
        r#""constraints": [{"node": 0}],"#,
        r#""constraints": [{"node": 0}, {"select": {"region": "box", "box": {"min": [0, 0, 0], "max": [0, 0.01, 0.01]}}}],
  "point_masses": [{"select": {"region": "box", "box": {"min": [0.02, 0, 0], "max": [0.02, 0.01, 0.01]}}, "mass": 0.02}],"#,
    );
    let sag = |text: &str| {
        let mut run = build(text, &d).unwrap();
        let before = run.simulator.q().to_vec();
        run.simulator.step().unwrap();
        let q = run.simulator.q();
        (0..before.len() / 3)
            .map(|n| before[3 * n + 2] - q[3 * n + 2])
            .fold(0.0f64, f64::max)
    };
    let soft = sag(&base);
    let platform = |select: &str| {
        base.replace(
            r#"{"type": "gravity""#,
            &format!(
                r#"{{"type": "neo_hookean_tets", "body": "box", "select": {select},
      "material": {{"type": "constant", "youngs_modulus": 1e7, "poisson_ratio": 0.3}}}},
    {{"type": "gravity""#
            ),
        )
    };
    // The top half of the box, 100 × stiffer.
    let stiff = sag(&platform(
        r#"{"box": {"min": [0, 0, 0.005], "max": [0.02, 0.01, 0.01]}}"#,
    ));
    assert!(
        soft > 1e-5 && stiff < 0.5 * soft,
        "sag {soft} m → {stiff} m"
    );
    // A selection holding no whole tetrahedron is an error naming it.
    let e = match build(
        &platform(r#"{"box": {"min": [0, 0, 0.01], "max": [0.02, 0.01, 0.01]}}"#),
        &d,
    ) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a face selects no tetrahedron"),
    };
    assert!(e.contains("select") && e.contains("tetrahedra"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn ground_contact_on_a_selected_region_holds_the_body_like_contact_on_every_node() {
    let d = dir("ground-select");
    std::fs::copy(box_msh(), d.join("box.msh")).unwrap();
    let with = |select: &str| {
        scene("box.msh", "")
            .replace(
                r#""integrator": "static", "dt": 1, "steps": 1"#,
                r#""integrator": "bdf1", "dt": 0.01, "steps": 5"#,
            )
            .replace(
                r#"{"type": "gravity", "g": [0, 0, -9.81]}"#,
                &format!(
                    r#"{{"type": "gravity", "g": [0, 0, -9.81]}},
    {{"type": "ground", "point": [0, 0, -0.0001], "normal": [0, 0, 1], {select}
      "contact": {{"law": "quadratic", "stiffness": 1000, "smoothing": 0.0001}}}}"#
                ),
            )
    };
    let run = |text: &str| {
        let mut r = build(text, &d).unwrap();
        for _ in 0..5 {
            r.simulator.step().unwrap();
        }
        r.simulator.q().to_vec()
    };
    let all = run(&with(""));
    let surface = run(&with(r#""select": {"region": "box.surface"},"#));
    // The box's interior nodes are a centimetre above the ground: leaving
    // them out changes nothing.
    let worst = all
        .iter()
        .zip(&surface)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f64, f64::max);
    assert!(worst < 1e-12, "{worst} m");
    // The body sank into the ground by its weight, not through it.
    let lowest = (0..all.len() / 3)
        .map(|n| all[3 * n + 2])
        .fold(f64::INFINITY, f64::min);
    assert!(lowest > -0.002 && lowest < 0.0, "{lowest} m");
    for (select, needle) in [
        (
            r#""select": {"region": "box.surface"}, "nodes": [1],"#,
            "not both",
        ),
        (r#""select": {"region": "box.feet"},"#, "box.feet"),
    ] {
        match build(&with(select), &d) {
            Err(e) => assert!(e.to_string().contains(needle), "{e}"),
            Ok(_) => panic!("{select} was accepted"),
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn cables_and_tetrahedra_given_two_ways_or_none_are_errors() {
    let d = dir("two-ways");
    std::fs::copy(box_msh(), d.join("box.msh")).unwrap();
    let both = routed(
        r#"{"body": "box", "points": [[0.01, 0.005, 0.005], [0.019, 0.005, 0.002]]}, "vertices": [{"nodes": [1], "weights": [1.0]}, {"nodes": [2], "weights": [1.0]}]"#,
    );
    let tets = |fields: &str| {
        scene("box.msh", "").replace(
            r#"{"type": "gravity""#,
            &format!(
                r#"{{"type": "neo_hookean_tets", {fields}
      "material": {{"type": "constant", "youngs_modulus": 1e7, "poisson_ratio": 0.3}}}},
    {{"type": "gravity""#
            ),
        )
    };
    for (text, needle) in [
        (both, "not both"),
        (
            tets(r#""body": "box", "tets": [[1, 2, 3, 4]],"#),
            "not both",
        ),
        (tets(r#""select": {"region": "box"},"#), "name the `body`"),
        (tets(""), "give the `tets` or a `body`"),
        (
            routed(
                r#"{"body": "box", "tolerance": 5, "points": [[0.01, 0.005, 0.005], [0.019, 0.005, 0.002]]}"#,
            ),
            "route.tolerance",
        ),
    ] {
        match build(&text, &d) {
            Err(e) => assert!(e.to_string().contains(needle), "`{e}` lacks `{needle}`"),
            Ok(_) => panic!("accepted: {text}"),
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn output_groups_report_their_centroid_with_the_observables() {
    let d = dir("outputs");
    std::fs::copy(box_msh(), d.join("box.msh")).unwrap();
    let text = scene("box.msh", r#""outputs": ["box.top"],"#).replace(
        r#""constraints": [{"node": 0}],"#,
        r#""constraints": [{"node": 0}, {"select": {"region": "box.bottom"}}],"#,
    );
    let mut run = build(&text, &d).unwrap();
    let sim = &mut run.simulator;
    sim.step().unwrap();
    let p = sim.model().params_at(sim.time());
    let obs = sim.observables(&p);
    let top = sim
        .model()
        .layout()
        .region("box.top", "test")
        .unwrap()
        .to_vec();
    for (a, axis) in ["x", "y", "z"].iter().enumerate() {
        let expected = top
            .iter()
            .map(|&n| sim.q()[model_dof(sim.model(), n) + a])
            .sum::<f64>()
            / top.len() as f64;
        let got = obs
            .iter()
            .find(|(k, _)| k == &format!("box.top.{axis}"))
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("no box.top.{axis} in {obs:?}"));
        assert!(
            (got - expected).abs() < 1e-15,
            "{axis}: {got} vs {expected}"
        );
    }
    // The top sagged under gravity: its centroid is below 1 cm.
    assert!(obs.iter().any(|(k, v)| k == "box.top.z" && *v < 0.01));
    // An output must name a region.
    match build(&scene("box.msh", r#""outputs": ["box.lid"],"#), &d) {
        Err(e) => {
            let e = e.to_string();
            assert!(e.contains("outputs[0]") && e.contains("box.lid"), "{e}");
        }
        Ok(_) => panic!("an unknown output region was accepted"),
    }
    let _ = std::fs::remove_dir_all(&d);
}
