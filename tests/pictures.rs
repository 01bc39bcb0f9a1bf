#![cfg(target_os = "linux")]
//! What `pliant simulate` writes for people to look at: the ParaView
//! series read back with vtkio (the Tripod drop, a rod scene, a scene with
//! a runtime-plugin energy), `replay.html` rendered in headless Chromium,
//! the forces drawn on the bodies, and the memory of a long run.

use pliant::core::scene::Scene;
use pliant::viz::{Snapshot, StateView};
use std::path::{Path, PathBuf};
use std::process::Command;
use vtkio::model::{DataSet, Piece, Vtk};

fn pliant() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pliant"))
}

fn scene(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/scenes")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pliant-pictures-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `pliant simulate ARGS…`, asserted to succeed.
fn simulate(args: &[&std::ffi::OsStr]) {
    let out = pliant().arg("simulate").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The parts of the `.pvd` series' last frame: `(name, file)`.
fn last_frame_parts(pvd: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(pvd).unwrap();
    let entries: Vec<(String, String, String)> = text
        .lines()
        .filter(|l| l.contains("<DataSet"))
        .map(|l| {
            let attr = |k: &str| {
                let s = &l[l.find(&format!("{k}=\"")).unwrap() + k.len() + 2..];
                s[..s.find('"').unwrap()].to_string()
            };
            (attr("timestep"), attr("name"), attr("file"))
        })
        .collect();
    let last = entries.last().unwrap().0.clone();
    entries
        .into_iter()
        .filter(|e| e.0 == last)
        .map(|e| (e.1, e.2))
        .collect()
}

/// `(points, cells)` of a legacy unstructured grid, and its cell and point
/// attribute names.
fn read_grid(path: &Path) -> (usize, usize, Vec<String>) {
    let vtk = Vtk::import(path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("{}: not an unstructured grid", path.display())
    };
    let Piece::Inline(p) = &pieces[0] else {
        panic!("inline piece")
    };
    let names = p
        .data
        .point
        .iter()
        .chain(&p.data.cell)
        .map(|a| a.name().to_string())
        .collect();
    (p.num_points(), p.cells.types.len(), names)
}

/// Cells of each part of the last frame, by part name.
fn cell_counts(dir: &Path, series: &str) -> Vec<(String, usize, Vec<String>)> {
    last_frame_parts(&dir.join(format!("{series}.pvd")))
        .into_iter()
        .map(|(name, file)| {
            let (_, cells, attrs) = read_grid(&dir.join(file));
            (name, cells, attrs)
        })
        .collect()
}

#[test]
fn tripod_drop_series_has_every_tetrahedron_and_the_ground() {
    let out = tmp("tripod");
    let path = scene("tripod_drop.json");
    simulate(&[
        path.as_os_str(),
        "--steps".as_ref(),
        "6".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let tets: Vec<usize> = json["energies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "neo_hookean_tets")
        .map(|e| e["tets"].as_array().unwrap().len())
        .collect();
    let parts = cell_counts(&out, "tripod_drop");
    let bodies: Vec<usize> = parts
        .iter()
        .filter(|p| p.0.ends_with("_tets"))
        .map(|p| p.1)
        .collect();
    assert_eq!(bodies, tets, "{parts:?}");
    let body = &parts[0].2;
    for field in [
        "velocity",
        "force_ground",
        "force_gravity",
        "energy_density",
    ] {
        assert!(body.iter().any(|a| a == field), "{field} missing: {body:?}");
    }
    let ground: Vec<_> = parts.iter().filter(|p| p.0.ends_with("_ground")).collect();
    assert_eq!(ground.len(), 1, "{parts:?}");
    assert_eq!(ground[0].1, 2, "the ground patch is two triangles");
    // Every step was a frame (7 with the initial state).
    let pvd = std::fs::read_to_string(out.join("tripod_drop.pvd")).unwrap();
    assert_eq!(pvd.matches("_0_tets_").count(), 7);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn rod_scene_series_has_every_edge_and_every_frame_with_every() {
    let out = tmp("rod");
    let path = scene("rod_drape.json");
    simulate(&[
        path.as_os_str(),
        "--steps".as_ref(),
        "10".as_ref(),
        "--every".as_ref(),
        "5".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let edges = json["energies"][0]["edges"].as_array().unwrap().len();
    let parts = cell_counts(&out, "rod_drape");
    let rod = parts.iter().find(|p| p.0.contains("rod")).unwrap();
    assert_eq!(rod.1, edges);
    for field in ["radius", "strain", "theta"] {
        assert!(rod.2.iter().any(|a| a == field), "{field}: {:?}", rod.2);
    }
    // The sphere and the ground are pieces of their own.
    assert!(parts.iter().any(|p| p.0.ends_with("_sphere")), "{parts:?}");
    assert!(parts.iter().any(|p| p.0.ends_with("_ground")), "{parts:?}");
    // --every 5 over 10 steps: steps 0, 5, 10.
    let pvd = std::fs::read_to_string(out.join("rod_drape.pvd")).unwrap();
    assert_eq!(pvd.matches("rod_drape_0_rod").count(), 3, "{pvd}");
    let _ = std::fs::remove_dir_all(&out);
}

/// The example DEA plugin's shared library (a dev-dependency).
fn dea_plugin() -> PathBuf {
    let dir = std::env::current_exe().unwrap();
    dir.parent().unwrap().join(format!(
        "{}pliant_example_dea{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ))
}

#[test]
fn runtime_plugin_energy_is_drawn_from_its_own_geometry() {
    let plugin = dea_plugin();
    assert!(plugin.exists(), "{} missing", plugin.display());
    let out = tmp("plugin");
    let scene = out.with_extension("json");
    // Three DEA strips in a chain, hanging from node 0.
    let strip = |a: usize, b: usize| {
        format!(
            r#"{{"nodes": [{a}, {b}], "rest_length": 0.05, "youngs_modulus": 1e6, "area": 1e-5, "thickness": 5e-5, "permittivity": 4.7, "voltage": "V"}}"#
        )
    };
    std::fs::write(
        &scene,
        format!(
            r#"{{"dim": 3, "nodes": [[0,0,0],[0,0,-0.05],[0,0,-0.1],[0,0,-0.15]],
  "mass": [0.001, 0.01, 0.01, 0.01], "constraints": [{{"node": 0}}],
  "params": [{{"name": "V", "kind": "control", "value": 2000}}],
  "energies": [{{"type": "gravity", "g": [0, 0, -9.81]}},
               {{"type": "dea_spring", "elements": [{}, {}, {}]}}],
  "integrator": "bdf1", "dt": 0.002, "steps": 5}}"#,
            strip(0, 1),
            strip(1, 2),
            strip(2, 3)
        ),
    )
    .unwrap();
    simulate(&[
        scene.as_os_str(),
        "--plugin".as_ref(),
        plugin.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let parts = cell_counts(&out, &scene.file_stem().unwrap().to_string_lossy());
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_eq!(parts[0].0, "1_dea_spring");
    assert_eq!(parts[0].1, 3);
    assert!(parts[0].2.iter().any(|a| a == "energy"), "{parts:?}");
    assert!(parts[0].2.iter().any(|a| a == "force_gravity"), "{parts:?}");
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_file(&scene);
}

#[test]
fn ground_forces_drawn_on_a_resting_body_carry_its_weight() {
    pliant::init();
    let text = std::fs::read_to_string(scene("tripod_drop.json")).unwrap();
    let mut prepared = Scene::from_json(&text, "tripod_drop")
        .unwrap()
        .into_simulator()
        .unwrap();
    let sim = &mut prepared.simulator;
    for _ in 0..60 {
        sim.step().unwrap();
    }
    let p = sim.model().params_at(sim.time());
    let snap = Snapshot::take(
        sim.model(),
        StateView {
            q: sim.q(),
            v: sim.v(),
            p: &p,
            t: sim.time(),
            dt: sim.dt(),
        },
    )
    .unwrap();
    // Each node belongs to one body part here; sum the ground's force on
    // every drawn node once.
    let mut seen = std::collections::HashSet::new();
    let mut fz = 0.0;
    for part in &snap.parts {
        let (_, f) = part
            .forces
            .iter()
            .find(|(n, _)| n == "force_ground")
            .unwrap();
        for (node, fi) in part.nodes.iter().zip(f) {
            if let Some(n) = node
                && seen.insert(*n)
            {
                fz += fi[2];
            }
        }
    }
    let weight = sim.model().total_mass() * 9.81;
    assert!(
        (fz - weight).abs() < 0.01 * weight,
        "ground carries {fz} N, weight {weight} N"
    );
}

/// Renders `page#fragment` in headless Chromium into a PNG; `None` when
/// Chromium is not installed.
fn screenshot(page: &Path, fragment: &str, png: &Path) -> Option<()> {
    let chromium = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok())?;
    let profile = png.with_extension("profile");
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=900,640",
            "--virtual-time-budget=4000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}#{fragment}", page.display()))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        png.exists(),
        "chromium wrote no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(())
}

/// RGBA pixels of a PNG's view area: below the title, above the control
/// bar and the help line, left of the colour legend (so a moving slider or
/// time label alone does not count as a change).
fn pixels(path: &Path) -> Vec<[u8; 4]> {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let bytes = &buf[..info.buffer_size()];
    let all: Vec<[u8; 4]> = match info.color_type {
        png::ColorType::Rgba => bytes
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect(),
        png::ColorType::Rgb => bytes
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    let (w, h) = (info.width as usize, info.height as usize);
    assert!(w > 400 && h > 300, "{w} × {h} screenshot");
    (40..h - 80)
        .flat_map(|y| (0..w - 220).map(move |x| y * w + x))
        .map(|i| all[i])
        .collect()
}

/// Simulates `scene` for `steps` and checks its replay in Chromium: the
/// first and last frames are drawn (mostly not the background), and they
/// differ.
fn check_replay(scene_file: &str, steps: &str) {
    let out = tmp(&format!("replay-{scene_file}"));
    let path = scene(scene_file);
    simulate(&[
        path.as_os_str(),
        "--steps".as_ref(),
        steps.as_ref(),
        "--no-vtk".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let page = out.join("replay.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing is fetched at view time.
    for banned in ["http://", "https://", "src=\"", "<link"] {
        assert!(!html.contains(banned), "replay.html refers to {banned}");
    }
    let (first, last) = (out.join("first.png"), out.join("last.png"));
    if screenshot(&page, "frame=0", &first).is_none() {
        eprintln!(
            "SKIPPED: Chromium is not installed (`apt-get install chromium`); replay.html was written but not rendered"
        );
        return;
    }
    screenshot(&page, "frame=last", &last).unwrap();
    let (a, b) = (pixels(&first), pixels(&last));
    assert_eq!(a.len(), b.len());
    // The backdrop is #f4f5f7 and the grid lines are light grey: count the
    // pixels that are clearly something else (the bodies, the UI).
    let drawn = |img: &[[u8; 4]]| {
        img.iter()
            .filter(|p| {
                let d = |c: u8, r: u8| (c as i32 - r as i32).abs();
                d(p[0], 0xf4) + d(p[1], 0xf5) + d(p[2], 0xf7) > 90
            })
            .count() as f64
            / img.len() as f64
    };
    let (da, db) = (drawn(&a), drawn(&b));
    assert!(
        da > 0.02 && db > 0.02,
        "blank replay: {da:.3} / {db:.3} drawn"
    );
    let changed = a.iter().zip(&b).filter(|(x, y)| x != y).count() as f64 / a.len() as f64;
    assert!(
        changed > 0.002,
        "the first and last frames look the same ({changed:.4} of pixels differ)"
    );
    eprintln!("{scene_file}: drawn {da:.3} / {db:.3}, changed {changed:.3}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn tripod_replay_renders_in_headless_chromium() {
    check_replay("tripod_drop.json", "12");
}

#[test]
fn rod_replay_renders_in_headless_chromium() {
    check_replay("rod_drape.json", "150");
}

#[test]
fn a_long_run_stays_within_a_memory_bound() {
    // 10⁵ steps of a small scene with every frame streamed to CSV/JSON,
    // the replay and plots kept bounded: peak memory (run.json) must not
    // grow with the run. Measured against a 10³-step run of the same.
    let out = tmp("memory");
    let scene_path = out.with_extension("json");
    std::fs::write(
        &scene_path,
        r#"{"dim": 3, "nodes": [[0,0,0],[0,0,-0.1]], "mass": [0.01, 0.01],
  "constraints": [{"node": 0}],
  "energies": [{"type": "gravity", "g": [0, 0, -9.81]},
               {"type": "spring", "springs": [{"nodes": [0, 1], "stiffness": 50}]}],
  "integrator": "implicit_midpoint", "dt": 0.001, "steps": 100000}"#,
    )
    .unwrap();
    let peak = |steps: &str, dir: &Path| -> u64 {
        simulate(&[
            scene_path.as_os_str(),
            "--steps".as_ref(),
            steps.as_ref(),
            "--no-vtk".as_ref(),
            "--out".as_ref(),
            dir.as_os_str(),
        ]);
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
        assert_eq!(run["progress"].as_u64().unwrap().to_string(), steps);
        run["peak_memory_bytes"].as_u64().unwrap()
    };
    let short = peak("1000", &out.join("short"));
    let long = peak("100000", &out.join("long"));
    let csv = std::fs::read_to_string(out.join("long/trajectory.csv")).unwrap();
    assert_eq!(csv.lines().count(), 100_002, "header + 100 001 frames");
    eprintln!(
        "peak memory: 10^3 steps {:.1} MB, 10^5 steps {:.1} MB",
        short as f64 / 1e6,
        long as f64 / 1e6
    );
    // The bound stated in docs/visualization.md.
    assert!(long < 64_000_000, "{long} bytes");
    assert!(
        long < short + 8_000_000,
        "memory grew with the run: {short} → {long} bytes"
    );
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_file(&scene_path);
}
