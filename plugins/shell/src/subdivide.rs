//! Refining a triangle mesh 1 : 4 and the subdivision weights between the
//! two meshes: what a geometric multigrid on shells needs (a hierarchy of
//! nested meshes and prolongators whose coarse shapes bend smoothly).
//!
//! Every triangle `(a, b, c)` is cut at its edge midpoints `m_ab`, `m_bc`,
//! `m_ca` into `(a, m_ab, m_ca)`, `(m_ab, b, m_bc)`, `(m_ca, m_bc, c)` and
//! `(m_ab, m_bc, m_ca)`: the fine mesh keeps the coarse nodes with their
//! numbers and adds one node per coarse edge, numbered after them in the
//! coarse topology's edge order. Positions are the midpoints (a flat mesh
//! stays flat and keeps its outline).
//!
//! The weights are Loop's (C. Loop, *Smooth subdivision surfaces based on
//! triangles*, MSc thesis, Utah 1987), with the boundary rules of the
//! cubic B-spline (Hoppe et al., SIGGRAPH 1994):
//! - an interior coarse node of valence `k` keeps `1 − k β` of itself and
//!   takes `β = (5/8 − (3/8 + cos(2π/k)/4)²)/k` of each neighbour;
//! - a node on an interior edge `(a, b)` with opposite nodes `c`, `d`:
//!   `3/8 (a + b) + 1/8 (c + d)`;
//! - a boundary node keeps `3/4` and takes `1/8` of each boundary
//!   neighbour, unless it is a corner (its boundary edges meet at an angle
//!   or it has other than two), which keeps itself;
//! - a node on a boundary edge: `1/2 (a + b)`.
//!
//! Loop's limit surfaces are C¹ (C² where the valence is 6), so a coarse
//! displacement prolongated by these weights bends smoothly across coarse
//! edges; linear interpolation ([`Weights::Linear`]: coarse nodes keep
//! themselves, edge nodes `1/2 (a + b)`) puts every bend of the coarse
//! shape into kinks along coarse edges.

use crate::error::ShellError;
use crate::mesh::TriMesh;

/// Which prolongation weights [`refine`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weights {
    /// Loop subdivision (smooth; see the module documentation).
    Loop,
    /// Linear interpolation (midpoints).
    Linear,
}

/// A 1 : 4 refinement: the fine mesh and the prolongation from the coarse
/// nodes to the fine ones.
#[derive(Debug, Clone)]
pub struct Refinement {
    /// The fine mesh (coarse nodes first, with their numbers, then one node
    /// per coarse edge).
    pub fine: TriMesh,
    /// Per fine node, its weights on coarse nodes `(coarse node, weight)`;
    /// each row sums to 1.
    pub weights: Vec<Vec<(usize, f64)>>,
}

/// Refines `coarse` 1 : 4 and returns the fine mesh with the prolongation
/// weights of `kind`.
pub fn refine(coarse: &TriMesh, kind: Weights) -> Result<Refinement, ShellError> {
    let topo = coarse.topology()?;
    let n = coarse.nodes.len();
    let mut nodes = coarse.nodes.clone();
    for &[a, b] in &topo.edges {
        let (x, y) = (coarse.nodes[a], coarse.nodes[b]);
        nodes.push([
            0.5 * (x[0] + y[0]),
            0.5 * (x[1] + y[1]),
            0.5 * (x[2] + y[2]),
        ]);
    }
    let mut triangles = Vec::with_capacity(4 * coarse.triangles.len());
    for (t, &[a, b, c]) in coarse.triangles.iter().enumerate() {
        // `triangle_edges[t][i]` is the edge opposite node i.
        let [e_bc, e_ca, e_ab] = topo.triangle_edges[t].map(|e| n + e);
        triangles.push([a, e_ab, e_ca]);
        triangles.push([e_ab, b, e_bc]);
        triangles.push([e_ca, e_bc, c]);
        triangles.push([e_ab, e_bc, e_ca]);
    }
    let fine = TriMesh::new(nodes, triangles)?;

    // Neighbours and boundary neighbours of each coarse node.
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut boundary: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (e, &[a, b]) in topo.edges.iter().enumerate() {
        neighbours[a].push(b);
        neighbours[b].push(a);
        if topo.edge_triangles[e].len() == 1 {
            boundary[a].push(b);
            boundary[b].push(a);
        }
    }
    let mut weights: Vec<Vec<(usize, f64)>> = Vec::with_capacity(fine.nodes.len());
    for v in 0..n {
        let row = match kind {
            Weights::Linear => vec![(v, 1.0)],
            Weights::Loop if boundary[v].is_empty() => {
                let k = neighbours[v].len() as f64;
                let c = 0.375 + 0.25 * (2.0 * std::f64::consts::PI / k).cos();
                let beta = (0.625 - c * c) / k;
                let mut row = vec![(v, 1.0 - k * beta)];
                row.extend(neighbours[v].iter().map(|&u| (u, beta)));
                row
            }
            Weights::Loop => {
                if boundary[v].len() == 2 && !is_corner(coarse, v, &boundary[v]) {
                    vec![(v, 0.75), (boundary[v][0], 0.125), (boundary[v][1], 0.125)]
                } else {
                    vec![(v, 1.0)]
                }
            }
        };
        weights.push(row);
    }
    for (e, &[a, b]) in topo.edges.iter().enumerate() {
        let tris = &topo.edge_triangles[e];
        let row = if kind == Weights::Linear || tris.len() == 1 {
            vec![(a, 0.5), (b, 0.5)]
        } else {
            let opposite = |t: usize| {
                coarse.triangles[t]
                    .into_iter()
                    .find(|&x| x != a && x != b)
                    .expect("a triangle has a node off each of its edges")
            };
            vec![
                (a, 0.375),
                (b, 0.375),
                (opposite(tris[0]), 0.125),
                (opposite(tris[1]), 0.125),
            ]
        };
        weights.push(row);
    }
    Ok(Refinement { fine, weights })
}

/// Whether boundary node `v` with boundary neighbours `nb` is a corner: its
/// two boundary edges are not parallel (cosine of the angle between them
/// above −0.999).
fn is_corner(mesh: &TriMesh, v: usize, nb: &[usize]) -> bool {
    let x = mesh.nodes[v];
    let d = |u: usize| {
        let y = mesh.nodes[u];
        let d = [y[0] - x[0], y[1] - x[1], y[2] - x[2]];
        let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        d.map(|c| c / l)
    };
    let (a, b) = (d(nb[0]), d(nb[1]));
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] > -0.999
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{MeshKind, rectangle};

    fn prolong(r: &Refinement, coarse: &[[f64; 3]]) -> Vec<[f64; 3]> {
        r.weights
            .iter()
            .map(|row| {
                let mut p = [0.0; 3];
                for &(c, w) in row {
                    for a in 0..3 {
                        p[a] += w * coarse[c][a];
                    }
                }
                p
            })
            .collect()
    }

    #[test]
    fn a_refined_rectangle_has_four_times_the_triangles_and_the_same_area() {
        let m = rectangle(1.0, 0.6, 0.2, MeshKind::Equilateral, 0).unwrap();
        let r = refine(&m, Weights::Loop).unwrap();
        assert_eq!(r.fine.triangles.len(), 4 * m.triangles.len());
        assert!((r.fine.area() - m.area()).abs() < 1e-12);
        assert_eq!(r.weights.len(), r.fine.nodes.len());
        assert_eq!(&r.fine.nodes[..m.nodes.len()], &m.nodes[..]);
    }

    #[test]
    fn both_weights_keep_constants_and_linear_ones_reproduce_positions() {
        let m = rectangle(1.0, 0.6, 0.15, MeshKind::Random, 3).unwrap();
        for kind in [Weights::Loop, Weights::Linear] {
            let r = refine(&m, kind).unwrap();
            for row in &r.weights {
                let s: f64 = row.iter().map(|&(_, w)| w).sum();
                assert!((s - 1.0).abs() < 1e-14, "{kind:?}: row sums to {s}");
            }
            // A constant field is kept by both rules; linear interpolation
            // also reproduces every affine field, Loop only on the regular,
            // boundary-free part (its vertex rule averages neighbours).
            let shifted: Vec<[f64; 3]> = m.nodes.iter().map(|_| [0.3, -0.2, 0.7]).collect();
            for p in prolong(&r, &shifted) {
                assert!((p[0] - 0.3).abs() + (p[1] + 0.2).abs() + (p[2] - 0.7).abs() < 1e-14);
            }
        }
        let r = refine(&m, Weights::Linear).unwrap();
        for (p, x) in prolong(&r, &m.nodes).iter().zip(&r.fine.nodes) {
            assert!((0..3).all(|a| (p[a] - x[a]).abs() < 1e-14));
        }
    }

    #[test]
    fn loop_weights_are_smooth_where_linear_ones_kink() {
        // A coarse bump (one lifted interior node): Loop spreads it to the
        // midpoints of the opposite edges of its one-ring; linear
        // interpolation leaves them flat.
        let m = rectangle(1.0, 1.0, 0.25, MeshKind::Equilateral, 0).unwrap();
        let topo = m.topology().unwrap();
        let centre = m.nearest([0.5, 0.5, 0.0]);
        let mut z: Vec<[f64; 3]> = vec![[0.0; 3]; m.nodes.len()];
        z[centre][2] = 1.0;
        let ring: Vec<usize> = topo
            .edges
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.contains(&centre))
            .filter(|(e, _)| {
                topo.edge_triangles[*e]
                    .iter()
                    .any(|&t| m.triangles[t].contains(&centre))
            })
            .map(|(e, _)| m.nodes.len() + e)
            .collect();
        assert_eq!(ring.len(), 6);
        let smooth = prolong(&refine(&m, Weights::Loop).unwrap(), &z);
        let linear = prolong(&refine(&m, Weights::Linear).unwrap(), &z);
        for &f in &ring {
            assert!((smooth[f][2] - 0.125).abs() < 1e-14);
            assert_eq!(linear[f][2], 0.0);
        }
        assert!((smooth[centre][2] - 0.625).abs() < 1e-14); // valence 6: 1 − 6 · (1/16)
    }
}
