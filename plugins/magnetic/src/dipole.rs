//! One pair of magnetic dipoles: the element of the `"dipole"` model.
//!
//! Connector `i` sits on node `n_i` and carries the moment
//! `m_i = m_i ê_i` (A·m²), its direction fixed to the body by two axis
//! nodes, `ê_i = (x_{b_i} − x_{a_i}) / |x_{b_i} − x_{a_i}|`. With the
//! separation `d = x_{n_j} − x_{n_i}`, `s = |d|²`, the pair energy (J) is
//!
//! `U = k a_i a_j [(ê_i·ê_j) s − 3 (ê_i·d)(ê_j·d)] κ₅(s) S(s)`,
//! `k = μ m_i m_j / (4π)`,
//!
//! which for `r_c ≤ r ≤ R − w` is exactly the dipole–dipole energy
//! `μ/(4π r³) [m_i·m_j − 3 (m_i·r̂)(m_j·r̂)]` (`κ₅ = r⁻⁵`). Inside the
//! core radius `κ₅` is the C² even polynomial continuation of
//! [`crate::law`]; the bracket is a quadratic form in `d`, so the
//! energy and forces stay bounded and smooth down to `r = 0` (where they
//! vanish). The switch `S` ends the interaction smoothly at `R`.
//!
//! The energy depends on the 18 stencil DOFs (six nodes) only through
//! `d`, `x_{b_i} − x_{a_i}` and `x_{b_j} − x_{a_j}` (9 reduced variables);
//! its derivatives are the dual-number fallback over those, checked
//! against finite differences in the tests.

use crate::law::Law;
use pliant_core::vec3::{dot, load, unit};
use pliant_core::{Ctx, Element, Scalar, Stencil};
use std::sync::Arc;

/// A bound dipole pair: nodes `[n_i, n_j, a_i, b_i, a_j, b_j]`, one
/// parameter slot per connector's activation channel.
#[derive(Debug, Clone)]
pub(crate) struct DipoleEl {
    pub(crate) nodes: [usize; 6],
    pub(crate) channels: [Option<Arc<str>>; 2],
    /// `μ m_i m_j / (4π)`, J·m³.
    pub(crate) k: f64,
    pub(crate) law: Law,
}

impl Element for DipoleEl {
    type Size = Stencil<18, 2, 9>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [self.channels[0].as_deref(), self.channels[1].as_deref()]
    }
    /// Rows: `d = x_{n_j} − x_{n_i}`, `v_i = x_{b_i} − x_{a_i}`,
    /// `v_j = x_{b_j} − x_{a_j}`.
    fn map(&self, b: &mut [f64]) -> bool {
        for (row, (from, to)) in [(0, 3), (6, 9), (12, 15)].into_iter().enumerate() {
            for k in 0..3 {
                b[(3 * row + k) * 18 + from + k] = -1.0;
                b[(3 * row + k) * 18 + to + k] = 1.0;
            }
        }
        true
    }
    #[inline]
    fn reduce(&self, x: &[f64], r: &mut [f64]) -> bool {
        for (row, (from, to)) in [(0, 3), (6, 9), (12, 15)].into_iter().enumerate() {
            for k in 0..3 {
                r[3 * row + k] = x[to + k] - x[from + k];
            }
        }
        true
    }
    fn energy<D: Scalar>(&self, r: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let d = load(r, 0);
        let s = dot(&d, &d);
        if s.re() >= self.law.range * self.law.range {
            return D::from(0.0);
        }
        let ei = unit(&load(r, 3));
        let ej = unit(&load(r, 6));
        let bracket = dot(&ei, &ej) * s - dot(&ei, &d) * dot(&ej, &d) * 3.0;
        let a = |slot: usize| {
            if self.channels[slot].is_some() {
                p[slot]
            } else {
                D::from(1.0)
            }
        };
        bracket * self.law.profile(s, 5) * a(0) * a(1) * self.k
    }
}
