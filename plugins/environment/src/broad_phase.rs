//! Broad phase for edge–edge proximity: a uniform hash grid over the edges'
//! bounding boxes, so finding every pair of edges closer than a cutoff costs
//! time proportional to the number of edges (plus the pairs found), not to
//! its square.

use std::collections::HashMap;

/// Axis-aligned box of a segment `a–b` grown by `pad` (m) on every side.
fn bounds(a: &[f64; 3], b: &[f64; 3], pad: f64) -> ([f64; 3], [f64; 3]) {
    (
        std::array::from_fn(|k| a[k].min(b[k]) - pad),
        std::array::from_fn(|k| a[k].max(b[k]) + pad),
    )
}

fn overlap(p: &([f64; 3], [f64; 3]), q: &([f64; 3], [f64; 3])) -> bool {
    (0..3).all(|k| p.0[k] <= q.1[k] && q.0[k] <= p.1[k])
}

/// All pairs `(i, j)`, `i < j`, of segments whose bounding boxes come within
/// `cutoff` (m) of each other — a superset of the pairs whose distance is
/// below `cutoff` — sorted, so the result does not depend on hashing order.
pub fn close_pairs(segments: &[([f64; 3], [f64; 3])], cutoff: f64) -> Vec<(usize, usize)> {
    let pad = 0.5 * cutoff;
    let boxes: Vec<_> = segments.iter().map(|(a, b)| bounds(a, b, pad)).collect();
    // Cells at least as large as every box, so a box spans at most two
    // cells per axis.
    let cell = boxes
        .iter()
        .flat_map(|(lo, hi)| (0..3).map(move |k| hi[k] - lo[k]))
        .fold(f64::MIN_POSITIVE, f64::max);
    let key = |x: f64| (x / cell).floor() as i64;
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, (lo, hi)) in boxes.iter().enumerate() {
        let (l, h) = (lo.map(key), hi.map(key));
        for cx in l[0]..=h[0] {
            for cy in l[1]..=h[1] {
                for cz in l[2]..=h[2] {
                    grid.entry([cx, cy, cz]).or_default().push(i);
                }
            }
        }
    }
    let mut pairs = Vec::new();
    for members in grid.values() {
        for (k, &i) in members.iter().enumerate() {
            for &j in &members[k + 1..] {
                let (i, j) = (i.min(j), i.max(j));
                if i != j && overlap(&boxes[i], &boxes[j]) {
                    pairs.push((i, j));
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment_distance::segment_distance;

    #[test]
    fn finds_every_close_pair_of_a_random_soup() {
        let mut seed = 11u64;
        let mut r = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let segs: Vec<([f64; 3], [f64; 3])> = (0..300)
            .map(|_| {
                let a = [r(), r(), r()];
                let b = [a[0] + 0.1 * r(), a[1] + 0.1 * r(), a[2] + 0.1 * r()];
                (a, b)
            })
            .collect();
        let cutoff = 0.03;
        let found = close_pairs(&segs, cutoff);
        let mut expected = Vec::new();
        for i in 0..segs.len() {
            for j in i + 1..segs.len() {
                let d = segment_distance(&segs[i].0, &segs[i].1, &segs[j].0, &segs[j].1);
                if d < cutoff {
                    expected.push((i, j));
                }
            }
        }
        assert!(!expected.is_empty());
        for p in &expected {
            assert!(found.binary_search(p).is_ok(), "missed {p:?}");
        }
        // The boxes are a loose filter, but not an all-pairs list.
        assert!(found.len() < segs.len() * (segs.len() - 1) / 20);
    }
}
