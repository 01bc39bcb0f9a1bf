//! The parachute of MAT-DiSMech §7.1 (Fig. 8): a flat regular-hexagon
//! canopy of side 1 m (h = 1 mm, E = 1 GPa, ν = 0.3, ρ = 1500 kg/m³,
//! mid-edge bending) and six ropes, elastic rods (E = 10 MPa, ν = 0.5,
//! ρ = 1500 kg/m³, radius 1 mm, 10 edges each), from the canopy's corners
//! to a payload of 0.13 kg 0.2 m below the canopy's centre (the geometry of
//! MAT-DiSMech's own input file), falling under gravity (9.81 m/s²) with
//! drag on the canopy (ρ_med = 1 kg/m³, C_D = 10).
//!
//! Rope and canopy share the corner nodes: pinned by default (a rope
//! carries little moment), or welded by rod–shell joints
//! ([`Parachute::weld_ropes`]: §3.4's bend–twist springs between each
//! rope's last edge and the edges of the canopy triangles at its corner).
//! Either way the descent stays six-fold symmetric (the symmetric
//! descent is unstable, so only round-off may seed a tilt; see
//! docs/results.md).
//!
//! The drag balance `m g = ½ ρ_med C_D A v²` with the projected canopy area
//! `A` gives the terminal velocity to compare with ([`Parachute::drag_balance`]).

use super::newton;
use pliant_core::{Integrator, ModelBuilder, Result, Simulator};
use pliant_environment::Gravity;
use pliant_rod::Rod;
use pliant_shell::generate::hexagon;
use pliant_shell::{Bending, Shell, ShellDrag, TriMesh};

/// The parachute scene.
#[derive(Debug, Clone, Copy)]
pub struct Parachute {
    /// Triangles per hexagon side (the canopy has `6 n²` triangles).
    pub n: usize,
    /// Time step, s.
    pub dt: f64,
    /// Simulated time, s.
    pub duration: f64,
    /// Weld the ropes to the canopy with rod–shell joints (default: pinned).
    pub weld_ropes: bool,
}

impl Default for Parachute {
    fn default() -> Self {
        Self {
            n: 6,
            dt: 0.01,
            duration: 3.0,
            weld_ropes: false,
        }
    }
}

/// Payload, kg.
pub const PAYLOAD: f64 = 0.13;
/// Density of canopy and ropes, kg/m³.
pub const DENSITY: f64 = 1500.0;
/// Canopy thickness, m.
pub const THICKNESS: f64 = 1e-3;
/// Rope radius, m.
pub const ROPE_RADIUS: f64 = 1e-3;
/// Drag coefficient.
pub const DRAG_COEFFICIENT: f64 = 10.0;
/// Air density, kg/m³.
pub const AIR: f64 = 1.0;

/// A built parachute.
#[derive(Debug)]
pub struct ParachuteRun {
    /// The simulator at rest.
    pub sim: Simulator,
    /// The canopy mesh (mesh node `i` is model node `i`).
    pub canopy: TriMesh,
    /// Rope edges (model nodes), for drawing.
    pub ropes: Vec<[usize; 2]>,
    /// The payload node.
    pub payload: usize,
    /// The canopy's centre node.
    pub centre: usize,
    /// The canopy's six corner nodes.
    pub corners: Vec<usize>,
    /// Steps to take.
    pub steps: usize,
    /// Total mass, kg.
    pub mass: f64,
}

impl Parachute {
    /// Builds the scene.
    pub fn build(&self) -> Result<ParachuteRun> {
        let canopy = hexagon(1.0, self.n)?;
        let mut b = ModelBuilder::new(3)?;
        for x in &canopy.nodes {
            b.add_node(x, 0.0)?;
        }
        let payload_at = [0.0, 0.0, -0.2];
        let payload = b.add_node(&payload_at, PAYLOAD)?;
        let corners: Vec<usize> = (0..6)
            .map(|k| {
                let a = std::f64::consts::PI / 3.0 * k as f64;
                canopy.nearest([a.cos(), a.sin(), 0.0])
            })
            .collect();
        let mut ropes = Vec::new();
        for &c in &corners {
            let end = canopy.nodes[c];
            let mut chain = vec![payload];
            for i in 1..10 {
                let s = i as f64 / 10.0;
                let x: Vec<f64> = (0..3)
                    .map(|a| payload_at[a] + s * (end[a] - payload_at[a]))
                    .collect();
                chain.push(b.add_node(&x, 0.0)?);
            }
            chain.push(c);
            ropes.extend(chain.windows(2).map(|w| [w[0], w[1]]));
            // The same frame for every rope, turned with it (the default
            // director depends on the rope's direction in space).
            let (ax, ay) = (end[0], end[1]);
            let r = ax.hypot(ay);
            let mut rope = Rod::chain(&chain, ROPE_RADIUS, 10e6, 0.5, DENSITY)
                .with_first_director([-ay / r, ax / r, 0.0]);
            if self.weld_ropes {
                rope = rope.with_shell_joints(vec![c], canopy.triangles.clone());
            }
            b.add(rope);
        }
        b.add(
            Shell::new(canopy.triangles.clone(), THICKNESS, 1e9, 0.3, DENSITY)
                .bending(Bending::MidEdge),
        );
        b.add(Gravity::new(&[0.0, 0.0, -9.81]));
        b.add(ShellDrag {
            triangles: canopy.triangles.clone(),
            medium_density: AIR,
            drag_coefficient: DRAG_COEFFICIENT,
        });
        let model = b.build()?;
        let mass = (0..model.layout().n_nodes())
            .map(|n| model.mass()[3 * n])
            .sum();
        let sim = Simulator::new(model, Integrator::ImplicitEuler, self.dt, newton())?;
        let centre = canopy.nearest([0.0, 0.0, 0.0]);
        Ok(ParachuteRun {
            sim,
            canopy,
            ropes,
            payload,
            centre,
            corners,
            steps: (self.duration / self.dt).round().max(1.0) as usize,
            mass,
        })
    }

    /// Terminal velocity (m/s) of a body of mass `m` (kg) whose canopy
    /// projects area `a` (m²): `√(2 m g / (ρ_med C_D A))`.
    pub fn drag_balance(m: f64, a: f64) -> f64 {
        (2.0 * m * 9.81 / (AIR * DRAG_COEFFICIENT * a)).sqrt()
    }
}

impl ParachuteRun {
    /// The canopy's drag area for a vertical descent at `q` (m²):
    /// `Σ_k A_k |n̂_k·ẑ|³` over the triangles (rest areas `A_k`, unit
    /// normals `n̂_k`) — what the drag law of §5.5 resists a vertical
    /// velocity `v` with, `F_z = ½ ρ_med C_D v² Σ_k A_k |n̂_k·ẑ|³`. It is
    /// smaller than the projected area `Σ_k A_k |n̂_k·ẑ|` of a curved canopy,
    /// whose tilted triangles see only the normal part of the flow.
    pub fn drag_area(&self, q: &[f64]) -> f64 {
        self.canopy
            .triangles
            .iter()
            .map(|t| {
                let [a0, b0, c0] = t.map(|n| self.canopy.nodes[n]);
                let rest = 0.5
                    * ((b0[0] - a0[0]) * (c0[1] - a0[1]) - (b0[1] - a0[1]) * (c0[0] - a0[0])).abs();
                let [a, b, c] = t.map(|n| super::node(q, n));
                let (u, v) = (
                    [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                    [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
                );
                let n = [
                    u[1] * v[2] - u[2] * v[1],
                    u[2] * v[0] - u[0] * v[2],
                    u[0] * v[1] - u[1] * v[0],
                ];
                let nz = n[2].abs() / (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                rest * nz.powi(3)
            })
            .sum()
    }
    /// Area (m²) of the canopy projected on the horizontal plane at `q`.
    pub fn projected_area(&self, q: &[f64]) -> f64 {
        self.canopy
            .triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|n| super::node(q, n));
                0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])).abs()
            })
            .sum()
    }
}
