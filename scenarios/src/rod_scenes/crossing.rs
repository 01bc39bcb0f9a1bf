//! Two crossing rods pushed together: a rod–rod contact check.

use super::*;

/// Two cantilevers crossing at right angles, pushed together: rod A along
/// `+x` from `(−L/2, 0, c/2)`, rod B along `+y` from `(0, −L/2, −c/2)`,
/// each clamped at its start, their centre lines `c = 2r₀ + gap` apart where
/// they cross (at both midpoints). Tip forces `∓force` along `z` (A down, B
/// up), scaled by channel `"push"` ramping 0 → 1 over `ramp`, press A's
/// middle onto B's. With [`RodContact`] (IMC, eq. 21) on every edge of both
/// rods, stiffness `k_c` (J/m²), tolerance δ = 0.01·2r₀ = 20 µm as in the
/// authors' code, friction μ = 0.25. No gravity.
///
/// E = 200 MPa (first bending mode 11 Hz, so the 0.5-s ramp is nearly
/// quasi-static): each 5-mN tip force alone would move its rod's midpoint by
/// `P a²(3L − a)/(6EI) = 3.3` mm (`a = L/2`), so without contact the centre
/// lines, 3 mm apart, cross.
#[derive(Debug, Clone)]
pub struct CrossingRods {
    /// Rod–rod contact on (default true).
    pub contact: bool,
    /// Nodes per rod (default 21).
    pub nodes: usize,
    /// Initial surface gap at the crossing, m (default 1 mm).
    pub gap: f64,
    /// Tip force magnitude, N (default 5 mN).
    pub force: f64,
    /// Contact stiffness k_c, J/m² (default 10³: the force `≈ 2 k_c δ =
    /// 0.04` N the contact carries at penetration δ is several times the
    /// contact force of the push, about 10 mN).
    pub stiffness: f64,
    /// Contact tolerance δ, m (default 20 µm).
    pub delta: f64,
    /// Ramp time of the push, s (default 0.5 s).
    pub ramp: f64,
    /// Duration, s (default 0.8 s).
    pub duration: f64,
    /// Time step, s (default 2 ms).
    pub dt: f64,
}

impl Default for CrossingRods {
    fn default() -> Self {
        Self {
            contact: true,
            nodes: 21,
            gap: 1e-3,
            force: 5e-3,
            stiffness: 1e3,
            delta: 0.02 * RADIUS,
            ramp: 0.5,
            duration: 0.8,
            dt: 2e-3,
        }
    }
}

impl CrossingRods {
    /// Young's modulus, Pa.
    pub const E: f64 = 200e6;
    /// Poisson's ratio.
    pub const NU: f64 = 0.5;
    /// Density, kg/m³.
    pub const RHO: f64 = 1200.0;

    /// The model (`info.rods[0]` is A, `info.rods[1]` is B).
    pub fn build(&self) -> Result<RodScene> {
        check_nodes(self.nodes, 3)?;
        let (h, c) = (0.5 * LENGTH, 2.0 * RADIUS + self.gap);
        let mut b = ModelBuilder::new(3)?;
        let a = add_nodes(
            &mut b,
            &line([-h, 0.0, 0.5 * c], [h, 0.0, 0.5 * c], self.nodes),
        )?;
        let bb = add_nodes(
            &mut b,
            &line([0.0, -h, -0.5 * c], [0.0, h, -0.5 * c], self.nodes),
        )?;
        b.add_param(control("push", vec![(0.0, 0.0), (self.ramp, 1.0)]))?;
        for (name, nodes) in [("rod_a", &a), ("rod_b", &bb)] {
            clamp(&mut b, nodes)?;
            b.add(
                Rod::chain(nodes, RADIUS, Self::E, Self::NU, Self::RHO)
                    .named(name)
                    .fix_twist(0),
            );
        }
        b.add(
            PointForces::new(vec![
                NodeForce {
                    node: *a.last().expect("≥ 3 nodes"),
                    force: vec![0.0, 0.0, -self.force],
                },
                NodeForce {
                    node: *bb.last().expect("≥ 3 nodes"),
                    force: vec![0.0, 0.0, self.force],
                },
            ])
            .scaled_by("push"),
        );
        if self.contact {
            let edges = a
                .windows(2)
                .chain(bb.windows(2))
                .map(|w| [w[0], w[1]])
                .collect();
            b.add(
                RodContact::new(
                    edges,
                    RADIUS,
                    LogExpPenalty {
                        stiffness: self.stiffness,
                        delta: self.delta,
                    },
                )
                .with_friction(0.25, SLIP_VELOCITY),
            );
        }
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo::implicit_euler(
                "crossing",
                self.dt,
                steps(self.duration, self.dt),
                vec![a, bb],
            ),
        })
    }
}
