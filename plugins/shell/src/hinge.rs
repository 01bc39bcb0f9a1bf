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
//! in closed form, by 3 × 3 node blocks (see `Geometry::hessian`).

use crate::youngs::Youngs;
use pliant_core::mat3::{M3, mat_mul, skew};
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

    /// `∇²φ` (12 × 12, row-major, not yet symmetrized) by 3 × 3 node
    /// blocks. With `g_a = −|e| n₁/|n₁|²` a function of `(e, n₁)`, its
    /// Jacobians are `A₁ = ∂g_a/∂n₁ = −|e| (I/|n₁|² − 2 n₁n₁ᵀ/|n₁|⁴)` and
    /// `B₁ = ∂g_a/∂e|_{n₁} = −n₁ eᵀ/(|e| |n₁|²)`; `dn₁ = −[u_a]× de + [e]× du_a`
    /// (`u_a = a − e₀`), so `∂g_a/∂a = A₁[e]×`,
    /// `∂g_a/∂e₁ = −A₁[u_a]× + B₁` and `∂g_a/∂e₀ = −(∂g_a/∂a + ∂g_a/∂e₁)`;
    /// `g_b` likewise with `dn₂ = −[e]× du_b + [u_b]× de`. The projections
    /// have `∇t_a = e/|e|²` at `a` and `(u_a − 2 t_a e)/|e|²` at `e₁`. Row
    /// blocks: `a`, `b` are `∂g_a`, `∂g_b`; `e₁` is
    /// `−g_a ∇t_aᵀ − t_a ∂g_a − g_b ∇t_bᵀ − t_b ∂g_b`; `e₀` makes each
    /// column block sum to zero (φ is invariant under translation).
    fn hessian(&self, out: &mut [f64; 144]) {
        let (e, ua, ub, n1, n2) = (&self.e, &self.ua, &self.ub, &self.n1, &self.n2);
        let le = norm(e);
        let ee = le * le;
        // ∂g/∂n and ∂g/∂e of g = −|e| n/|n|².
        let jacobians = |n: &[f64; 3]| -> (M3, M3) {
            let nn = dot(n, n);
            let (s, t) = (-le / nn, 2.0 * le / (nn * nn));
            let dn = std::array::from_fn(|i| {
                std::array::from_fn(|j| t * n[i] * n[j] + if i == j { s } else { 0.0 })
            });
            let de = std::array::from_fn(|i| std::array::from_fn(|j| -n[i] * e[j] / (le * nn)));
            (dn, de)
        };
        let (a1, b1) = jacobians(n1);
        let (a2, b2) = jacobians(n2);
        let (sk_e, sk_ua, sk_ub) = (skew(e), skew(ua), skew(ub));
        // `s a + t b`, entry by entry.
        let comb = |s: f64, a: &M3, t: f64, b: &M3| -> M3 {
            std::array::from_fn(|i| std::array::from_fn(|j| s * a[i][j] + t * b[i][j]))
        };
        let ga_a = mat_mul(&a1, &sk_e);
        let ga_e1 = comb(-1.0, &mat_mul(&a1, &sk_ua), 1.0, &b1);
        let ga_e0 = comb(-1.0, &ga_a, -1.0, &ga_e1);
        let gb_b = mat_mul(&a2, &sk_e).map(|r| r.map(|v| -v));
        let gb_e1 = comb(1.0, &mat_mul(&a2, &sk_ub), 1.0, &b2);
        let gb_e0 = comb(-1.0, &gb_b, -1.0, &gb_e1);
        // ∂g_a and ∂g_b by column node [e₀, e₁, a, b].
        let zero = [[0.0; 3]; 3];
        let dga = [ga_e0, ga_e1, ga_a, zero];
        let dgb = [gb_e0, gb_e1, zero, gb_b];
        // ∇t_a and ∇t_b by node.
        let ve = e.map(|v| v / ee);
        let wa: [f64; 3] = std::array::from_fn(|k| (ua[k] - 2.0 * self.ta * e[k]) / ee);
        let wb: [f64; 3] = std::array::from_fn(|k| (ub[k] - 2.0 * self.tb * e[k]) / ee);
        let neg = |w: &[f64; 3]| -> [f64; 3] { std::array::from_fn(|k| -ve[k] - w[k]) };
        let dta = [neg(&wa), wa, ve, [0.0; 3]];
        let dtb = [neg(&wb), wb, [0.0; 3], ve];
        let (ga, gb, ta, tb) = (&self.ga, &self.gb, self.ta, self.tb);
        for x in 0..4 {
            for k in 0..3 {
                for l in 0..3 {
                    let (da, db) = (dga[x][k][l], dgb[x][k][l]);
                    let e1 = -ga[k] * dta[x][l] - ta * da - gb[k] * dtb[x][l] - tb * db;
                    let c = 3 * x + l;
                    out[k * 12 + c] = -e1 - da - db;
                    out[(3 + k) * 12 + c] = e1;
                    out[(6 + k) * 12 + c] = da;
                    out[(9 + k) * 12 + c] = db;
                }
            }
        }
    }
}

/// `φ − φ̄` on the circle, in `(−π, π]` (`d` itself when it is there
/// already, as it is unless the natural angle is driven past ±π).
fn wrap(d: f64) -> f64 {
    use std::f64::consts::PI;
    if d > -PI && d <= PI {
        d
    } else {
        d.sin().atan2(d.cos())
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    /// The hinge along x from the origin with `a` at (0.5, 1, 0) and `b`
    /// the flat pair's (0.5, −1, 0) turned by `theta` about the hinge.
    fn folded(theta: f64) -> [f64; 12] {
        let (s, c) = theta.sin_cos();
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.5, -c, -s]
    }

    /// `½ (φ − φ̄)²` on the circle.
    fn energy(x: &[f64], natural: f64) -> f64 {
        let d = wrap(Geometry::at(x).phi - natural);
        0.5 * d * d
    }

    #[test]
    fn the_fold_through_pi_has_a_smooth_energy_and_its_exact_gradient() {
        // Close the pair's faces onto each other and past: φ leaves
        // through +π and comes back from −π while φ − φ̄ stays small.
        let natural = PI - 0.1;
        let (lo, hi) = (PI - 0.3, PI + 0.3);
        let steps = 600;
        let mut last: Option<(f64, f64)> = None;
        let mut crossed = false;
        for i in 0..=steps {
            let theta = lo + (hi - lo) * i as f64 / steps as f64;
            let x = folded(theta);
            let g = Geometry::at(&x);
            let d = wrap(g.phi - natural);
            assert!(d.abs() < 0.45, "θ = {theta}: φ − φ̄ = {d}");
            if let Some((phi, e)) = last {
                crossed |= (g.phi - phi).abs() > PI;
                let de = energy(&x, natural) - e;
                assert!(de.abs() < 1e-3, "the energy jumps by {de} at θ = {theta}");
            }
            last = Some((g.phi, energy(&x, natural)));
            // The exact gradient of the energy against central differences
            // (which see no jump in φ − φ̄ either).
            let h = 1e-6;
            for k in 0..12 {
                let (mut xp, mut xm) = (x, x);
                xp[k] += h;
                xm[k] -= h;
                let fd = (energy(&xp, natural) - energy(&xm, natural)) / (2.0 * h);
                let exact = d * g.grad[k];
                assert!(
                    (fd - exact).abs() < 1e-6 * (1.0 + exact.abs()),
                    "θ = {theta}, coordinate {k}: {exact} against {fd}"
                );
            }
        }
        assert!(crossed, "the sweep must take φ through ±π");
    }

    #[test]
    fn a_difference_is_wrapped_onto_the_circle_only_when_it_is_off_it() {
        for d in [-3.1, -1.0, 0.0, 0.5, 3.1, PI] {
            assert_eq!(wrap(d), d);
        }
        for (d, on) in [
            (PI + 0.5, 0.5 - PI),
            (-PI - 0.25, PI - 0.25),
            (7.0, 7.0 - 2.0 * PI),
        ] {
            assert!((wrap(d) - on).abs() < 1e-14, "{d} wraps to {}", wrap(d));
        }
    }
}
