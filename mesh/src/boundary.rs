//! The boundary of a tetrahedral mesh: the triangles used by exactly one
//! tetrahedron, oriented away from it (outward from the solid).

use std::collections::HashMap;

/// The boundary triangles of `tets` (node indices into `positions`, m), each
/// oriented so its normal `(x₁ − x₀) × (x₂ − x₀)` points away from the
/// tetrahedron it belongs to: out of the solid, hence *into* any hole the
/// solid encloses. Faces come in tetrahedron order, then local face order,
/// so the result is deterministic. Tetrahedra that name a node beyond
/// `positions` are left out (validate meshes first: a hole they leave shows
/// up as an open surface); a face of a zero-volume tetrahedron keeps the
/// tetrahedron's node order.
///
/// ```
/// let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
/// let faces = pliant_mesh::boundary_faces(&x, &[[0, 1, 2, 3]]);
/// assert_eq!(faces.len(), 4);
/// ```
pub fn boundary_faces(positions: &[[f64; 3]], tets: &[[usize; 4]]) -> Vec<[usize; 3]> {
    const LOCAL: [[usize; 4]; 4] = [[1, 2, 3, 0], [0, 3, 2, 1], [0, 1, 3, 2], [0, 2, 1, 3]];
    let tets: Vec<&[usize; 4]> = tets
        .iter()
        .filter(|t| t.iter().all(|&i| i < positions.len()))
        .collect();
    let mut count: HashMap<[usize; 3], u32> = HashMap::new();
    for t in &tets {
        for f in LOCAL {
            let mut k = [t[f[0]], t[f[1]], t[f[2]]];
            k.sort_unstable();
            *count.entry(k).or_default() += 1;
        }
    }
    let mut out = Vec::new();
    for t in &tets {
        for f in LOCAL {
            let tri = [t[f[0]], t[f[1]], t[f[2]]];
            let mut k = tri;
            k.sort_unstable();
            if count[&k] != 1 {
                continue;
            }
            let opposite = positions[t[f[3]]];
            let p = tri.map(|i| positions[i]);
            let side = crate::tet_volume([p[0], p[1], p[2], opposite]);
            out.push(if side > 0.0 {
                [tri[0], tri[2], tri[1]]
            } else {
                tri
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cube_of_tets_has_twelve_outward_faces() {
        let (x, t) = crate::sphere::unit_cube_tets();
        let f = boundary_faces(&x, &t);
        assert_eq!(f.len(), 12);
        // Outward: the divergence theorem gives the cube's volume, 1 m³.
        let v: f64 = f
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| x[i]);
                (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                    + a[2] * (b[0] * c[1] - b[1] * c[0]))
                    / 6.0
            })
            .sum();
        assert!((v - 1.0).abs() < 1e-12, "{v}");
    }
}
