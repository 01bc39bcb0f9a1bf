//! Gmsh `.msh` files: MSH 4.1 and 2.2 (2.0–2.2), ASCII and binary, as the
//! Gmsh reference manual (§10.1, "MSH file format") documents them.
//!
//! Kept: every node; linear tetrahedra (element type 4) and triangles
//! (type 2); physical groups with their names, nodes and elements. Points
//! and 2-node lines (types 15, 1) only add their nodes to their physical
//! groups. Other element types (second-order elements, hexahedra, quads,
//! …) are errors that say how to re-mesh, because dropping them would
//! silently lose part of a body. Negatively oriented tetrahedra are
//! reoriented (two nodes swapped; counted in [`GmshMesh::reoriented`]);
//! degenerate ones are errors. Coordinates are taken as metres.

mod cursor;
mod msh22;
mod msh41;
mod reader;
#[cfg(test)]
mod tests;
mod write;

use crate::{MeshFileError as MeshError, tet_volume};
use reader::Reader;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// A physical group of a Gmsh mesh: a named (or only numbered) set of
/// entities of one dimension and the mesh entities on them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhysicalGroup {
    /// Dimension of its entities (0 points, 1 curves, 2 surfaces, 3 volumes).
    pub dim: usize,
    /// Its physical tag.
    pub tag: i32,
    /// Its name from `$PhysicalNames`, empty when the file gives none.
    pub name: String,
    /// Indices into [`GmshMesh::nodes`] of every node of its elements, sorted.
    pub nodes: Vec<usize>,
    /// Indices into [`GmshMesh::tets`] of its tetrahedra.
    pub tets: Vec<usize>,
    /// Indices into [`GmshMesh::triangles`] of its triangles.
    pub triangles: Vec<usize>,
}

/// A Gmsh mesh as read (see the [module documentation](self)).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GmshMesh {
    /// Node positions in file order, m.
    pub nodes: Vec<[f64; 3]>,
    /// Linear tetrahedra (indices into `nodes`), positively oriented.
    pub tets: Vec<[usize; 4]>,
    /// Linear triangles (indices into `nodes`), as oriented in the file.
    pub triangles: Vec<[usize; 3]>,
    /// Physical groups, sorted by dimension and tag.
    pub groups: Vec<PhysicalGroup>,
    /// How many tetrahedra were negatively oriented in the file.
    pub reoriented: usize,
}

impl GmshMesh {
    /// Reads a `.msh` file.
    pub fn read(path: &Path) -> Result<Self, MeshError> {
        let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&bytes, path)
    }

    /// Parses the bytes of a `.msh` file; `path` is named in errors.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Self, MeshError> {
        let mut r = Reader::new(bytes, path);
        let t = r.cur.token()?;
        if t != "$MeshFormat" {
            return Err(r
                .cur
                .error("not a Gmsh MSH file: it does not start with `$MeshFormat`"));
        }
        let version = r.cur.token()?.to_string();
        let file_type: u8 = r.cur.parse("the file type (0 ASCII, 1 binary)")?;
        let data_size: usize = r.cur.parse("the data size")?;
        if file_type > 1 {
            return Err(r.cur.error(format!(
                "file type {file_type}: expected 0 (ASCII) or 1 (binary)"
            )));
        }
        if file_type == 1 {
            if data_size != 4 && data_size != 8 {
                return Err(r.cur.error(format!(
                    "data size {data_size}: binary files with a {data_size}-byte size_t are not supported (4 or 8)"
                )));
            }
            r.cur.end_of_line()?;
            let endian = r.cur.endianness()?;
            r.binary = Some((endian, data_size));
        }
        r.cur.expect("$EndMeshFormat")?;
        let mut b = Builder::default();
        match version.as_str() {
            "4.1" => msh41::read(&mut r, &mut b)?,
            "2" | "2.0" | "2.1" | "2.2" => msh22::read(&mut r, &mut b)?,
            "4" | "4.0" => {
                return Err(r.cur.error(
                    "MSH 4.0 is not supported: save the mesh as MSH 4.1 or 2.2 (Gmsh: -format msh41)",
                ));
            }
            v => {
                return Err(r.cur.error(format!(
                    "MSH version `{v}` is not supported (4.1 and 2.2 are)"
                )));
            }
        }
        Ok(b.finish())
    }

    /// The physical group named `name`, if any.
    pub fn group(&self, name: &str) -> Option<&PhysicalGroup> {
        self.groups.iter().find(|g| g.name == name)
    }

    /// For every node, its index among the nodes of the tetrahedra (`None` for nodes of
    /// no tetrahedron, which the body drops).
    pub fn body_node_map(&self) -> Vec<Option<usize>> {
        let mut used = vec![false; self.nodes.len()];
        for t in &self.tets {
            for &n in t {
                used[n] = true;
            }
        }
        let mut next = 0;
        used.iter()
            .map(|&u| {
                u.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    }
}

/// Node count, dimension and name of the Gmsh element types the reader
/// knows (manual §10.2); `None` for any other type.
pub(crate) fn element_type(ty: i32) -> Option<(usize, usize, &'static str)> {
    Some(match ty {
        1 => (2, 1, "2-node line"),
        2 => (3, 2, "3-node triangle"),
        3 => (4, 2, "4-node quadrangle"),
        4 => (4, 3, "4-node tetrahedron"),
        5 => (8, 3, "8-node hexahedron"),
        6 => (6, 3, "6-node prism"),
        7 => (5, 3, "5-node pyramid"),
        8 => (3, 1, "3-node second-order line"),
        9 => (6, 2, "6-node second-order triangle"),
        10 => (9, 2, "9-node second-order quadrangle"),
        11 => (10, 3, "10-node second-order tetrahedron"),
        12 => (27, 3, "27-node second-order hexahedron"),
        13 => (18, 3, "18-node second-order prism"),
        14 => (14, 3, "14-node second-order pyramid"),
        15 => (1, 0, "1-node point"),
        16 => (8, 2, "8-node second-order quadrangle"),
        17 => (20, 3, "20-node second-order hexahedron"),
        18 => (15, 3, "15-node second-order prism"),
        19 => (13, 3, "13-node second-order pyramid"),
        _ => return None,
    })
}

/// Collects nodes, elements and group memberships as the version-specific
/// readers find them.
#[derive(Default)]
pub(super) struct Builder {
    nodes: Vec<[f64; 3]>,
    node_index: HashMap<u64, usize>,
    tets: Vec<[usize; 4]>,
    triangles: Vec<[usize; 3]>,
    reoriented: usize,
    /// Element tag → (kind, index) of the element kept for it, so an element
    /// written once per physical group (MSH 2.2) is kept once.
    elements: HashMap<u64, (i32, usize)>,
    groups: BTreeMap<(usize, i32), GroupBuilder>,
    names: HashMap<(usize, i32), String>,
}

#[derive(Default)]
struct GroupBuilder {
    nodes: BTreeSet<usize>,
    tets: BTreeSet<usize>,
    triangles: BTreeSet<usize>,
}

impl Builder {
    pub(super) fn name_group(&mut self, dim: usize, tag: i32, name: &str) {
        self.names.insert((dim, tag), name.to_string());
    }

    pub(super) fn add_node(&mut self, tag: u64, p: [f64; 3]) -> Result<(), String> {
        if let Some(&v) = p.iter().find(|v| !v.is_finite()) {
            return Err(format!("node {tag} has a non-finite coordinate {v}"));
        }
        if self.node_index.insert(tag, self.nodes.len()).is_some() {
            return Err(format!("node tag {tag} is defined twice"));
        }
        self.nodes.push(p);
        Ok(())
    }

    /// Adds element `tag` of Gmsh type `ty` on the nodes tagged `nodes`,
    /// member of the physical groups `physicals`.
    pub(super) fn add_element(
        &mut self,
        tag: u64,
        ty: i32,
        nodes: &[u64],
        physicals: &[i32],
    ) -> Result<(), String> {
        let Some((count, dim, name)) = element_type(ty) else {
            return Err(format!("element {tag}: unknown element type {ty}"));
        };
        if !matches!(ty, 1 | 2 | 4 | 15) {
            return Err(format!(
                "element {tag} is a {name} (type {ty}); only linear tetrahedra, triangles, lines and points are supported: mesh with first-order tetrahedra (Gmsh: -3 -order 1)"
            ));
        }
        debug_assert_eq!(nodes.len(), count);
        let mut idx = [0usize; 4];
        for (k, t) in nodes.iter().enumerate() {
            idx[k] = *self.node_index.get(t).ok_or_else(|| {
                format!("element {tag} refers to node tag {t}, which the file does not define")
            })?;
        }
        let kept = match self.elements.get(&tag) {
            Some(&(kind, i)) if kind == ty => Some(i),
            Some(&(kind, _)) => {
                return Err(format!(
                    "element tag {tag} is used for two elements (types {kind} and {ty})"
                ));
            }
            None => {
                let i = match ty {
                    4 => {
                        let mut t = [idx[0], idx[1], idx[2], idx[3]];
                        if tet_volume(t.map(|n| self.nodes[n])) < 0.0 {
                            t.swap(2, 3);
                            self.reoriented += 1;
                        }
                        self.tets.push(t);
                        Some(self.tets.len() - 1)
                    }
                    2 => {
                        self.triangles.push([idx[0], idx[1], idx[2]]);
                        Some(self.triangles.len() - 1)
                    }
                    _ => None,
                };
                if let Some(i) = i {
                    self.elements.insert(tag, (ty, i));
                }
                i
            }
        };
        for &p in physicals {
            let g = self.groups.entry((dim, p)).or_default();
            g.nodes.extend(&idx[..count]);
            match (ty, kept) {
                (4, Some(i)) => {
                    g.tets.insert(i);
                }
                (2, Some(i)) => {
                    g.triangles.insert(i);
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn finish(mut self) -> GmshMesh {
        // Named groups without elements are listed too, so that a caller can
        // tell "empty" from "no such group".
        for &key in self.names.keys() {
            self.groups.entry(key).or_default();
        }
        let groups = std::mem::take(&mut self.groups)
            .into_iter()
            .map(|((dim, tag), g)| PhysicalGroup {
                dim,
                tag,
                name: self.names.remove(&(dim, tag)).unwrap_or_default(),
                nodes: g.nodes.into_iter().collect(),
                tets: g.tets.into_iter().collect(),
                triangles: g.triangles.into_iter().collect(),
            })
            .collect();
        GmshMesh {
            nodes: self.nodes,
            tets: self.tets,
            triangles: self.triangles,
            groups,
            reoriented: self.reoriented,
        }
    }
}
