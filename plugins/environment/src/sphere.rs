//! Contact of nodes with a fixed rigid sphere (MAT-DiSMech §7.1, the rod
//! gripping a sphere), with the log-exp penalty of eq. 25 and smooth
//! Coulomb friction (eq. 23).
//!
//! For a node at `x` with contact radius `r₀` (the rod's radius, m), the
//! gap to a sphere of centre `c` and radius `R` is `d = ‖x − c‖ − R − r₀`
//! and the energy is `k (ln(1 + e^{−K₁ d})/K₁)²`, `K₁ = 15/δ`, stiffness
//! `k` in N/m. Friction is the dissipation potential
//! `h μ N_{k−1} Φ(‖u_t‖)` with the normal force `N_{k−1}` and the normal
//! direction taken at the previous state, `u_t` the tangential velocity
//! (m/s) and `Φ' = tanh(K₂‖u‖/2)`, `K₂ = 15/ν`.

use crate::log_exp::LogExpPenalty;
use pliant_core::geometry::{Drawing, Shape};
use pliant_core::penalty::{coulomb_potential, log_exp, softplus};
use pliant_core::vec3::{dot, load, sub};
use pliant_core::{
    BindInfo, CoreError, Ctx, Element, Elements, Energy, EnergySpec, Invalid, Result, Scalar,
    Stencil,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy)]
struct Law {
    centre: [f64; 3],
    /// `R + r₀`, m.
    reach: f64,
    k: f64,
    k1: f64,
    mu: f64,
    k2: f64,
}

impl Law {
    fn gap<T: Scalar>(&self, x: &[T]) -> (T, [T; 3]) {
        let r: [T; 3] = std::array::from_fn(|k| x[k] - self.centre[k]);
        let l = dot(&r, &r).sqrt();
        (l - self.reach, r.map(|v| v / l))
    }
}

/// One node against the sphere; `F`: with friction (history coupling).
#[derive(Debug, Clone)]
struct SphereEl<const F: bool> {
    node: [usize; 1],
    law: Law,
}

impl<const F: bool> Element for SphereEl<F> {
    type Size = Stencil<3>;
    const HISTORY: bool = F;
    fn nodes(&self) -> &[usize] {
        &self.node
    }
    fn energy<T: Scalar>(&self, x: &[T], xp: &[T], _: &[T], c: &Ctx) -> T {
        let law = &self.law;
        let (d, _) = law.gap(x);
        let mut e = log_exp(d, law.k1) * law.k;
        if !F {
            return e;
        }
        let (dp, n) = law.gap(xp);
        // |∂E/∂d| at the previous state: 2k sp(z) σ(z)/K₁, z = −K₁ d.
        let z = dp * (-law.k1);
        let sig = if z.re() >= 0.0 {
            ((-z).exp() + 1.0).recip()
        } else {
            z.exp() / (z.exp() + 1.0)
        };
        let normal = softplus(z) * sig * (2.0 * law.k / law.k1);
        let dx = sub(&load(x, 0), &load(xp, 0));
        let dn = dot(&dx, &n);
        let dt: [T; 3] = std::array::from_fn(|k| dx[k] - n[k] * dn);
        let r = dot(&dt, &dt) / (c.h * c.h);
        e += normal * coulomb_potential(r, law.k2) * (c.h * law.mu);
        e
    }
}

/// A fixed rigid sphere touched by a set of nodes (3-D models).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SphereContact {
    /// Centre (m).
    pub centre: [f64; 3],
    /// Sphere radius R (m).
    pub radius: f64,
    /// Contact radius of each node r₀ (m), e.g. the rod radius.
    #[serde(default)]
    pub node_radius: f64,
    /// Nodes that can touch the sphere (default: all).
    #[serde(default)]
    pub nodes: Option<Vec<usize>>,
    /// Stiffness k (N/m).
    pub stiffness: f64,
    /// Contact tolerance δ (m): `K₁ = 15/δ`.
    pub delta: f64,
    /// Friction coefficient μ (0: frictionless).
    #[serde(default)]
    pub mu: f64,
    /// Slip velocity ν (m/s): `K₂ = 15/ν`; needed when μ > 0.
    #[serde(default)]
    pub slip_velocity: Option<f64>,
}

impl SphereContact {
    /// Nodes carry a contact radius `r0` (m), e.g. the rod radius.
    pub fn with_node_radius(mut self, r0: f64) -> Self {
        self.node_radius = r0;
        self
    }
    /// Coulomb friction μ with slip velocity `slip_velocity` (m/s).
    pub fn with_friction(mut self, mu: f64, slip_velocity: f64) -> Self {
        self.mu = mu;
        self.slip_velocity = Some(slip_velocity);
        self
    }
    /// Only `nodes` touch the sphere.
    pub fn on_nodes(mut self, nodes: Vec<usize>) -> Self {
        self.nodes = Some(nodes);
        self
    }
    /// A frictionless sphere of `radius` (m) at `centre` with the log-exp
    /// `penalty` (stiffness in N/m, tolerance δ in m), touched by all nodes.
    pub fn new(centre: [f64; 3], radius: f64, penalty: LogExpPenalty) -> Self {
        Self {
            centre,
            radius,
            node_radius: 0.0,
            nodes: None,
            stiffness: penalty.stiffness,
            delta: penalty.delta,
            mu: 0.0,
            slip_velocity: None,
        }
    }
}

impl EnergySpec for SphereContact {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        info.require_dim("sphere_contact", 3)?;
        Invalid::positive("radius", self.radius, "m")?;
        Invalid::positive("stiffness", self.stiffness, "N/m")?;
        Invalid::positive("delta", self.delta, "m")?;
        Invalid::non_negative("node_radius", self.node_radius, "m")?;
        Invalid::non_negative("mu", self.mu, "dimensionless")?;
        let k2 = match (self.mu, self.slip_velocity) {
            (0.0, _) => 0.0,
            (_, Some(v)) => {
                Invalid::positive("slip_velocity", v, "m/s")?;
                15.0 / v
            }
            (_, None) => {
                return Err(CoreError::inconsistent(
                    "slip_velocity",
                    "friction (mu > 0) needs a slip velocity (m/s)",
                ));
            }
        };
        let law = Law {
            centre: self.centre,
            reach: self.radius + self.node_radius,
            k: self.stiffness,
            k1: 15.0 / self.delta,
            mu: self.mu,
            k2,
        };
        let nodes: Vec<usize> = self
            .nodes
            .clone()
            .unwrap_or_else(|| (0..info.layout.n_nodes()).collect());
        for (k, &n) in nodes.iter().enumerate() {
            let x = info.node_position(n, &format!("nodes[{k}]"))?;
            if law.gap(&x).0 <= -law.reach {
                return Err(CoreError::degenerate(
                    format!("nodes[{k}]"),
                    format!("node {n} sits at the sphere's centre"),
                ));
            }
        }
        let drawing = Drawing::Fixed(Shape::Sphere {
            name: "sphere".into(),
            centre: self.centre,
            radius: self.radius,
        });
        Ok(if law.mu > 0.0 {
            let items = nodes.iter().map(|&n| SphereEl::<true> { node: [n], law });
            Box::new(Elements::bind(items.collect(), info, "nodes")?.drawn_as(drawing))
        } else {
            let items = nodes.iter().map(|&n| SphereEl::<false> { node: [n], law });
            Box::new(Elements::bind(items.collect(), info, "nodes")?.drawn_as(drawing))
        })
    }
}

pliant_core::register_energy!(
    SphereContact = "sphere_contact",
    "nodes against a fixed rigid sphere (`centre`, `radius` in m): log-exp penalty (MAT-DiSMech eq. 25) with `stiffness` (N/m) and `delta` (m), contact radius `node_radius`, optional Coulomb friction `mu` with `slip_velocity` (m/s)",
    r#"{"type": "sphere_contact", "centre": [0.1, 0.0, 0.05], "radius": 0.02, "node_radius": 0.001, "stiffness": 100.0, "delta": 0.0005, "mu": 0.3, "slip_velocity": 0.001}"#
);
