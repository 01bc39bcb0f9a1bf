//! Tetrahedral meshes: built from unions of voxel boxes (each cube split into
//! six tetrahedra around its main diagonal — the Freudenthal split, conforming
//! across neighbouring cubes), validated, with boundary surface, node sets and
//! lumped mass.

use crate::tet::{Material, NeoHookeanTets};
use pliant_core::ModelBuilder;
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

/// Problems with a mesh, naming the offending element.
#[derive(Debug, Error)]
pub enum MeshError {
    /// A tetrahedron refers to a node that does not exist.
    #[error("tetrahedron {tet}: node index {index} out of range ({count} nodes)")]
    NodeOutOfRange {
        /// Tetrahedron index.
        tet: usize,
        /// The bad index.
        index: usize,
        /// Number of nodes.
        count: usize,
    },
    /// Zero or negative volume.
    #[error(
        "tetrahedron {tet} (nodes {nodes:?}) is degenerate or inverted: volume {volume:.3e} m³"
    )]
    Degenerate {
        /// Tetrahedron index.
        tet: usize,
        /// Its nodes.
        nodes: [usize; 4],
        /// Signed volume.
        volume: f64,
    },
    /// A node coordinate is not finite.
    #[error("node {node} has a non-finite coordinate {value}")]
    NonFinite {
        /// Node index.
        node: usize,
        /// The value.
        value: f64,
    },
    /// Nothing to mesh.
    #[error("the mesh has no tetrahedra")]
    Empty,
    /// A mesh file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A mesh file is malformed.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Parse {
        /// The file.
        path: std::path::PathBuf,
        /// The 1-based line, for text.
        line: Option<usize>,
        /// What is wrong (and, in binary data, at which byte).
        message: String,
    },
    /// A surface could not be filled with voxels.
    #[error("{}: {source}", path.display())]
    Voxels {
        /// The surface file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: pliant_mesh::VoxelError,
    },
    /// Model building failed.
    #[error(transparent)]
    Model(#[from] pliant_core::CoreError),
}

/// A tetrahedral mesh in metres.
#[derive(Debug, Clone, Default)]
pub struct TetMesh {
    /// Node positions, m.
    pub nodes: Vec<[f64; 3]>,
    /// Node indices of each tetrahedron (positive orientation).
    pub tets: Vec<[usize; 4]>,
}

pub use pliant_mesh::tet_volume;

impl TetMesh {
    /// Meshes the union of boxes of grid cells `[lo, hi)` (integer cell
    /// indices) on a grid of cell size `h` (m) with origin `origin` (m).
    pub fn from_voxel_boxes(
        boxes: &[([i64; 3], [i64; 3])],
        h: f64,
        origin: [f64; 3],
    ) -> Result<Self, MeshError> {
        let mut cells = BTreeSet::new();
        for (lo, hi) in boxes {
            for k in lo[2]..hi[2] {
                for j in lo[1]..hi[1] {
                    for i in lo[0]..hi[0] {
                        cells.insert((k, j, i));
                    }
                }
            }
        }
        if cells.is_empty() {
            return Err(MeshError::Empty);
        }
        // Corner nodes in (k, j, i) order: deterministic numbering.
        let mut corners = BTreeSet::new();
        for &(k, j, i) in &cells {
            for dk in 0..2 {
                for dj in 0..2 {
                    for di in 0..2 {
                        corners.insert((k + dk, j + dj, i + di));
                    }
                }
            }
        }
        let index: BTreeMap<(i64, i64, i64), usize> =
            corners.iter().enumerate().map(|(n, &c)| (c, n)).collect();
        let nodes = corners
            .iter()
            .map(|&(k, j, i)| {
                [
                    origin[0] + i as f64 * h,
                    origin[1] + j as f64 * h,
                    origin[2] + k as f64 * h,
                ]
            })
            .collect();
        // Freudenthal split: tetrahedra v0, v0+e_a, v0+e_a+e_b, v0+(1,1,1)
        // for the six axis orders (a, b, c).
        const ORDERS: [[usize; 3]; 6] = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let mut tets = Vec::with_capacity(6 * cells.len());
        for &(k, j, i) in &cells {
            for ord in ORDERS {
                let mut v = [i, j, k];
                let mut t = [index[&(k, j, i)], 0, 0, 0];
                for (s, &ax) in ord.iter().enumerate() {
                    v[ax] += 1;
                    t[s + 1] = index[&(v[2], v[1], v[0])];
                }
                tets.push(t);
            }
        }
        let mut mesh = TetMesh { nodes, tets };
        mesh.orient();
        mesh.validate()?;
        Ok(mesh)
    }

    /// Swaps two nodes of every negatively oriented tetrahedron.
    fn orient(&mut self) {
        for t in &mut self.tets {
            let p = t.map(|n| self.nodes[n]);
            if tet_volume(p) < 0.0 {
                t.swap(2, 3);
            }
        }
    }

    /// Checks indices, finiteness and positive volumes.
    pub fn validate(&self) -> Result<(), MeshError> {
        if self.tets.is_empty() {
            return Err(MeshError::Empty);
        }
        for (n, p) in self.nodes.iter().enumerate() {
            if let Some(&v) = p.iter().find(|v| !v.is_finite()) {
                return Err(MeshError::NonFinite { node: n, value: v });
            }
        }
        for (t, tet) in self.tets.iter().enumerate() {
            if let Some(&bad) = tet.iter().find(|&&n| n >= self.nodes.len()) {
                return Err(MeshError::NodeOutOfRange {
                    tet: t,
                    index: bad,
                    count: self.nodes.len(),
                });
            }
            let v = tet_volume(tet.map(|n| self.nodes[n]));
            if v.is_nan() || v <= 0.0 {
                return Err(MeshError::Degenerate {
                    tet: t,
                    nodes: *tet,
                    volume: v,
                });
            }
        }
        Ok(())
    }

    /// Total rest volume, m³.
    pub fn volume(&self) -> f64 {
        self.tets
            .iter()
            .map(|t| tet_volume(t.map(|n| self.nodes[n])))
            .sum()
    }

    /// Boundary triangles (faces of exactly one tetrahedron), oriented
    /// outward ([`pliant_mesh::boundary_faces`]).
    pub fn boundary_faces(&self) -> Vec<[usize; 3]> {
        pliant_mesh::boundary_faces(&self.nodes, &self.tets)
    }

    /// Nodes on the boundary surface, sorted.
    pub fn boundary_nodes(&self) -> Vec<usize> {
        let set: BTreeSet<usize> = self.boundary_faces().into_iter().flatten().collect();
        set.into_iter().collect()
    }

    /// Nodes whose position satisfies `pred` (e.g. "bottom of leg 2").
    pub fn nodes_where(&self, pred: impl Fn(&[f64; 3]) -> bool) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&n| pred(&self.nodes[n]))
            .collect()
    }

    /// Tetrahedra whose centroid satisfies `pred` (e.g. "the top layer"),
    /// as indices into `tets`.
    pub fn tets_where(&self, pred: impl Fn(&[f64; 3]) -> bool) -> Vec<usize> {
        (0..self.tets.len())
            .filter(|&t| {
                let c = self.tets[t].iter().fold([0.0; 3], |c, &n| {
                    let p = self.nodes[n];
                    [c[0] + p[0] / 4.0, c[1] + p[1] / 4.0, c[2] + p[2] / 4.0]
                });
                pred(&c)
            })
            .collect()
    }

    /// Lumped nodal masses (kg) for density `rho` (kg/m³): a quarter of each
    /// tetrahedron's mass to each of its nodes.
    pub fn lumped_masses(&self, rho: f64) -> Vec<f64> {
        let mut m = vec![0.0; self.nodes.len()];
        for t in &self.tets {
            let q = rho * tet_volume(t.map(|n| self.nodes[n])) / 4.0;
            for &n in t {
                m[n] += q;
            }
        }
        m
    }

    /// Adds the mesh's nodes (with lumped mass for `rho`) and a neo-Hookean
    /// energy to `b`; returns the model index of the mesh's node 0.
    pub fn add_to(
        &self,
        b: &mut ModelBuilder,
        rho: f64,
        material: Material,
    ) -> Result<usize, MeshError> {
        self.validate()?;
        let first = b.layout().n_nodes();
        for (p, m) in self.nodes.iter().zip(self.lumped_masses(rho)) {
            b.add_node(p, m)?;
        }
        let tets = self.tets.iter().map(|t| t.map(|n| n + first)).collect();
        b.add(NeoHookeanTets::new(tets, material));
        Ok(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn voxel_union_is_conforming_and_closed() {
        // An L shape: two boxes sharing a face.
        let m = TetMesh::from_voxel_boxes(
            &[([0, 0, 0], [3, 1, 1]), ([0, 0, 1], [1, 1, 3])],
            0.01,
            [0.0; 3],
        )
        .unwrap();
        assert_eq!(m.tets.len(), 6 * 5);
        assert!((m.volume() - 5e-6).abs() < 1e-18);
        // Closed surface: every boundary edge is shared by exactly two boundary faces.
        let mut edges: BTreeMap<(usize, usize), i32> = BTreeMap::new();
        for f in m.boundary_faces() {
            for k in 0..3 {
                let (a, b) = (f[k], f[(k + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
        assert!(edges.values().all(|&c| c == 2));
        // Surface area of the L: 2·(3 + 3 − 1)·1 + perimeter 12 × 1 → 22 cm².
        let area: f64 = m
            .boundary_faces()
            .iter()
            .map(|f| {
                let p = f.map(|n| m.nodes[n]);
                let u = [p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]];
                let v = [p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]];
                let c = [
                    u[1] * v[2] - u[2] * v[1],
                    u[2] * v[0] - u[0] * v[2],
                    u[0] * v[1] - u[1] * v[0],
                ];
                0.5 * (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt()
            })
            .sum();
        assert!((area - 22e-4).abs() < 1e-15, "{area}");
        let masses = m.lumped_masses(1000.0);
        assert!((masses.iter().sum::<f64>() - 5e-3).abs() < 1e-15);
        // The upright bar's two upper voxels (z > 1 cm): 12 of the 30 tets,
        // all with their centroid above 1 cm.
        let upper = m.tets_where(|c| c[2] > 0.01);
        assert_eq!(upper.len(), 12);
        for t in upper {
            assert!(m.tets[t].iter().all(|&n| m.nodes[n][2] >= 0.01 - 1e-15));
        }
    }

    #[test]
    fn degenerate_and_out_of_range_tets_are_named() {
        let mut m = TetMesh::from_voxel_boxes(&[([0, 0, 0], [1, 1, 1])], 0.01, [0.0; 3]).unwrap();
        m.tets[3].swap(0, 1);
        assert!(matches!(
            m.validate(),
            Err(MeshError::Degenerate { tet: 3, .. })
        ));
        m.tets[3].swap(0, 1);
        m.tets[5][2] = 99;
        let e = m.validate().unwrap_err().to_string();
        assert!(e.contains("tetrahedron 5") && e.contains("99"), "{e}");
    }
}
