//! 2-D broad phase for node–segment proximity: a uniform grid over the
//! plane stored as a sorted list of `(cell key, segment)` entries (no
//! hashing), so finding every node within reach of a segment costs time
//! proportional to the number of nodes and segments plus the pairs found,
//! and the result does not depend on any hashing or thread order.

/// Cells of the grid, keyed by their integer coordinates packed in a `u64`.
fn key(ix: i64, iy: i64) -> u64 {
    ((ix as u64 & 0xffff_ffff) << 32) | (iy as u64 & 0xffff_ffff)
}

/// Pairs `(node, segment)` whose node lies within `reach` (m) of the
/// segment's bounding box (a superset of the pairs closer than `reach`),
/// skipping those `skip(node, segment)` rejects; sorted.
pub(crate) fn node_segment_pairs(
    nodes: &[[f64; 2]],
    segments: &[([f64; 2], [f64; 2])],
    reach: f64,
    skip: impl Fn(usize, usize) -> bool + Sync,
) -> Vec<(usize, usize)> {
    if nodes.is_empty() || segments.is_empty() {
        return Vec::new();
    }
    // Cells at least as large as every grown segment box, so a node only
    // needs its own cell and the eight around it.
    let cell = segments
        .iter()
        .map(|(a, b)| (a[0] - b[0]).abs().max((a[1] - b[1]).abs()))
        .fold(0.0, f64::max)
        + 2.0 * reach;
    let cell = cell.max(f64::MIN_POSITIVE);
    let at = |x: f64| (x / cell).floor() as i64;
    let mut entries: Vec<(u64, u32)> = Vec::with_capacity(segments.len() * 2);
    for (s, (a, b)) in segments.iter().enumerate() {
        let (x0, x1) = (at(a[0].min(b[0]) - reach), at(a[0].max(b[0]) + reach));
        let (y0, y1) = (at(a[1].min(b[1]) - reach), at(a[1].max(b[1]) + reach));
        for ix in x0..=x1 {
            for iy in y0..=y1 {
                entries.push((key(ix, iy), s as u32));
            }
        }
    }
    entries.sort_unstable();
    let mut pairs = Vec::new();
    for (n, p) in nodes.iter().enumerate() {
        let k = key(at(p[0]), at(p[1]));
        let lo = entries.partition_point(|e| e.0 < k);
        for &(ek, s) in &entries[lo..] {
            if ek != k {
                break;
            }
            let s = s as usize;
            let (a, b) = segments[s];
            let inside = p[0] >= a[0].min(b[0]) - reach
                && p[0] <= a[0].max(b[0]) + reach
                && p[1] >= a[1].min(b[1]) - reach
                && p[1] <= a[1].max(b[1]) + reach;
            if inside && !skip(n, s) {
                pairs.push((n, s));
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

    #[test]
    fn finds_every_close_pair() {
        let mut seed = 5u64;
        let mut r = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let nodes: Vec<[f64; 2]> = (0..400).map(|_| [r(), r()]).collect();
        let segs: Vec<([f64; 2], [f64; 2])> = (0..300)
            .map(|_| {
                let a = [r(), r()];
                (a, [a[0] + 0.05 * r(), a[1] + 0.05 * r()])
            })
            .collect();
        let reach = 0.02;
        let found = node_segment_pairs(&nodes, &segs, reach, |_, _| false);
        let mut n_close = 0;
        for (i, p) in nodes.iter().enumerate() {
            for (j, (a, b)) in segs.iter().enumerate() {
                let e = [b[0] - a[0], b[1] - a[1]];
                let w = [p[0] - a[0], p[1] - a[1]];
                let t = ((w[0] * e[0] + w[1] * e[1]) / (e[0] * e[0] + e[1] * e[1])).clamp(0.0, 1.0);
                let d = (w[0] - t * e[0]).hypot(w[1] - t * e[1]);
                if d < reach {
                    n_close += 1;
                    assert!(found.binary_search(&(i, j)).is_ok(), "missed {i} {j}");
                }
            }
        }
        assert!(n_close > 10);
        assert!(found.len() < 400 * 300 / 20);
    }
}
