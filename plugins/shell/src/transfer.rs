//! Transfers between two triangle meshes of the same surface that are not
//! nested (neither mesh's nodes are the other's): what geometric multigrid
//! needs to use a coarser mesh that is not a subdivision's parent — a
//! generated mesh at twice the spacing, a user's own coarse mesh.
//!
//! A point `p` is placed on a mesh by the closest point `c` of the mesh's
//! triangles in the rest configuration (`|p − c|` least; a point inside a
//! triangle of a flat mesh is its own closest point), and takes the
//! barycentric coordinates of `c` in its triangle as weights on that
//! triangle's nodes: `p ≈ Σ wᵢ xᵢ`, `Σ wᵢ = 1`, `wᵢ ≥ 0`. Linear fields are
//! reproduced exactly at points on the mesh. Weights below 10⁻¹² are
//! dropped (and the rest rescaled to sum to 1), so a point at a node takes
//! that node alone. Ties between triangles at the same distance go to the
//! lower triangle index: the weights do not depend on thread count or
//! hashing.
//!
//! A point farther than `ℓ` from every triangle, `ℓ` the mesh's mean edge
//! length (over the triangles' sides), is an error: the meshes do not
//! describe the same surface. The search bins the triangles' bounding
//! boxes in a uniform grid whose cell is `ℓ` (or a quarter of the longest
//! edge where that is larger, so that no triangle covers more than 6³
//! cells), and looks at the 27 cells around a point: it finds every
//! triangle within `ℓ`, in `O(1)` per point on meshes of even spacing.

use crate::error::ShellError;
use crate::mesh::{TriMesh, check_areas};
use pliant_core::vec3::{dot, norm, sub};
use std::collections::HashMap;

/// Weights below this are dropped.
const DROP: f64 = 1e-12;

/// The two transfers between a coarse and a fine mesh of one surface.
#[derive(Debug, Clone)]
pub struct Transfer {
    /// Per coarse node, its weights on fine nodes `(fine node, weight)`:
    /// where it lies on the fine mesh ([`interpolation`]`(fine, coarse
    /// nodes)`).
    pub positions: Vec<Vec<(usize, f64)>>,
    /// Per fine node, its weights on coarse nodes `(coarse node, weight)`:
    /// linear interpolation of a coarse displacement
    /// ([`interpolation`]`(coarse, fine nodes)`).
    pub prolongation: Vec<Vec<(usize, f64)>>,
}

/// Both transfers between `coarse` and `fine` (positions in m), for
/// [`pliant_core::CoarseModel`]'s `positions` and `prolongation`.
///
/// ```
/// use pliant_shell::generate::{MeshKind, rectangle};
/// use pliant_shell::transfer::between;
/// let fine = rectangle(1.0, 1.0, 0.1, MeshKind::Random, 7)?;
/// let coarse = rectangle(1.0, 1.0, 0.25, MeshKind::Equilateral, 0)?;
/// let t = between(&coarse, &fine)?;
/// assert_eq!(t.prolongation.len(), fine.nodes.len());
/// assert_eq!(t.positions.len(), coarse.nodes.len());
/// # Ok::<(), pliant_shell::ShellError>(())
/// ```
pub fn between(coarse: &TriMesh, fine: &TriMesh) -> Result<Transfer, ShellError> {
    Ok(Transfer {
        positions: interpolation(fine, &coarse.nodes)?,
        prolongation: interpolation(coarse, &fine.nodes)?,
    })
}

/// Per point (m), its weights `(node, weight)` on the nodes of the closest
/// triangle of `mesh` (see the module documentation), nodes in increasing
/// order.
///
/// Errors: the mesh's own (as [`TriMesh::new`] checks it, and a node that
/// is not finite); [`ShellError::OffMesh`] for a point farther from every
/// triangle than the mesh's mean edge length; a point that is not finite.
pub fn interpolation(
    mesh: &TriMesh,
    points: &[[f64; 3]],
) -> Result<Vec<Vec<(usize, f64)>>, ShellError> {
    mesh.topology()?;
    if let Some(i) = mesh
        .nodes
        .iter()
        .position(|x| !x.iter().all(|v| v.is_finite()))
    {
        return Err(not_finite(format!("node {i}")));
    }
    check_areas(&mesh.triangles, &mesh.nodes)?;
    let grid = Grid::new(mesh);
    points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if !p.iter().all(|x| x.is_finite()) {
                return Err(not_finite(format!("point {i}")));
            }
            let off = |distance: f64| ShellError::OffMesh {
                point: i,
                at: *p,
                distance,
                within: grid.within,
            };
            // Outside the mesh's box by more than ℓ: no search (and no
            // grid key far from the box).
            let outside = (0..3)
                .map(|d| (grid.lo[d] - p[d]).max(p[d] - grid.hi[d]).max(0.0))
                .fold(0.0f64, |m, v| m.max(v));
            if outside > grid.within {
                return Err(off(outside));
            }
            match grid.closest(mesh, p) {
                Some((t, w, d)) if d <= grid.within => Ok(weights(mesh.triangles[t], w)),
                Some((_, _, d)) => Err(off(d)),
                None => Err(off(f64::INFINITY)),
            }
        })
        .collect()
}

fn not_finite(field: String) -> ShellError {
    ShellError::Inconsistent {
        field,
        problem: "has a coordinate that is not finite",
    }
}

/// The weights of a triangle's nodes, small ones dropped, sorted by node.
fn weights(nodes: [usize; 3], w: [f64; 3]) -> Vec<(usize, f64)> {
    let mut row: Vec<(usize, f64)> = nodes
        .into_iter()
        .zip(w)
        .filter(|&(_, w)| w > DROP)
        .collect();
    let sum: f64 = row.iter().map(|e| e.1).sum();
    for e in &mut row {
        e.1 /= sum;
    }
    row.sort_by_key(|e| e.0);
    row
}

/// Triangles binned by their bounding boxes.
struct Grid {
    /// The nodes' bounding box, m.
    lo: [f64; 3],
    hi: [f64; 3],
    /// The mean edge length `ℓ`, m: the farthest a point may be.
    within: f64,
    /// Cell size, m (at least `within`).
    cell: f64,
    bins: HashMap<[i64; 3], Vec<u32>>,
}

impl Grid {
    /// The grid of a validated mesh (triangles of positive area, finite
    /// nodes).
    fn new(mesh: &TriMesh) -> Grid {
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for t in &mesh.triangles {
            for &n in t {
                for d in 0..3 {
                    lo[d] = lo[d].min(mesh.nodes[n][d]);
                    hi[d] = hi[d].max(mesh.nodes[n][d]);
                }
            }
        }
        let (mut length, mut longest) = (0.0, 0.0f64);
        for t in &mesh.triangles {
            for k in 0..3 {
                let l = norm(&sub(&mesh.nodes[t[k]], &mesh.nodes[t[(k + 1) % 3]]));
                length += l;
                longest = longest.max(l);
            }
        }
        let within = length / (3 * mesh.triangles.len()) as f64;
        let mut grid = Grid {
            lo,
            hi,
            within,
            cell: within.max(0.25 * longest),
            bins: HashMap::new(),
        };
        for (i, t) in mesh.triangles.iter().enumerate() {
            let (mut lo, mut hi) = ([i64::MAX; 3], [i64::MIN; 3]);
            for &n in t {
                let c = grid.key(&mesh.nodes[n]);
                for d in 0..3 {
                    lo[d] = lo[d].min(c[d]);
                    hi[d] = hi[d].max(c[d]);
                }
            }
            for a in lo[0]..=hi[0] {
                for b in lo[1]..=hi[1] {
                    for c in lo[2]..=hi[2] {
                        grid.bins.entry([a, b, c]).or_default().push(i as u32);
                    }
                }
            }
        }
        grid
    }

    fn key(&self, p: &[f64; 3]) -> [i64; 3] {
        std::array::from_fn(|d| ((p[d] - self.lo[d]) / self.cell).floor() as i64)
    }

    /// The closest triangle within the 27 cells around `p`: its index, the
    /// closest point's barycentric weights, the distance (m).
    fn closest(&self, mesh: &TriMesh, p: &[f64; 3]) -> Option<(usize, [f64; 3], f64)> {
        let k = self.key(p);
        let mut best: Option<(usize, [f64; 3], f64)> = None;
        for a in -1..=1 {
            for b in -1..=1 {
                for c in -1..=1 {
                    let Some(bin) = self.bins.get(&[k[0] + a, k[1] + b, k[2] + c]) else {
                        continue;
                    };
                    for &t in bin {
                        let t = t as usize;
                        let [i, j, l] = mesh.triangles[t];
                        let w = closest_point(p, &mesh.nodes[i], &mesh.nodes[j], &mesh.nodes[l]);
                        let q: [f64; 3] = std::array::from_fn(|d| {
                            w[0] * mesh.nodes[i][d]
                                + w[1] * mesh.nodes[j][d]
                                + w[2] * mesh.nodes[l][d]
                        });
                        let dist = norm(&sub(p, &q));
                        if !dist.is_finite() {
                            continue;
                        }
                        let better = match best {
                            None => true,
                            Some((bt, _, bd)) => dist < bd || (dist == bd && t < bt),
                        };
                        if better {
                            best = Some((t, w, dist));
                        }
                    }
                }
            }
        }
        best
    }
}

/// The barycentric weights on `a`, `b`, `c` of the point of triangle `abc`
/// closest to `p`, by the Voronoi regions of its vertices and edges (the
/// point lies in the region of a vertex, of an edge, or of the face).
fn closest_point(p: &[f64; 3], a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> [f64; 3] {
    let (ab, ac) = (sub(b, a), sub(c, a));
    let ap = sub(p, a);
    let (d1, d2) = (dot(&ab, &ap), dot(&ac, &ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return [1.0, 0.0, 0.0];
    }
    let bp = sub(p, b);
    let (d3, d4) = (dot(&ab, &bp), dot(&ac, &bp));
    if d3 >= 0.0 && d4 <= d3 {
        return [0.0, 1.0, 0.0];
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return [1.0 - v, v, 0.0];
    }
    let cp = sub(p, c);
    let (d5, d6) = (dot(&ab, &cp), dot(&ac, &cp));
    if d6 >= 0.0 && d5 <= d6 {
        return [0.0, 0.0, 1.0];
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return [1.0 - w, 0.0, w];
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return [0.0, 1.0 - w, w];
    }
    let s = 1.0 / (va + vb + vc);
    let (v, w) = (vb * s, vc * s);
    [1.0 - v - w, v, w]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{MeshKind, disc, rectangle};

    fn at(mesh: &TriMesh, row: &[(usize, f64)]) -> [f64; 3] {
        let mut x = [0.0; 3];
        for &(n, w) in row {
            for d in 0..3 {
                x[d] += w * mesh.nodes[n][d];
            }
        }
        x
    }

    /// Points on a flat mesh are reproduced by their weights (linear
    /// fields are interpolated exactly), with non-negative weights summing
    /// to 1 on at most three nodes of one triangle.
    #[test]
    fn points_on_the_mesh_are_reproduced_by_their_weights() {
        for kind in [
            MeshKind::Random,
            MeshKind::NonUniform,
            MeshKind::RightIsosceles,
        ] {
            let coarse = rectangle(0.1, 0.02, 0.004, kind, 3).unwrap();
            let fine = rectangle(0.1, 0.02, 0.0015, MeshKind::Equilateral, 0).unwrap();
            let rows = interpolation(&coarse, &fine.nodes).unwrap();
            for (p, row) in fine.nodes.iter().zip(&rows) {
                assert!(!row.is_empty() && row.len() <= 3, "{row:?}");
                assert!(row.iter().all(|e| e.1 > 0.0));
                let sum: f64 = row.iter().map(|e| e.1).sum();
                assert!((sum - 1.0).abs() < 1e-14, "{sum}");
                let x = at(&coarse, row);
                assert!(norm(&sub(&x, p)) < 1e-14, "{x:?} against {p:?}");
                let nodes: Vec<usize> = row.iter().map(|e| e.0).collect();
                assert!(
                    coarse
                        .triangles
                        .iter()
                        .any(|t| nodes.iter().all(|n| t.contains(n))),
                    "{nodes:?} in no triangle"
                );
            }
        }
    }

    /// A point at a node takes that node alone; a point above a flat mesh
    /// takes its foot's weights; a point off a disc's polygon (a finer
    /// disc's boundary node) its closest boundary point's.
    #[test]
    fn nodes_points_above_and_points_outside_take_their_closest_point() {
        let mesh = rectangle(1.0, 1.0, 0.1, MeshKind::Random, 5).unwrap();
        let rows = interpolation(&mesh, &mesh.nodes).unwrap();
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row, &vec![(i, 1.0)]);
        }
        let p = [0.43, 0.61, 0.05];
        let row = &interpolation(&mesh, &[p]).unwrap()[0];
        let x = at(&mesh, row);
        assert!(norm(&sub(&x, &[0.43, 0.61, 0.0])) < 1e-14, "{x:?}");

        let coarse = disc(1.0, 6).unwrap();
        let fine = disc(1.0, 20).unwrap();
        let rows = interpolation(&coarse, &fine.nodes).unwrap();
        for (p, row) in fine.nodes.iter().zip(&rows) {
            let x = at(&coarse, row);
            let r = norm(p);
            // Inside the polygon the point itself; outside (r near 1) a
            // point of the boundary, inside the circle.
            let gap = norm(&sub(&x, p));
            assert!(
                gap < 1e-14 || (r > 0.95 && norm(&x) <= 1.0 + 1e-12 && gap < 0.02),
                "{p:?}: {gap}"
            );
        }
    }

    /// The meshes must describe one surface: a point far from the mesh, or
    /// not finite, is refused with its index.
    #[test]
    fn a_point_far_from_the_mesh_is_refused() {
        let mesh = rectangle(1.0, 1.0, 0.1, MeshKind::Equilateral, 0).unwrap();
        for p in [[0.5, 0.5, 0.3], [5.0, 0.5, 0.0], [1e300, -1e300, 0.0]] {
            let e = interpolation(&mesh, &[[0.5, 0.5, 0.0], p]).unwrap_err();
            assert!(matches!(e, ShellError::OffMesh { point: 1, .. }), "{e:?}");
            assert!(e.to_string().contains("point 1"), "{e}");
        }
        let e = interpolation(&mesh, &[[0.5, f64::NAN, 0.0]]).unwrap_err();
        assert!(
            e.to_string().contains("point 0") && e.to_string().contains("not finite"),
            "{e}"
        );
        // A mesh that is not valid is refused, not searched.
        let mut bad = mesh.clone();
        bad.triangles[4][1] = bad.nodes.len();
        assert!(matches!(
            interpolation(&bad, &[[0.5, 0.5, 0.0]]),
            Err(ShellError::MissingNode { triangle: 4, .. })
        ));
        let mut bad = mesh.clone();
        bad.nodes[7][2] = f64::INFINITY;
        let e = interpolation(&bad, &[[0.5, 0.5, 0.0]]).unwrap_err();
        assert!(e.to_string().contains("node 7"), "{e}");
        let empty = TriMesh {
            nodes: vec![],
            triangles: vec![],
        };
        assert!(matches!(
            interpolation(&empty, &[[0.0; 3]]),
            Err(ShellError::NoTriangles)
        ));
    }

    /// On a sheet rolled onto a cylinder (so that points and triangles
    /// spread over the grid's third axis too), the grid's search finds the
    /// closest triangle of a brute-force search over all triangles for every
    /// point within the accepted distance, and refuses every other.
    #[test]
    fn the_grid_finds_the_closest_triangle_on_a_curved_sheet() {
        use pliant_core::derivcheck::Rng;
        let flat = rectangle(1.0, 0.5, 0.06, MeshKind::Random, 2).unwrap();
        let r = 0.3;
        let mesh = TriMesh {
            nodes: flat
                .nodes
                .iter()
                .map(|&[x, y, _]| [r * (x / r).sin(), y, r * (1.0 - (x / r).cos())])
                .collect(),
            triangles: flat.triangles.clone(),
        };
        let grid = Grid::new(&mesh);
        let mut rng = Rng::new(11);
        let (mut near, mut far) = (0, 0);
        for _ in 0..3000 {
            let p: [f64; 3] = std::array::from_fn(|d| {
                let pad = 2.0 * grid.within;
                grid.lo[d] - pad + (grid.hi[d] - grid.lo[d] + 2.0 * pad) * rng.uniform()
            });
            let brute = mesh
                .triangles
                .iter()
                .map(|&[i, j, l]| {
                    let w = closest_point(&p, &mesh.nodes[i], &mesh.nodes[j], &mesh.nodes[l]);
                    let q = at(&mesh, &[(i, w[0]), (j, w[1]), (l, w[2])]);
                    norm(&sub(&p, &q))
                })
                .fold(f64::INFINITY, f64::min);
            let found = interpolation(&mesh, &[p]);
            if brute <= grid.within {
                near += 1;
                let x = at(&mesh, &found.unwrap()[0]);
                assert!((norm(&sub(&p, &x)) - brute).abs() < 1e-11, "{p:?}");
            } else {
                far += 1;
                assert!(matches!(found, Err(ShellError::OffMesh { .. })), "{p:?}");
            }
        }
        assert!(near > 100 && far > 100, "{near} near, {far} far");
    }

    /// The closest point of a triangle in each Voronoi region: the three
    /// vertices, the three edges and the face.
    #[test]
    fn the_closest_point_of_a_triangle_in_each_region() {
        let (a, b, c) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        let cases = [
            ([-1.0, -1.0, 0.3], [1.0, 0.0, 0.0]),
            ([2.0, -0.5, 0.0], [0.0, 1.0, 0.0]),
            ([-0.2, 3.0, -1.0], [0.0, 0.0, 1.0]),
            ([0.25, -1.0, 0.0], [0.75, 0.25, 0.0]),
            ([-1.0, 0.4, 2.0], [0.6, 0.0, 0.4]),
            ([0.9, 0.5, 0.0], [0.0, 0.7, 0.3]),
            ([0.2, 0.3, -4.0], [0.5, 0.2, 0.3]),
        ];
        for (p, want) in cases {
            let w = closest_point(&p, &a, &b, &c);
            for d in 0..3 {
                assert!(
                    (w[d] - want[d]).abs() < 1e-15,
                    "{p:?}: {w:?} against {want:?}"
                );
            }
        }
    }
}
