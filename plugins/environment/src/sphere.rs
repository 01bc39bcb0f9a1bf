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

use crate::vec3::{dot, load, sub};
use pliant_core::element::{Ctx, Element, ElementSet, Elements};
use pliant_core::energy::{BindInfo, Energy};
use pliant_core::error::{CoreError, Result};
use pliant_core::num_dual::DualNum;
use pliant_core::penalty::{coulomb_potential, log_exp, softplus};
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
    fn gap<T: DualNum<f64> + Copy>(&self, x: &[T; 3]) -> (T, [T; 3]) {
        let r: [T; 3] = std::array::from_fn(|k| x[k] - self.centre[k]);
        let l = dot(&r, &r).sqrt();
        (l - self.reach, r.map(|v| v / l))
    }
}

#[derive(Debug, Clone)]
struct SphereEl<const F: bool> {
    dofs: [usize; 3],
    law: Law,
}

impl<const F: bool> Element<3, 0> for SphereEl<F> {
    const HISTORY: bool = F;
    fn dofs(&self) -> [usize; 3] {
        self.dofs
    }
    fn params(&self) -> [usize; 0] {
        []
    }
    fn energy<T: DualNum<f64> + Copy>(&self, x: &[T; 3], xp: &[T; 3], _: &[T; 0], c: &Ctx) -> T {
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
        let dx = sub(&load(x, 0, 3), &load(xp, 0, 3));
        let dn = dot(&dx, &n);
        let dt: [T; 3] = std::array::from_fn(|k| dx[k] - n[k] * dn);
        let r = dot(&dt, &dt) / (c.h * c.h);
        e += normal * coulomb_potential(r, law.k2) * (c.h * law.mu);
        e
    }
}

/// A fixed rigid sphere touched by a set of nodes (3-D models).
#[derive(Debug, Serialize, Deserialize)]
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
    #[serde(skip)]
    bound: Option<Bound>,
}

/// The bound node set (with or without friction).
struct Bound(Box<dyn ElementSet>);

impl std::fmt::Debug for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} nodes", self.0.len())
    }
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
    /// A frictionless sphere of `radius` (m) at `centre`, stiffness `k`
    /// (N/m) and tolerance `delta` (m), touched by all nodes.
    pub fn new(centre: [f64; 3], radius: f64, stiffness: f64, delta: f64) -> Self {
        Self {
            centre,
            radius,
            node_radius: 0.0,
            nodes: None,
            stiffness,
            delta,
            mu: 0.0,
            slip_velocity: None,
            bound: None,
        }
    }
}

#[typetag::serde(name = "sphere_contact")]
impl Energy for SphereContact {
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        let ctx = "sphere_contact";
        if info.layout.dim() != 3 {
            return Err(CoreError::Model(format!("{ctx}: needs a 3-D model")));
        }
        for (what, v) in [
            ("radius (m)", self.radius),
            ("stiffness (N/m)", self.stiffness),
            ("delta (m)", self.delta),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(CoreError::Model(format!(
                    "{ctx}: {what} must be positive, got {v}"
                )));
            }
        }
        if !(self.node_radius.is_finite() && self.node_radius >= 0.0) {
            return Err(CoreError::Model(format!(
                "{ctx}: node_radius must be ≥ 0 m, got {}",
                self.node_radius
            )));
        }
        let k2 = match (self.mu, self.slip_velocity) {
            (mu, _) if !(mu.is_finite() && mu >= 0.0) => {
                return Err(CoreError::Model(format!("{ctx}: μ must be ≥ 0, got {mu}")));
            }
            (0.0, _) => 0.0,
            (_, Some(v)) if v.is_finite() && v > 0.0 => 15.0 / v,
            (_, v) => {
                return Err(CoreError::Model(format!(
                    "{ctx}: friction needs a positive slip_velocity (m/s), got {v:?}"
                )));
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
        let mut dofs = Vec::with_capacity(nodes.len());
        for (k, &n) in nodes.iter().enumerate() {
            let mut d = [0; 3];
            info.layout
                .node_dofs(n, &mut d, &format!("{ctx}.nodes[{k}]"))?;
            let x: [f64; 3] = std::array::from_fn(|a| info.q0[d[a]]);
            if law.gap(&x).0 <= -law.reach {
                return Err(CoreError::Model(format!(
                    "{ctx}.nodes[{k}]: node {n} sits at the sphere's centre"
                )));
            }
            dofs.push(d);
        }
        self.bound = Some(Bound(if law.mu > 0.0 {
            Box::new(Elements::new(
                dofs.into_iter()
                    .map(|dofs| SphereEl::<true> { dofs, law })
                    .collect(),
            ))
        } else {
            Box::new(Elements::new(
                dofs.into_iter()
                    .map(|dofs| SphereEl::<false> { dofs, law })
                    .collect(),
            ))
        }));
        Ok(())
    }
    fn elements(&self) -> &dyn ElementSet {
        self.bound
            .as_ref()
            .expect("sphere_contact used before Model::build bound it")
            .0
            .as_ref()
    }
}

pliant_core::register_energy!(
    "sphere_contact",
    "nodes against a fixed rigid sphere (`centre`, `radius` in m): log-exp penalty (MAT-DiSMech eq. 25) with `stiffness` (N/m) and `delta` (m), contact radius `node_radius`, optional Coulomb friction `mu` with `slip_velocity` (m/s)",
    r#"{"type": "sphere_contact", "centre": [0.1, 0.0, 0.05], "radius": 0.02, "node_radius": 0.001, "stiffness": 100.0, "delta": 0.0005, "mu": 0.3, "slip_velocity": 0.001}"#
);
