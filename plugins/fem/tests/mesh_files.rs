//! Mesh import: Gmsh and TetGen files read to the same mesh; the meshes
//! Gmsh itself wrote in every format we read agree with each other and with
//! what Gmsh's API reported; bad files give errors that name the file and
//! what is wrong.

use pliant_fem::{GmshMesh, MeshError, TetMesh};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn gmsh_and_tetgen_files_give_the_same_mesh() {
    let g = TetMesh::read_gmsh(&data("two_tets.msh")).unwrap();
    let t = TetMesh::read_tetgen(&data("two_tets")).unwrap();
    assert_eq!(g.tets.len(), 2, "the triangle element is ignored");
    assert_eq!(g.nodes.len(), 5);
    assert_eq!(g.tets, t.tets);
    assert_eq!(g.nodes, t.nodes);
    // 1e-6/6 + the second tet's volume.
    let v1 = 1e-6 / 6.0;
    assert!(
        (g.volume()
            - (v1
                + pliant_fem::mesh::tet_volume([g.nodes[1], g.nodes[2], g.nodes[3], g.nodes[4]])))
        .abs()
            < 1e-18
    );
    assert_eq!(g.boundary_faces().len(), 6);
}

fn tmp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pliant-mesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn bad_mesh_files_are_reported() {
    // Missing file.
    let e = TetMesh::read_gmsh(Path::new("no/such/mesh.msh")).unwrap_err();
    assert!(matches!(e, MeshError::Io { .. }) && e.to_string().contains("no/such/mesh.msh"));
    // A degenerate tetrahedron (four coplanar nodes) names the element.
    let msh = std::fs::read_to_string(data("two_tets.msh"))
        .unwrap()
        .replace("0 0 0.01\n", "0.005 0.005 0\n");
    let e = TetMesh::read_gmsh(&tmp("flat.msh", &msh)).unwrap_err();
    assert!(matches!(e, MeshError::Degenerate { tet: 0, .. }), "{e}");
    // A node index out of range in a TetGen file.
    let node = std::fs::read_to_string(data("two_tets.node")).unwrap();
    tmp("bad.node", &node);
    let ele = tmp("bad.ele", "2 4 0\n1 1 2 3 4\n2 2 3 4 9\n");
    let e = TetMesh::read_tetgen(&ele.with_extension("")).unwrap_err();
    assert!(
        e.to_string().contains("node index 8") && e.to_string().contains("tetrahedron 1"),
        "{e}"
    );
    // Not a number.
    let ele = tmp("nan.ele", "2 4 0\n1 1 2 x 4\n2 2 3 4 5\n");
    tmp("nan.node", &node);
    let e = TetMesh::read_tetgen(&ele.with_extension("")).unwrap_err();
    assert!(
        matches!(e, MeshError::Parse { line: Some(2), .. }) && e.to_string().contains("`x`"),
        "{e}"
    );
    // Garbage instead of a Gmsh file.
    let e = TetMesh::read_gmsh(&tmp("junk.msh", "hello")).unwrap_err();
    assert!(matches!(e, MeshError::Parse { .. }), "{e}");
}

/// `tests/data/box_*.msh` were written by Gmsh 4.15.2 from
/// `tests/data/make_box_meshes.py`, which also recorded in
/// `box_expected.json` what Gmsh's API reports about the mesh.
#[test]
fn gmsh_written_meshes_read_the_same_in_every_format() {
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("box_expected.json")).unwrap()).unwrap();
    let reference = GmshMesh::read(&data("box_v41_ascii.msh")).unwrap();
    for name in [
        "box_v41_ascii",
        "box_v41_binary",
        "box_v22_ascii",
        "box_v22_binary",
    ] {
        let m = GmshMesh::read(&data(&format!("{name}.msh"))).unwrap();
        assert_eq!(
            m.nodes.len() as u64,
            expected["nodes"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            m.tets.len() as u64,
            expected["tetrahedra"].as_u64().unwrap(),
            "{name}"
        );
        let sum: f64 = m.nodes.iter().flatten().sum();
        let want = expected["coordinate_sum"].as_f64().unwrap();
        assert!((sum - want).abs() < 1e-14 * want, "{name}: {sum} vs {want}");
        // Same mesh whatever the format (ASCII prints 16 digits).
        assert_eq!(m.tets, reference.tets, "{name}");
        assert_eq!(m.triangles, reference.triangles, "{name}");
        for (a, b) in m.nodes.iter().zip(&reference.nodes) {
            for k in 0..3 {
                assert!((a[k] - b[k]).abs() <= 1e-17, "{name}: {a:?} vs {b:?}");
            }
        }
        // Every physical group, its name and its node and element counts.
        let groups = expected["groups"].as_object().unwrap();
        assert_eq!(m.groups.len(), groups.len(), "{name}");
        for g in &m.groups {
            let e = &groups[&format!("{}:{}", g.dim, g.tag)];
            assert_eq!(g.name, e["name"].as_str().unwrap(), "{name}");
            assert_eq!(
                g.nodes.len() as u64,
                e["nodes"].as_u64().unwrap(),
                "{name} {}",
                g.name
            );
            let elements = match g.dim {
                3 => g.tets.len(),
                2 => g.triangles.len(),
                _ => g.nodes.len(),
            };
            assert_eq!(
                elements as u64,
                e["elements"].as_u64().unwrap(),
                "{name} {}",
                g.name
            );
        }
        // The geometry: a 2 × 1 × 1 cm box, its bottom and top faces.
        let body = TetMesh::from_gmsh(&m).unwrap();
        assert!(
            (body.volume() - 2e-6).abs() < 1e-18,
            "{name}: {}",
            body.volume()
        );
        for (face, z) in [("bottom", 0.0), ("top", 0.01)] {
            let g = m.group(face).unwrap();
            assert!(g.nodes.iter().all(|&n| m.nodes[n][2] == z), "{name} {face}");
            let area: f64 = g
                .triangles
                .iter()
                .map(|&t| {
                    let [a, b, c] = m.triangles[t].map(|n| m.nodes[n]);
                    let (u, v) = ([b[0] - a[0], b[1] - a[1]], [c[0] - a[0], c[1] - a[1]]);
                    0.5 * (u[0] * v[1] - u[1] * v[0]).abs()
                })
                .sum();
            assert!((area - 2e-4).abs() < 1e-16, "{name} {face}: {area}");
        }
        assert_eq!(m.group("body").unwrap().tets.len(), m.tets.len());
    }
}
