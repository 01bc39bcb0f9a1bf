//! Points of a design of experiments: full grids, seeded uniform samples
//! and seeded Latin hypercubes, reproducible from the spec alone (ChaCha8,
//! whose output `rand_chacha` keeps stable across versions).

use super::spec::{Design, Parameter};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// Uniform in `[0, 1)` from 53 random bits.
fn uniform(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// `v` in `[lo, hi]` at fraction `u ∈ [0, 1]`, linearly or logarithmically.
/// The ends are exact (`u = 0` gives `lo`, `u = 1` gives `hi`), so a grid's
/// first and last levels are the numbers the spec wrote.
fn lerp(lo: f64, hi: f64, u: f64, log: bool) -> f64 {
    if u <= 0.0 {
        lo
    } else if u >= 1.0 {
        hi
    } else if log {
        lo * (hi / lo).powf(u)
    } else {
        (1.0 - u) * lo + u * hi
    }
}

/// The grid values of one parameter (its `values`, or `levels` over `range`).
fn levels(p: &Parameter) -> Vec<f64> {
    if let Some(v) = &p.values {
        return v.clone();
    }
    match (p.range, p.levels) {
        (Some([lo, hi]), Some(n)) => (0..n)
            .map(|i| lerp(lo, hi, i as f64 / (n.max(2) - 1) as f64, p.log))
            .collect(),
        _ => Vec::new(),
    }
}

/// Every point of the design: one value per parameter, in the spec's order.
pub(super) fn points(design: &Design, params: &[Parameter]) -> Vec<Vec<f64>> {
    match design {
        Design::Grid => {
            let mut out = vec![Vec::new()];
            for p in params {
                let lv = levels(p);
                out = out
                    .into_iter()
                    .flat_map(|head| {
                        lv.iter().map(move |&v| {
                            let mut h = head.clone();
                            h.push(v);
                            h
                        })
                    })
                    .collect();
            }
            out
        }
        Design::Random { points, seed } => {
            let mut rng = ChaCha8Rng::seed_from_u64(*seed);
            (0..*points)
                .map(|_| {
                    params
                        .iter()
                        .map(|p| {
                            let [lo, hi] = p.range.unwrap_or([0.0, 0.0]);
                            lerp(lo, hi, uniform(&mut rng), p.log)
                        })
                        .collect()
                })
                .collect()
        }
        Design::LatinHypercube { points, seed } => {
            let n = *points;
            let mut rng = ChaCha8Rng::seed_from_u64(*seed);
            let mut cols = Vec::with_capacity(params.len());
            for p in params {
                let [lo, hi] = p.range.unwrap_or([0.0, 0.0]);
                // One sample per stratum, strata shuffled (Fisher–Yates).
                let mut strata: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    let j = ((uniform(&mut rng) * (i + 1) as f64) as usize).min(i);
                    strata.swap(i, j);
                }
                cols.push(
                    strata
                        .iter()
                        .map(|&s| lerp(lo, hi, (s as f64 + uniform(&mut rng)) / n as f64, p.log))
                        .collect::<Vec<f64>>(),
                );
            }
            (0..n)
                .map(|i| cols.iter().map(|c| c[i]).collect())
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(range: [f64; 2], levels: Option<usize>) -> Parameter {
        Parameter {
            path: "/x".into(),
            name: None,
            target: Default::default(),
            values: None,
            range: Some(range),
            levels,
            log: false,
        }
    }

    #[test]
    fn grid_is_the_product_first_slowest() {
        let a = Parameter {
            values: Some(vec![1.0, 2.0]),
            ..param([0.0, 1.0], None)
        };
        let b = param([10.0, 30.0], Some(3));
        let p = points(&Design::Grid, &[a, b]);
        assert_eq!(p.len(), 6);
        assert_eq!(p[0], vec![1.0, 10.0]);
        assert_eq!(p[1], vec![1.0, 20.0]);
        assert_eq!(p[5], vec![2.0, 30.0]);
    }

    #[test]
    fn latin_hypercube_fills_every_stratum_once_and_repeats_by_seed() {
        let ps = [param([0.0, 1.0], None), param([100.0, 200.0], None)];
        let d = Design::LatinHypercube { points: 8, seed: 7 };
        let p = points(&d, &ps);
        assert_eq!(p, points(&d, &ps));
        for (c, (lo, hi)) in [(0.0, 1.0), (100.0, 200.0)].into_iter().enumerate() {
            let mut strata: Vec<usize> = p
                .iter()
                .map(|x| (((x[c] - lo) / (hi - lo)) * 8.0).floor() as usize)
                .collect();
            strata.sort();
            assert_eq!(strata, (0..8).collect::<Vec<_>>());
        }
        let other = points(&Design::LatinHypercube { points: 8, seed: 8 }, &ps);
        assert_ne!(p, other);
    }

    #[test]
    fn log_levels_are_geometric() {
        let p = Parameter {
            log: true,
            ..param([1e3, 1e5], Some(3))
        };
        let l = levels(&p);
        assert!((l[1] - 1e4).abs() < 1e-8);
    }
}
