//! Stencil sizes as types, and the dual-number fallback for fixed-size
//! stencils.
//!
//! Forward-mode derivatives of an element over `n` variables use dual
//! numbers with `n` (gradient) or `n(n+1)/2`-ish (Hessian) derivative
//! components, stored on the stack: the sizes must be compile-time
//! constants. [`Stencil<N, P, R>`](Stencil) carries them, and this module
//! evaluates an element at a gathered local state — analytic where the
//! element provides it, dual numbers otherwise — and, for a 2-D model,
//! drops the `z` rows and columns of the 3-D embedding.

use super::{Block, Element, Local, NO_PARAM};
use crate::state::{Ctx, EvalState};
use nalgebra::SVector;
use num_dual::{Dual2SVec64, DualSVec64, HyperDualSVec64, gradient, hessian, partial_hessian};

/// Marks a stencil slot that does not exist in the model (the `z`
/// coordinate of a node in a 2-D model).
pub(crate) const ABSENT: usize = usize::MAX;

/// The sizes of an element: `N` stencil DOFs (3 per node, then the extra
/// DOFs), `P` parameter slots, and `R` reduced variables (`R = N`: no
/// reduction; see [`Element::map`]).
#[derive(Debug, Clone, Copy)]
pub struct Stencil<const N: usize, const P: usize = 0, const R: usize = N>;

mod sealed {
    pub trait Sealed {}
    impl<const N: usize, const P: usize, const R: usize> Sealed for super::Stencil<N, P, R> {}
}

/// Where one element is evaluated: the engine's plumbing between a bound
/// set and the fixed-size code (not for use outside pliant-core).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub(crate) s: &'a EvalState<'a>,
    /// Stencil DOFs (`N`, [`ABSENT`] where the model has no such DOF).
    pub(crate) dofs: &'a [usize],
    /// Parameter indices (`P`, [`NO_PARAM`] for unused slots).
    pub(crate) params: &'a [usize],
    /// In a 2-D model, the stencil slots that exist (the compacted stencil).
    pub(crate) compact: Option<&'a [usize]>,
}

/// Compile-time sizes of an element ([`Stencil`] is the only
/// implementation). Its methods are the engine's; elements only name the
/// type.
pub trait Sizes: sealed::Sealed + Send + Sync + 'static {
    /// Stencil DOFs.
    const N: usize;
    /// Parameter slots.
    const P: usize;
    /// Reduced variables.
    const R: usize;
    #[doc(hidden)]
    fn value<E: Element<Size = Self>>(e: &E, at: &At) -> f64;
    #[doc(hidden)]
    fn block<E: Element<Size = Self>>(e: &E, at: &At, kind: Block, fallback: bool, out: &mut [f64]);
    #[doc(hidden)]
    fn has_map<E: Element<Size = Self>>(e: &E) -> bool;
    #[doc(hidden)]
    fn with_local<E: Element<Size = Self>, T>(e: &E, at: &At, f: impl FnOnce(&Local) -> T) -> T;
}

impl<const N: usize, const P: usize, const R: usize> Sizes for Stencil<N, P, R> {
    const N: usize = N;
    const P: usize = P;
    const R: usize = R;

    fn value<E: Element<Size = Self>>(e: &E, at: &At) -> f64 {
        let (x, xp, p) = gather::<E, N, P>(at);
        let c = Ctx::of(at.s);
        let l = Local {
            x: &x,
            x_prev: &xp,
            p: &p,
            ctx: c,
        };
        if let Some(v) = e.value(&l) {
            return v;
        }
        if R == N {
            e.energy(&x, &xp, &p, &c)
        } else {
            let b = map::<E, N, R>(e);
            let r = reduce::<E, N, R>(e, &b, &x);
            let rp = if E::HISTORY {
                reduce::<E, N, R>(e, &b, &xp)
            } else {
                r
            };
            e.energy(&r, &rp, &p, &c)
        }
    }

    fn block<E: Element<Size = Self>>(
        e: &E,
        at: &At,
        kind: Block,
        fallback: bool,
        out: &mut [f64],
    ) {
        let (x, xp, p) = gather::<E, N, P>(at);
        let l = Local {
            x: &x,
            x_prev: &xp,
            p: &p,
            ctx: Ctx::of(at.s),
        };
        let Some(keep) = at.compact else {
            return full::<E, N, P, R>(e, &l, kind, fallback, out);
        };
        // 2-D: evaluate the 3-D embedding, keep the slots that exist.
        let ns = keep.len();
        match kind {
            Block::Gradient => {
                let mut g = [0.0; N];
                full::<E, N, P, R>(e, &l, kind, fallback, &mut g);
                for (o, &i) in out.iter_mut().zip(keep) {
                    *o = g[i];
                }
            }
            Block::Hessian | Block::History => {
                let mut h = [[0.0; N]; N];
                full::<E, N, P, R>(e, &l, kind, fallback, h.as_flattened_mut());
                for (a, &i) in keep.iter().enumerate() {
                    for (b, &j) in keep.iter().enumerate() {
                        out[a * ns + b] = h[i][j];
                    }
                }
            }
            Block::Param => {
                let mut h = [[0.0; P]; N];
                full::<E, N, P, R>(e, &l, kind, fallback, h.as_flattened_mut());
                for (a, &i) in keep.iter().enumerate() {
                    out[a * P..(a + 1) * P].copy_from_slice(&h[i]);
                }
            }
            Block::ParamGradient => full::<E, N, P, R>(e, &l, kind, fallback, out),
        }
    }

    fn has_map<E: Element<Size = Self>>(e: &E) -> bool {
        let mut b = [[0.0; N]; R];
        e.map(b.as_flattened_mut())
    }

    fn with_local<E: Element<Size = Self>, T>(_: &E, at: &At, f: impl FnOnce(&Local) -> T) -> T {
        let (x, xp, p) = gather::<E, N, P>(at);
        f(&Local {
            x: &x,
            x_prev: &xp,
            p: &p,
            ctx: Ctx::of(at.s),
        })
    }
}

/// The element's stencil values at the evaluation point and the previous
/// state (a copy of the former without history) and its parameter slots.
#[inline]
fn gather<E: Element, const N: usize, const P: usize>(at: &At) -> ([f64; N], [f64; N], [f64; P]) {
    let load = |v: &[f64], i: usize| {
        let d = at.dofs[i];
        if d == ABSENT { 0.0 } else { v[d] }
    };
    let x: [f64; N] = std::array::from_fn(|i| load(at.s.q, i));
    let xp = if E::HISTORY {
        std::array::from_fn(|i| load(at.s.q_prev, i))
    } else {
        x
    };
    let p = std::array::from_fn(|k| {
        let j = at.params[k];
        if j == NO_PARAM { 0.0 } else { at.s.p[j] }
    });
    (x, xp, p)
}

fn map<E: Element, const N: usize, const R: usize>(e: &E) -> [[f64; N]; R] {
    let mut b = [[0.0; N]; R];
    e.map(b.as_flattened_mut());
    b
}

fn reduce<E: Element, const N: usize, const R: usize>(
    e: &E,
    b: &[[f64; N]; R],
    x: &[f64; N],
) -> [f64; R] {
    let mut r = [0.0; R];
    if !e.reduce(x, &mut r) {
        for (i, ri) in r.iter_mut().enumerate() {
            *ri = (0..N).map(|j| b[i][j] * x[j]).sum();
        }
    }
    r
}

/// One block of one element over the full 3-D stencil: analytic when the
/// element writes it (unless `fallback`), dual numbers otherwise.
fn full<E: Element, const N: usize, const P: usize, const R: usize>(
    e: &E,
    l: &Local,
    kind: Block,
    fallback: bool,
    out: &mut [f64],
) {
    match kind {
        Block::Gradient => {
            if fallback || !e.gradient(l, out) {
                fallback_gradient::<E, N, P, R>(e, l, out);
            }
        }
        Block::Hessian => {
            if fallback || !e.hessian(l, out) {
                fallback_hessian::<E, N, P, R>(e, l, out);
            }
        }
        Block::History => {
            if !E::HISTORY {
                out.fill(0.0);
            } else if fallback || !e.history(l, out) {
                fallback_history::<E, N, P, R>(e, l, out);
            }
        }
        Block::Param => {
            if P > 0 && (fallback || !e.param_block(l, out)) {
                fallback_param_block::<E, N, P, R>(e, l, out);
            }
        }
        Block::ParamGradient => {
            if P > 0 && (fallback || !e.param_gradient(l, out)) {
                fallback_param_gradient::<E, N, P, R>(e, l, out);
            }
        }
    }
}

/// `x`, `x_prev`, `p` as fixed-size arrays.
#[inline]
fn arrays<const N: usize, const P: usize>(l: &Local) -> ([f64; N], [f64; N], [f64; P]) {
    (
        std::array::from_fn(|i| l.x[i]),
        std::array::from_fn(|i| l.x_prev[i]),
        std::array::from_fn(|i| l.p[i]),
    )
}

/// `(B, r, r_prev)` of a reduced element.
#[inline]
fn reduced<E: Element, const N: usize, const R: usize>(
    e: &E,
    x: &[f64; N],
    xp: &[f64; N],
) -> ([[f64; N]; R], [f64; R], [f64; R]) {
    let b = map::<E, N, R>(e);
    let r = reduce::<E, N, R>(e, &b, x);
    let rp = if E::HISTORY {
        reduce::<E, N, R>(e, &b, xp)
    } else {
        r
    };
    (b, r, rp)
}

fn fallback_gradient<E: Element, const N: usize, const P: usize, const R: usize>(
    e: &E,
    l: &Local,
    out: &mut [f64],
) {
    let (x, xp, p) = arrays::<N, P>(l);
    let c = l.ctx;
    if R == N {
        let xp = xp.map(DualSVec64::<N>::from);
        let p = p.map(DualSVec64::<N>::from);
        let (_, g) = gradient(
            |v: SVector<DualSVec64<N>, N>| e.energy(v.as_slice(), &xp, &p, &c),
            &SVector::from(x),
        );
        out[..N].copy_from_slice(g.as_slice());
    } else {
        let (b, r, rp) = reduced::<E, N, R>(e, &x, &xp);
        let rp = rp.map(DualSVec64::<R>::from);
        let p = p.map(DualSVec64::<R>::from);
        let (_, g) = gradient(
            |v: SVector<DualSVec64<R>, R>| e.energy(v.as_slice(), &rp, &p, &c),
            &SVector::from(r),
        );
        chain::<N, R, 1>(&b, g.as_slice(), None, out);
    }
}

fn fallback_hessian<E: Element, const N: usize, const P: usize, const R: usize>(
    e: &E,
    l: &Local,
    out: &mut [f64],
) {
    let (x, xp, p) = arrays::<N, P>(l);
    let c = l.ctx;
    if R == N {
        let xp = xp.map(Dual2SVec64::<N>::from);
        let p = p.map(Dual2SVec64::<N>::from);
        let (_, _, h) = hessian(
            |v: SVector<Dual2SVec64<N>, N>| e.energy(v.as_slice(), &xp, &p, &c),
            &SVector::from(x),
        );
        for r in 0..N {
            for col in 0..N {
                out[r * N + col] = h[(r, col)];
            }
        }
    } else {
        let (b, r, rp) = reduced::<E, N, R>(e, &x, &xp);
        let rp = rp.map(Dual2SVec64::<R>::from);
        let p = p.map(Dual2SVec64::<R>::from);
        let (_, _, h) = hessian(
            |v: SVector<Dual2SVec64<R>, R>| e.energy(v.as_slice(), &rp, &p, &c),
            &SVector::from(r),
        );
        // Symmetric: column-major storage is also row-major.
        chain::<N, R, R>(&b, h.as_slice(), Some(&b), out);
    }
}

fn fallback_history<E: Element, const N: usize, const P: usize, const R: usize>(
    e: &E,
    l: &Local,
    out: &mut [f64],
) {
    let (x, xp, p) = arrays::<N, P>(l);
    let c = l.ctx;
    if R == N {
        let p = p.map(HyperDualSVec64::<N, N>::from);
        let (_, _, _, h) = partial_hessian(
            |(v, w): (
                SVector<HyperDualSVec64<N, N>, N>,
                SVector<HyperDualSVec64<N, N>, N>,
            )| e.energy(v.as_slice(), w.as_slice(), &p, &c),
            (&SVector::from(x), &SVector::from(xp)),
        );
        for r in 0..N {
            for col in 0..N {
                out[r * N + col] = h[(r, col)];
            }
        }
    } else {
        let (b, r, rp) = reduced::<E, N, R>(e, &x, &xp);
        let p = p.map(HyperDualSVec64::<R, R>::from);
        let (_, _, _, h) = partial_hessian(
            |(v, w): (
                SVector<HyperDualSVec64<R, R>, R>,
                SVector<HyperDualSVec64<R, R>, R>,
            )| e.energy(v.as_slice(), w.as_slice(), &p, &c),
            (&SVector::from(r), &SVector::from(rp)),
        );
        let ht = h.transpose(); // column-major of the transpose = row-major of h
        chain::<N, R, R>(&b, ht.as_slice(), Some(&b), out);
    }
}

fn fallback_param_block<E: Element, const N: usize, const P: usize, const R: usize>(
    e: &E,
    l: &Local,
    out: &mut [f64],
) {
    let (x, xp, p) = arrays::<N, P>(l);
    let c = l.ctx;
    if R == N {
        let xp = xp.map(HyperDualSVec64::<N, P>::from);
        let (_, _, _, h) = partial_hessian(
            |(v, w): (
                SVector<HyperDualSVec64<N, P>, N>,
                SVector<HyperDualSVec64<N, P>, P>,
            )| e.energy(v.as_slice(), &xp, w.as_slice(), &c),
            (&SVector::from(x), &SVector::from(p)),
        );
        for r in 0..N {
            for col in 0..P {
                out[r * P + col] = h[(r, col)];
            }
        }
    } else {
        let (b, r, rp) = reduced::<E, N, R>(e, &x, &xp);
        let rp = rp.map(HyperDualSVec64::<R, P>::from);
        let (_, _, _, h) = partial_hessian(
            |(v, w): (
                SVector<HyperDualSVec64<R, P>, R>,
                SVector<HyperDualSVec64<R, P>, P>,
            )| e.energy(v.as_slice(), &rp, w.as_slice(), &c),
            (&SVector::from(r), &SVector::from(p)),
        );
        let ht = h.transpose();
        chain::<N, R, P>(&b, ht.as_slice(), None, out);
    }
}

fn fallback_param_gradient<E: Element, const N: usize, const P: usize, const R: usize>(
    e: &E,
    l: &Local,
    out: &mut [f64],
) {
    let (x, xp, p) = arrays::<N, P>(l);
    let c = l.ctx;
    let g = if R == N {
        let x = x.map(DualSVec64::<P>::from);
        let xp = xp.map(DualSVec64::<P>::from);
        gradient(
            |w: SVector<DualSVec64<P>, P>| e.energy(&x, &xp, w.as_slice(), &c),
            &SVector::from(p),
        )
        .1
    } else {
        let (_, r, rp) = reduced::<E, N, R>(e, &x, &xp);
        let r = r.map(DualSVec64::<P>::from);
        let rp = rp.map(DualSVec64::<P>::from);
        gradient(
            |w: SVector<DualSVec64<P>, P>| e.energy(&r, &rp, w.as_slice(), &c),
            &SVector::from(p),
        )
        .1
    };
    out[..P].copy_from_slice(g.as_slice());
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
