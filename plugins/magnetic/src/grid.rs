//! Broad phase for connectors: a uniform grid of cubic cells whose edge
//! is the search distance, so every point within that distance of a point
//! lies in one of the 27 cells around it. Finding all close pairs costs
//! time proportional to the number of points plus the pairs examined,
//! not to its square. Cells are kept in a `BTreeMap` and points enter them
//! in index order, and the result is sorted: the pairs never depend on
//! hashing or on thread count.

use std::collections::BTreeMap;

/// All pairs `(i, j)`, `i < j`, of `points` (m) with `|x_i − x_j| ≤ cutoff`
/// (m, > 0) for which `keep(i, j)` holds, sorted. Points with a
/// non-finite coordinate pair with nothing.
pub(crate) fn close_pairs(
    points: &[[f64; 3]],
    cutoff: f64,
    keep: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    if !(cutoff > 0.0 && cutoff.is_finite()) {
        return pairs;
    }
    // Float-to-int casts saturate, so far-away points share edge cells
    // and are then told apart by the distance test.
    let cell_of = |p: &[f64; 3]| p.map(|v| (v / cutoff).floor() as i64);
    let mut grid: BTreeMap<[i64; 3], Vec<usize>> = BTreeMap::new();
    for (i, p) in points.iter().enumerate() {
        if p.iter().all(|v| v.is_finite()) {
            grid.entry(cell_of(p)).or_default().push(i);
        }
    }
    let c2 = cutoff * cutoff;
    for (i, p) in points.iter().enumerate() {
        if !p.iter().all(|v| v.is_finite()) {
            continue;
        }
        let c = cell_of(p);
        for dx in -1i64..=1 {
            for dy in -1i64..=1 {
                for dz in -1i64..=1 {
                    let key = [
                        c[0].saturating_add(dx),
                        c[1].saturating_add(dy),
                        c[2].saturating_add(dz),
                    ];
                    let Some(members) = grid.get(&key) else {
                        continue;
                    };
                    for &j in members {
                        if j <= i {
                            continue;
                        }
                        let q = &points[j];
                        let d2 = (0..3).map(|k| (q[k] - p[k]) * (q[k] - p[k])).sum::<f64>();
                        if d2 <= c2 && keep(i, j) {
                            pairs.push((i, j));
                        }
                    }
                }
            }
        }
    }
    // Saturated keys can name one cell twice: drop the repeats.
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(points: &[[f64; 3]], cutoff: f64) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for i in 0..points.len() {
            for j in i + 1..points.len() {
                let d2: f64 = (0..3).map(|k| (points[j][k] - points[i][k]).powi(2)).sum();
                if d2 <= cutoff * cutoff {
                    out.push((i, j));
                }
            }
        }
        out
    }

    #[test]
    fn finds_exactly_the_close_pairs_of_a_random_cloud() {
        let mut rng = pliant_core::derivcheck::Rng::new(5);
        let mut points: Vec<[f64; 3]> = (0..400)
            .map(|_| {
                [
                    rng.range(-0.5, 0.5),
                    rng.range(-0.5, 0.5),
                    rng.range(-0.1, 0.1),
                ]
            })
            .collect();
        // Planar points (a 2-D model) and points on cell boundaries.
        points.extend((0..50).map(|i| [0.05 * f64::from(i % 10), 0.05 * f64::from(i / 10), 0.0]));
        for cutoff in [0.05, 0.1, 0.37] {
            let found = close_pairs(&points, cutoff, |_, _| true);
            assert_eq!(found, brute(&points, cutoff), "cutoff {cutoff}");
        }
        let odd = close_pairs(&points, 0.1, |i, j| (i + j) % 2 == 1);
        assert!(odd.iter().all(|&(i, j)| (i + j) % 2 == 1) && !odd.is_empty());
    }

    #[test]
    fn non_finite_and_far_points_are_harmless() {
        let points = [
            [0.0, 0.0, 0.0],
            [f64::NAN, 0.0, 0.0],
            [0.01, 0.0, 0.0],
            [1e300, 1e300, -1e300],
            [1e300, 1e300, -1e300],
            [f64::INFINITY, 0.0, 0.0],
        ];
        assert_eq!(
            close_pairs(&points, 0.02, |_, _| true),
            vec![(0, 2), (3, 4)]
        );
        assert!(close_pairs(&points, 0.0, |_, _| true).is_empty());
        assert!(close_pairs(&points, f64::NAN, |_, _| true).is_empty());
    }
}
