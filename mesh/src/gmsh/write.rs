//! Writing MSH 2.2 ASCII: nodes, tetrahedra and triangles, each element
//! once per physical group it belongs to (as MSH 2.2 does), the groups
//! named in `$PhysicalNames`. Gmsh, ParaView (through meshio) and
//! [`GmshMesh::read`] read it back.

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
        let mut lines = Vec::new();
        let tagged = |tags: &[i32]| {
            if tags.is_empty() {
                vec![0]
            } else {
                tags.to_vec()
            }
        };
        for (t, nodes) in self.tets.iter().enumerate() {
            for tag in tagged(&tet_groups[t]) {
                lines.push((4, tag, nodes.to_vec()));
            }
        }
        for (t, nodes) in self.triangles.iter().enumerate() {
            for tag in tagged(&tri_groups[t]) {
                lines.push((2, tag, nodes.to_vec()));
            }
        }
        let _ = writeln!(s, "$Elements\n{}", lines.len());
        for (k, (ty, tag, nodes)) in lines.iter().enumerate() {
            let _ = write!(s, "{} {ty} 2 {tag} {tag}", k + 1);
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
