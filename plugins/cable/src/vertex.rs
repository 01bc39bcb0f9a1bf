//! Binding cable vertices to a mesh with barycentric coordinates.
//!
//! A cable is a polyline whose vertices move with the soft body (Bern et al.
//! 2019 §II-B: "each vertex is bound to the surface of the mesh using
//! barycentric coordinates"). A [`CableVertex`] stores up to four node indices
//! and constant weights; its position is the affine combination
//!
//! `v(x) = Σᵢ wᵢ x_{nodes[i]}` (m), with `Σᵢ wᵢ = 1`,
//!
//! so `∂v/∂x_{nodes[i]} = wᵢ I` is constant and the cable's derivatives chain
//! through it exactly. Four weights bind a vertex inside a tetrahedron, three
//! on a surface triangle, one directly on a node.
//!
//! [`bind_points_in_tets`] and [`bind_points_on_triangles`] compute the weights
//! from points given in the rest configuration. They take plain mesh arrays
//! (node positions in m and connectivity), so this crate does not depend on a
//! particular mesh type.

use pliant_core::vec3::{cross, dot, norm, sub};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Largest number of nodes a vertex may be bound to (a tetrahedron).
pub const MAX_VERTEX_NODES: usize = 4;

/// Tolerance on `|Σᵢ wᵢ − 1|` accepted when a cable is bound.
pub const WEIGHT_SUM_TOL: f64 = 1e-9;

/// Errors of the binding helpers (turned into [`pliant_core::CoreError::Other`]
/// by `?` in code returning core results).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CableError {
    /// A point lies in no tetrahedron of the mesh.
    #[error(
        "cable vertex {vertex} at ({:.6}, {:.6}, {:.6}) m lies outside the mesh (in no tetrahedron)",
        point[0], point[1], point[2]
    )]
    OutsideMesh {
        /// Index of the point in the input list.
        vertex: usize,
        /// Its coordinates, m.
        point: [f64; 3],
    },
    /// The nearest surface triangle is farther from a point than allowed.
    #[error(
        "cable vertex {vertex} at ({:.6}, {:.6}, {:.6}) m is {distance:.3e} m from the nearest surface triangle (tolerance {tol:.3e} m)",
        point[0], point[1], point[2]
    )]
    FarFromSurface {
        /// Index of the point in the input list.
        vertex: usize,
        /// Its coordinates, m.
        point: [f64; 3],
        /// Distance to the nearest triangle, m (∞ without any usable triangle).
        distance: f64,
        /// The tolerance it exceeded, m.
        tol: f64,
    },
    /// The tolerance is negative or not finite.
    #[error("cable binding: the tolerance must be finite and ≥ 0, got {0} m")]
    Tolerance(f64),
    /// A point or a mesh node has a non-finite coordinate.
    #[error("cable binding: {what} {index} has a non-finite coordinate {point:?}")]
    NonFinite {
        /// "point" or "mesh node".
        what: &'static str,
        /// Its index.
        index: usize,
        /// Its coordinates.
        point: [f64; 3],
    },
    /// A mesh cell refers to a node that does not exist.
    #[error("cable binding: {what} {cell} refers to node {node}, but the mesh has {count} nodes")]
    NodeIndex {
        /// "tetrahedron" or "triangle".
        what: &'static str,
        /// The cell.
        cell: usize,
        /// The node index.
        node: usize,
        /// Nodes in the mesh.
        count: usize,
    },
}

impl From<CableError> for pliant_core::CoreError {
    fn from(e: CableError) -> Self {
        pliant_core::CoreError::Other(Box::new(e))
    }
}

/// Why a cable vertex is not a valid barycentric binding.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum VertexError {
    /// Not 1 to 4 nodes.
    #[error("has {0} nodes; a vertex is bound to 1 to {MAX_VERTEX_NODES} nodes")]
    NodeCount(usize),
    /// As many weights as nodes are needed.
    #[error("has {nodes} nodes but {weights} weights")]
    WeightCount {
        /// Nodes listed.
        nodes: usize,
        /// Weights listed.
        weights: usize,
    },
    /// A weight is NaN or infinite.
    #[error("has a non-finite weight ({0})")]
    NonFiniteWeight(f64),
    /// The weights do not sum to 1.
    #[error("weights sum to {0}, expected 1 (±{WEIGHT_SUM_TOL:.0e})")]
    WeightSum(f64),
    /// A node appears twice.
    #[error("lists node {0} twice")]
    DuplicateNode(usize),
}

/// One vertex of a cable polyline: position `Σᵢ wᵢ x_{nodes[i]}` (m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CableVertex {
    /// 1 to 4 distinct node indices.
    pub nodes: Vec<usize>,
    /// One weight per node, finite, summing to 1 (±1e-9). Weights may be
    /// slightly negative (a point bound just outside a tetrahedron).
    pub weights: Vec<f64>,
}

impl CableVertex {
    /// A vertex with the given nodes and barycentric weights (validated when
    /// the cable is bound).
    pub fn new(nodes: Vec<usize>, weights: Vec<f64>) -> Self {
        Self { nodes, weights }
    }

    /// A vertex fixed to one node (weight 1).
    pub fn on_node(node: usize) -> Self {
        Self {
            nodes: vec![node],
            weights: vec![1.0],
        }
    }

    /// Position (m) given the node positions `nodes` (m); `None` if a node
    /// index is out of range.
    pub fn position_in(&self, nodes: &[[f64; 3]]) -> Option<[f64; 3]> {
        let mut p = [0.0; 3];
        for (&n, &w) in self.nodes.iter().zip(&self.weights) {
            let x = nodes.get(n)?;
            for a in 0..3 {
                p[a] += w * x[a];
            }
        }
        Some(p)
    }

    /// Checks the vertex on its own: node count, matching weights, finite
    /// weights summing to 1, distinct nodes. Node ranges are checked against
    /// the model layout when the cable is bound.
    pub fn validate(&self) -> Result<(), VertexError> {
        let n = self.nodes.len();
        if n == 0 || n > MAX_VERTEX_NODES {
            return Err(VertexError::NodeCount(n));
        }
        if self.weights.len() != n {
            return Err(VertexError::WeightCount {
                nodes: n,
                weights: self.weights.len(),
            });
        }
        if let Some(&w) = self.weights.iter().find(|w| !w.is_finite()) {
            return Err(VertexError::NonFiniteWeight(w));
        }
        let sum: f64 = self.weights.iter().sum();
        if (sum - 1.0).abs() > WEIGHT_SUM_TOL {
            return Err(VertexError::WeightSum(sum));
        }
        for i in 0..n {
            if self.nodes[..i].contains(&self.nodes[i]) {
                return Err(VertexError::DuplicateNode(self.nodes[i]));
            }
        }
        Ok(())
    }
}

fn check_inputs<const K: usize>(
    points: &[[f64; 3]],
    nodes: &[[f64; 3]],
    cells: &[[usize; K]],
    tol: f64,
    what: &'static str,
) -> Result<(), CableError> {
    if !(tol.is_finite() && tol >= 0.0) {
        return Err(CableError::Tolerance(tol));
    }
    for (what, list) in [("point", points), ("mesh node", nodes)] {
        if let Some(i) = list.iter().position(|p| p.iter().any(|c| !c.is_finite())) {
            return Err(CableError::NonFinite {
                what,
                index: i,
                point: list[i],
            });
        }
    }
    for (c, cell) in cells.iter().enumerate() {
        if let Some(&n) = cell.iter().find(|&&n| n >= nodes.len()) {
            return Err(CableError::NodeIndex {
                what,
                cell: c,
                node: n,
                count: nodes.len(),
            });
        }
    }
    Ok(())
}

/// Barycentric coordinates of `p` in the tetrahedron `x`, or `None` if it is
/// degenerate (volume below `1e-12` of its longest edge cubed).
fn tet_barycentric(x: &[[f64; 3]; 4], p: &[f64; 3]) -> Option<[f64; 4]> {
    let e1 = sub(&x[1], &x[0]);
    let e2 = sub(&x[2], &x[0]);
    let e3 = sub(&x[3], &x[0]);
    let det = dot(&e1, &cross(&e2, &e3));
    let mut h: f64 = 0.0;
    for i in 0..4 {
        for j in i + 1..4 {
            h = h.max(norm(&sub(&x[j], &x[i])));
        }
    }
    if det.abs() <= 1e-12 * h * h * h {
        return None;
    }
    let r = sub(p, &x[0]);
    // Cramer's rule for [e1 e2 e3] λ = r.
    let l1 = dot(&r, &cross(&e2, &e3)) / det;
    let l2 = dot(&e1, &cross(&r, &e3)) / det;
    let l3 = dot(&e1, &cross(&e2, &r)) / det;
    Some([1.0 - l1 - l2 - l3, l1, l2, l3])
}

/// Binds each point (m, rest configuration) inside the tetrahedral mesh
/// (`nodes` in m, `tets` as node indices): the vertex gets the four nodes of
/// a tetrahedron containing the point and its barycentric coordinates as
/// weights.
///
/// A tetrahedron contains a point when all four barycentric coordinates are
/// `≥ −tol` (`tol` is dimensionless; 1e-9 accepts points on faces up to
/// round-off). Where several do (points on shared faces, edges or nodes, or
/// overlapping elements), the one whose smallest coordinate is largest wins,
/// the lowest index on exact ties, so the result is deterministic.
/// Degenerate tetrahedra (volume below `1e-12 h³`, `h` the longest edge) are
/// skipped.
///
/// # Errors
/// [`CableError::OutsideMesh`] naming the first point in no tetrahedron;
/// [`CableError`] for a negative or non-finite `tol`, non-finite
/// coordinates or a tetrahedron referring to a missing node.
pub fn bind_points_in_tets(
    points: &[[f64; 3]],
    nodes: &[[f64; 3]],
    tets: &[[usize; 4]],
    tol: f64,
) -> Result<Vec<CableVertex>, CableError> {
    check_inputs(points, nodes, tets, tol, "tetrahedron")?;
    points
        .iter()
        .enumerate()
        .map(|(vertex, p)| {
            let mut best: Option<(f64, usize, [f64; 4])> = None;
            for (t, tet) in tets.iter().enumerate() {
                let x = tet.map(|n| nodes[n]);
                let Some(l) = tet_barycentric(&x, p) else {
                    continue;
                };
                let m = l.iter().copied().fold(f64::INFINITY, f64::min);
                if m >= -tol && best.is_none_or(|(bm, _, _)| m > bm) {
                    best = Some((m, t, l));
                }
            }
            let (_, t, l) = best.ok_or(CableError::OutsideMesh { vertex, point: *p })?;
            Ok(CableVertex::new(tets[t].to_vec(), l.to_vec()))
        })
        .collect()
}

/// Closest point to `p` on triangle `abc` as barycentric weights `(wa, wb, wc)`
/// (Ericson, Real-Time Collision Detection §5.1.5). `None` if degenerate.
fn closest_on_triangle(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], p: &[f64; 3]) -> Option<[f64; 3]> {
    let ab = sub(b, a);
    let ac = sub(c, a);
    let h = norm(&ab).max(norm(&ac)).max(norm(&sub(c, b)));
    if norm(&cross(&ab, &ac)) <= 1e-12 * h * h {
        return None;
    }
    let ap = sub(p, a);
    let d1 = dot(&ab, &ap);
    let d2 = dot(&ac, &ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return Some([1.0, 0.0, 0.0]);
    }
    let bp = sub(p, b);
    let d3 = dot(&ab, &bp);
    let d4 = dot(&ac, &bp);
    if d3 >= 0.0 && d4 <= d3 {
        return Some([0.0, 1.0, 0.0]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return Some([1.0 - v, v, 0.0]);
    }
    let cp = sub(p, c);
    let d5 = dot(&ab, &cp);
    let d6 = dot(&ac, &cp);
    if d6 >= 0.0 && d5 <= d6 {
        return Some([0.0, 0.0, 1.0]);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return Some([1.0 - w, 0.0, w]);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return Some([0.0, 1.0 - w, w]);
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    Some([1.0 - v - w, v, w])
}

/// Binds each point (m, rest configuration) to the surface triangle mesh
/// (`nodes` in m, `tris` as node indices): the vertex gets the three nodes of
/// the nearest triangle and the barycentric weights of the closest point on
/// it, so the bound vertex sits at the projection of the point onto the
/// surface (weights of points projecting onto an edge or a corner are 0 for
/// the other nodes). Ties in distance go to the lowest triangle index;
/// degenerate triangles (area below `1e-12 h²`) are skipped.
///
/// # Errors
/// [`CableError::FarFromSurface`] naming the first point farther than `tol`
/// (m) from every triangle; a [`CableError`] for a negative or
/// non-finite `tol`, non-finite coordinates or a triangle referring to a
/// missing node.
pub fn bind_points_on_triangles(
    points: &[[f64; 3]],
    nodes: &[[f64; 3]],
    tris: &[[usize; 3]],
    tol: f64,
) -> Result<Vec<CableVertex>, CableError> {
    check_inputs(points, nodes, tris, tol, "triangle")?;
    points
        .iter()
        .enumerate()
        .map(|(vertex, p)| {
            let mut best: Option<(f64, usize, [f64; 3])> = None;
            for (t, tri) in tris.iter().enumerate() {
                let [a, b, c] = tri.map(|n| nodes[n]);
                let Some(w) = closest_on_triangle(&a, &b, &c, p) else {
                    continue;
                };
                let q: [f64; 3] = std::array::from_fn(|k| w[0] * a[k] + w[1] * b[k] + w[2] * c[k]);
                let d = norm(&sub(p, &q));
                if best.is_none_or(|(bd, _, _)| d < bd) {
                    best = Some((d, t, w));
                }
            }
            match best {
                Some((d, t, w)) if d <= tol => Ok(CableVertex::new(tris[t].to_vec(), w.to_vec())),
                other => Err(CableError::FarFromSurface {
                    vertex,
                    point: *p,
                    distance: other.map_or(f64::INFINITY, |b| b.0),
                    tol,
                }),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_tet() -> (Vec<[f64; 3]>, Vec<[usize; 4]>) {
        (
            vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
                [1.0, 1.0, 1.0],
            ],
            vec![[0, 1, 2, 3], [1, 2, 3, 4]],
        )
    }

    #[test]
    fn barycentric_weights_reproduce_the_point() {
        let (nodes, tets) = unit_tet();
        let pts = [[0.1, 0.2, 0.3], [0.5, 0.5, 0.4], [0.0, 0.0, 0.0]];
        let v = bind_points_in_tets(&pts, &nodes, &tets, 1e-9).unwrap();
        for (p, v) in pts.iter().zip(&v) {
            v.validate().unwrap();
            assert!(v.weights.iter().all(|&w| w >= -1e-9));
            let x = v.position_in(&nodes).unwrap();
            for a in 0..3 {
                assert!((x[a] - p[a]).abs() < 1e-14, "{x:?} vs {p:?}");
            }
        }
        // (0.5, 0.5, 0.4) is in the second tet only.
        assert_eq!(v[1].nodes, vec![1, 2, 3, 4]);
    }

    #[test]
    fn shared_face_picks_the_tet_with_the_largest_minimum_coordinate() {
        let (nodes, tets) = unit_tet();
        // On the shared face x + y + z = 1 either tet is valid (round-off
        // decides); the choice does not depend on anything else and the
        // position is reproduced.
        let p = [[0.3, 0.3, 0.4]];
        let a = bind_points_in_tets(&p, &nodes, &tets, 1e-9).unwrap();
        assert_eq!(a, bind_points_in_tets(&p, &nodes, &tets, 1e-9).unwrap());
        let x = a[0].position_in(&nodes).unwrap();
        assert!((x[0] - 0.3).abs() < 1e-14 && (x[2] - 0.4).abs() < 1e-14);
        let rev: Vec<_> = tets.iter().rev().copied().collect();
        // Just inside the first tet (minimum coordinate 0.01); with tol = 0.1
        // the second also accepts it (minimum −0.005), yet the first wins in
        // either order.
        let p = [[0.3, 0.3, 0.39]];
        for t in [&tets, &rev] {
            assert_eq!(
                bind_points_in_tets(&p, &nodes, t, 0.1).unwrap()[0].nodes,
                vec![0, 1, 2, 3]
            );
        }
    }

    #[test]
    fn outside_points_and_bad_meshes_are_errors() {
        let (nodes, tets) = unit_tet();
        let e = bind_points_in_tets(&[[0.1, 0.1, 0.1], [2.0, 0.0, -0.5]], &nodes, &tets, 1e-9)
            .unwrap_err();
        assert_eq!(
            e,
            CableError::OutsideMesh {
                vertex: 1,
                point: [2.0, 0.0, -0.5]
            }
        );
        let msg = e.to_string();
        assert!(
            msg.contains("vertex 1") && msg.contains("2.000000, 0.000000, -0.500000"),
            "{msg}"
        );
        // Degenerate tets are skipped, not divided by.
        let flat = [[0, 1, 2, 2]];
        assert!(matches!(
            bind_points_in_tets(&[[0.1, 0.1, 0.0]], &nodes, &flat, 1e-9),
            Err(CableError::OutsideMesh { vertex: 0, .. })
        ));
        let bad = |pts: [[f64; 3]; 1], tets: [[usize; 4]; 1], tol| {
            bind_points_in_tets(&pts, &nodes, &tets, tol).unwrap_err()
        };
        let p = [[0.1, 0.1, 0.1]];
        assert_eq!(
            bad(p, [[0, 1, 2, 9]], 1e-9),
            CableError::NodeIndex {
                what: "tetrahedron",
                cell: 0,
                node: 9,
                count: nodes.len()
            }
        );
        assert!(matches!(
            bad([[f64::NAN, 0.1, 0.1]], [[0, 1, 2, 3]], 1e-9),
            CableError::NonFinite {
                what: "point",
                index: 0,
                ..
            }
        ));
        assert_eq!(bad(p, [[0, 1, 2, 3]], -1.0), CableError::Tolerance(-1.0));
        assert!(matches!(
            bad(p, [[0, 1, 2, 3]], f64::NAN),
            CableError::Tolerance(t) if t.is_nan()
        ));
    }

    #[test]
    fn triangle_binding_projects_onto_the_nearest_triangle() {
        let nodes = vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [5.0, 5.0, 5.0],
        ];
        let tris = [[0, 1, 2], [1, 3, 2], [4, 4, 4]];
        let pts = [[0.2, 0.3, 1e-4], [0.9, 0.8, -2e-4], [1.2, 0.5, 0.0]];
        let v = bind_points_on_triangles(&pts, &nodes, &tris, 0.25).unwrap();
        assert_eq!(v[0].nodes, vec![0, 1, 2]);
        assert_eq!(v[1].nodes, vec![1, 3, 2]);
        let x0 = v[0].position_in(&nodes).unwrap();
        assert!((x0[0] - 0.2).abs() < 1e-14 && (x0[1] - 0.3).abs() < 1e-14 && x0[2] == 0.0);
        // Off the edge x = 1: projected onto it.
        let x2 = v[2].position_in(&nodes).unwrap();
        assert!((x2[0] - 1.0).abs() < 1e-14 && (x2[1] - 0.5).abs() < 1e-14);
        for v in &v {
            v.validate().unwrap();
        }
        let e = bind_points_on_triangles(&pts, &nodes, &tris, 1e-3).unwrap_err();
        assert!(
            matches!(e, CableError::FarFromSurface { vertex: 2, distance, .. } if (distance - 0.2).abs() < 1e-12),
            "{e}"
        );
        assert!(e.to_string().contains("vertex 2"), "{e}");
    }

    #[test]
    fn vertex_validation_messages() {
        let bad = [
            (CableVertex::new(vec![], vec![]), "0 nodes"),
            (
                CableVertex::new(vec![0, 1, 2, 3, 4], vec![0.2; 5]),
                "5 nodes",
            ),
            (CableVertex::new(vec![0, 1], vec![1.0]), "1 weights"),
            (
                CableVertex::new(vec![0, 1], vec![0.5, f64::NAN]),
                "non-finite",
            ),
            (CableVertex::new(vec![0, 1], vec![0.5, 0.4]), "sum to 0.9"),
            (CableVertex::new(vec![3, 3], vec![0.5, 0.5]), "node 3 twice"),
        ];
        for (v, want) in bad {
            let e = v.validate().unwrap_err().to_string();
            assert!(e.contains(want), "{e} lacks {want}");
        }
        CableVertex::on_node(7).validate().unwrap();
        CableVertex::new(vec![0, 1], vec![1.0 + 1e-12, -1e-12])
            .validate()
            .unwrap();
    }
}
