//! The rod gripping a sphere (MAT-DiSMech §7.1).

use super::*;

/// A rod gripping a fixed sphere (Fig. 10): a rod along `+x` clamped at the
/// origin; the natural curvature (axis 1, towards `+z`) of the springs on
/// its distal three quarters ramps from 0 to `curvature`, then holds. No
/// gravity (the paper lists only contact and friction). The sphere is
/// centred at `(0.1, 0, 0.05)`.
///
/// **Curvature.** The paper's target is the discrete curvature 0.1886 per
/// bend, i.e. `0.1886/Δl` in 1/m, on a discretization it does not state. At
/// Δl = 1 cm that is 18.86 1/m, which we use whatever the discretization:
/// the distal 7.5 cm then bend through 81° and the free (contact-less) shape
/// ends with its tip at `(0.077, 0, 0.045)`, 2.3 cm from the sphere's
/// centre. Finer readings curl tighter and never reach a sphere centred 5 cm
/// above the tip (at Δl = 2.5 mm, 75 1/m: a 13-mm curl near the clamp).
///
/// **Sphere radius** (not given): R = 3.5 cm, so the straight rod's tip is
/// 1.4 cm clear of it and the free shape's tip ends 1.3 cm inside it.
/// Closing towards the sphere centred above its tip, the rod meets the
/// sphere's lower left face and is held against it. (A rod clamped at the
/// origin and bending towards `+z` cannot wrap around this sphere in the
/// strict sense: the sphere never lies inside its curl.)
///
/// **Contact**: the paper's stiffness 20 read as N/m with δ = r₀; μ = 0.25.
#[derive(Debug, Clone)]
pub struct Gripper {
    /// Whether the sphere is there (default true).
    pub contact: bool,
    /// Nodes (default 41).
    pub nodes: usize,
    /// Target natural curvature, 1/m (default 18.86).
    pub curvature: f64,
    /// Sphere radius R, m (default 3.5 cm).
    pub sphere_radius: f64,
    /// Sphere centre, m.
    pub sphere_centre: [f64; 3],
    /// Contact stiffness, N/m (default 20).
    pub stiffness: f64,
    /// Friction coefficient (default 0.25).
    pub friction: f64,
    /// Ramp time of the curvature, s (default 5 s).
    pub ramp: f64,
    /// Duration, s (default 6 s: ramp, then 1 s hold).
    pub duration: f64,
    /// Time step, s (default 0.01 s).
    pub dt: f64,
}

impl Default for Gripper {
    fn default() -> Self {
        Self {
            contact: true,
            nodes: 41,
            curvature: 18.86,
            sphere_radius: 0.035,
            sphere_centre: [0.1, 0.0, 0.05],
            stiffness: 20.0,
            friction: 0.25,
            ramp: 5.0,
            duration: 6.0,
            dt: 0.01,
        }
    }
}

impl Gripper {
    /// Young's modulus, Pa.
    pub const E: f64 = 200e6;
    /// Poisson's ratio.
    pub const NU: f64 = 0.5;
    /// Density, kg/m³.
    pub const RHO: f64 = 1200.0;

    /// Springs on the distal three quarters (whose node lies at `s ≥ L/4`).
    pub fn actuated_springs(&self) -> Vec<usize> {
        let dl = LENGTH / (self.nodes - 1) as f64;
        (0..self.nodes - 2)
            .filter(|&j| (j + 1) as f64 * dl >= 0.25 * LENGTH - 1e-12)
            .collect()
    }

    /// Smallest gap (m) between the rod's surface and the sphere over `points`.
    pub fn sphere_gap(&self, points: &[[f64; 3]]) -> f64 {
        points
            .iter()
            .map(|p| {
                let d: f64 = (0..3)
                    .map(|i| (p[i] - self.sphere_centre[i]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                d - self.sphere_radius - RADIUS
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// The model.
    pub fn build(&self) -> Result<RodScene> {
        check_nodes(self.nodes, 5)?;
        let mut b = ModelBuilder::new(3)?;
        let nodes = add_nodes(&mut b, &line([0.0; 3], [LENGTH, 0.0, 0.0], self.nodes))?;
        b.add_param(control(
            "curvature",
            vec![(0.0, 0.0), (self.ramp, self.curvature)],
        ))?;
        clamp(&mut b, &nodes)?;
        b.add(
            Rod::chain(&nodes, RADIUS, Self::E, Self::NU, Self::RHO)
                .named("gripper")
                .with_first_director([0.0, 0.0, 1.0])
                .fix_twist(0)
                .actuate(Actuation::curvature(
                    "curvature",
                    1,
                    Some(self.actuated_springs()),
                )),
        );
        if self.contact {
            b.add(
                SphereContact::new(
                    self.sphere_centre,
                    self.sphere_radius,
                    LogExpPenalty {
                        stiffness: self.stiffness,
                        delta: RADIUS,
                    },
                )
                .with_node_radius(RADIUS)
                .with_friction(self.friction, SLIP_VELOCITY),
            );
        }
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo::implicit_euler(
                if self.contact {
                    "gripper_contact"
                } else {
                    "gripper_free"
                },
                self.dt,
                steps(self.duration, self.dt),
                vec![nodes],
            ),
        })
    }
}
