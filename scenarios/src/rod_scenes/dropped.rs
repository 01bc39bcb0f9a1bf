//! A rod dropped onto frictional ground (MAT-DiSMech §7.1).

use super::*;

/// A rod dropped on the ground (Fig. 9): L = 0.1 m (the length of the other
/// §7.1 rods; the paper does not give it), r = 1 mm, its lowest point 5 cm
/// above the ground, at rest. It is tilted along the direction
/// `(2, 1, 2)/3` (42° to the ground, out of any symmetry plane), as in the
/// authors' input file, so one end hits first and the rod slaps down.
/// Ground: the paper's stiffness 20 read as N/m, δ = r₀, μ = 0.25.
#[derive(Debug, Clone)]
pub struct DroppedRod {
    /// Young's modulus, Pa (the paper's 2 MPa or 2 GPa; default 2 GPa).
    pub youngs_modulus: f64,
    /// Nodes (default 41).
    pub nodes: usize,
    /// Height of the rod's lowest surface point above the ground, m (default 5 cm).
    pub height: f64,
    /// Friction coefficient (default 0.25).
    pub friction: Option<f64>,
    /// Ground stiffness, N/m (default 20).
    pub stiffness: f64,
    /// Duration, s (default 1 s).
    pub duration: f64,
    /// Time step, s (default 1 ms).
    pub dt: f64,
}

impl Default for DroppedRod {
    fn default() -> Self {
        Self {
            youngs_modulus: 2e9,
            nodes: 41,
            height: 0.05,
            friction: Some(0.25),
            stiffness: 20.0,
            duration: 1.0,
            dt: 1e-3,
        }
    }
}

impl DroppedRod {
    /// Poisson's ratio.
    pub const NU: f64 = 0.3;
    /// Density, kg/m³.
    pub const RHO: f64 = 1500.0;
    /// Unit direction of the rod.
    pub const DIRECTION: [f64; 3] = [2.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0];

    /// The model.
    pub fn build(&self) -> Result<RodScene> {
        check_nodes(self.nodes, 3)?;
        let a = [0.0, 0.0, self.height + RADIUS];
        let tip = std::array::from_fn(|i| a[i] + LENGTH * Self::DIRECTION[i]);
        let mut b = ModelBuilder::new(3)?;
        let nodes = add_nodes(&mut b, &line(a, tip, self.nodes))?;
        b.add(Rod::chain(&nodes, RADIUS, self.youngs_modulus, Self::NU, Self::RHO).named("rod"));
        b.add(Gravity::new(&[0.0, 0.0, -GRAVITY]));
        b.add(ground(self.stiffness, self.friction));
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo::implicit_euler(
                "drop",
                self.dt,
                steps(self.duration, self.dt),
                vec![nodes],
            ),
        })
    }
}
