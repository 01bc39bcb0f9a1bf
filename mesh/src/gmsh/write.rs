//! Writing MSH 2.2 ASCII: nodes, tetrahedra and triangles, each element
//! once per physical group it belongs to under the same element number (as
//! MSH 2.2 does), and the nodes of a group that has no element of its own
//! as point elements; the groups are named in `$PhysicalNames`. Gmsh,
//! ParaView (through meshio) and [`GmshMesh::read`] read it back.

use super::GmshMesh;
use crate::MeshFileError;
use std::fmt::Write as _;
use std::path::Path;

impl GmshMesh {
    /// The mesh as MSH 2.2 ASCII text. Elements in no group are written
    /// with physical tag 0 (Gmsh's "no group").
    pub fn to_msh22(&self) -> String {
        let mut s = String::from("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n");
        if !self.groups.is_empty() {
            let _ = writeln!(s, "$PhysicalNames\n{}", self.groups.len());
            for g in &self.groups {
                let _ = writeln!(s, "{} {} \"{}\"", g.dim, g.tag, g.name.replace('"', "'"));
            }
            s.push_str("$EndPhysicalNames\n");
        }
        let _ = writeln!(s, "$Nodes\n{}", self.nodes.len());
        for (i, p) in self.nodes.iter().enumerate() {
            // Shortest round-trip form: the file reads back bit for bit.
            let _ = writeln!(s, "{} {:?} {:?} {:?}", i + 1, p[0], p[1], p[2]);
        }
        s.push_str("$EndNodes\n");
        // Each tetrahedron/triangle with the physical tags it has.
        let mut tet_groups = vec![Vec::new(); self.tets.len()];
        let mut tri_groups = vec![Vec::new(); self.triangles.len()];
        for g in &self.groups {
            for &t in &g.tets {
                tet_groups[t].push(g.tag);
            }
            for &t in &g.triangles {
                tri_groups[t].push(g.tag);
            }
        }
        // (element number, type, physical tag, nodes): one line per group
        // of an element, all under the element's number.
        let mut lines = Vec::new();
        let tagged = |tags: &[i32]| {
            if tags.is_empty() {
                vec![0]
            } else {
                tags.to_vec()
            }
        };
        let mut number = 0;
        for (t, nodes) in self.tets.iter().enumerate() {
            number += 1;
            for tag in tagged(&tet_groups[t]) {
                lines.push((number, 4, tag, nodes.to_vec()));
            }
        }
        for (t, nodes) in self.triangles.iter().enumerate() {
            number += 1;
            for tag in tagged(&tri_groups[t]) {
                lines.push((number, 2, tag, nodes.to_vec()));
            }
        }
        // Groups of nodes only (a point set): one point element per node.
        for g in self
            .groups
            .iter()
            .filter(|g| g.tets.is_empty() && g.triangles.is_empty())
        {
            for &n in &g.nodes {
                number += 1;
                lines.push((number, 15, g.tag, vec![n]));
            }
        }
        let _ = writeln!(s, "$Elements\n{}", lines.len());
        for (k, ty, tag, nodes) in &lines {
            let _ = write!(s, "{k} {ty} 2 {tag} {tag}");
            for n in nodes {
                let _ = write!(s, " {}", n + 1);
            }
            s.push('\n');
        }
        s.push_str("$EndElements\n");
        s
    }

    /// Writes [`GmshMesh::to_msh22`] to `path`.
    pub fn write_msh22(&self, path: &Path) -> Result<(), MeshFileError> {
        std::fs::write(path, self.to_msh22()).map_err(|source| MeshFileError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}
