//! Constant external forces on chosen nodes (MAT-DiSMech §5.6, custom
//! forces; the PneuNet's end-effector load of §7.1): `E = −s Σ F_n·x_n` (J)
//! for forces `F_n` in N, optionally scaled by a parameter channel `s` (a
//! ramp or a control), so the force is differentiable in it.

use pliant_core::element::{Ctx, Element, ElementSet, Elements};
use pliant_core::energy::{BindInfo, Energy};
use pliant_core::error::{CoreError, Result};
use pliant_core::num_dual::DualNum;
use serde::{Deserialize, Serialize};

/// One force on one node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeForce {
    /// Node index.
    pub node: usize,
    /// Force, N (one component per dimension).
    pub force: Vec<f64>,
}

#[derive(Debug, Clone)]
struct ForceEl<const N: usize, const P: usize> {
    dofs: [usize; N],
    f: [f64; N],
    params: [usize; P],
}

impl<const N: usize, const P: usize> Element<N, P> for ForceEl<N, P> {
    fn dofs(&self) -> [usize; N] {
        self.dofs
    }
    fn params(&self) -> [usize; P] {
        self.params
    }
    fn energy<D: DualNum<f64> + Copy>(&self, x: &[D; N], _: &[D; N], p: &[D; P], _: &Ctx) -> D {
        let mut e = D::from(0.0);
        for a in 0..N {
            e -= x[a] * self.f[a];
        }
        if P == 1 { e * p[0] } else { e }
    }
}

/// Constant forces on nodes, optionally scaled by a channel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointForces {
    /// The forces.
    pub forces: Vec<NodeForce>,
    /// Channel whose value multiplies every force (dimensionless).
    #[serde(default)]
    pub scale_channel: Option<String>,
    #[serde(skip)]
    bound: Option<Bound>,
}

struct Bound(Box<dyn ElementSet>);

impl std::fmt::Debug for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} point forces", self.0.len())
    }
}

impl PointForces {
    /// Forces `(node, force in N)`.
    pub fn new(forces: Vec<NodeForce>) -> Self {
        Self {
            forces,
            scale_channel: None,
            bound: None,
        }
    }
    /// Scales every force by the value of `channel`.
    pub fn scaled_by(mut self, channel: &str) -> Self {
        self.scale_channel = Some(channel.into());
        self
    }
    fn bind_n<const N: usize, const P: usize>(
        &self,
        info: &BindInfo,
        params: [usize; P],
    ) -> Result<Box<dyn ElementSet>> {
        let mut items = Vec::with_capacity(self.forces.len());
        for (k, nf) in self.forces.iter().enumerate() {
            let ctx = format!("point_forces.forces[{k}]");
            if nf.force.len() != N || nf.force.iter().any(|v| !v.is_finite()) {
                return Err(CoreError::Model(format!(
                    "{ctx}.force must have {N} finite components (N), got {:?}",
                    nf.force
                )));
            }
            let mut dofs = [0; N];
            info.layout
                .node_dofs(nf.node, &mut dofs, &format!("{ctx}.node"))?;
            items.push(ForceEl {
                dofs,
                f: std::array::from_fn(|a| nf.force[a]),
                params,
            });
        }
        Ok(Box::new(Elements::<ForceEl<N, P>, N, P>::new(items)))
    }
}

#[typetag::serde(name = "point_forces")]
impl Energy for PointForces {
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        let channel = match &self.scale_channel {
            Some(c) => Some(info.layout.param(c, "point_forces.scale_channel")?),
            None => None,
        };
        let set = match (info.layout.dim(), channel) {
            (2, None) => self.bind_n::<2, 0>(info, [])?,
            (2, Some(c)) => self.bind_n::<2, 1>(info, [c])?,
            (_, None) => self.bind_n::<3, 0>(info, [])?,
            (_, Some(c)) => self.bind_n::<3, 1>(info, [c])?,
        };
        self.bound = Some(Bound(set));
        Ok(())
    }
    fn elements(&self) -> &dyn ElementSet {
        self.bound
            .as_ref()
            .expect("point_forces used before Model::build bound it")
            .0
            .as_ref()
    }
}

pliant_core::register_energy!(
    "point_forces",
    "constant forces (N) on nodes, E = −Σ F·x, optionally scaled by a parameter channel `scale_channel`",
    r#"{"type": "point_forces", "forces": [{"node": 0, "force": [0.0, 0.0, -1.0]}]}"#
);
