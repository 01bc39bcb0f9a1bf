//! The cantilever rod of MAT-DiSMech §7.2 (Fig. 11): a rod of length
//! `L = 0.1 m`, radius `r = 1 mm`, density `ρ = 1200 kg/m³`, `ν = 0.5`,
//! clamped at one end and bent by its own weight (`g = 9.81 m/s²` across
//! it), against Euler–Bernoulli `w = q L⁴/(8 E I)` with `q = ρ A g`,
//! `A = π r²`, `I = π r⁴/4`, and against the exact large-deflection
//! (elastica) solution, which departs from Euler–Bernoulli at low `E`.
//!
//! Discretization: `n` edges of length `Δl = L/(n − ½)` with nodes at
//! `x_k = (k − ½) Δl`. The clamp fixes the first edge (nodes 0 and 1 and its
//! twist), so the first bend–twist spring, whose Voronoi region starts at
//! the clamped edge's midpoint, starts at `x = 0`: the free length is `L`.
//!
//! Used by `tests/rod_cantilever.rs` and `benches/rod_cantilever.rs`.

use pliant_core::{Model, ModelBuilder, Result};
use pliant_environment::{Gravity, ViscousDamping};
use pliant_rod::Rod;

/// Rod length from the clamp, m.
pub const LENGTH: f64 = 0.1;
/// Cross-section radius, m.
pub const RADIUS: f64 = 1e-3;
/// Density, kg/m³.
pub const DENSITY: f64 = 1200.0;
/// Poisson's ratio.
pub const POISSON: f64 = 0.5;
/// Gravity, m/s².
pub const GRAVITY: f64 = 9.81;

/// A cantilever rod with `edges` edges and Young's modulus `youngs` (Pa).
#[derive(Debug, Clone, Copy)]
pub struct RodCantilever {
    /// Number of edges.
    pub edges: usize,
    /// Young's modulus, Pa.
    pub youngs: f64,
    /// Uniform velocity damping rate ζ (1/s): a force `−ζ m_i v_i` per node,
    /// i.e. `−ρ A ζ v` per unit length (PyElastica's `AnalyticalLinearDamper`
    /// on positions). Zero for none.
    pub damping: f64,
}

impl RodCantilever {
    /// Edge length Δl, m.
    pub fn edge_length(&self) -> f64 {
        LENGTH / (self.edges as f64 - 0.5)
    }
    /// Index of the tip node.
    pub fn tip(&self) -> usize {
        self.edges
    }
    /// The model: nodes along +x, gravity along −z, first edge clamped.
    pub fn model(&self) -> Result<Model> {
        let dl = self.edge_length();
        let mut b = ModelBuilder::new(3)?;
        let nodes: Vec<usize> = (0..=self.edges)
            .map(|k| b.add_node(&[(k as f64 - 0.5) * dl, 0.0, 0.0], 0.0))
            .collect::<Result<_>>()?;
        b.fix_node(0)?;
        b.fix_node(1)?;
        b.add(Rod::chain(&nodes, RADIUS, self.youngs, POISSON, DENSITY).fix_twist(0));
        b.add(Gravity::new(&[0.0, 0.0, -GRAVITY]));
        if self.damping > 0.0 {
            let area = std::f64::consts::PI * RADIUS * RADIUS;
            let voronoi: Vec<f64> = (0..=self.edges)
                .map(|k| {
                    if k == 0 || k == self.edges {
                        0.5 * dl
                    } else {
                        dl
                    }
                })
                .collect();
            b.add(ViscousDamping::viscous(
                DENSITY * area * self.damping,
                nodes,
                voronoi,
            ));
        }
        b.build()
    }
    /// Euler–Bernoulli tip deflection `q L⁴/(8 E I)`, m (positive down).
    pub fn euler_bernoulli(&self) -> f64 {
        let (q, ei) = load_and_bending_stiffness(self.youngs);
        q * LENGTH.powi(4) / (8.0 * ei)
    }
    /// Exact (elastica) tip deflection of the inextensible beam, m (positive down).
    pub fn elastica(&self) -> f64 {
        let (q, ei) = load_and_bending_stiffness(self.youngs);
        elastica_tip(q, ei, LENGTH).1
    }
}

/// Weight per length `q = ρ A g` (N/m) and `E I` (N·m²).
fn load_and_bending_stiffness(youngs: f64) -> (f64, f64) {
    let pi = std::f64::consts::PI;
    (
        DENSITY * pi * RADIUS * RADIUS * GRAVITY,
        youngs * pi * RADIUS.powi(4) / 4.0,
    )
}

/// Large-deflection cantilever under its own weight `q` (N/m), bending
/// stiffness `ei` (N·m²), length `l` (m): the tip `(x, w)` (m, `w` down).
///
/// With `θ(s)` the slope along the arc length, `EI θ' = M` and
/// `M' = −q (l − s) cos θ` (the moment of the weight beyond `s`), with
/// `θ(0) = 0` and `M(l) = 0`; solved by shooting on `M(0)` with RK4.
pub fn elastica_tip(q: f64, ei: f64, l: f64) -> (f64, f64) {
    let steps = 4000;
    let ds = l / steps as f64;
    // State (θ, M, x, w).
    let rhs = |s: f64, y: [f64; 4]| -> [f64; 4] {
        [y[1] / ei, -q * (l - s) * y[0].cos(), y[0].cos(), y[0].sin()]
    };
    let shoot = |m0: f64| -> [f64; 4] {
        let mut y = [0.0, m0, 0.0, 0.0];
        for i in 0..steps {
            let s = i as f64 * ds;
            let k1 = rhs(s, y);
            let k2 = rhs(
                s + ds / 2.0,
                std::array::from_fn(|j| y[j] + ds / 2.0 * k1[j]),
            );
            let k3 = rhs(
                s + ds / 2.0,
                std::array::from_fn(|j| y[j] + ds / 2.0 * k2[j]),
            );
            let k4 = rhs(s + ds, std::array::from_fn(|j| y[j] + ds * k3[j]));
            for j in 0..4 {
                y[j] += ds / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]);
            }
        }
        y
    };
    // Secant iteration on M(0), starting from the small-deflection value
    // q l²/2 (the moment of the whole weight about the clamp).
    let (mut a, mut b) = (q * l * l / 2.0, 0.9 * q * l * l / 2.0);
    let (mut fa, mut fb) = (shoot(a)[1], shoot(b)[1]);
    for _ in 0..60 {
        if (fb - fa).abs() < 1e-300 || fb.abs() < 1e-15 * q * l * l {
            break;
        }
        let c = b - fb * (b - a) / (fb - fa);
        (a, fa) = (b, fb);
        b = c;
        fb = shoot(b)[1];
    }
    let y = shoot(b);
    (y[2], y[3])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elastica_reduces_to_euler_bernoulli_for_small_loads() {
        let (q, ei, l) = (1e-3, 1.0, 0.1);
        let (x, w) = elastica_tip(q, ei, l);
        let eb = q * l.powi(4) / (8.0 * ei);
        assert!((w - eb).abs() < 1e-6 * eb, "{w} vs {eb}");
        assert!((x - l).abs() < 1e-9);
    }

    #[test]
    fn elastica_deflects_less_than_euler_bernoulli_for_large_loads() {
        // Large deflection: the weight's lever arm shortens as the beam bends.
        let (q, ei, l) = (1.0, 1e-3, 0.1);
        let (_, w) = elastica_tip(q, ei, l);
        let eb = q * l.powi(4) / (8.0 * ei);
        assert!(w < eb && w > 0.5 * eb, "{w} vs {eb}");
    }
}
