//! A 3-D spring lattice: nodes on a regular grid joined by springs along the
//! grid edges, the face diagonals and the body diagonals (13 springs per
//! interior node), which makes the lattice resist shear. Used by the demo,
//! the tests and the benchmarks.

use pliant_core::{ModelBuilder, Result};
use pliant_environment::{Spring, Springs};

/// Grid size, spacing (m), spring stiffness (N/m) and node mass (kg).
#[derive(Debug, Clone, Copy)]
pub struct SpringLattice {
    /// Nodes along x, y, z.
    pub n: [usize; 3],
    /// Grid spacing, m.
    pub spacing: f64,
    /// Stiffness of the edge springs, N/m; diagonals get `k/√2` and `k/√3`.
    pub stiffness: f64,
    /// Mass of each node, kg.
    pub node_mass: f64,
    /// Position of node (0, 0, 0), m.
    pub origin: [f64; 3],
}

impl SpringLattice {
    /// Number of nodes.
    pub fn n_nodes(&self) -> usize {
        self.n[0] * self.n[1] * self.n[2]
    }
    /// Node index of grid point `(i, j, k)`.
    pub fn node(&self, i: usize, j: usize, k: usize) -> usize {
        (k * self.n[1] + j) * self.n[0] + i
    }
    /// Node positions, m, in node order.
    pub fn positions(&self) -> Vec<[f64; 3]> {
        let [nx, ny, nz] = self.n;
        let mut out = Vec::with_capacity(self.n_nodes());
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    out.push([
                        self.origin[0] + i as f64 * self.spacing,
                        self.origin[1] + j as f64 * self.spacing,
                        self.origin[2] + k as f64 * self.spacing,
                    ]);
                }
            }
        }
        out
    }
    /// Adds the nodes (indices `first..first + n_nodes()`) and the springs
    /// to `b`; returns the index of the first node.
    pub fn add_to(&self, b: &mut ModelBuilder) -> Result<usize> {
        let first = b.layout().n_nodes();
        for p in self.positions() {
            b.add_node(&p, self.node_mass)?;
        }
        b.add(self.springs(first));
        Ok(first)
    }
    /// The springs, for nodes numbered from `first` (rest lengths: the
    /// initial distances).
    pub fn springs(&self, first: usize) -> Springs {
        let [nx, ny, nz] = self.n;
        let mut springs = Vec::with_capacity(13 * self.n_nodes());
        let offsets: Vec<[i64; 3]> = {
            let mut v = Vec::new();
            for dz in -1i64..=1 {
                for dy in -1i64..=1 {
                    for dx in -1i64..=1 {
                        // Keep one of each ± pair: the lexicographically positive half.
                        if (dz, dy, dx) > (0, 0, 0) {
                            v.push([dx, dy, dz]);
                        }
                    }
                }
            }
            v
        };
        for k in 0..nz as i64 {
            for j in 0..ny as i64 {
                for i in 0..nx as i64 {
                    for o in &offsets {
                        let (a, bb, c) = (i + o[0], j + o[1], k + o[2]);
                        if a < 0
                            || bb < 0
                            || c < 0
                            || a >= nx as i64
                            || bb >= ny as i64
                            || c >= nz as i64
                        {
                            continue;
                        }
                        let len2 = (o[0] * o[0] + o[1] * o[1] + o[2] * o[2]) as f64;
                        springs.push(Spring {
                            nodes: [
                                first + self.node(i as usize, j as usize, k as usize),
                                first + self.node(a as usize, bb as usize, c as usize),
                            ],
                            stiffness: self.stiffness / len2.sqrt(),
                            rest_length: None,
                        });
                    }
                }
            }
        }
        Springs::new(springs)
    }
}

/// The lattice demo: a soft spring-lattice block (10 × 10 × 6 cm, 60 g)
/// thrown at 0.3 m/s onto a frictional ground (μ = 0.5); it lands, slides,
/// and comes to rest. Implicit Euler, 5 ms steps, 300 steps.
pub fn lattice_drop() -> Result<pliant_core::scene::SceneModel> {
    use pliant_core::scene::{RunSettings, SceneModel};
    use pliant_core::{Integrator, NewtonSettings};
    use pliant_environment::{Friction, Gravity, Ground, NormalLaw};
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
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    b.add(Ground::new(
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
    ));
    Ok(SceneModel {
        model: b.build()?,
        settings: RunSettings {
            name: Some("lattice_drop".into()),
            integrator: Integrator::ImplicitEuler,
            dt: 0.005,
            steps: 300,
            newton: NewtonSettings::default(),
        },
    })
}

/// A slender lattice column (3 × 3 × 16 nodes, 1 cm spacing, springs of
/// 200 N/m) clamped at its base and shortened by 3 mm per static load step
/// at its top (`Integrator::Static` with `dt = 1`, so `t` counts load
/// steps), past buckling; a 0.1 mm sideways imperfection at mid-height
/// picks the buckling direction (the springs' rest lengths stay those of
/// the straight column). Compressed springs make the Hessian indefinite:
/// a test case for Newton's [`HessianStrategy`](pliant_core::HessianStrategy)
/// and its diagonal shift.
pub fn buckling_column(settings: pliant_core::NewtonSettings) -> Result<pliant_core::Simulator> {
    use pliant_core::{Integrator, Motion, Simulator};
    let lat = SpringLattice {
        n: [3, 3, 16],
        spacing: 0.01,
        stiffness: 200.0,
        node_mass: 1e-3,
        origin: [0.0; 3],
    };
    let mut b = ModelBuilder::new(3)?;
    lat.add_to(&mut b)?;
    for j in 0..3 {
        for i in 0..3 {
            b.fix_node(lat.node(i, j, 0))?;
            let top = lat.node(i, j, 15);
            b.constrain(3 * top, Motion::Fixed)?;
            b.constrain(3 * top + 1, Motion::Fixed)?;
            b.constrain(3 * top + 2, Motion::Linear { velocity: -0.003 })?;
        }
    }
    let m = b.build()?;
    let mid = lat.node(1, 1, 8);
    let (mut q, v) = (m.q0().to_vec(), m.v0().to_vec());
    q[3 * mid] += 1e-4;
    let mut sim = Simulator::new(m, Integrator::Static, 1.0, settings)?;
    sim.set_state(&q, &v, 0.0, 0)?;
    Ok(sim)
}
