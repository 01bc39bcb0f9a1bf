//! One element of a rod's element set: a bending–twisting spring together
//! with the stretching springs of the edges it owns (or a lone edge's
//! stretching spring), over the stencil
//!
//! `[x_m (3), x_n (3), x_o (3), θⁱ, θʲ]` (11 DOFs: m, m, m, rad, rad)
//!
//! and reading up to five parameter slots
//!
//! `[κ̄⁽¹⁾, κ̄⁽²⁾, τ̄, natural strain of edge i, natural strain of edge j]`.
//!
//! The energy depends on the stencil only through the 8 reduced variables
//! `r = B x = (x_n − x_m, x_o − x_n, s_i θⁱ, s_j θʲ)` (the oriented edges
//! and twists), so the dual-number fallback is a
//! [`ReducedElement`](pliant_core::ReducedElement) over `r` (see
//! [`pliant_core::reduced`]), and the analytic path chains its `r`-space
//! derivatives with the constant, sparse `B`.
//!
//! **Channels (§6.1).** Slot values are `gain × channel`; an undriven slot
//! has gain 0 (and points at any channel, so every element of a set reads
//! the same number of slots). The natural values are
//! `κ̄⁽ᵃ⁾ = κ̄⁽ᵃ⁾_rest + Δl · gain · p` (channel in 1/m, Δl the spring's
//! Voronoi length: the discrete curvature is the physical one times `Δl`,
//! §7.1), `τ̄ = τ̄_rest + Δl · gain · p` (channel in rad/m), and the natural
//! length `|ē| (1 + gain · p)` (channel a dimensionless natural strain).

use crate::bend_twist::{BendTwist, BtEval, R};
use crate::frames::EdgeFrame;
use crate::stretch::{StretchEval, StretchSpring};
use pliant_core::element::{Ctx, ElementSet, deterministic_sum, for_each_block};
use pliant_core::energy::EvalState;
use pliant_core::num_dual::DualNum;
use pliant_core::reduced::{ReducedElement, ReducedElements};

/// Stencil size.
pub const N: usize = 11;
/// Parameter slots of an actuated element.
pub const SLOTS: usize = 5;

/// One rod element (see the module documentation).
#[derive(Debug, Clone)]
pub struct RodEl<const P: usize> {
    /// Stencil DOFs `[x_m, x_n, x_o, θⁱ, θʲ]`.
    pub dofs: [usize; N],
    /// Orientation signs `[s_i, s_j]`.
    pub sign: [f64; 2],
    /// Stretching springs of the owned edges `i`, `j`.
    pub stretch: [Option<StretchSpring>; 2],
    /// The bending–twisting spring (`None` for a lone edge).
    pub bt: Option<BendTwist>,
    /// Parameter indices of the slots (`P` is 0 or [`SLOTS`]).
    pub params: [usize; P],
    /// Per slot: `Δl · gain` for the three natural-value slots, `gain` for
    /// the two stretch slots; 0 when undriven.
    pub gains: [f64; SLOTS],
}

/// Value and derivatives of one element over `r`.
#[derive(Debug, Clone)]
pub struct ElEval {
    /// Stretching, bending, twisting energy, J.
    pub parts: [f64; 3],
    /// Axial strains of the owned edges.
    pub strain: [Option<f64>; 2],
    /// `(κ⁽¹⁾, κ⁽²⁾, τ)` of the spring.
    pub bend: Option<([f64; 2], f64)>,
    /// `∂E/∂r`.
    pub grad: [f64; R],
    /// `∂²E/∂r²` (when asked for).
    pub hess: [[f64; R]; R],
    /// `∂E/∂p` per slot.
    pub pgrad: [f64; SLOTS],
    /// `∂²E/∂r∂p` per slot.
    pub pblock: [[f64; R]; SLOTS],
}

impl<const P: usize> RodEl<P> {
    /// `gain × channel` of slot `k`.
    #[inline]
    fn slot<D: DualNum<f64> + Copy>(&self, p: &[D; P], k: usize) -> D {
        if P == 0 || self.gains[k] == 0.0 {
            D::from(0.0)
        } else {
            p[k] * self.gains[k]
        }
    }

    /// Reduced variables from the global state.
    #[inline]
    fn r_of(&self, q: &[f64]) -> [f64; R] {
        let d = &self.dofs;
        let mut r = [0.0; R];
        for a in 0..3 {
            r[a] = q[d[3 + a]] - q[d[a]];
            r[3 + a] = q[d[6 + a]] - q[d[3 + a]];
        }
        r[6] = self.sign[0] * q[d[9]];
        r[7] = self.sign[1] * q[d[10]];
        r
    }

    /// Stretching, bending and twisting energy (J) at the global state,
    /// without derivatives (bit for bit the `parts` of [`RodEl::eval`]).
    pub fn value(&self, q: &[f64], p: &[f64]) -> [f64; 3] {
        let r = self.r_of(q);
        let pv: [f64; P] = std::array::from_fn(|k| p[self.params[k]]);
        let mut parts = [0.0; 3];
        for k in 0..2 {
            if let Some(s) = &self.stretch[k] {
                let e = [r[3 * k], r[3 * k + 1], r[3 * k + 2]];
                parts[0] += s.value(&e, self.slot(&pv, 3 + k)).0;
            }
        }
        if let Some(bt) = &self.bt {
            let kbar = [
                bt.kappa_bar[0] + self.slot(&pv, 0),
                bt.kappa_bar[1] + self.slot(&pv, 1),
            ];
            let tbar = bt.tau_bar + self.slot(&pv, 2);
            let (_, _, b, t) = bt.value(
                &[r[0], r[1], r[2]],
                &[r[3], r[4], r[5]],
                [r[6], r[7]],
                kbar,
                tbar,
            );
            parts[1] = b;
            parts[2] = t;
        }
        parts
    }

    /// Analytic value and derivatives at the global state; the Hessian only
    /// when `HESS`.
    pub fn eval<const HESS: bool>(&self, q: &[f64], p: &[f64]) -> ElEval {
        let r = self.r_of(q);
        let pv: [f64; P] = std::array::from_fn(|k| p[self.params[k]]);
        let mut o = ElEval {
            parts: [0.0; 3],
            strain: [None; 2],
            bend: None,
            grad: [0.0; R],
            hess: [[0.0; R]; R],
            pgrad: [0.0; SLOTS],
            pblock: [[0.0; R]; SLOTS],
        };
        for k in 0..2 {
            if let Some(s) = &self.stretch[k] {
                let e = [r[3 * k], r[3 * k + 1], r[3 * k + 2]];
                let ev: StretchEval = s.eval(&e, self.slot(&pv, 3 + k));
                o.parts[0] += ev.energy;
                o.strain[k] = Some(ev.strain);
                let g = self.gains[3 + k];
                o.pgrad[3 + k] = g * ev.dc;
                for a in 0..3 {
                    o.grad[3 * k + a] += ev.grad[a];
                    o.pblock[3 + k][3 * k + a] = g * ev.grad_dc[a];
                    if HESS {
                        for b in 0..3 {
                            o.hess[3 * k + a][3 * k + b] += ev.hess[a][b];
                        }
                    }
                }
            }
        }
        if let Some(bt) = &self.bt {
            let kbar = [
                bt.kappa_bar[0] + self.slot(&pv, 0),
                bt.kappa_bar[1] + self.slot(&pv, 1),
            ];
            let tbar = bt.tau_bar + self.slot(&pv, 2);
            let ei = [r[0], r[1], r[2]];
            let ej = [r[3], r[4], r[5]];
            let ev: BtEval = bt.eval::<HESS>(&ei, &ej, [r[6], r[7]], kbar, tbar);
            o.parts[1] = ev.bend;
            o.parts[2] = ev.twist;
            o.bend = Some((ev.kappa, ev.tau));
            for x in 0..R {
                o.grad[x] += ev.grad[x];
                if HESS {
                    for y in 0..R {
                        o.hess[x][y] += ev.hess[x][y];
                    }
                }
            }
            // κ̄ = κ̄_rest + g p: ∂E/∂p = −k (κ − κ̄) g, ∂²E/∂r∂p = −k g ∇κ.
            for a in 0..2 {
                let g = self.gains[a];
                o.pgrad[a] = -bt.kb * (ev.kappa[a] - kbar[a]) * g;
                o.pblock[a] = ev.d_kappa[a].map(|v| -bt.kb * g * v);
            }
            let g = self.gains[2];
            o.pgrad[2] = -bt.kt * (ev.tau - tbar) * g;
            o.pblock[2] = ev.d_tau.map(|v| -bt.kt * g * v);
        }
        o
    }

    /// `(r index, coefficient)` of the entries of column `c` of `B`.
    #[inline]
    fn col(&self, c: usize) -> [(usize, f64); 2] {
        match c {
            0..3 => [(c, -1.0), (c, 0.0)],
            3..6 => [(c - 3, 1.0), (c, -1.0)],
            6..9 => [(c - 3, 1.0), (c - 3, 0.0)],
            9 => [(6, self.sign[0]), (6, 0.0)],
            _ => [(7, self.sign[1]), (7, 0.0)],
        }
    }

    /// `out = Bᵀ v` (11 entries).
    pub fn scatter_vec(&self, v: &[f64; R], out: &mut [f64]) {
        for (c, o) in out[..N].iter_mut().enumerate() {
            *o = self.col(c).iter().map(|&(i, b)| b * v[i]).sum();
        }
    }

    /// `out = Bᵀ H B` (11 × 11, row-major).
    pub fn scatter_mat(&self, h: &[[f64; R]; R], out: &mut [f64]) {
        let mut m = [[0.0; N]; R]; // H B
        for c in 0..N {
            let col = self.col(c);
            for a in 0..R {
                m[a][c] = col.iter().map(|&(i, b)| b * h[a][i]).sum();
            }
        }
        for r in 0..N {
            let col = self.col(r);
            for c in 0..N {
                out[r * N + c] = col.iter().map(|&(i, b)| b * m[i][c]).sum();
            }
        }
    }

    /// Sets the lagged frames of the spring.
    pub fn set_frames(&mut self, fi: &EdgeFrame, fj: &EdgeFrame, psi0: f64) {
        if let Some(bt) = &mut self.bt {
            bt.set_frames(fi, fj, psi0);
        }
    }
}

impl<const P: usize> ReducedElement<N, R, P> for RodEl<P> {
    fn dofs(&self) -> [usize; N] {
        self.dofs
    }
    fn params(&self) -> [usize; P] {
        self.params
    }
    fn map(&self) -> [[f64; N]; R] {
        let mut b = [[0.0; N]; R];
        for c in 0..N {
            for (i, v) in self.col(c) {
                b[i][c] += v;
            }
        }
        b
    }
    fn reduce(&self, q: &[f64]) -> [f64; R] {
        self.r_of(q)
    }
    fn energy<D: DualNum<f64> + Copy>(&self, r: &[D; R], _rp: &[D; R], p: &[D; P], _c: &Ctx) -> D {
        let ei = [r[0], r[1], r[2]];
        let ej = [r[3], r[4], r[5]];
        let mut e = D::from(0.0);
        for (k, edge) in [&ei, &ej].into_iter().enumerate() {
            if let Some(s) = &self.stretch[k] {
                e += s.energy(edge, self.slot(p, 3 + k));
            }
        }
        if let Some(bt) = &self.bt {
            let kbar = [
                self.slot(p, 0) + bt.kappa_bar[0],
                self.slot(p, 1) + bt.kappa_bar[1],
            ];
            let tbar = self.slot(p, 2) + bt.tau_bar;
            let (b, t) = bt.energy_literal(&ei, &ej, [r[6], r[7]], kbar, tbar);
            e += b + t;
        }
        e
    }
}

/// A rod's bound element set with its analytic derivatives.
pub trait RodSet: ElementSet {
    /// Total energy, J (analytic path, thread-count-independent order).
    fn total(&self, s: &EvalState) -> f64;
    /// Stretching, bending and twisting energies, J.
    fn parts(&self, s: &EvalState) -> [f64; 3];
    /// Per-element gradients.
    fn grad(&self, s: &EvalState, out: &mut [f64]);
    /// Per-element Hessians.
    fn hess(&self, s: &EvalState, out: &mut [f64]);
    /// Per-element `∂²E/∂q∂p`.
    fn pblock(&self, s: &EvalState, out: &mut [f64]);
    /// Per-element `∂E/∂p`.
    fn pgrad(&self, s: &EvalState, out: &mut [f64]);
    /// Value and gradient (no Hessian) of element `i` at `(q, p)`.
    fn element(&self, i: usize, q: &[f64], p: &[f64]) -> ElEval;
    /// Energies of element `i` at `(q, p)` without derivatives.
    fn element_value(&self, i: usize, q: &[f64], p: &[f64]) -> [f64; 3];
    /// Sets the lagged frames of element `i`.
    fn set_frames(&mut self, i: usize, fi: &EdgeFrame, fj: &EdgeFrame, psi0: f64);
}

impl std::fmt::Debug for dyn RodSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} rod elements", self.len())
    }
}

/// The set type for `P` parameter slots.
pub type RodElements<const P: usize> = ReducedElements<RodEl<P>, N, R, P>;

impl<const P: usize> RodSet for RodElements<P> {
    fn total(&self, s: &EvalState) -> f64 {
        deterministic_sum(&self.items, |e| {
            let v = e.value(s.q, s.p);
            v[0] + v[1] + v[2]
        })
    }
    fn parts(&self, s: &EvalState) -> [f64; 3] {
        let mut out = [0.0; 3];
        for (k, o) in out.iter_mut().enumerate() {
            *o = deterministic_sum(&self.items, |e| e.value(s.q, s.p)[k]);
        }
        out
    }
    fn grad(&self, s: &EvalState, out: &mut [f64]) {
        for_each_block(out, N, &self.items, |o, e| {
            e.scatter_vec(&e.eval::<false>(s.q, s.p).grad, o)
        });
    }
    fn hess(&self, s: &EvalState, out: &mut [f64]) {
        for_each_block(out, N * N, &self.items, |o, e| {
            e.scatter_mat(&e.eval::<true>(s.q, s.p).hess, o)
        });
    }
    fn pblock(&self, s: &EvalState, out: &mut [f64]) {
        if P == 0 {
            return;
        }
        for_each_block(out, N * P, &self.items, |o, e| {
            let ev = e.eval::<false>(s.q, s.p);
            let mut col = [0.0; N];
            for k in 0..P {
                e.scatter_vec(&ev.pblock[k], &mut col);
                for (row, v) in col.iter().enumerate() {
                    o[row * P + k] = *v;
                }
            }
        });
    }
    fn pgrad(&self, s: &EvalState, out: &mut [f64]) {
        if P == 0 {
            return;
        }
        for_each_block(out, P, &self.items, |o, e| {
            o.copy_from_slice(&e.eval::<false>(s.q, s.p).pgrad[..P])
        });
    }
    fn element(&self, i: usize, q: &[f64], p: &[f64]) -> ElEval {
        self.items[i].eval::<false>(q, p)
    }
    fn element_value(&self, i: usize, q: &[f64], p: &[f64]) -> [f64; 3] {
        self.items[i].value(q, p)
    }
    fn set_frames(&mut self, i: usize, fi: &EdgeFrame, fj: &EdgeFrame, psi0: f64) {
        self.items[i].set_frames(fi, fj, psi0);
    }
}
