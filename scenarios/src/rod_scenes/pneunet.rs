//! The PneuNet actuator of MAT-DiSMech §7.1: a clamped rod bent by natural curvature in three load steps.

use super::*;

/// A PneuNet actuator (Fig. 4): a rod along `+x` clamped at the origin whose
/// natural curvature (all springs) is its pressure, bending towards `+z`
/// (against gravity), under gravity and optionally an end-effector force.
///
/// Static equilibrium by load stepping: the natural curvature ramps from 0
/// over the first `load_steps` steps (channel `"curvature"`, 1/m), then the
/// tip force over as many more (channel `"tip_force"`, its scale 0 → 1).
///
/// The paper's force `(175, 0, 7)` N is about 45 times the force
/// `EI κ̄² ≈ 3.9` N at which even the least curved actuator (15.70 1/m,
/// `EI = 0.0157` N·m²) deforms by order one: it pulls all three nearly
/// straight along the force, their shapes differing only within
/// `√(EI/F) ≈ 1` cm of the clamp. The example runs it as printed and also at
/// 1/100 of it, `(1.75, 0, 0.07)` N, where the three shapes differ visibly.
#[derive(Debug, Clone)]
pub struct PneuNet {
    /// Natural curvature, 1/m (the paper's 15.70, 31.45, 47.15).
    pub curvature: f64,
    /// Nodes (default 51: Δl = 2 mm, where the paper's 15.70 1/m is the
    /// discrete curvature 0.0314 of the authors' code).
    pub nodes: usize,
    /// End-effector force, N (default none).
    pub tip_force: Option<[f64; 3]>,
    /// Gravity on (default).
    pub gravity: bool,
    /// Load steps per ramp (default 20).
    pub load_steps: usize,
}

impl Default for PneuNet {
    fn default() -> Self {
        Self {
            curvature: PNEUNET_CURVATURES[0],
            nodes: 51,
            tip_force: None,
            gravity: true,
            load_steps: 20,
        }
    }
}

impl PneuNet {
    /// Young's modulus, Pa.
    pub const E: f64 = 20e9;
    /// Poisson's ratio.
    pub const NU: f64 = 0.5;
    /// Density, kg/m³.
    pub const RHO: f64 = 1200.0;

    /// The actuator with natural curvature `curvature` (1/m), defaults otherwise.
    pub fn with_curvature(curvature: f64) -> Self {
        Self {
            curvature,
            ..Self::default()
        }
    }

    /// The model (static; `info.steps` covers both ramps, or only the
    /// curvature ramp without a tip force).
    pub fn build(&self) -> Result<RodScene> {
        check_nodes(self.nodes, 3)?;
        let n = self.load_steps.max(1) as f64;
        let mut b = ModelBuilder::new(3)?;
        let nodes = add_nodes(&mut b, &line([0.0; 3], [LENGTH, 0.0, 0.0], self.nodes))?;
        b.add_param(control("curvature", vec![(0.0, 0.0), (n, self.curvature)]))?;
        clamp(&mut b, &nodes)?;
        b.add(
            Rod::chain(&nodes, RADIUS, Self::E, Self::NU, Self::RHO)
                .named("pneunet")
                .with_first_director([0.0, 0.0, 1.0])
                .fix_twist(0)
                .actuate(Actuation::curvature("curvature", 1, None)),
        );
        if self.gravity {
            b.add(Gravity::new(&[0.0, 0.0, -GRAVITY]));
        }
        let mut total = self.load_steps.max(1);
        if let Some(f) = self.tip_force {
            b.add_param(control("tip_force", vec![(n, 0.0), (2.0 * n, 1.0)]))?;
            b.add(
                PointForces::new(vec![NodeForce {
                    node: *nodes.last().expect("≥ 3 nodes"),
                    force: f.to_vec(),
                }])
                .scaled_by("tip_force"),
            );
            total *= 2;
        }
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo {
                name: format!("pneunet_{:.2}", self.curvature),
                integrator: Integrator::Static,
                dt: 1.0,
                steps: total,
                newton: newton(),
                rods: vec![nodes],
                radius: RADIUS,
            },
        })
    }
}
