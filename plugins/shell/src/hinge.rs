//! Hinge bending (MAT-DiSMech §3.3.1, eq. 17; Grinspun et al. 2003).
//!
//! A hinge is an interior edge from `e₀` to `e₁` shared by the triangles
//! `(e₀, e₁, a)` and `(e₁, e₀, b)` (both counter-clockwise). With
//! `e = e₁ − e₀`, the unnormalized normals `n₁ = e × (a − e₀)` and
//! `n₂ = (b − e₀) × e`, the signed hinge angle is
//!
//! `φ = atan2(ê · (n₁ × n₂), n₁ · n₂)` (rad),
//!
//! zero for a flat pair, positive when the faces fold away from the side
//! their normals point to (a mountain fold seen from `+n`). The energy is
//!
//! `E = ½ k_b (φ − φ̄)²` (J, eq. 17), `k_b = 2 E h³ / (12 √3)` (J/rad²),
//!
//! where the difference `φ − φ̄` is taken on the circle (in `(−π, π]`), so
//! the energy is smooth wherever the fold differs from its natural angle
//! by less than π, including through `φ = ±π`. The natural angle
//! `φ̄ = φ̄₀ + g·u` is the rest angle plus a gain times a control channel
//! `u` (the manta ray's actuation).
//!
//! **The factor 2.** Eq. 17 prints `k_b = E h³/(12√3)`; with it, bending a
//! flat equilateral sheet into a cylinder costs half the plate energy
//! `D κ² A/2` of `D = E h³/12` (measured in `tests/closed_form.rs`), i.e. the
//! hinge sheet would be half as stiff as the beam it is validated against
//! in §7.2. MAT-DiSMech's own code uses `2/√3 · E h³/12`, which gives
//! `D = E h³/12` (a plate with ν = 0) on equilateral meshes; pliant uses
//! that. Hinge bending ignores ν.
//!
//! Gradient (exact): with heights `h_a = |n₁|/|e|`, `h_b = |n₂|/|e|` and the
//! projections `t_a = (a − e₀)·e/|e|²`, `t_b = (b − e₀)·e/|e|²`,
//! `∂φ/∂a = −|e| n₁/|n₁|²`, `∂φ/∂b = −|e| n₂/|n₂|²`,
//! `∂φ/∂e₀ = −(1 − t_a) ∂φ/∂a − (1 − t_b) ∂φ/∂b`,
//! `∂φ/∂e₁ = −t_a ∂φ/∂a − t_b ∂φ/∂b`.
//! The Hessian `k_b (∇φ ∇φᵀ + (φ − φ̄) ∇²φ)` differentiates these formulas
//! along each of the 12 coordinate directions in closed form.

use crate::youngs::Youngs;
use pliant_core::vec3::{V3, cross, dot, load, norm, sub};
use pliant_core::{Ctx, Element, Local, Scalar, Stencil, atan2};
use std::sync::Arc;

/// `2/(12√3) = 1/(6√3)`: `k_b = 2 E h³/(12√3)` (see the module documentation).
pub(crate) const HINGE_FACTOR: f64 = 0.096_225_044_864_937_63;

/// One hinge; slot 0 reads Young's modulus when it is a channel, slot 1
/// the natural-angle channel.
#[derive(Debug, Clone)]
pub(crate) struct HingeEl {
    /// `[e₀, e₁, a, b]`.
    pub nodes: [usize; 4],
    /// `k_b / E_Y = 2 h³/(12√3)`, m³ (J/rad² per Pa).
    pub kb_per_pa: f64,
    pub youngs: Youngs,
    /// Rest angle φ̄₀, rad.
    pub rest: f64,
    /// Natural-angle channel and its gain (rad per unit).
    pub actuation: Option<(Arc<str>, f64)>,
}

/// φ and its gradient at the 12 coordinates `x`, plus what the Hessian needs.
struct Geometry {
    phi: f64,
    grad: [f64; 12],
    e: [f64; 3],
    ua: [f64; 3],
    ub: [f64; 3],
    n1: [f64; 3],
    n2: [f64; 3],
    ga: [f64; 3],
    gb: [f64; 3],
    ta: f64,
    tb: f64,
}

fn scaled(s: f64, v: &[f64; 3]) -> [f64; 3] {
    v.map(|x| s * x)
}

impl Geometry {
    fn at(x: &[f64]) -> Self {
        let (e0, e1, a, b) = (load(x, 0), load(x, 3), load(x, 6), load(x, 9));
        let e = sub(&e1, &e0);
        let (ua, ub) = (sub(&a, &e0), sub(&b, &e0));
        let n1 = cross(&e, &ua);
        let n2 = cross(&ub, &e);
        let le = norm(&e);
        let ee = dot(&e, &e);
        let phi = dot(&e, &cross(&n1, &n2)).atan2(le * dot(&n1, &n2));
        let ga = scaled(-le / dot(&n1, &n1), &n1);
        let gb = scaled(-le / dot(&n2, &n2), &n2);
        let (ta, tb) = (dot(&ua, &e) / ee, dot(&ub, &e) / ee);
        let mut grad = [0.0; 12];
        for k in 0..3 {
            grad[k] = -(1.0 - ta) * ga[k] - (1.0 - tb) * gb[k];
            grad[3 + k] = -ta * ga[k] - tb * gb[k];
            grad[6 + k] = ga[k];
            grad[9 + k] = gb[k];
        }
        Self {
            phi,
            grad,
            e,
            ua,
            ub,
            n1,
            n2,
            ga,
            gb,
            ta,
            tb,
        }
    }

    /// `∇²φ` (12 × 12, row-major): column `c` is the derivative of the
    /// gradient formulas along coordinate `c`.
    fn hessian(&self, out: &mut [f64; 144]) {
        let (e, ua, ub, n1, n2) = (&self.e, &self.ua, &self.ub, &self.n1, &self.n2);
        let le = norm(e);
        let ee = le * le;
        let (nn1, nn2) = (dot(n1, n1), dot(n2, n2));
        // d(−|e| n/|n|²) for a change (de, dn).
        let dg = |n: &[f64; 3], nn: f64, de: &[f64; 3], dn: &[f64; 3]| -> [f64; 3] {
            let dle = dot(e, de) / le;
            let ndn = dot(n, dn);
            std::array::from_fn(|k| {
                -(dle * n[k] / nn + le * dn[k] / nn - 2.0 * le * n[k] * ndn / (nn * nn))
            })
        };
        let dt = |u: &[f64; 3], du: &[f64; 3], de: &[f64; 3]| -> f64 {
            (dot(du, e) + dot(u, de)) / ee - 2.0 * dot(u, e) * dot(e, de) / (ee * ee)
        };
        for c in 0..12 {
            let (node, axis) = (c / 3, c % 3);
            let mut unit = [0.0; 3];
            unit[axis] = 1.0;
            let zero = [0.0; 3];
            let minus = scaled(-1.0, &unit);
            // Changes of e = e₁ − e₀, u_a = a − e₀, u_b = b − e₀.
            let (de, dua, dub) = match node {
                0 => (minus, minus, minus),
                1 => (unit, zero, zero),
                2 => (zero, unit, zero),
                _ => (zero, zero, unit),
            };
            let dn1 = {
                let (p, q) = (cross(&de, ua), cross(e, &dua));
                [p[0] + q[0], p[1] + q[1], p[2] + q[2]]
            };
            let dn2 = {
                let (p, q) = (cross(&dub, e), cross(ub, &de));
                [p[0] + q[0], p[1] + q[1], p[2] + q[2]]
            };
            let (dga, dgb) = (dg(n1, nn1, &de, &dn1), dg(n2, nn2, &de, &dn2));
            let (dta, dtb) = (dt(ua, &dua, &de), dt(ub, &dub, &de));
            for k in 0..3 {
                let col = [
                    dta * self.ga[k] - (1.0 - self.ta) * dga[k] + dtb * self.gb[k]
                        - (1.0 - self.tb) * dgb[k],
                    -dta * self.ga[k] - self.ta * dga[k] - dtb * self.gb[k] - self.tb * dgb[k],
                    dga[k],
                    dgb[k],
                ];
                for (m, v) in col.iter().enumerate() {
                    out[(3 * m + k) * 12 + c] = *v;
                }
            }
        }
    }
}

/// `φ − φ̄` on the circle, in `(−π, π]`.
fn wrap(d: f64) -> f64 {
    let s = d.sin();
    s.atan2(d.cos())
}

impl HingeEl {
    fn natural(&self, p: &[f64]) -> f64 {
        self.rest + self.actuation.as_ref().map_or(0.0, |(_, g)| g * p[1])
    }
}

impl Element for HingeEl {
    type Size = Stencil<12, 2>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [
            self.youngs.channel(),
            self.actuation.as_ref().map(|(c, _)| &**c),
        ]
    }
    fn energy<D: Scalar>(&self, x: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let (e0, e1, a, b): (V3<D>, V3<D>, V3<D>, V3<D>) =
            (load(x, 0), load(x, 3), load(x, 6), load(x, 9));
        let e = sub(&e1, &e0);
        let n1 = cross(&e, &sub(&a, &e0));
        let n2 = cross(&sub(&b, &e0), &e);
        let le = norm(&e);
        // sin φ and cos φ, each times |e| |n₁| |n₂|.
        let s = dot(&e, &cross(&n1, &n2));
        let c = le * dot(&n1, &n2);
        let natural = match &self.actuation {
            Some((_, g)) => p[1] * *g + self.rest,
            None => D::from(self.rest),
        };
        let (sn, cn) = (natural.sin(), natural.cos());
        // φ − φ̄ = atan2(sin φ cos φ̄ − cos φ sin φ̄, cos φ cos φ̄ + sin φ sin φ̄).
        let d = atan2(s * cn - c * sn, c * cn + s * sn);
        d * d * self.youngs.of(p) * (0.5 * self.kb_per_pa)
    }
    fn value(&self, l: &Local) -> Option<f64> {
        let g = Geometry::at(l.x);
        let d = wrap(g.phi - self.natural(l.p));
        Some(0.5 * self.kb_per_pa * self.youngs.value(l.p) * d * d)
    }
    fn gradient(&self, l: &Local, out: &mut [f64]) -> bool {
        let g = Geometry::at(l.x);
        let kd = self.kb_per_pa * self.youngs.value(l.p) * wrap(g.phi - self.natural(l.p));
        for (o, v) in out.iter_mut().zip(&g.grad) {
            *o = kd * v;
        }
        true
    }
    fn hessian(&self, l: &Local, out: &mut [f64]) -> bool {
        let g = Geometry::at(l.x);
        let kb = self.kb_per_pa * self.youngs.value(l.p);
        let d = wrap(g.phi - self.natural(l.p));
        let mut h2 = [0.0; 144];
        g.hessian(&mut h2);
        for r in 0..12 {
            for c in 0..12 {
                // Symmetrize the round-off of the directional derivatives.
                let second = 0.5 * (h2[r * 12 + c] + h2[c * 12 + r]);
                out[r * 12 + c] = kb * (g.grad[r] * g.grad[c] + d * second);
            }
        }
        true
    }
    fn param_block(&self, l: &Local, out: &mut [f64]) -> bool {
        let g = Geometry::at(l.x);
        let e = self.youngs.value(l.p);
        let d = wrap(g.phi - self.natural(l.p));
        let gain = self.actuation.as_ref().map_or(0.0, |(_, k)| *k);
        for r in 0..12 {
            out[2 * r] = if self.youngs.channel().is_some() {
                self.kb_per_pa * d * g.grad[r]
            } else {
                0.0
            };
            out[2 * r + 1] = -self.kb_per_pa * e * gain * g.grad[r];
        }
        true
    }
    fn param_gradient(&self, l: &Local, out: &mut [f64]) -> bool {
        let g = Geometry::at(l.x);
        let e = self.youngs.value(l.p);
        let d = wrap(g.phi - self.natural(l.p));
        let gain = self.actuation.as_ref().map_or(0.0, |(_, k)| *k);
        out[0] = if self.youngs.channel().is_some() {
            0.5 * self.kb_per_pa * d * d
        } else {
            0.0
        };
        out[1] = -self.kb_per_pa * e * gain * d;
        true
    }
}

/// The signed hinge angle φ (rad) of the hinge `[e₀, e₁, a, b]` at
/// positions `x` (see the module documentation).
pub(crate) fn angle(x: &[[f64; 3]; 4]) -> f64 {
    let flat: Vec<f64> = x.iter().flatten().copied().collect();
    Geometry::at(&flat).phi
}
