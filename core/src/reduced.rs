//! The dual-number fallback at the smallest level that captures an energy.
//!
//! Many element energies depend on their `N` stencil DOFs only through `R < N`
//! linear combinations `r = B x` with a constant `B` (`R × N`): a spring on
//! the edge vector `x_b − x_a` (R = 3 of N = 6), a linear tetrahedron on its
//! deformation gradient (R = 9 of N = 12). Forward-mode second derivatives
//! cost about the square of the number of differentiated variables, so
//! differentiating `E(r)` and chaining with `B` —
//! `∇E = Bᵀ ∇_r E`, `∇²E = Bᵀ ∇²_r E B` — is several times cheaper than
//! differentiating over the whole stencil. The previous state is reduced with
//! the same `B` (`r_prev = B x_prev`).

use crate::element::{Ctx, ElementSet, deterministic_sum};
use crate::energy::EvalState;
use nalgebra::SVector;
use num_dual::{
    Dual2SVec64, DualNum, DualSVec64, HyperDualSVec64, gradient, hessian, partial_hessian,
};
use serde::{Deserialize, Serialize};

/// An element whose energy depends on its stencil through `r = B x`.
pub trait ReducedElement<const N: usize, const R: usize, const P: usize>: Send + Sync {
    /// Whether the energy depends on the previous state.
    const HISTORY: bool = false;
    /// Global DOF indices of the stencil.
    fn dofs(&self) -> [usize; N];
    /// Global indices of the parameter channels read.
    fn params(&self) -> [usize; P];
    /// The constant map `B` (row-major `R × N`).
    fn map(&self) -> [[f64; N]; R];
    /// `r = B x` gathered from the global vector `q`. The default multiplies
    /// by [`ReducedElement::map`]; override it when `B` is sparse or
    /// structured (the value path calls only this).
    fn reduce(&self, q: &[f64]) -> [f64; R] {
        reduce(&self.map(), &self.dofs(), q)
    }
    /// Energy (J) in terms of `r = B x`, `r_prev = B x_prev` and the channels.
    /// Without [`ReducedElement::HISTORY`], `r_prev` is `r`.
    fn energy<D: DualNum<f64> + Copy>(&self, r: &[D; R], r_prev: &[D; R], p: &[D; P], c: &Ctx)
    -> D;
}

/// A `Vec` of reduced elements; an [`ElementSet`] whose derivatives come from
/// dual numbers over the reduced coordinates, chained with `B`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReducedElements<E, const N: usize, const R: usize, const P: usize> {
    /// The elements.
    pub items: Vec<E>,
}

impl<E, const N: usize, const R: usize, const P: usize> ReducedElements<E, N, R, P> {
    /// Wraps elements.
    pub fn new(items: Vec<E>) -> Self {
        Self { items }
    }
}

fn reduce<const N: usize, const R: usize>(
    b: &[[f64; N]; R],
    d: &[usize; N],
    q: &[f64],
) -> [f64; R] {
    std::array::from_fn(|i| (0..N).map(|j| b[i][j] * q[d[j]]).sum())
}

impl<E: ReducedElement<N, R, P>, const N: usize, const R: usize, const P: usize>
    ReducedElements<E, N, R, P>
{
    fn local(e: &E, s: &EvalState) -> ([[f64; N]; R], [f64; R], [f64; R], [f64; P]) {
        let b = e.map();
        let d = e.dofs();
        let pi = e.params();
        let r = reduce(&b, &d, s.q);
        let rp = if E::HISTORY {
            reduce(&b, &d, s.q_prev)
        } else {
            r
        };
        (b, r, rp, std::array::from_fn(|i| s.p[pi[i]]))
    }
}

/// `out = Bᵀ A` (`N × M`, row-major) for `A` (`R × M`, row-major), or
/// `out = Bᵀ A B` (`N × N`) when `right` is `B` (then `M = R`).
fn chain<const N: usize, const R: usize, const M: usize>(
    b: &[[f64; N]; R],
    a: &[f64],
    right: Option<&[[f64; N]; R]>,
    out: &mut [f64],
) {
    for j in 0..N {
        // Row j of Bᵀ A.
        let mut t = [0.0; M];
        for i in 0..R {
            let bij = b[i][j];
            if bij != 0.0 {
                for k in 0..M {
                    t[k] += bij * a[i * M + k];
                }
            }
        }
        match right {
            None => out[j * M..(j + 1) * M].copy_from_slice(&t),
            Some(c) => {
                let row = &mut out[j * N..(j + 1) * N];
                row.fill(0.0);
                for (i, &ti) in t.iter().enumerate() {
                    if ti != 0.0 {
                        for k in 0..N {
                            row[k] += ti * c[i][k];
                        }
                    }
                }
            }
        }
    }
}

impl<E: ReducedElement<N, R, P>, const N: usize, const R: usize, const P: usize> ElementSet
    for ReducedElements<E, N, R, P>
{
    fn len(&self) -> usize {
        self.items.len()
    }
    fn stencil_size(&self) -> usize {
        N
    }
    fn param_size(&self) -> usize {
        P
    }
    fn uses_history(&self) -> bool {
        E::HISTORY
    }
    fn dofs(&self, i: usize, out: &mut [usize]) {
        out[..N].copy_from_slice(&self.items[i].dofs());
    }
    fn params(&self, i: usize, out: &mut [usize]) {
        out[..P].copy_from_slice(&self.items[i].params());
    }
    fn value(&self, s: &EvalState) -> f64 {
        let c = Ctx::of(s);
        deterministic_sum(&self.items, |e| {
            let r = e.reduce(s.q);
            let rp = if E::HISTORY { e.reduce(s.q_prev) } else { r };
            let pi = e.params();
            let p: [f64; P] = std::array::from_fn(|i| s.p[pi[i]]);
            e.energy(&r, &rp, &p, &c)
        })
    }
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let c = Ctx::of(s);
        crate::element::for_each_block(out, N, &self.items, |o, e| {
            let (b, r, rp, p) = Self::local(e, s);
            let rp = rp.map(DualSVec64::<R>::from);
            let p = p.map(DualSVec64::<R>::from);
            let (_, g) = gradient(
                |v: SVector<DualSVec64<R>, R>| e.energy(&v.into(), &rp, &p, &c),
                &SVector::from(r),
            );
            chain::<N, R, 1>(&b, g.as_slice(), None, o);
        });
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let c = Ctx::of(s);
        crate::element::for_each_block(out, N * N, &self.items, |o, e| {
            let (b, r, rp, p) = Self::local(e, s);
            let rp = rp.map(Dual2SVec64::<R>::from);
            let p = p.map(Dual2SVec64::<R>::from);
            let (_, _, h) = hessian(
                |v: SVector<Dual2SVec64<R>, R>| e.energy(&v.into(), &rp, &p, &c),
                &SVector::from(r),
            );
            // Symmetric: column-major storage is also row-major.
            chain::<N, R, R>(&b, h.as_slice(), Some(&b), o);
        });
    }
    fn history_blocks(&self, s: &EvalState, out: &mut [f64]) {
        if !E::HISTORY {
            out.fill(0.0);
            return;
        }
        let c = Ctx::of(s);
        crate::element::for_each_block(out, N * N, &self.items, |o, e| {
            let (b, r, rp, p) = Self::local(e, s);
            let p = p.map(HyperDualSVec64::<R, R>::from);
            let (_, _, _, h) = partial_hessian(
                |(v, w): (
                    SVector<HyperDualSVec64<R, R>, R>,
                    SVector<HyperDualSVec64<R, R>, R>,
                )| { e.energy(&v.into(), &w.into(), &p, &c) },
                (&SVector::from(r), &SVector::from(rp)),
            );
            let ht = h.transpose(); // column-major of the transpose = row-major of h
            chain::<N, R, R>(&b, ht.as_slice(), Some(&b), o);
        });
    }
    fn param_blocks(&self, s: &EvalState, out: &mut [f64]) {
        if P == 0 {
            return;
        }
        let c = Ctx::of(s);
        crate::element::for_each_block(out, N * P, &self.items, |o, e| {
            let (b, r, rp, p) = Self::local(e, s);
            let rp = rp.map(HyperDualSVec64::<R, P>::from);
            let (_, _, _, h) = partial_hessian(
                |(v, w): (
                    SVector<HyperDualSVec64<R, P>, R>,
                    SVector<HyperDualSVec64<R, P>, P>,
                )| { e.energy(&v.into(), &rp, &w.into(), &c) },
                (&SVector::from(r), &SVector::from(p)),
            );
            let ht = h.transpose();
            chain::<N, R, P>(&b, ht.as_slice(), None, o);
        });
    }
    fn param_gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        if P == 0 {
            return;
        }
        let c = Ctx::of(s);
        crate::element::for_each_block(out, P, &self.items, |o, e| {
            let (_, r, rp, p) = Self::local(e, s);
            let r = r.map(DualSVec64::<P>::from);
            let rp = rp.map(DualSVec64::<P>::from);
            let (_, g) = gradient(
                |w: SVector<DualSVec64<P>, P>| e.energy(&r, &rp, &w.into(), &c),
                &SVector::from(p),
            );
            o.copy_from_slice(g.as_slice());
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::{Element, Elements};

    /// A nonlinear two-node element written both ways: over the 6 stencil
    /// DOFs and over the 3 components of the edge vector.
    struct Full([usize; 6], [usize; 1]);
    struct Red([usize; 6], [usize; 1]);

    fn law<D: DualNum<f64> + Copy>(e: [D; 3], ep: [D; 3], u: D, h: f64) -> D {
        let l = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt();
        let lp = (ep[0] * ep[0] + ep[1] * ep[1] + ep[2] * ep[2]).sqrt();
        let s = l - (u + 1.0);
        s * s * 3.0 + (l - lp).powi(2) / h + e[0] * e[1].sin() * u
    }
    impl Element<6, 1> for Full {
        const HISTORY: bool = true;
        fn dofs(&self) -> [usize; 6] {
            self.0
        }
        fn params(&self) -> [usize; 1] {
            self.1
        }
        fn energy<D: DualNum<f64> + Copy>(
            &self,
            x: &[D; 6],
            xp: &[D; 6],
            p: &[D; 1],
            c: &Ctx,
        ) -> D {
            let e = [x[3] - x[0], x[4] - x[1], x[5] - x[2]];
            let ep = [xp[3] - xp[0], xp[4] - xp[1], xp[5] - xp[2]];
            law(e, ep, p[0], c.h)
        }
    }
    impl ReducedElement<6, 3, 1> for Red {
        const HISTORY: bool = true;
        fn dofs(&self) -> [usize; 6] {
            self.0
        }
        fn params(&self) -> [usize; 1] {
            self.1
        }
        fn map(&self) -> [[f64; 6]; 3] {
            let mut b = [[0.0; 6]; 3];
            for a in 0..3 {
                b[a][a] = -1.0;
                b[a][3 + a] = 1.0;
            }
            b
        }
        fn energy<D: DualNum<f64> + Copy>(
            &self,
            r: &[D; 3],
            rp: &[D; 3],
            p: &[D; 1],
            c: &Ctx,
        ) -> D {
            law(*r, *rp, p[0], c.h)
        }
    }

    #[test]
    fn reduced_fallback_equals_full_fallback() {
        let d = [0, 1, 2, 6, 7, 8];
        let full = Elements::<Full, 6, 1>::new(vec![Full(d, [0])]);
        let red = ReducedElements::<Red, 6, 3, 1>::new(vec![Red(d, [0])]);
        let q = [0.1, 0.2, -0.3, 9.0, 9.0, 9.0, 1.4, 0.5, 0.2];
        let qp = [0.0, 0.25, -0.2, 9.0, 9.0, 9.0, 1.3, 0.6, 0.1];
        let s = EvalState {
            q: &q,
            q_prev: &qp,
            p: &[0.3],
            h: 0.01,
            dt: 0.01,
            t: 0.0,
        };
        assert!((full.value(&s) - red.value(&s)).abs() < 1e-12);
        for (len, f) in [
            (
                6,
                &(|a: &dyn ElementSet, o: &mut [f64]| a.gradient_blocks(&s, o))
                    as &dyn Fn(&dyn ElementSet, &mut [f64]),
            ),
            (36, &|a: &dyn ElementSet, o: &mut [f64]| {
                a.hessian_blocks(&s, o)
            }),
            (36, &|a: &dyn ElementSet, o: &mut [f64]| {
                a.history_blocks(&s, o)
            }),
            (6, &|a: &dyn ElementSet, o: &mut [f64]| {
                a.param_blocks(&s, o)
            }),
            (1, &|a: &dyn ElementSet, o: &mut [f64]| {
                a.param_gradient_blocks(&s, o)
            }),
        ] {
            let (mut a, mut b) = (vec![0.0; len], vec![0.0; len]);
            f(&full, &mut a);
            f(&red, &mut b);
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() <= 1e-10 * (1.0 + x.abs()), "{a:?} vs {b:?}");
            }
            assert!(a.iter().any(|v| *v != 0.0));
        }
    }
}
