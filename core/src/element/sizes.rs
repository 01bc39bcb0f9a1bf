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

/// Where a bound set is evaluated: the state and the set's index tables —
/// the engine's plumbing between a bound set and the fixed-size code (not
/// for use outside pliant-core).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub(crate) s: &'a EvalState<'a>,
    /// Every element's stencil DOFs (`N` each, [`ABSENT`] where the model
    /// has no such DOF).
    pub(crate) dofs: &'a [usize],
    /// Every element's parameter indices (`P` each, [`NO_PARAM`] for unused slots).
    pub(crate) params: &'a [usize],
    /// In a 2-D model, the stencil slots that exist (the compacted stencil).
    pub(crate) compact: Option<&'a [usize]>,
    /// Hessian blocks for a Newton direction (see [`Ctx::majorize`]).
    pub(crate) majorize: bool,
}

impl At<'_> {
    /// The scalars the elements see.
    #[inline(always)]
    fn ctx(&self) -> Ctx {
        Ctx {
            majorize: self.majorize,
            ..Ctx::of(self.s)
        }
    }
}

/// Elements per batch on the fixed-size path. A batch's stencil values are
/// all gathered before its first element is evaluated, so an element never
/// reads values stored a moment before: when an element's loads are wider
/// than the gather's stores (two coordinates at once), reading them
/// straight after the stores stalls on store forwarding.
pub(crate) const BATCH: usize = 16;

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
    /// The energy of element `i` of a set.
    #[doc(hidden)]
    fn value<E: Element<Size = Self>>(e: &E, at: &At, i: usize) -> f64;
    /// The energies of `items[first..first + out.len()]` (at most
    /// [`BATCH`]) into `out`.
    #[doc(hidden)]
    fn values<E: Element<Size = Self>>(items: &[E], first: usize, at: &At, out: &mut [f64]);
    /// The energies of `items[first..first + vals.len()]` (at most
    /// [`BATCH`]) into `vals` and their gradients (`stride` entries each)
    /// into `grads`, from one evaluation per element where it writes
    /// [`Element::value_and_gradient`].
    #[doc(hidden)]
    fn values_and_gradients<E: Element<Size = Self>>(
        items: &[E],
        first: usize,
        at: &At,
        stride: usize,
        vals: &mut [f64],
        grads: &mut [f64],
    );
    /// Block `K` ([`Block::code`]) of `items[first..]`, `stride` entries
    /// each, into `out` (at most [`BATCH`] blocks), from the dual-number
    /// fallback if `FALLBACK`; the kind and the choice are compile-time
    /// constants so that the per-element path carries no dispatch.
    #[doc(hidden)]
    fn blocks<E: Element<Size = Self>, const K: u8, const FALLBACK: bool>(
        items: &[E],
        first: usize,
        at: &At,
        stride: usize,
        out: &mut [f64],
    );
    #[doc(hidden)]
    fn has_map<E: Element<Size = Self>>(e: &E) -> bool;
    #[doc(hidden)]
    fn with_local<E: Element<Size = Self>, T>(
        e: &E,
        at: &At,
        i: usize,
        f: impl FnOnce(&Local) -> T,
    ) -> T;
}

/// The gathered local states of up to [`BATCH`] elements (`x_prev` only
/// for elements with history).
struct Batch<'b, const N: usize, const P: usize> {
    x: &'b mut [[f64; N]; BATCH],
    x_prev: Option<&'b mut [[f64; N]; BATCH]>,
    p: &'b mut [[f64; P]; BATCH],
}

impl<const N: usize, const P: usize> Batch<'_, N, P> {
    /// Runs `f` on a batch on the stack, with room for the previous state
    /// only if `E` has history.
    #[inline(always)]
    fn with<E: Element, T>(f: impl FnOnce(Batch<'_, N, P>) -> T) -> T {
        let mut x = [[0.0; N]; BATCH];
        let mut p = [[0.0; P]; BATCH];
        if E::HISTORY {
            let mut xp = [[0.0; N]; BATCH];
            f(Batch {
                x: &mut x,
                x_prev: Some(&mut xp),
                p: &mut p,
            })
        } else {
            f(Batch {
                x: &mut x,
                x_prev: None,
                p: &mut p,
            })
        }
    }
    /// Gathers elements `first..first + m` of the set.
    #[inline(always)]
    fn gather(&mut self, at: &At, first: usize, m: usize) {
        for j in 0..m {
            let xp = self.x_prev.as_deref_mut().map(|xp| &mut xp[j]);
            gather_into::<N, P>(at, first + j, &mut self.x[j], xp, &mut self.p[j]);
        }
    }
    #[inline(always)]
    fn local(&self, j: usize, ctx: Ctx) -> Local<'_> {
        let x = &self.x[j];
        Local {
            x,
            x_prev: self.x_prev.as_deref().map_or(x, |xp| &xp[j]),
            p: &self.p[j],
            ctx,
        }
    }
}

impl<const N: usize, const P: usize, const R: usize> Sizes for Stencil<N, P, R> {
    const N: usize = N;
    const P: usize = P;
    const R: usize = R;

    fn value<E: Element<Size = Self>>(e: &E, at: &At, i: usize) -> f64 {
        let (mut x, mut xp, mut p) = ([0.0; N], [0.0; N], [0.0; P]);
        gather_into::<N, P>(at, i, &mut x, E::HISTORY.then_some(&mut xp), &mut p);
        let l = Local {
            x: &x,
            x_prev: if E::HISTORY { &xp } else { &x },
            p: &p,
            ctx: at.ctx(),
        };
        value_of::<E, N, R>(e, &l)
    }

    #[inline(always)]
    fn values<E: Element<Size = Self>>(items: &[E], first: usize, at: &At, out: &mut [f64]) {
        Batch::<N, P>::with::<E, _>(|mut b| {
            b.gather(at, first, out.len());
            let ctx = at.ctx();
            for (j, o) in out.iter_mut().enumerate() {
                *o = value_of::<E, N, R>(&items[first + j], &b.local(j, ctx));
            }
        })
    }

    #[inline(always)]
    fn values_and_gradients<E: Element<Size = Self>>(
        items: &[E],
        first: usize,
        at: &At,
        stride: usize,
        vals: &mut [f64],
        grads: &mut [f64],
    ) {
        const GRADIENT: u8 = Block::Gradient.code();
        Batch::<N, P>::with::<E, _>(|mut b| {
            b.gather(at, first, vals.len());
            let ctx = at.ctx();
            for ((j, v), o) in vals.iter_mut().enumerate().zip(grads.chunks_mut(stride)) {
                let l = b.local(j, ctx);
                let e = &items[first + j];
                let fused = match at.compact {
                    None => e.value_and_gradient(&l, o),
                    Some(keep) => {
                        let mut g = [0.0; N];
                        let v = e.value_and_gradient(&l, &mut g);
                        for (o, &i) in o.iter_mut().zip(keep) {
                            *o = g[i];
                        }
                        v
                    }
                };
                *v = match fused {
                    Some(value) => value,
                    None => {
                        block::<E, N, P, R, GRADIENT, false>(e, &l, at.compact, o);
                        value_of::<E, N, R>(e, &l)
                    }
                };
            }
        })
    }

    #[inline(always)]
    fn blocks<E: Element<Size = Self>, const K: u8, const FALLBACK: bool>(
        items: &[E],
        first: usize,
        at: &At,
        stride: usize,
        out: &mut [f64],
    ) {
        Batch::<N, P>::with::<E, _>(|mut b| {
            b.gather(at, first, out.len() / stride);
            let ctx = at.ctx();
            for (j, o) in out.chunks_mut(stride).enumerate() {
                let l = b.local(j, ctx);
                block::<E, N, P, R, K, FALLBACK>(&items[first + j], &l, at.compact, o);
            }
        })
    }

    fn has_map<E: Element<Size = Self>>(e: &E) -> bool {
        let mut b = [[0.0; N]; R];
        e.map(b.as_flattened_mut())
    }

    fn with_local<E: Element<Size = Self>, T>(
        _: &E,
        at: &At,
        i: usize,
        f: impl FnOnce(&Local) -> T,
    ) -> T {
        let (mut x, mut xp, mut p) = ([0.0; N], [0.0; N], [0.0; P]);
        gather_into::<N, P>(at, i, &mut x, E::HISTORY.then_some(&mut xp), &mut p);
        f(&Local {
            x: &x,
            x_prev: if E::HISTORY { &xp } else { &x },
            p: &p,
            ctx: at.ctx(),
        })
    }
}

/// The element's energy at its local state, J.
#[inline(always)]
fn value_of<E: Element, const N: usize, const R: usize>(e: &E, l: &Local) -> f64 {
    if let Some(v) = e.value(l) {
        return v;
    }
    let x: &[f64; N] = l.x.try_into().expect("N stencil values");
    if R == N {
        e.energy(l.x, l.x_prev, l.p, &l.ctx)
    } else {
        let r = reduce_only::<E, N, R>(e, x);
        let rp = if E::HISTORY {
            reduce_only::<E, N, R>(e, l.x_prev.try_into().expect("N stencil values"))
        } else {
            r
        };
        e.energy(&r, &rp, l.p, &l.ctx)
    }
}

/// Block `K` of one element at its local state; in a 2-D model (`compact`)
/// the 3-D embedding is evaluated and the slots that exist are kept.
#[inline(always)]
fn block<
    E: Element,
    const N: usize,
    const P: usize,
    const R: usize,
    const K: u8,
    const FALLBACK: bool,
>(
    e: &E,
    l: &Local,
    compact: Option<&[usize]>,
    out: &mut [f64],
) {
    let (kind, fallback) = (Block::of_code(K), FALLBACK);
    let Some(keep) = compact else {
        return full::<E, N, P, R>(e, l, kind, fallback, out);
    };
    let ns = keep.len();
    match kind {
        Block::Gradient => {
            let mut g = [0.0; N];
            full::<E, N, P, R>(e, l, kind, fallback, &mut g);
            for (o, &i) in out.iter_mut().zip(keep) {
                *o = g[i];
            }
        }
        Block::Hessian | Block::History => {
            let mut h = [[0.0; N]; N];
            full::<E, N, P, R>(e, l, kind, fallback, h.as_flattened_mut());
            for (a, &i) in keep.iter().enumerate() {
                for (b, &j) in keep.iter().enumerate() {
                    out[a * ns + b] = h[i][j];
                }
            }
        }
        Block::Param => {
            let mut h = [[0.0; P]; N];
            full::<E, N, P, R>(e, l, kind, fallback, h.as_flattened_mut());
            for (a, &i) in keep.iter().enumerate() {
                out[a * P..(a + 1) * P].copy_from_slice(&h[i]);
            }
        }
        Block::ParamGradient => full::<E, N, P, R>(e, l, kind, fallback, out),
    }
}

/// Element `i`'s stencil values at the evaluation point and, with history,
/// at the previous state, and its parameter slots.
#[inline(always)]
fn gather_into<const N: usize, const P: usize>(
    at: &At,
    i: usize,
    x: &mut [f64; N],
    xp: Option<&mut [f64; N]>,
    p: &mut [f64; P],
) {
    let dofs: &[usize; N] = at.dofs[i * N..(i + 1) * N]
        .try_into()
        .expect("a stencil has N DOFs");
    // Only a 2-D model has absent slots (the `z` of its nodes).
    if at.compact.is_none() {
        load(at.s.q, dofs, x);
        if let Some(xp) = xp {
            load(at.s.q_prev, dofs, xp);
        }
    } else {
        load_2d(at.s.q, dofs, x);
        if let Some(xp) = xp {
            load_2d(at.s.q_prev, dofs, xp);
        }
    }
    for (pk, &j) in p.iter_mut().zip(&at.params[i * P..(i + 1) * P]) {
        *pk = if j == NO_PARAM { 0.0 } else { at.s.p[j] };
    }
}

#[inline(always)]
fn load<const N: usize>(v: &[f64], dofs: &[usize; N], out: &mut [f64; N]) {
    for (o, &d) in out.iter_mut().zip(dofs) {
        *o = v[d];
    }
}

#[inline(always)]
fn load_2d<const N: usize>(v: &[f64], dofs: &[usize; N], out: &mut [f64; N]) {
    for (o, &d) in out.iter_mut().zip(dofs) {
        *o = if d == ABSENT { 0.0 } else { v[d] };
    }
}

/// `r = B x`, building `B` only when the element does not reduce itself.
#[inline]
fn reduce_only<E: Element, const N: usize, const R: usize>(e: &E, x: &[f64; N]) -> [f64; R] {
    let mut r = [0.0; R];
    if !e.reduce(x, &mut r) {
        let b = map::<E, N, R>(e);
        for (i, ri) in r.iter_mut().enumerate() {
            *ri = (0..N).map(|j| b[i][j] * x[j]).sum();
        }
    }
    r
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
#[inline(always)]
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

// Out of line: the dual-number frames are large, and the analytic path
// that shares `full` with them should not pay for their stack.
#[inline(never)]
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

#[inline(never)]
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

#[inline(never)]
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

#[inline(never)]
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

#[inline(never)]
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
