//! Elements written once, generic over the scalar type, and the dual-number
//! fallback that derives everything else from them.
//!
//! An author implements [`Element`]: the energy of one element (J) as a
//! function of its `N` stencil DOFs at the evaluation point, the same `N` DOFs
//! at the previous state, and the `P` parameter channels it reads. Wrapping a
//! `Vec` of them in [`Elements`] gives an [`ElementSet`] whose gradient,
//! Hessian, history and parameter blocks come from forward-mode dual numbers
//! (num-dual), computed element-parallel with rayon into per-element slots —
//! so the results do not depend on the thread count.

use crate::energy::EvalState;
use nalgebra::SVector;
use num_dual::{
    Dual2SVec64, DualNum, DualSVec64, HyperDualSVec64, gradient, hessian, partial_hessian,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Scalars available to an element energy besides its DOFs.
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    /// Time between the previous state and the evaluation point, s
    /// (velocities are `(x − x_prev)/h`).
    pub h: f64,
    /// The integrator's step size, s (equal to `h` except for implicit
    /// midpoint, where `h = dt/2`).
    pub dt: f64,
    /// Time of the evaluation point, s.
    pub t: f64,
}

impl Ctx {
    /// The scalars of the evaluation state `s`.
    pub fn of(s: &EvalState) -> Self {
        Self {
            h: s.h,
            dt: s.dt,
            t: s.t,
        }
    }
}

/// One element over a stencil of `N` DOFs reading `P` parameter channels.
pub trait Element<const N: usize, const P: usize>: Send + Sync {
    /// Whether the energy depends on the previous state (history coupling).
    const HISTORY: bool = false;
    /// Global DOF indices of the stencil.
    fn dofs(&self) -> [usize; N];
    /// Global indices of the parameter channels read.
    fn params(&self) -> [usize; P];
    /// Energy of the element in J. `x` are the stencil DOFs at the evaluation
    /// point, `x_prev` the same DOFs at the previous state, `p` the channels.
    fn energy<D: DualNum<f64> + Copy>(&self, x: &[D; N], x_prev: &[D; N], p: &[D; P], c: &Ctx)
    -> D;
}

/// The object-safe view of a set of elements that the engine assembles.
pub trait ElementSet: Send + Sync {
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether the set has no element.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// DOFs per element.
    fn stencil_size(&self) -> usize;
    /// Parameter channels per element.
    fn param_size(&self) -> usize;
    /// Whether the energy depends on the previous state.
    fn uses_history(&self) -> bool;
    /// Stencil DOF indices of element `i` into `out[..stencil_size]`.
    fn dofs(&self, i: usize, out: &mut [usize]);
    /// Parameter indices of element `i` into `out[..param_size]`.
    fn params(&self, i: usize, out: &mut [usize]);
    /// Total energy (J), summed in a thread-count-independent order.
    fn value(&self, s: &EvalState) -> f64;
    /// Element gradients, `len × N`.
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]);
    /// Element Hessians, `len × N × N`, row-major.
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]);
    /// `∂²E/∂q∂q_prev` per element, `len × N × N` (zeros without history).
    fn history_blocks(&self, s: &EvalState, out: &mut [f64]);
    /// `∂²E/∂q∂p` per element, `len × N × P`.
    fn param_blocks(&self, s: &EvalState, out: &mut [f64]);
    /// `∂E/∂p` per element, `len × P`.
    fn param_gradient_blocks(&self, s: &EvalState, out: &mut [f64]);
}

/// A `Vec` of elements with `N` stencil DOFs and `P` parameters; derivatives
/// from the dual-number fallback.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Elements<E, const N: usize, const P: usize> {
    /// The elements.
    pub items: Vec<E>,
}

impl<E, const N: usize, const P: usize> Elements<E, N, P> {
    /// Wraps elements.
    pub fn new(items: Vec<E>) -> Self {
        Self { items }
    }
}

/// Fewest elements per parallel task: below this, rayon's task overhead
/// outweighs the work of small element loops (results do not depend on it).
/// 2048 rather than 256 made the Puppy's assembly (1,536 tets) sequential and
/// one simulated second 0.35 → 0.27 s (`cargo bench --bench fem_newton`).
pub const PAR_MIN_LEN: usize = 2048;

/// `f(block, item)` for each item and its `stride`-long block of `out`, in
/// parallel for at least [`PAR_MIN_LEN`] items and on the calling thread
/// otherwise: a rayon call from outside its pool hands even an unsplit loop
/// to a worker and parks the caller, which costs more than a small loop.
/// Each block is written by exactly one call, so the result does not depend
/// on the thread count.
pub fn for_each_block<T: Sync>(
    out: &mut [f64],
    stride: usize,
    items: &[T],
    f: impl Fn(&mut [f64], &T) + Sync + Send,
) {
    if items.len() < PAR_MIN_LEN {
        out.chunks_mut(stride).zip(items).for_each(|(o, e)| f(o, e));
    } else {
        out.par_chunks_mut(stride)
            .zip(items.par_iter())
            .with_min_len(PAR_MIN_LEN)
            .for_each(|(o, e)| f(o, e));
    }
}

/// Sum of `f` over `items`, in fixed-size chunks summed in order: the result
/// does not depend on the number of threads.
pub fn deterministic_sum<T: Sync>(items: &[T], f: impl Fn(&T) -> f64 + Sync) -> f64 {
    const CHUNK: usize = 512;
    let chunk_sum = |chunk: &[T]| chunk.iter().map(&f).sum::<f64>();
    // The same chunks either way; small loops stay on this thread (waking
    // rayon's workers costs more than the work).
    let partial: Vec<f64> = if items.len() < PAR_MIN_LEN {
        items.chunks(CHUNK).map(chunk_sum).collect()
    } else {
        items.par_chunks(CHUNK).map(chunk_sum).collect()
    };
    partial.iter().sum()
}

impl<E: Element<N, P>, const N: usize, const P: usize> Elements<E, N, P> {
    fn local(e: &E, s: &EvalState) -> ([f64; N], [f64; N], [f64; P]) {
        let d = e.dofs();
        let pi = e.params();
        (
            std::array::from_fn(|i| s.q[d[i]]),
            std::array::from_fn(|i| s.q_prev[d[i]]),
            std::array::from_fn(|i| s.p[pi[i]]),
        )
    }
    /// Energy of element `i`, in J.
    pub fn element_value(&self, i: usize, s: &EvalState) -> f64 {
        let e = &self.items[i];
        let (x, xp, p) = Self::local(e, s);
        e.energy(&x, &xp, &p, &Ctx::of(s))
    }
}

impl<E: Element<N, P>, const N: usize, const P: usize> ElementSet for Elements<E, N, P> {
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
            let (x, xp, p) = Self::local(e, s);
            e.energy(&x, &xp, &p, &c)
        })
    }

    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let c = Ctx::of(s);
        for_each_block(out, N, &self.items, |o, e| {
            let (x, xp, p) = Self::local(e, s);
            let xp = xp.map(DualSVec64::<N>::from);
            let p = p.map(DualSVec64::<N>::from);
            let (_, g) = gradient(
                |v: SVector<DualSVec64<N>, N>| e.energy(&v.into(), &xp, &p, &c),
                &SVector::from(x),
            );
            o.copy_from_slice(g.as_slice());
        });
    }

    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        let c = Ctx::of(s);
        for_each_block(out, N * N, &self.items, |o, e| {
            let (x, xp, p) = Self::local(e, s);
            let xp = xp.map(Dual2SVec64::<N>::from);
            let p = p.map(Dual2SVec64::<N>::from);
            let (_, _, h) = hessian(
                |v: SVector<Dual2SVec64<N>, N>| e.energy(&v.into(), &xp, &p, &c),
                &SVector::from(x),
            );
            for r in 0..N {
                for col in 0..N {
                    o[r * N + col] = h[(r, col)];
                }
            }
        });
    }

    fn history_blocks(&self, s: &EvalState, out: &mut [f64]) {
        if !E::HISTORY {
            out.fill(0.0);
            return;
        }
        let c = Ctx::of(s);
        for_each_block(out, N * N, &self.items, |o, e| {
            let (x, xp, p) = Self::local(e, s);
            let p = p.map(HyperDualSVec64::<N, N>::from);
            let (_, _, _, h) = partial_hessian(
                |(v, w): (
                    SVector<HyperDualSVec64<N, N>, N>,
                    SVector<HyperDualSVec64<N, N>, N>,
                )| e.energy(&v.into(), &w.into(), &p, &c),
                (&SVector::from(x), &SVector::from(xp)),
            );
            for r in 0..N {
                for col in 0..N {
                    o[r * N + col] = h[(r, col)];
                }
            }
        });
    }

    fn param_blocks(&self, s: &EvalState, out: &mut [f64]) {
        if P == 0 {
            return;
        }
        let c = Ctx::of(s);
        for_each_block(out, N * P, &self.items, |o, e| {
            let (x, xp, p) = Self::local(e, s);
            let xp = xp.map(HyperDualSVec64::<N, P>::from);
            let (_, _, _, h) = partial_hessian(
                |(v, w): (
                    SVector<HyperDualSVec64<N, P>, N>,
                    SVector<HyperDualSVec64<N, P>, P>,
                )| e.energy(&v.into(), &xp, &w.into(), &c),
                (&SVector::from(x), &SVector::from(p)),
            );
            for r in 0..N {
                for col in 0..P {
                    o[r * P + col] = h[(r, col)];
                }
            }
        });
    }

    fn param_gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        if P == 0 {
            return;
        }
        let c = Ctx::of(s);
        for_each_block(out, P, &self.items, |o, e| {
            let (x, xp, p) = Self::local(e, s);
            let x = x.map(DualSVec64::<P>::from);
            let xp = xp.map(DualSVec64::<P>::from);
            let (_, g) = gradient(
                |w: SVector<DualSVec64<P>, P>| e.energy(&x, &xp, &w.into(), &c),
                &SVector::from(p),
            );
            o.copy_from_slice(g.as_slice());
        });
    }
}
