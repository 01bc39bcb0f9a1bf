//! Triangle meshes of shells (MAT-DiSMech §2): nodes and triangles, and
//! what the shell energies derive from them — shell edges, hinges (edges
//! shared by two triangles) and boundary edges — with validation.
//!
//! Triangles are node triples ordered counter-clockwise seen from the side
//! their normal `n = (x₁ − x₀) × (x₂ − x₀)` points to. Local edge `k` of a
//! triangle is the edge opposite its node `k`, running from node `k + 1` to
//! node `k + 2` (mod 3). Two triangles sharing an edge must traverse it in
//! opposite directions (consistent orientation).

use crate::error::ShellError;
use pliant_core::vec3::{cross, norm, sub};
use std::collections::BTreeMap;

/// A hinge: an edge shared by two triangles (Fig. 2c).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hinge {
    /// The shell edge it lies on (index into [`Topology::edges`]).
    pub edge: usize,
    /// `[e₀, e₁, a, b]`: the edge from `e₀` to `e₁` as the first triangle
    /// (`e₀, e₁, a`, counter-clockwise) traverses it, `a` the first
    /// triangle's third node and `b` the second's.
    pub nodes: [usize; 4],
    /// The two triangles, first and second.
    pub triangles: [usize; 2],
}

/// The edges, hinges and boundary of a triangle mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    /// Shell edges as `[lo, hi]` node pairs (`lo < hi`), in order of first
    /// appearance.
    pub edges: Vec<[usize; 2]>,
    /// The triangles on each edge: one (boundary) or two.
    pub edge_triangles: Vec<Vec<usize>>,
    /// Per triangle, the edge opposite each of its nodes.
    pub triangle_edges: Vec<[usize; 3]>,
    /// Hinges, one per interior edge, in edge order.
    pub hinges: Vec<Hinge>,
    /// Boundary edges (one triangle), in edge order.
    pub boundary: Vec<usize>,
}

impl Topology {
    /// Derives edges, hinges and boundary from `triangles` over `n_nodes`
    /// nodes, checking node indices, repeated nodes, duplicate triangles,
    /// manifoldness (at most two triangles per edge) and consistent
    /// orientation.
    pub fn new(triangles: &[[usize; 3]], n_nodes: usize) -> Result<Self, ShellError> {
        if triangles.is_empty() {
            return Err(ShellError::NoTriangles);
        }
        let mut index: BTreeMap<[usize; 2], usize> = BTreeMap::new();
        let mut seen: BTreeMap<[usize; 3], usize> = BTreeMap::new();
        let mut edges = Vec::new();
        let mut edge_triangles: Vec<Vec<usize>> = Vec::new();
        // Direction each triangle traverses each edge (true: lo → hi).
        let mut directions: Vec<Vec<bool>> = Vec::new();
        let mut triangle_edges = Vec::with_capacity(triangles.len());
        for (t, tri) in triangles.iter().enumerate() {
            for &n in tri {
                if n >= n_nodes {
                    return Err(ShellError::MissingNode {
                        triangle: t,
                        node: n,
                        count: n_nodes,
                    });
                }
            }
            if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
                return Err(ShellError::RepeatedNode {
                    triangle: t,
                    nodes: *tri,
                });
            }
            let mut key = *tri;
            key.sort_unstable();
            if let Some(&first) = seen.get(&key) {
                return Err(ShellError::DuplicateTriangle { first, second: t });
            }
            seen.insert(key, t);
            let mut te = [0; 3];
            for k in 0..3 {
                let (p, q) = (tri[(k + 1) % 3], tri[(k + 2) % 3]);
                let key = [p.min(q), p.max(q)];
                let e = *index.entry(key).or_insert_with(|| {
                    edges.push(key);
                    edge_triangles.push(Vec::new());
                    directions.push(Vec::new());
                    edges.len() - 1
                });
                edge_triangles[e].push(t);
                directions[e].push(p < q);
                te[k] = e;
            }
            triangle_edges.push(te);
        }
        let mut hinges = Vec::new();
        let mut boundary = Vec::new();
        for (e, tris) in edge_triangles.iter().enumerate() {
            match tris.len() {
                1 => boundary.push(e),
                2 => {
                    let [lo, hi] = edges[e];
                    if directions[e][0] == directions[e][1] {
                        let nodes = if directions[e][0] { [lo, hi] } else { [hi, lo] };
                        return Err(ShellError::Orientation {
                            nodes,
                            first: tris[0],
                            second: tris[1],
                        });
                    }
                    let (t1, t2) = (tris[0], tris[1]);
                    let [e0, e1] = if directions[e][0] { [lo, hi] } else { [hi, lo] };
                    let third = |t: usize| {
                        triangles[t]
                            .iter()
                            .copied()
                            .find(|&n| n != lo && n != hi)
                            .expect("a triangle on an edge has a third node")
                    };
                    hinges.push(Hinge {
                        edge: e,
                        nodes: [e0, e1, third(t1), third(t2)],
                        triangles: [t1, t2],
                    });
                }
                _ => {
                    return Err(ShellError::NonManifold {
                        nodes: edges[e],
                        triangles: tris.clone(),
                    });
                }
            }
        }
        Ok(Self {
            edges,
            edge_triangles,
            triangle_edges,
            hinges,
            boundary,
        })
    }

    /// Triangles sharing local edge `k` of triangle `t` other than `t`
    /// itself (`None` on the boundary).
    pub fn neighbour(&self, t: usize, k: usize) -> Option<usize> {
        self.edge_triangles[self.triangle_edges[t][k]]
            .iter()
            .copied()
            .find(|&o| o != t)
    }
}

/// Area (m²) and longest edge (m) of the triangle `x`.
pub(crate) fn area_and_longest(x: &[[f64; 3]; 3]) -> (f64, f64) {
    let (a, b) = (sub(&x[1], &x[0]), sub(&x[2], &x[0]));
    let c = sub(&x[2], &x[1]);
    let area = 0.5 * norm(&cross(&a, &b));
    (area, norm(&a).max(norm(&b)).max(norm(&c)))
}

/// Checks that no triangle is degenerate at `positions` (area at least
/// `1e-10` of its longest edge squared).
pub fn check_areas(triangles: &[[usize; 3]], positions: &[[f64; 3]]) -> Result<(), ShellError> {
    for (t, tri) in triangles.iter().enumerate() {
        let x = tri.map(|n| positions[n]);
        let (area, longest) = area_and_longest(&x);
        if !(area.is_finite() && area > 1e-10 * longest * longest) {
            return Err(ShellError::Degenerate {
                triangle: t,
                nodes: *tri,
                area,
                longest,
            });
        }
    }
    Ok(())
}

/// A triangle mesh with its own node positions (m): what the generators
/// and readers produce, before its nodes are added to a model.
#[derive(Debug, Clone, PartialEq)]
pub struct TriMesh {
    /// Node positions, m.
    pub nodes: Vec<[f64; 3]>,
    /// Triangles (counter-clockwise node triples).
    pub triangles: Vec<[usize; 3]>,
}

impl TriMesh {
    /// A mesh from nodes and triangles, validated (indices, degenerate
    /// triangles, manifoldness, orientation).
    pub fn new(nodes: Vec<[f64; 3]>, triangles: Vec<[usize; 3]>) -> Result<Self, ShellError> {
        let m = Self { nodes, triangles };
        m.topology()?;
        check_areas(&m.triangles, &m.nodes)?;
        Ok(m)
    }
    /// The mesh's edges, hinges and boundary.
    pub fn topology(&self) -> Result<Topology, ShellError> {
        Topology::new(&self.triangles, self.nodes.len())
    }
    /// Total area, m².
    pub fn area(&self) -> f64 {
        self.triangles
            .iter()
            .map(|t| area_and_longest(&t.map(|n| self.nodes[n])).0)
            .sum()
    }
    /// The mesh translated by `d` (m).
    pub fn translated(mut self, d: [f64; 3]) -> Self {
        for x in &mut self.nodes {
            for a in 0..3 {
                x[a] += d[a];
            }
        }
        self
    }
    /// Indices of the nodes for which `f(position)` holds.
    pub fn select(&self, f: impl Fn(&[f64; 3]) -> bool) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&i| f(&self.nodes[i]))
            .collect()
    }
    /// The node nearest to `p`.
    pub fn nearest(&self, p: [f64; 3]) -> usize {
        let d = |x: &[f64; 3]| norm(&sub(x, &p));
        (0..self.nodes.len())
            .min_by(|&a, &b| d(&self.nodes[a]).total_cmp(&d(&self.nodes[b])))
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Vec<[usize; 3]> {
        vec![[0, 1, 2], [0, 2, 3]]
    }

    #[test]
    fn a_square_of_two_triangles_has_one_hinge_and_four_boundary_edges() {
        let t = Topology::new(&square(), 4).unwrap();
        assert_eq!(t.edges.len(), 5);
        assert_eq!(t.hinges.len(), 1);
        assert_eq!(t.boundary.len(), 4);
        let h = t.hinges[0];
        // Triangle 0 traverses the diagonal 2 → 0.
        assert_eq!(h.nodes, [2, 0, 1, 3]);
        assert_eq!(t.neighbour(0, 1), Some(1));
        assert_eq!(t.neighbour(0, 0), None);
    }

    #[test]
    fn bad_meshes_are_named() {
        assert_eq!(Topology::new(&[], 3), Err(ShellError::NoTriangles));
        assert!(matches!(
            Topology::new(&[[0, 1, 5]], 3),
            Err(ShellError::MissingNode {
                triangle: 0,
                node: 5,
                ..
            })
        ));
        assert!(matches!(
            Topology::new(&[[0, 1, 1]], 3),
            Err(ShellError::RepeatedNode { triangle: 0, .. })
        ));
        // Three triangles on edge 0–1.
        let fan = [[0, 1, 2], [1, 0, 3], [0, 1, 4]];
        let e = Topology::new(&fan, 5).unwrap_err();
        assert!(
            matches!(e, ShellError::NonManifold { nodes: [0, 1], .. }),
            "{e}"
        );
        // The second triangle flipped.
        let e = Topology::new(&[[0, 1, 2], [0, 3, 2]], 4).unwrap_err();
        assert!(matches!(e, ShellError::Orientation { .. }), "{e}");
        assert!(e.to_string().contains("same direction"));
        let e = Topology::new(&[[0, 1, 2], [1, 2, 0]], 3).unwrap_err();
        assert_eq!(
            e,
            ShellError::DuplicateTriangle {
                first: 0,
                second: 1
            }
        );
        let flat = [[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
        let e = check_areas(&[[0, 1, 2]], &flat).unwrap_err();
        assert!(
            matches!(e, ShellError::Degenerate { triangle: 0, .. }),
            "{e}"
        );
    }
}
