//! Mesh import: Gmsh and TetGen files read to the same mesh; bad files give
//! errors that name the file and what is wrong.

use pliant_fem::{MeshError, TetMesh};
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
        e.to_string().contains("line 2") && e.to_string().contains("`x`"),
        "{e}"
    );
    // Garbage instead of a Gmsh file.
    let e = TetMesh::read_gmsh(&tmp("junk.msh", "hello")).unwrap_err();
    assert!(matches!(e, MeshError::Parse { .. }), "{e}");
}
