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
