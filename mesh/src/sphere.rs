//! A thick-walled hollow sphere of linear tetrahedra (a "cubed sphere"):
//! the reference body of Lamé's pressurized-sphere solution.

use std::collections::HashMap;

/// Node positions (m) and linear tetrahedra (node indices).
pub type TetMeshData = (Vec<[f64; 3]>, Vec<[usize; 4]>);

/// Tetrahedra of the hollow sphere `a ≤ |x| ≤ b` (m), centred at the
/// origin: each of the cube's six faces is an `n × n` grid mapped to the
/// sphere equiangularly, with `layers` radial layers; every resulting hex
/// is split through an added centre node into twelve tetrahedra, each hex
/// face along the diagonal through its lowest-numbered corner, so
/// neighbouring hexes agree and the mesh is conforming. Tetrahedra are
/// positively oriented. Returns `(positions, tets)`, or `None` when the
/// sizes are not `0 < a < b` (finite), `n ≥ 1`, `layers ≥ 1`.
///
/// ```
/// let (x, t) = pliant_mesh::hollow_sphere(0.5, 1.0, 8, 2).unwrap();
/// let v: f64 = t.iter().map(|t| pliant_mesh::tet_volume(t.map(|i| x[i]))).sum();
/// let exact = 4.0 / 3.0 * std::f64::consts::PI * (1.0 - 0.125);
/// assert!((v - exact).abs() < 0.02 * exact); // faceted: error ∝ 1/n²
/// ```
pub fn hollow_sphere(a: f64, b: f64, n: usize, layers: usize) -> Option<TetMeshData> {
    if !(a.is_finite() && b.is_finite() && 0.0 < a && a < b) || n == 0 || layers == 0 {
        return None;
    }
    let mut x: Vec<[f64; 3]> = Vec::new();
    let mut ids: HashMap<([usize; 3], usize), usize> = HashMap::new();
    let mut node = |g: [usize; 3], k: usize, x: &mut Vec<[f64; 3]>| -> usize {
        *ids.entry((g, k)).or_insert_with(|| {
            let c =
                g.map(|i| (std::f64::consts::FRAC_PI_4 * (2.0 * i as f64 / n as f64 - 1.0)).tan());
            let l = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
            let r = a + (b - a) * k as f64 / layers as f64;
            x.push(c.map(|v| r * v / l));
            x.len() - 1
        })
    };
    let mut hexes: Vec<[usize; 8]> = Vec::new();
    for axis in 0..3 {
        for side in [0, n] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            for i in 0..n {
                for j in 0..n {
                    for k in 0..layers {
                        let mut h = [0; 8];
                        for (c, (di, dj, dk)) in [
                            (0, 0, 0),
                            (1, 0, 0),
                            (1, 1, 0),
                            (0, 1, 0),
                            (0, 0, 1),
                            (1, 0, 1),
                            (1, 1, 1),
                            (0, 1, 1),
                        ]
                        .into_iter()
                        .enumerate()
                        {
                            let mut g = [0; 3];
                            g[axis] = side;
                            g[u] = i + di;
                            g[v] = j + dj;
                            h[c] = node(g, k + dk, &mut x);
                        }
                        hexes.push(h);
                    }
                }
            }
        }
    }
    Some(split_hexes(x, &hexes))
}

/// Splits hexes (corners 0–3 one face, 4–7 the opposite one, same order)
/// into twelve tetrahedra each through an added centre node.
fn split_hexes(mut x: Vec<[f64; 3]>, hexes: &[[usize; 8]]) -> TetMeshData {
    const FACES: [[usize; 4]; 6] = [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [0, 1, 5, 4],
        [1, 2, 6, 5],
        [2, 3, 7, 6],
        [3, 0, 4, 7],
    ];
    let mut tets = Vec::with_capacity(12 * hexes.len());
    for h in hexes {
        let mut c = [0.0; 3];
        for &i in h {
            for a in 0..3 {
                c[a] += x[i][a] / 8.0;
            }
        }
        x.push(c);
        let centre = x.len() - 1;
        for f in FACES {
            let q = f.map(|i| h[i]);
            // Rotate the quad so it starts at its lowest-numbered corner.
            let s = (0..4).min_by_key(|&i| q[i]).unwrap_or(0);
            let r = [q[s], q[(s + 1) % 4], q[(s + 2) % 4], q[(s + 3) % 4]];
            for tri in [[r[0], r[1], r[2]], [r[0], r[2], r[3]]] {
                let t = [centre, tri[0], tri[1], tri[2]];
                let v = crate::tet_volume(t.map(|i| x[i]));
                tets.push(if v < 0.0 {
                    [centre, tri[0], tri[2], tri[1]]
                } else {
                    t
                });
            }
        }
    }
    (x, tets)
}

/// A unit cube `[0, 1]³` as one hex split into twelve tetrahedra (tests).
#[cfg(test)]
pub(crate) fn unit_cube_tets() -> TetMeshData {
    let x = vec![
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [1.0, 0.0, 1.0],
        [1.0, 1.0, 1.0],
        [0.0, 1.0, 1.0],
    ];
    split_hexes(x, &[[0, 1, 2, 3, 4, 5, 6, 7]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sphere_is_conforming_and_its_volume_converges() {
        let exact = 4.0 / 3.0 * std::f64::consts::PI * (1.0 - 0.125);
        let mut last = f64::INFINITY;
        for n in [2, 4, 8] {
            let (x, t) = hollow_sphere(0.5, 1.0, n, 2).unwrap();
            assert!(t.iter().all(|t| crate::tet_volume(t.map(|i| x[i])) > 0.0));
            // Conforming: the only boundary faces lie on the two spheres.
            for f in crate::boundary_faces(&x, &t) {
                let r: Vec<f64> = f
                    .iter()
                    .map(|&i| x[i].iter().map(|v| v * v).sum::<f64>().sqrt())
                    .collect();
                let on = |s: f64| r.iter().all(|&r| (r - s).abs() < 1e-12);
                assert!(on(0.5) || on(1.0), "interior face {f:?} at radii {r:?}");
            }
            let v: f64 = t.iter().map(|t| crate::tet_volume(t.map(|i| x[i]))).sum();
            let err = (v - exact).abs();
            assert!(err < last, "n = {n}: {err} after {last}");
            last = err;
        }
        assert!(last < 0.02 * exact, "{last}");
        assert!(hollow_sphere(1.0, 0.5, 2, 2).is_none());
    }
}
