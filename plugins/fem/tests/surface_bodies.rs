//! Bodies from closed surfaces (STL, OBJ): the voxelized unit cube and a
//! sphere against their exact volumes; surfaces that do not bound a solid
//! are refused with the file and the offending edge named.

use pliant_fem::{MeshError, TetMesh};
use pliant_mesh::SurfaceMesh;
use std::path::{Path, PathBuf};

/// `s` as ASCII STL text.
pub fn ascii_stl(s: &SurfaceMesh) -> String {
    let mut out = String::from("solid test\n");
    for t in &s.triangles {
        out.push_str(" facet normal 0 0 0\n  outer loop\n");
        for &i in t {
            let p = s.vertices[i];
            out.push_str(&format!("   vertex {:e} {:e} {:e}\n", p[0], p[1], p[2]));
        }
        out.push_str("  endloop\n endfacet\n");
    }
    out.push_str("endsolid test\n");
    out
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("pliant-surface-{}-{name}", std::process::id()))
}

fn unit_cube() -> SurfaceMesh {
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    SurfaceMesh {
        vertices: (0..8)
            .map(|i| [(i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64])
            .collect(),
        triangles: quads
            .iter()
            .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
            .collect(),
    }
}

#[test]
fn voxelized_unit_cube_stl_has_its_volume() {
    let path = tmp("cube.stl");
    std::fs::write(&path, ascii_stl(&unit_cube())).unwrap();
    for (h, cubes) in [(0.25, 64), (0.1, 1000)] {
        let b = TetMesh::read_surface(&path, 1.0, h).unwrap();
        assert_eq!(b.mesh.tets.len(), 6 * cubes);
        assert!((b.surface_volume - 1.0).abs() < 1e-12);
        assert!(b.volume_error().abs() < 1e-9, "{}", b.volume_error());
        b.mesh.validate().unwrap();
    }
    // Millimetres scaled to metres.
    std::fs::write(&path, ascii_stl(&unit_cube().scaled(20.0))).unwrap();
    let b = TetMesh::read_surface(&path, 1e-3, 2e-3).unwrap();
    assert!((b.mesh_volume - 8e-6).abs() < 1e-15, "{}", b.mesh_volume);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn voxelized_sphere_is_within_three_percent_of_its_volume() {
    let path = tmp("sphere.stl");
    let s = SurfaceMesh::icosphere(0.05, [0.01, -0.02, 0.3], 4);
    std::fs::write(&path, ascii_stl(&s)).unwrap();
    let exact = 4.0 / 3.0 * std::f64::consts::PI * 0.05f64.powi(3);
    for h in [0.005, 0.0025] {
        let b = TetMesh::read_surface(&path, 1.0, h).unwrap();
        b.mesh.validate().unwrap();
        // The icosphere (5120 triangles) is within 0.3 % of the sphere.
        assert!((b.surface_volume / exact - 1.0).abs() < 3e-3);
        eprintln!(
            "sphere r = 5 cm, h = {} mm: {} tets, volume error {:+.2} %",
            1e3 * h,
            b.mesh.tets.len(),
            100.0 * b.volume_error()
        );
        assert!(b.volume_error().abs() < 0.03, "{}", b.volume_error());
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
fn surfaces_that_bound_no_solid_are_refused_naming_file_and_edge() {
    let path = tmp("open.stl");
    let mut open = unit_cube();
    open.triangles.pop();
    std::fs::write(&path, ascii_stl(&open)).unwrap();
    let e = TetMesh::read_surface(&path, 1.0, 0.1).unwrap_err();
    assert!(matches!(e, MeshError::Parse { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("open.stl") && msg.contains("not closed"),
        "{msg}"
    );
    // Inward triangles: a negative volume.
    let mut inward = unit_cube();
    inward.triangles.iter_mut().for_each(|t| t.swap(1, 2));
    std::fs::write(&path, ascii_stl(&inward)).unwrap();
    let msg = TetMesh::read_surface(&path, 1.0, 0.1)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("face inwards"), "{msg}");
    // A voxel size larger than the body: nothing inside.
    std::fs::write(&path, ascii_stl(&unit_cube())).unwrap();
    let msg = TetMesh::read_surface(&path, 1.0, 5.0)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("no voxel"), "{msg}");
    // Not a surface file.
    let msg = TetMesh::read_surface(Path::new("body.ply"), 1.0, 0.1)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("body.ply"), "{msg}");
    let _ = std::fs::remove_file(&path);
}
