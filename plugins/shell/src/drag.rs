//! Aerodynamic drag on shell triangles (MAT-DiSMech §5.5, Appendix C).
//!
//! Each node `i` of a triangle of rest area `A` feels, from that triangle,
//!
//! `F_i = −(ρ_med C_D / 2)(A/3) sgn(u_i·n̂)(u_i·n̂)² n̂` (N),
//!
//! with `u_i = (x_i − x_i,prev)/h` its velocity (m/s), `ρ_med` the medium's
//! density (kg/m³) and `C_D` the drag coefficient. pliant writes it as the
//! gradient of a dissipation potential of the step,
//!
//! `E = Σ_i c h |u_i·n̂|³ / 3` (J), `c = ρ_med C_D A / 6`,
//!
//! whose `−∂E/∂x_i` is exactly the force above when the normal `n̂` is the
//! triangle's unit normal at the start of the step (`x_prev`). The paper
//! evaluates `n̂` at the new state (a force that is not a gradient); the
//! lag is first order in the step and keeps the Newton matrix symmetric.
//! The sign-aware form `sgn(w) w²` (`|w| w`) makes the force oppose the
//! normal velocity on either side of the sheet.

use pliant_core::vec3::{V3, cross, dot, load, sub, unit};
use pliant_core::{Ctx, Element, Local, Scalar, Stencil};

/// Drag of one triangle.
#[derive(Debug, Clone)]
pub(crate) struct DragEl {
    pub nodes: [usize; 3],
    /// `ρ_med C_D A / 6`, kg/m.
    pub coef: f64,
}

impl DragEl {
    fn normal<D: Scalar>(xp: &[D]) -> V3<D> {
        let (a, b, c): (V3<D>, V3<D>, V3<D>) = (load(xp, 0), load(xp, 3), load(xp, 6));
        unit(&cross(&sub(&b, &a), &sub(&c, &a)))
    }
}

impl Element for DragEl {
    type Size = Stencil<9>;
    const HISTORY: bool = true;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn energy<D: Scalar>(&self, x: &[D], xp: &[D], _: &[D], c: &Ctx) -> D {
        let n = Self::normal(xp);
        let mut e = D::from(0.0);
        for i in 0..3 {
            let u: V3<D> = std::array::from_fn(|a| (x[3 * i + a] - xp[3 * i + a]) / c.h);
            let w = dot(&u, &n);
            e += w * w * w.abs();
        }
        e * (self.coef * c.h / 3.0)
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let n = Self::normal(l.x_prev);
        let h = l.ctx.h;
        for i in 0..3 {
            let w: f64 = (0..3)
                .map(|a| (l.x[3 * i + a] - l.x_prev[3 * i + a]) / h * n[a])
                .sum();
            for a in 0..3 {
                g[3 * i + a] = self.coef * w.abs() * w * n[a];
            }
        }
        true
    }
    fn hessian(&self, l: &Local, out: &mut [f64]) -> bool {
        let n = Self::normal(l.x_prev);
        let h = l.ctx.h;
        out.fill(0.0);
        for i in 0..3 {
            let w: f64 = (0..3)
                .map(|a| (l.x[3 * i + a] - l.x_prev[3 * i + a]) / h * n[a])
                .sum();
            let k = 2.0 * self.coef * w.abs() / h;
            for a in 0..3 {
                for b in 0..3 {
                    out[(3 * i + a) * 9 + 3 * i + b] = k * n[a] * n[b];
                }
            }
        }
        true
    }
}
