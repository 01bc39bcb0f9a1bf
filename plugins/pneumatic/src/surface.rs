//! Closed, consistently oriented triangle surfaces and the volume they
//! enclose (divergence theorem):
//!
//! `V(x) = Σ_t v_t`, `v_t = ⅙ (x_a − o) · ((x_b − o) × (x_c − o))` (m³),
//!
//! exact for any closed surface and independent of the reference point `o`
//! (taken at the initial centroid of the surface's nodes, for round-off).
//! Triangles `(a, b, c)` are oriented with `(x_b − x_a) × (x_c − x_a)`
//! pointing out of the enclosed gas.

use crate::error::PneumaticError;
use pliant_core::mat3::skew;
use std::collections::BTreeMap;

/// Checks that `triangles` form a closed surface over `n_nodes` nodes:
/// valid, distinct nodes; every edge in exactly two triangles, traversed
/// once in each direction.
pub fn check_closed(triangles: &[[usize; 3]], n_nodes: usize) -> Result<(), PneumaticError> {
    if triangles.is_empty() {
        return Err(PneumaticError::NoTriangles);
    }
    let mut edges: BTreeMap<[usize; 2], Vec<(usize, bool)>> = BTreeMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        if let Some(&node) = tri.iter().find(|&&n| n >= n_nodes) {
            return Err(PneumaticError::MissingNode {
                triangle: t,
                node,
                count: n_nodes,
            });
        }
        if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
            return Err(PneumaticError::RepeatedNode {
                triangle: t,
                nodes: *tri,
            });
        }
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            edges
                .entry([a.min(b), a.max(b)])
                .or_default()
                .push((t, a < b));
        }
    }
    for (edge, uses) in &edges {
        if uses.len() != 2 {
            return Err(PneumaticError::OpenSurface {
                edge: *edge,
                triangles: uses.iter().map(|u| u.0).collect(),
            });
        }
        if uses[0].1 == uses[1].1 {
            let edge = if uses[0].1 { *edge } else { [edge[1], edge[0]] };
            return Err(PneumaticError::InconsistentOrientation {
                edge,
                triangles: [uses[0].0, uses[1].0],
            });
        }
    }
    Ok(())
}

/// The volume enclosed by `triangles` at positions `x` (m³), relative to
/// the reference point `o` (any point gives the same value on a closed
/// surface, up to round-off).
pub fn enclosed_volume(x: &[[f64; 3]], triangles: &[[usize; 3]], o: [f64; 3]) -> f64 {
    triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| [x[i][0] - o[0], x[i][1] - o[1], x[i][2] - o[2]]);
            triangle_volume(&a, &b, &c)
        })
        .sum()
}

/// `⅙ a · (b × c)`, m³.
pub(crate) fn triangle_volume(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> f64 {
    (a[0] * (b[1] * c[2] - b[2] * c[1])
        + a[1] * (b[2] * c[0] - b[0] * c[2])
        + a[2] * (b[0] * c[1] - b[1] * c[0]))
        / 6.0
}

/// `∂v/∂(a, b, c)` of [`triangle_volume`] into `g` (9): `⅙ (b × c, c × a, a × b)`.
pub(crate) fn triangle_volume_gradient(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], g: &mut [f64]) {
    let cross = |u: &[f64; 3], v: &[f64; 3]| {
        [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ]
    };
    for (k, w) in [cross(b, c), cross(c, a), cross(a, b)].iter().enumerate() {
        for d in 0..3 {
            g[3 * k + d] = w[d] / 6.0;
        }
    }
}

/// Adds `s ∂²v/∂(a, b, c)²` into the row-major `n × n` matrix `h` at the
/// DOF offsets `at` of the three nodes. The diagonal blocks vanish; the
/// block `∂²v/∂a∂b` is `−⅙ [c]×` (and cyclically), `[w]×` the cross-product
/// matrix (`[w]× u = w × u`).
pub(crate) fn add_triangle_volume_hessian(
    p: [&[f64; 3]; 3],
    s: f64,
    h: &mut [f64],
    n: usize,
    at: [usize; 3],
) {
    for k in 0..3 {
        let (i, j, w) = (at[k], at[(k + 1) % 3], p[(k + 2) % 3]);
        // −⅙ s [w]× at rows of node k, columns of node k+1; its transpose
        // (+⅙ s [w]×) at the mirrored place.
        let m = skew(w);
        for r in 0..3 {
            for c in 0..3 {
                let v = -s * m[r][c] / 6.0;
                h[(i + r) * n + j + c] += v;
                h[(j + c) * n + i + r] += v;
            }
        }
    }
}

/// The triangles of a cavity inside a solid of tetrahedra: the solid's
/// boundary faces ([`pliant_mesh::boundary_faces`]) whose three nodes all
/// satisfy `select` (the nodes on the cavity's wall), reversed so their
/// normals point out of the gas (into the solid). Empty when no face is
/// selected; check the result with [`check_closed`].
///
/// ```
/// let (x, tets) = pliant_mesh::hollow_sphere(0.5, 1.0, 2, 1).unwrap();
/// let r = |p: &[f64; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
/// let cavity = pliant_pneumatic::cavity_surface(&x, &tets, |i| (r(&x[i]) - 0.5).abs() < 1e-9);
/// pliant_pneumatic::check_closed(&cavity, x.len()).unwrap();
/// let v = pliant_pneumatic::enclosed_volume(&x, &cavity, [0.0; 3]);
/// assert!(v > 0.0 && v < 4.0 / 3.0 * std::f64::consts::PI * 0.125);
/// ```
pub fn cavity_surface(
    positions: &[[f64; 3]],
    tets: &[[usize; 4]],
    select: impl Fn(usize) -> bool,
) -> Vec<[usize; 3]> {
    pliant_mesh::boundary_faces(positions, tets)
        .into_iter()
        .filter(|f| f.iter().all(|&i| select(i)))
        .map(|f| [f[0], f[2], f[1]])
        .collect()
}
