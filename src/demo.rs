//! The built-in demo: a soft spring-lattice block (10 × 10 × 6 cm, 60 g)
//! thrown at 0.3 m/s onto a frictional ground; it lands, slides, and comes to
//! rest. Needs no files.

use crate::lattice::SpringLattice;
use pliant_core::{Integrator, Model, ModelBuilder, NewtonSettings, Result};
use pliant_environment::{Friction, Gravity, Ground, NormalLaw};

/// What the demo runs: model, integrator, step and step count.
pub struct DemoScene {
    /// The model.
    pub model: Model,
    /// Integrator.
    pub integrator: Integrator,
    /// Step size, s.
    pub dt: f64,
    /// Number of steps.
    pub steps: usize,
    /// Newton settings.
    pub newton: NewtonSettings,
}

/// Builds the demo scene.
pub fn lattice_drop() -> Result<DemoScene> {
    let lattice = SpringLattice {
        n: [6, 6, 4],
        spacing: 0.02,
        stiffness: 1000.0,
        node_mass: 0.06 / 144.0,
        origin: [0.0, 0.0, 0.02],
    };
    let mut b = ModelBuilder::new(3)?;
    lattice.add_to(&mut b)?;
    for i in 0..lattice.n_nodes() {
        b.set_velocity(3 * i, 0.3)?;
    }
    b.add_energy(Box::new(Gravity::new(&[0.0, 0.0, -9.81])));
    b.add_energy(Box::new(Ground::new(
        &[0.0, 0.0, 0.0],
        &[0.0, 0.0, 1.0],
        NormalLaw::Quadratic {
            stiffness: 2000.0,
            smoothing: 1e-4,
        },
        Some(Friction::SmoothCoulomb {
            mu: 0.5,
            mu_axis: None,
            slip_velocity: 1e-3,
        }),
    )));
    Ok(DemoScene {
        model: b.build()?,
        integrator: Integrator::ImplicitEuler,
        dt: 0.005,
        steps: 300,
        newton: NewtonSettings::default(),
    })
}
