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
//! and twists), so the dual-number fallback differentiates over `r` (the
//! element's [`Stencil<11, 5, 8>`](pliant_core::Stencil)), and the analytic
//! path chains its `r`-space derivatives with the constant, sparse `B`.
//!
//! **Channels (§6.1).** Slot values are `gain × channel`; an undriven slot
//! reads no channel and has gain 0. The natural values are
//! `κ̄⁽ᵃ⁾ = κ̄⁽ᵃ⁾_rest + Δl · gain · p` (channel in 1/m, Δl the spring's
//! Voronoi length: the discrete curvature is the physical one times `Δl`,
//! §7.1), `τ̄ = τ̄_rest + Δl · gain · p` (channel in rad/m), and the natural
//! length `|ē| (1 + gain · p)` (channel a dimensionless natural strain).

use crate::bend_twist::{BendTwist, BtEval, R};
use crate::frames::EdgeFrame;
use crate::stretch::{StretchEval, StretchSpring};
use pliant_core::{Ctx, Element, Local, Scalar, Stencil};
use std::sync::Arc;

/// Stencil size.
pub const N: usize = 11;
/// Parameter slots of an actuated element.
pub const SLOTS: usize = 5;

/// One rod element (see the module documentation).
#[derive(Debug, Clone)]
pub struct RodEl {
    /// Stencil nodes `[m, n, o]`.
    pub nodes: [usize; 3],
    /// Twist DOFs `[θⁱ, θʲ]`.
    pub twists: [usize; 2],
    /// Orientation signs `[s_i, s_j]`.
    pub sign: [f64; 2],
    /// Stretching springs of the owned edges `i`, `j`.
    pub stretch: [Option<StretchSpring>; 2],
    /// The bending–twisting spring (`None` for a lone edge).
    pub bt: Option<BendTwist>,
    /// Channel of each slot (`None`: undriven).
    pub channels: [Option<Arc<str>>; SLOTS],
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

impl RodEl {
    /// `gain × channel` of slot `k`.
    #[inline]
    fn slot<D: Scalar>(&self, p: &[D], k: usize) -> D {
        if self.gains[k] == 0.0 {
            D::from(0.0)
        } else {
            p[k] * self.gains[k]
        }
    }

    /// Reduced variables from the stencil values `x` (`N`).
    #[inline]
    fn r_of(&self, x: &[f64]) -> [f64; R] {
        let mut r = [0.0; R];
        for a in 0..3 {
            r[a] = x[3 + a] - x[a];
            r[3 + a] = x[6 + a] - x[3 + a];
        }
        r[6] = self.sign[0] * x[9];
        r[7] = self.sign[1] * x[10];
        r
    }

    /// Stretching, bending and twisting energy (J) at the stencil values `x`
    /// and slot values `p`, without derivatives (bit for bit the `parts` of
    /// [`RodEl::eval`]).
    pub fn value_parts(&self, x: &[f64], p: &[f64]) -> [f64; 3] {
        let r = self.r_of(x);
        let pv = p;
        let mut parts = [0.0; 3];
        for k in 0..2 {
            if let Some(s) = &self.stretch[k] {
                let e = [r[3 * k], r[3 * k + 1], r[3 * k + 2]];
                parts[0] += s.value(&e, self.slot(pv, 3 + k)).0;
            }
        }
        if let Some(bt) = &self.bt {
            let kbar = [
                bt.kappa_bar[0] + self.slot(pv, 0),
                bt.kappa_bar[1] + self.slot(pv, 1),
            ];
            let tbar = bt.tau_bar + self.slot(pv, 2);
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

    /// Analytic value and derivatives at the stencil values `x` and slot
    /// values `p`; the Hessian only when `HESS`.
    pub fn eval<const HESS: bool>(&self, x: &[f64], p: &[f64]) -> ElEval {
        let r = self.r_of(x);
        let pv = p;
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
                let ev: StretchEval = s.eval(&e, self.slot(pv, 3 + k));
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
                bt.kappa_bar[0] + self.slot(pv, 0),
                bt.kappa_bar[1] + self.slot(pv, 1),
            ];
            let tbar = bt.tau_bar + self.slot(pv, 2);
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

impl Element for RodEl {
    type Size = Stencil<N, SLOTS, R>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn extra_dofs(&self) -> &[usize] {
        &self.twists
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        self.channels.iter().map(|c| c.as_deref())
    }
    fn map(&self, b: &mut [f64]) -> bool {
        for c in 0..N {
            for (i, v) in self.col(c) {
                b[i * N + c] += v;
            }
        }
        true
    }
    fn reduce(&self, x: &[f64], r: &mut [f64]) -> bool {
        r.copy_from_slice(&self.r_of(x));
        true
    }
    fn energy<D: Scalar>(&self, r: &[D], _rp: &[D], p: &[D], _c: &Ctx) -> D {
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
    fn value(&self, l: &Local) -> Option<f64> {
        let v = self.value_parts(l.x, l.p);
        Some(v[0] + v[1] + v[2])
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        self.scatter_vec(&self.eval::<false>(l.x, l.p).grad, g);
        true
    }
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        self.scatter_mat(&self.eval::<true>(l.x, l.p).hess, h);
        true
    }
    fn param_block(&self, l: &Local, b: &mut [f64]) -> bool {
        let ev = self.eval::<false>(l.x, l.p);
        let mut col = [0.0; N];
        for k in 0..SLOTS {
            self.scatter_vec(&ev.pblock[k], &mut col);
            for (row, v) in col.iter().enumerate() {
                b[row * SLOTS + k] = *v;
            }
        }
        true
    }
    fn param_gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        g.copy_from_slice(&self.eval::<false>(l.x, l.p).pgrad);
        true
    }
}
