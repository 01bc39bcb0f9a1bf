//! How fast membranes approach each other: the motion of every membrane
//! over the last step, which sizes the search margin of membrane contact
//! ([`crate::contact`]) pair by pair.
//!
//! Over a step each membrane moved by the mean displacement `s` of its
//! nodes (m), and each node `i` by `r_i` (m) more or less than its
//! membrane. A node `n` of membrane `A` and a segment `a–b` of membrane
//! `B` then closed in on each other by at most
//! `|s_A − s_B| + r_n + max(r_a, r_b)`: a stack falling or sliding as a
//! whole approaches itself by its deformation only, however fast it moves,
//! while the largest single node displacement (the margin of the rod and
//! magnet contacts) grows with the speed of the whole.

/// The last step's motion of every membrane and membrane node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Approach {
    /// Membrane of every node.
    owner: Vec<u32>,
    /// Mean displacement of every membrane's nodes, m.
    shifts: Vec<[f64; 2]>,
    /// Distance of every node's displacement from its membrane's shift, m.
    deviations: Vec<f64>,
}

impl Approach {
    /// Membranes at rest; node `i` belongs to membrane `owner[i]`, and
    /// there are `membranes` membranes.
    pub(crate) fn new(owner: Vec<u32>, membranes: usize) -> Self {
        let nodes = owner.len();
        Self {
            owner,
            shifts: vec![[0.0; 2]; membranes],
            deviations: vec![0.0; nodes],
        }
    }

    /// Records a step from `start` to `end` (node positions).
    pub(crate) fn record(&mut self, start: &[[f64; 2]], end: &[[f64; 2]]) {
        let step = |k: usize| [end[k][0] - start[k][0], end[k][1] - start[k][1]];
        let mut count = vec![0usize; self.shifts.len()];
        self.shifts.fill([0.0; 2]);
        for (k, &m) in self.owner.iter().enumerate() {
            let (d, s) = (step(k), &mut self.shifts[m as usize]);
            s[0] += d[0];
            s[1] += d[1];
            count[m as usize] += 1;
        }
        for (s, &c) in self.shifts.iter_mut().zip(&count) {
            let c = c.max(1) as f64;
            *s = [s[0] / c, s[1] / c];
        }
        for (k, &m) in self.owner.iter().enumerate() {
            let (d, s) = (step(k), self.shifts[m as usize]);
            self.deviations[k] = (d[0] - s[0]).hypot(d[1] - s[1]);
        }
    }

    /// How far node `n` and the segment from node `a` to node `b` closed in
    /// on each other over the last step, at most, m.
    pub(crate) fn between(&self, n: usize, a: usize, b: usize) -> f64 {
        let (p, q) = (
            self.shifts[self.owner[n] as usize],
            self.shifts[self.owner[a] as usize],
        );
        (p[0] - q[0]).hypot(p[1] - q[1])
            + self.deviations[n]
            + self.deviations[a].max(self.deviations[b])
    }

    /// An upper bound of [`Approach::between`] over every node and
    /// segment, m.
    pub(crate) fn largest(&self) -> f64 {
        if self.shifts.is_empty() {
            return 0.0;
        }
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for s in &self.shifts {
            for i in 0..2 {
                lo[i] = lo[i].min(s[i]);
                hi[i] = hi[i].max(s[i]);
            }
        }
        let deviation = self.deviations.iter().copied().fold(0.0, f64::max);
        (hi[0] - lo[0]).hypot(hi[1] - lo[1]) + 2.0 * deviation
    }

    /// Values to carry between steps: two per membrane, then one per node.
    pub(crate) fn to_vec(&self) -> Vec<f64> {
        self.shifts
            .iter()
            .flatten()
            .chain(&self.deviations)
            .copied()
            .collect()
    }

    /// Restores [`Approach::to_vec`]'s values; `false` (and nothing
    /// changed) when they are not [`Approach::len`] finite values.
    pub(crate) fn restore(&mut self, values: &[f64]) -> bool {
        if values.len() != self.len() || values.iter().any(|v| !v.is_finite()) {
            return false;
        }
        let (shifts, deviations) = values.split_at(2 * self.shifts.len());
        for (s, v) in self.shifts.iter_mut().zip(shifts.chunks_exact(2)) {
            *s = [v[0], v[1]];
        }
        self.deviations.copy_from_slice(deviations);
        true
    }

    /// Number of carried values.
    pub(crate) fn len(&self) -> usize {
        2 * self.shifts.len() + self.deviations.len()
    }

    /// Back to rest.
    pub(crate) fn reset(&mut self) {
        self.shifts.fill([0.0; 2]);
        self.deviations.fill(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::Approach;

    #[test]
    fn membranes_moving_together_do_not_approach() {
        // Two membranes of two nodes: both fall by 5 cm, node 3 of the
        // second also moves 1 mm further down.
        let start = [[0.0, 1.0], [1.0, 1.0], [0.0, 2.0], [1.0, 2.0]];
        let end = [[0.0, 0.95], [1.0, 0.95], [0.0, 1.95], [1.0, 1.949]];
        let mut a = Approach::new(vec![0, 0, 1, 1], 2);
        a.record(&start, &end);
        // Shifts differ by 0.5 mm; nodes 2 and 3 deviate by 0.5 mm each.
        assert!(
            (a.between(0, 2, 3) - 1e-3).abs() < 1e-12,
            "{}",
            a.between(0, 2, 3)
        );
        assert!((a.between(2, 0, 1) - 1e-3).abs() < 1e-12);
        assert!(a.between(0, 0, 1).abs() < 1e-12);
        assert!(a.largest() >= a.between(0, 2, 3) - 1e-15);
        assert!(a.largest() < 2e-3);
        // Carried and restored.
        let mut b = Approach::new(vec![0, 0, 1, 1], 2);
        assert!(b.restore(&a.to_vec()));
        assert_eq!(a, b);
        assert!(!b.restore(&[0.0; 7]));
        assert!(!b.restore(&[f64::NAN; 8]));
        b.reset();
        assert_eq!(b.largest(), 0.0);
    }

    #[test]
    fn the_bound_covers_every_pair_and_the_true_approach() {
        // Three membranes of two nodes, moving every which way.
        let start = [
            [0.0, 0.0],
            [0.1, 0.0],
            [1.0, 0.0],
            [1.1, 0.0],
            [0.0, 1.0],
            [0.1, 1.0],
        ];
        let end = [
            [0.3, 0.0],
            [0.4, 0.1],
            [0.8, 0.1],
            [0.9, 0.0],
            [0.0, 0.6],
            [0.2, 0.7],
        ];
        let mut a = Approach::new(vec![0, 0, 1, 1, 2, 2], 3);
        a.record(&start, &end);
        let step = |k: usize| [end[k][0] - start[k][0], end[k][1] - start[k][1]];
        for n in 0..6 {
            for (x, y) in [(0, 1), (2, 3), (4, 5)] {
                let b = a.between(n, x, y);
                assert!(b <= a.largest() + 1e-15);
                // Any point of the segment moved by a blend of its ends'
                // displacements: the node's relative motion is within the bound.
                for t in [0.0, 0.3, 1.0] {
                    let (dn, dx, dy) = (step(n), step(x), step(y));
                    let rel = [
                        dn[0] - (1.0 - t) * dx[0] - t * dy[0],
                        dn[1] - (1.0 - t) * dx[1] - t * dy[1],
                    ];
                    assert!(rel[0].hypot(rel[1]) <= b + 1e-12, "{n} ({x}, {y}) t {t}");
                }
            }
        }
    }
}
