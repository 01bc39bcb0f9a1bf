//! Constant external forces on chosen nodes (MAT-DiSMech §5.6, custom
//! forces; the PneuNet's end-effector load of §7.1): `E = −s Σ F_n·x_n` (J)
//! for forces `F_n` in N, optionally scaled by a parameter channel `s` (a
//! ramp or a control), so the force is differentiable in it.

use pliant_core::{
    BindInfo, CoreError, Ctx, Element, Elements, Energy, EnergySpec, Invalid, Result, Scalar,
    Stencil,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One force on one node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeForce {
    /// Node index.
    pub node: usize,
    /// Force, N (one component per dimension).
    pub force: Vec<f64>,
}

/// Constant forces on nodes, optionally scaled by a channel (scene type
/// `"point_forces"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointForces {
    /// The forces.
    pub forces: Vec<NodeForce>,
    /// Channel whose value multiplies every force (dimensionless).
    #[serde(default)]
    pub scale_channel: Option<String>,
}

impl PointForces {
    /// Forces `(node, force in N)`.
    pub fn new(forces: Vec<NodeForce>) -> Self {
        Self {
            forces,
            scale_channel: None,
        }
    }
    /// Scales every force by the value of `channel`.
    pub fn scaled_by(mut self, channel: &str) -> Self {
        self.scale_channel = Some(channel.into());
        self
    }
}

#[derive(Debug, Clone)]
struct ForceEl {
    node: [usize; 1],
    f: [f64; 3],
    scale: Option<Arc<str>>,
}

impl Element for ForceEl {
    type Size = Stencil<3, 1>;
    fn nodes(&self) -> &[usize] {
        &self.node
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [self.scale.as_deref()]
    }
    fn energy<D: Scalar>(&self, x: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let mut e = D::from(0.0);
        for a in 0..3 {
            e -= x[a] * self.f[a];
        }
        if self.scale.is_some() { e * p[0] } else { e }
    }
}

impl EnergySpec for PointForces {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let dim = info.dim();
        if let Some(c) = &self.scale_channel {
            info.param(c, "scale_channel")?;
        }
        let scale: Option<Arc<str>> = self.scale_channel.as_deref().map(Arc::from);
        let mut items = Vec::with_capacity(self.forces.len());
        for (k, nf) in self.forces.iter().enumerate() {
            if nf.force.len() != dim {
                return Err(CoreError::Count {
                    field: format!("forces[{k}].force"),
                    found: nf.force.len(),
                    expected: dim,
                });
            }
            for (a, &v) in nf.force.iter().enumerate() {
                Invalid::check(
                    v.is_finite(),
                    format!("forces[{k}].force[{a}]"),
                    v,
                    "finite (N)",
                )?;
            }
            items.push(ForceEl {
                node: [nf.node],
                f: std::array::from_fn(|a| nf.force.get(a).copied().unwrap_or(0.0)),
                scale: scale.clone(),
            });
        }
        Ok(Box::new(Elements::bind(items, info, "forces")?))
    }
}

pliant_core::register_energy!(
    PointForces = "point_forces",
    "constant forces (N) on nodes, E = −Σ F·x, optionally scaled by a parameter channel `scale_channel`",
    r#"{"type": "point_forces", "forces": [{"node": 0, "force": [0.0, 0.0, -1.0]}]}"#
);
