//! The dual-number fallback for an element whose stencil size is known only
//! when it is bound (a cable bound to however many mesh nodes its vertices
//! touch): forward-mode derivatives one direction, or one pair of
//! directions, at a time. Exact up to round-off; `O(n²)` energy
//! evaluations for a Hessian, which suits derivative checks and small
//! stencils. Energies with such elements implement [`ElementSet`](super::ElementSet)
//! themselves, with analytic blocks, and use this for
//! [`ElementSet::fallback_blocks`](super::ElementSet::fallback_blocks).

use super::Block;
use crate::scalar::Scalar;
use num_dual::{Dual64, HyperDual64};

/// An energy over a stencil `x` of any length and parameter slots `p`
/// (no history coupling), generic over the scalar.
pub trait VariableStencil {
    /// Energy, J.
    fn energy<D: Scalar>(&self, x: &[D], p: &[D]) -> D;
}

/// The block of `kind` of `f` at `(x, p)` from dual numbers, into `out`
/// (`n`, `n × n`, `n × np` row-major, or `np` entries; the history block is
/// zero).
pub fn variable_fallback<T: VariableStencil + ?Sized>(
    f: &T,
    x: &[f64],
    p: &[f64],
    kind: Block,
    out: &mut [f64],
) {
    let (n, np) = (x.len(), p.len());
    // x with first-derivative seeds a on DOF i and b on DOF j.
    let seeded = |i: Option<usize>, j: Option<usize>| -> Vec<HyperDual64> {
        x.iter()
            .enumerate()
            .map(|(m, &v)| {
                let a = if Some(m) == i { 1.0 } else { 0.0 };
                let b = if Some(m) == j { 1.0 } else { 0.0 };
                HyperDual64::new(v, a, b, 0.0)
            })
            .collect()
    };
    let p_seeded = |k: Option<usize>| -> Vec<HyperDual64> {
        p.iter()
            .enumerate()
            .map(|(m, &v)| HyperDual64::new(v, 0.0, if Some(m) == k { 1.0 } else { 0.0 }, 0.0))
            .collect()
    };
    match kind {
        Block::Gradient => {
            let pd: Vec<Dual64> = p.iter().map(|&v| Dual64::from(v)).collect();
            for (i, o) in out[..n].iter_mut().enumerate() {
                let xd: Vec<Dual64> = x
                    .iter()
                    .enumerate()
                    .map(|(m, &v)| Dual64::new(v, if m == i { 1.0 } else { 0.0 }))
                    .collect();
                *o = f.energy(&xd, &pd).eps;
            }
        }
        Block::Hessian => {
            let pd = p_seeded(None);
            for i in 0..n {
                for j in i..n {
                    let h = f.energy(&seeded(Some(i), Some(j)), &pd).eps1eps2;
                    out[i * n + j] = h;
                    out[j * n + i] = h;
                }
            }
        }
        Block::History => out[..n * n].fill(0.0),
        Block::Param => {
            for k in 0..np {
                let pd = p_seeded(Some(k));
                for i in 0..n {
                    out[i * np + k] = f.energy(&seeded(Some(i), None), &pd).eps1eps2;
                }
            }
        }
        Block::ParamGradient => {
            let xd: Vec<Dual64> = x.iter().map(|&v| Dual64::from(v)).collect();
            for (k, o) in out[..np].iter_mut().enumerate() {
                let pd: Vec<Dual64> = p
                    .iter()
                    .enumerate()
                    .map(|(m, &v)| Dual64::new(v, if m == k { 1.0 } else { 0.0 }))
                    .collect();
                *o = f.energy(&xd, &pd).eps;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `E = p₀ (x₀ x₁² + sin x₂)`.
    struct F;
    impl VariableStencil for F {
        fn energy<D: Scalar>(&self, x: &[D], p: &[D]) -> D {
            p[0] * (x[0] * x[1] * x[1] + x[2].sin())
        }
    }

    #[test]
    fn directional_fallback_matches_closed_forms() {
        let (x, p) = ([0.5, -1.5, 0.3], [2.0]);
        let mut g = [0.0; 3];
        variable_fallback(&F, &x, &p, Block::Gradient, &mut g);
        let ge = [2.0 * 2.25, 2.0 * 2.0 * 0.5 * -1.5, 2.0 * 0.3f64.cos()];
        let mut h = [0.0; 9];
        variable_fallback(&F, &x, &p, Block::Hessian, &mut h);
        let he = [
            0.0,
            -6.0,
            0.0,
            -6.0,
            2.0,
            0.0,
            0.0,
            0.0,
            -2.0 * 0.3f64.sin(),
        ];
        let mut pb = [0.0; 3];
        variable_fallback(&F, &x, &p, Block::Param, &mut pb);
        let mut pg = [0.0];
        variable_fallback(&F, &x, &p, Block::ParamGradient, &mut pg);
        for (a, b) in g.iter().zip(&ge).chain(h.iter().zip(&he)) {
            assert!((a - b).abs() < 1e-14, "{a} vs {b}");
        }
        for (a, b) in pb.iter().zip(&ge) {
            assert!((a - b / 2.0).abs() < 1e-14);
        }
        assert!((pg[0] - (0.5 * 2.25 + 0.3f64.sin())).abs() < 1e-14);
    }
}
