//! Geometry read off a solved scene: node positions, turning angles, distances.

use super::*;

/// Positions (m) of `nodes` in state `q`.
pub fn node_positions(model: &Model, q: &[f64], nodes: &[usize]) -> Vec<[f64; 3]> {
    nodes
        .iter()
        .map(|&n| {
            let p = model.node_position(q, n);
            [p[0], p[1], p[2]]
        })
        .collect()
}

/// Total signed turning angle (rad) of a polyline in the `x`–`z` plane,
/// positive from `+x` towards `+z` (the tip angle of a rod starting along
/// `+x`, unwrapped).
pub fn turning_angle_xz(points: &[[f64; 3]]) -> f64 {
    let ang: Vec<f64> = points
        .windows(2)
        .map(|w| (w[1][2] - w[0][2]).atan2(w[1][0] - w[0][0]))
        .collect();
    ang.windows(2)
        .map(|w| {
            let mut d = w[1] - w[0];
            while d > std::f64::consts::PI {
                d -= std::f64::consts::TAU;
            }
            while d < -std::f64::consts::PI {
                d += std::f64::consts::TAU;
            }
            d
        })
        .sum::<f64>()
        + ang.first().copied().unwrap_or(0.0)
}

/// Smallest distance (m) between the centre lines of two polylines.
pub fn centreline_distance(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    let mut best = f64::INFINITY;
    for s in a.windows(2) {
        for t in b.windows(2) {
            best = best.min(segment_distance(&s[0], &s[1], &t[0], &t[1]));
        }
    }
    best
}

/// Lowest `z` (m) of a polyline's nodes.
pub fn lowest_z(points: &[[f64; 3]]) -> f64 {
    points.iter().map(|p| p[2]).fold(f64::INFINITY, f64::min)
}
