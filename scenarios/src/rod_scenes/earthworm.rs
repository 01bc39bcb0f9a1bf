//! The earthworm of MAT-DiSMech §7.1: a rod on frictional ground crawling by a travelling wave of natural strain.

use super::*;

/// The earthworm (Fig. 5): three nodes and two edges along `+x` on the
/// ground, the front end at `+x` (node 2). The natural length of each edge
/// contracts by `contraction` and comes back, out of phase, in a cycle of
/// three equal phases as in the authors' code: edge 0 (rear) contracts;
/// edge 0 extends while edge 1 (front) contracts; edge 1 extends. Channels
/// `"edge0"`, `"edge1"` (0 rest → 1 contracted; stretch gain `−Δ/|ē|`).
///
/// With Coulomb friction the rear/front anchoring alternates and the worm
/// crawls forward; without friction no horizontal force acts, its centre of
/// mass stays put and it only oscillates in place.
///
/// Ground: log-exp with the paper's stiffness 1000 read as N/m, δ = r₀;
/// the nodes start at the gap that carries a third of the worm's weight
/// each.
#[derive(Debug, Clone)]
pub struct Earthworm {
    /// Friction coefficient μ (default 0.25; `None`: frictionless ground).
    pub friction: Option<f64>,
    /// Contraction of each edge's natural length, m (default 1 mm, the
    /// paper's text).
    pub contraction: f64,
    /// Actuation period, s (default 0.6 s: three 0.2-s phases as in the
    /// authors' code).
    pub period: f64,
    /// Duration, s (default 10 s).
    pub duration: f64,
    /// Time step, s (default 0.01 s).
    pub dt: f64,
    /// Ground stiffness, N/m (default 1000).
    pub stiffness: f64,
}

impl Default for Earthworm {
    fn default() -> Self {
        Self {
            friction: Some(0.25),
            contraction: 1e-3,
            period: 0.6,
            duration: 10.0,
            dt: 0.01,
            stiffness: 1000.0,
        }
    }
}

impl Earthworm {
    /// Young's modulus, Pa.
    pub const E: f64 = 200e6;
    /// Poisson's ratio.
    pub const NU: f64 = 0.5;
    /// Density, kg/m³.
    pub const RHO: f64 = 1200.0;
    /// The front node.
    pub const FRONT: usize = 2;

    /// Natural-length schedules `(edge0, edge1)` as keyframes (0 rest, 1
    /// contracted) over `duration`.
    pub fn keyframes(&self) -> (Keyframes, Keyframes) {
        let (t, ph) = (self.period, self.period / 3.0);
        let cycles = (self.duration / t).ceil() as usize + 1;
        let (mut a, mut b) = (vec![], vec![]);
        for c in 0..cycles {
            let t0 = c as f64 * t;
            a.extend([(t0, 0.0), (t0 + ph, 1.0), (t0 + 2.0 * ph, 0.0)]);
            b.extend([(t0, 0.0), (t0 + ph, 0.0), (t0 + 2.0 * ph, 1.0)]);
        }
        (a, b)
    }

    /// The model.
    pub fn build(&self) -> Result<RodScene> {
        let half = 0.5 * LENGTH;
        let mass = Self::RHO * std::f64::consts::PI * RADIUS * RADIUS * LENGTH;
        // Each node starts at the gap where the ground carries its lumped
        // weight (a quarter, a half and a quarter of the worm).
        let z =
            |share: f64| RADIUS + log_exp_rest_gap(share * mass * GRAVITY, self.stiffness, RADIUS);
        let mut b = ModelBuilder::new(3)?;
        let nodes = add_nodes(
            &mut b,
            &[
                [0.0, 0.0, z(0.25)],
                [half, 0.0, z(0.5)],
                [LENGTH, 0.0, z(0.25)],
            ],
        )?;
        let (k0, k1) = self.keyframes();
        b.add_param(control("edge0", k0))?;
        b.add_param(control("edge1", k1))?;
        let gain = -self.contraction / half;
        b.add(
            Rod::chain(&nodes, RADIUS, Self::E, Self::NU, Self::RHO)
                .named("earthworm")
                .with_first_director([0.0, 0.0, 1.0])
                .actuate(Actuation::stretch("edge0", Some(vec![0])).with_gain(gain))
                .actuate(Actuation::stretch("edge1", Some(vec![1])).with_gain(gain)),
        );
        b.add(Gravity::new(&[0.0, 0.0, -GRAVITY]));
        b.add(ground(self.stiffness, self.friction));
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo::implicit_euler(
                "earthworm",
                self.dt,
                steps(self.duration, self.dt),
                vec![nodes],
            ),
        })
    }
}
