//! Membrane rings: closed polygons of nodes listed counter-clockwise. The
//! enclosed area (the 2-D cell's "volume", m²) is the shoelace sum
//!
//! `V = ½ Σᵢ (xᵢ yᵢ₊₁ − xᵢ₊₁ yᵢ)`,
//!
//! with `∂V/∂xᵢ = ½ (yᵢ₊₁ − yᵢ₋₁)`, `∂V/∂yᵢ = ½ (xᵢ₋₁ − xᵢ₊₁)` — the
//! outward normal of the two half-segments at node `i` — and a constant,
//! sparse Hessian coupling each node with its two neighbours.

use crate::error::CellError;

/// `n` points on a circle of `radius` (m) about `center`, counter-clockwise
/// from angle `phase` (rad).
pub fn circle(center: [f64; 2], radius: f64, n: usize, phase: f64) -> Vec<[f64; 2]> {
    (0..n)
        .map(|i| {
            let a = phase + 2.0 * std::f64::consts::PI * i as f64 / n as f64;
            [center[0] + radius * a.cos(), center[1] + radius * a.sin()]
        })
        .collect()
}

/// Signed shoelace area of a closed polygon, m² (positive counter-clockwise).
pub fn polygon_area(p: &[[f64; 2]]) -> f64 {
    let n = p.len();
    0.5 * (0..n)
        .map(|i| {
            let (a, b) = (p[i], p[(i + 1) % n]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum::<f64>()
}

fn orient(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// Whether closed segments `a–b` and `c–d` share a point.
fn segments_cross(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> bool {
    let (d1, d2) = (orient(a, b, c), orient(a, b, d));
    let (d3, d4) = (orient(c, d, a), orient(c, d, b));
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
    {
        return true;
    }
    let on = |p: [f64; 2], q: [f64; 2], r: [f64; 2], o: f64| {
        o == 0.0
            && r[0] >= p[0].min(q[0])
            && r[0] <= p[0].max(q[0])
            && r[1] >= p[1].min(q[1])
            && r[1] <= p[1].max(q[1])
    };
    on(a, b, c, d1) || on(a, b, d, d2) || on(c, d, a, d3) || on(c, d, b, d4)
}

/// Checks that `p` (cell `cell`'s membrane in its initial state) is a
/// simple, counter-clockwise polygon with at least three nodes and no
/// zero-length segment; returns its area (m²). Crossing segments are found
/// with a sweep over the segments sorted by their lowest `x`, so the check
/// costs about `O(n log n)` for a round membrane.
pub fn check_ring(cell: usize, p: &[[f64; 2]]) -> Result<f64, CellError> {
    let n = p.len();
    if n < 3 {
        return Err(CellError::TooFewNodes { cell, found: n });
    }
    for i in 0..n {
        let (a, b) = (p[i], p[(i + 1) % n]);
        if a == b {
            return Err(CellError::ZeroLengthSegment { cell, segment: i });
        }
    }
    // Sweep: segments by their x-interval; only overlapping intervals are
    // tested, so round rings cost little.
    let mut order: Vec<(f64, f64, usize)> = (0..n)
        .map(|i| {
            let (a, b) = (p[i], p[(i + 1) % n]);
            (a[0].min(b[0]), a[0].max(b[0]), i)
        })
        .collect();
    order.sort_by(|u, v| u.0.total_cmp(&v.0).then(u.2.cmp(&v.2)));
    for (k, &(_, hi, i)) in order.iter().enumerate() {
        for &(lo_j, _, j) in &order[k + 1..] {
            if lo_j > hi {
                break;
            }
            // Neighbouring segments share a node by construction.
            let adjacent = (i + 1) % n == j || (j + 1) % n == i;
            if adjacent {
                continue;
            }
            let (a, b) = (p[i], p[(i + 1) % n]);
            let (c, d) = (p[j], p[(j + 1) % n]);
            if segments_cross(a, b, c, d) {
                return Err(CellError::SelfIntersecting {
                    cell,
                    first: i.min(j),
                    second: i.max(j),
                });
            }
        }
    }
    let area = polygon_area(p);
    if area.is_nan() || area <= 0.0 {
        return Err(CellError::NonPositiveArea { cell, area });
    }
    Ok(area)
}

/// Adds the nodes of a round membrane to a 2-D model: `n` nodes of mass
/// `node_mass` (kg) on a circle of `radius` (m) about `center`,
/// counter-clockwise from angle `phase` (rad); returns their indices.
pub fn add_ring(
    b: &mut pliant_core::ModelBuilder,
    center: [f64; 2],
    radius: f64,
    n: usize,
    phase: f64,
    node_mass: f64,
) -> pliant_core::Result<Vec<usize>> {
    circle(center, radius, n, phase)
        .into_iter()
        .map(|p| b.add_node(&p, node_mass))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circle_area_approaches_pi_r2() {
        let p = circle([1.0, 2.0], 0.5, 100, 0.3);
        let exact = 0.5 * 100.0 * 0.25 * (2.0 * std::f64::consts::PI / 100.0).sin();
        assert!((check_ring(0, &p).unwrap() - exact).abs() < 1e-14);
    }

    #[test]
    fn bad_rings_are_named() {
        let sq = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        assert!(check_ring(0, &sq).is_ok());
        let bow = [[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]];
        assert!(matches!(
            check_ring(3, &bow),
            Err(CellError::SelfIntersecting { cell: 3, .. })
        ));
        let cw: Vec<_> = sq.iter().rev().copied().collect();
        assert!(matches!(
            check_ring(0, &cw),
            Err(CellError::NonPositiveArea { .. })
        ));
        let flat = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]];
        assert!(matches!(
            check_ring(0, &flat),
            Err(CellError::SelfIntersecting { .. }) | Err(CellError::NonPositiveArea { .. })
        ));
        assert!(matches!(
            check_ring(1, &sq[..2]),
            Err(CellError::TooFewNodes { cell: 1, found: 2 })
        ));
    }
}
