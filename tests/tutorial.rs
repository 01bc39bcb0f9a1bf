//! `docs/tutorial_own_robot.md`, end to end on the shipped walker: mesh the
//! STL, simulate the scene, optimize the gait spec through the CLI with a
//! hardware export. The tutorial's commands with a smaller budget.

use std::path::Path;
use std::process::Command;

fn pliant(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pliant"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pliant {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_tutorial_runs_from_the_stl_to_motor_commands() {
    let dir = std::env::temp_dir().join(format!("pliant-tutorial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = |p: &str| dir.join(p).display().to_string();
    // 1. The mesh: whole voxels, so the volume is the surface's.
    let said = pliant(&[
        "mesh",
        "examples/meshes/walker.stl",
        "--voxel",
        "0.01",
        "--scale",
        "0.001",
        "--out",
        &out("walker.msh"),
    ]);
    assert!(
        said.contains("1008 tetrahedra") && said.contains("+0.00 %"),
        "{said}"
    );
    // 2. The scene stands.
    pliant(&[
        "simulate",
        "examples/tutorial/walker.json",
        "--out",
        &out("stand"),
        "--no-vtk",
    ]);
    assert!(dir.join("stand/replay.html").exists());
    // 3–4. Optimize (2 iterations here) and export.
    let said = pliant(&[
        "optimize",
        "examples/tutorial/walker_gait.json",
        "--out",
        &out("gait"),
        "--iterations",
        "2",
        "--fresh",
        "--export",
        "examples/hardware/tripod_pololu_roboclaw.json",
        "--export-clip",
    ]);
    assert!(said.contains("walker_walk"), "{said}");
    let run = dir.join("gait/walker_walk");
    // Levenberg–Marquardt only accepts steps that lower the objective.
    let progress = std::fs::read_to_string(run.join("progress.csv")).unwrap();
    let objectives: Vec<f64> = progress
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(objectives.len(), 2, "{progress}");
    assert!(
        objectives[1] <= objectives[0] && objectives[0].is_finite(),
        "{objectives:?}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["motors"].as_array().map(Vec::len),
        Some(2),
        "{summary}"
    );
    let commands = std::fs::read_to_string(run.join("commands_csv.csv")).unwrap();
    assert!(
        commands.lines().count() > 100,
        "{} command rows",
        commands.lines().count()
    );
    assert!(Path::new(&run.join("replay.html")).exists());
    let _ = std::fs::remove_dir_all(&dir);
}
