//! Hand-written MSH files for the cases Gmsh's own output does not cover
//! (the files Gmsh wrote are tested in `tests/mesh_files.rs`).

use super::{GmshMesh, PhysicalGroup};
use crate::MeshFileError as MeshError;
use std::path::Path;

fn parse(text: &str) -> Result<GmshMesh, MeshError> {
    GmshMesh::parse(text.as_bytes(), Path::new("test.msh"))
}

fn parse_err(text: &str) -> (Option<usize>, String) {
    match parse(text) {
        Err(MeshError::Parse { line, message, .. }) => (line, message),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

/// One tetrahedron and one triangle in MSH 4.1, with sparse node tags, a
/// parametric node block and a comment section, the volume in physical
/// group 5 ("soft gel"; group 8 is named but empty) and the triangle in the unnamed group 6.
const V41: &str = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n\
$Comments\nanything $Nodes here is skipped\n$EndComments\n\
$PhysicalNames\n2\n3 5 \"soft gel\"\n2 8 \"unused\"\n$EndPhysicalNames\n\
$Entities\n0 0 1 1\n\
3 0 0 0 1 1 0 1 6 0\n\
1 0 0 0 1 1 1 1 5 1 3\n$EndEntities\n\
$Nodes\n2 4 10 40\n\
2 3 1 3\n10\n20\n30\n0 0 0 0 0\n1 0 0 1 0\n0 1 0 0 1\n\
3 1 0 1\n40\n0 0 1\n$EndNodes\n\
$Elements\n2 2 1 2\n\
3 1 4 1\n1 10 20 30 40\n\
2 3 2 1\n2 10 30 20\n$EndElements\n";

#[test]
fn msh41_groups_sparse_tags_and_parametric_nodes() {
    let m = parse(V41).unwrap();
    assert_eq!(
        m.nodes,
        vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    );
    assert_eq!(m.tets, vec![[0, 1, 2, 3]]);
    assert_eq!(m.triangles, vec![[0, 2, 1]]);
    assert_eq!(m.reoriented, 0);
    let gel = m.group("soft gel").unwrap();
    assert_eq!(
        (gel.dim, gel.tag, gel.nodes.len(), gel.tets.clone()),
        (3, 5, 4, vec![0])
    );
    let unused = m.group("unused").unwrap();
    assert!(unused.dim == 2 && unused.nodes.is_empty() && unused.triangles.is_empty());
    assert_eq!(m.groups.len(), 3);
    let surf = &m.groups[0];
    assert_eq!((surf.dim, surf.tag, surf.name.as_str()), (2, 6, ""));
    assert_eq!(
        (surf.nodes.clone(), surf.triangles.clone()),
        (vec![0, 1, 2], vec![0])
    );
    assert_eq!(m.tets, vec![[0, 1, 2, 3]]);
    assert_eq!(m.body_node_map()[..4], [Some(0), Some(1), Some(2), Some(3)]);
}

#[test]
fn msh22_duplicated_elements_are_kept_once_and_inverted_tets_reoriented() {
    // The tetrahedron is written twice (groups 1 and 2) and negatively
    // oriented; node 9 belongs to no tetrahedron.
    let text = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n\
$PhysicalNames\n2\n3 1 \"a\"\n3 2 \"b\"\n$EndPhysicalNames\n\
$Nodes\n5\n1 0 0 0\n2 0 1 0\n3 1 0 0\n4 0 0 1\n9 5 5 5\n$EndNodes\n\
$Elements\n3\n7 4 2 1 1 1 2 3 4\n7 4 2 2 1 1 2 3 4\n8 15 2 0 3 9\n$EndElements\n";
    let m = parse(text).unwrap();
    assert_eq!(m.tets.len(), 1);
    assert_eq!(m.reoriented, 1);
    assert_eq!(m.group("a").unwrap().tets, vec![0]);
    assert_eq!(m.group("b").unwrap().tets, vec![0]);
    assert_eq!(
        m.body_node_map(),
        vec![Some(0), Some(1), Some(2), Some(3), None]
    );
    // Reoriented: positive volume.
    assert!(crate::tet_volume(m.tets[0].map(|n| m.nodes[n])) > 0.0);
}

#[test]
fn malformed_files_name_the_line_and_what_is_wrong() {
    let (line, msg) = parse_err("hello");
    assert_eq!(line, Some(1));
    assert!(msg.contains("$MeshFormat"), "{msg}");

    let (_, msg) = parse_err("$MeshFormat\n4 0 8\n$EndMeshFormat\n");
    assert!(msg.contains("4.0") && msg.contains("4.1"), "{msg}");

    let (_, msg) = parse_err("$MeshFormat\n3.0 0 8\n$EndMeshFormat\n");
    assert!(msg.contains("`3.0`"), "{msg}");

    // An element referring to an undefined node.
    let bad = V41.replace("1 10 20 30 40", "1 10 20 30 41");
    let (line, msg) = parse_err(&bad);
    assert_eq!(line, Some(33));
    assert!(
        msg.contains("node tag 41") && msg.contains("element 1"),
        "{msg}"
    );

    // Not a number.
    let (line, msg) = parse_err(&V41.replace("0 0 1\n$EndNodes", "0 x 1\n$EndNodes"));
    assert_eq!(line, Some(28));
    assert!(msg.contains("`x`"), "{msg}");

    // Second-order tetrahedra say how to re-mesh.
    let quad = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n$EndNodes\n\
$Elements\n1\n1 11 0 1 1 1 1 1 1 1 1 1 1\n$EndElements\n";
    let (_, msg) = parse_err(quad);
    assert!(
        msg.contains("10-node second-order tetrahedron") && msg.contains("-order 1"),
        "{msg}"
    );

    // A duplicated node tag, a missing section end, a missing section.
    let (_, msg) = parse_err(&V41.replace("\n40\n0 0 1", "\n30\n0 0 1"));
    assert!(msg.contains("node tag 30 is defined twice"), "{msg}");
    let (_, msg) = parse_err(&V41.replace("$EndElements\n", ""));
    assert!(
        msg.contains("$EndElements") && msg.contains("end of the file"),
        "{msg}"
    );
    let (_, msg) = parse_err(&V41[..V41.find("$Elements").unwrap()]);
    assert!(msg.contains("no `$Elements`"), "{msg}");

    // A count far beyond the file's size is refused before allocating.
    let (_, msg) = parse_err(&V41.replace("$Nodes\n2 4 10 40", "$Nodes\n99999999999 4 10 40"));
    assert!(msg.contains("exceeds"), "{msg}");
}

#[test]
fn every_truncation_and_byte_flip_is_an_error_or_a_mesh_never_a_panic() {
    for cut in 0..V41.len() {
        let _ = GmshMesh::parse(&V41.as_bytes()[..cut], Path::new("cut.msh"));
    }
    let mut bytes = V41.as_bytes().to_vec();
    for i in 0..bytes.len() {
        for b in [b'0', b'9', b'-', b' ', b'$', 0xff] {
            let old = bytes[i];
            bytes[i] = b;
            let _ = GmshMesh::parse(&bytes, Path::new("flip.msh"));
            bytes[i] = old;
        }
    }
}

#[test]
fn written_msh22_reads_back_with_its_groups() {
    let m = GmshMesh {
        nodes: vec![
            [0.0, 0.0, 0.0],
            [0.1, 0.0, 0.0],
            [0.0, 0.1, 0.0],
            [0.0, 0.0, 0.1],
            [0.1, 0.1, 0.1 / 3.0],
        ],
        tets: vec![[0, 1, 2, 3], [1, 2, 3, 4]],
        triangles: vec![[0, 2, 1]],
        groups: vec![
            PhysicalGroup {
                dim: 2,
                tag: 7,
                name: "base".into(),
                nodes: vec![0, 1, 2],
                tets: vec![],
                triangles: vec![0],
            },
            PhysicalGroup {
                dim: 0,
                tag: 9,
                name: "anchor".into(),
                nodes: vec![4],
                tets: vec![],
                triangles: vec![],
            },
            PhysicalGroup {
                dim: 3,
                tag: 1,
                name: "body".into(),
                nodes: vec![0, 1, 2, 3, 4],
                tets: vec![0, 1],
                triangles: vec![],
            },
            // The second tetrahedron in a second group too.
            PhysicalGroup {
                dim: 3,
                tag: 5,
                name: "tip".into(),
                nodes: vec![1, 2, 3, 4],
                tets: vec![1],
                triangles: vec![],
            },
        ],
        reoriented: 0,
    };
    let text = m.to_msh22();
    let back = GmshMesh::parse(text.as_bytes(), std::path::Path::new("w.msh")).unwrap();
    assert_eq!(back.nodes, m.nodes);
    assert_eq!(back.tets.len(), 2);
    assert_eq!(back.triangles, m.triangles);
    assert_eq!(back.group("base").unwrap().nodes, vec![0, 1, 2]);
    assert_eq!(back.group("body").unwrap().tets, vec![0, 1]);
    // An element in two groups is kept once; a point group keeps its node.
    assert_eq!(back.group("tip").unwrap().tets, vec![1]);
    assert_eq!(back.group("anchor").unwrap().nodes, vec![4]);
}
