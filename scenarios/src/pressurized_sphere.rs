//! A thick-walled hollow sphere under internal pressure — the cavity's
//! validation against Lamé's solution. Inner radius `a`, outer radius `b`
//! (m), compressible neo-Hookean tetrahedra with Young's modulus `E` (Pa)
//! and Poisson's ratio `ν`, gauge pressure `p` (Pa) on the inner wall
//! through a `"cavity"` energy selected from the mesh boundary. At small
//! strain the radial displacement of the inner wall is
//!
//! `u(a) = p a / (E (b³ − a³)) · ((1 − 2ν) a³ + (1 + ν) b³/2)` (m).
//!
//! The mesh is [`pliant_mesh::hollow_sphere`]; nodes on the coordinate
//! planes are held on them (one DOF each), which removes the rigid motions
//! without disturbing the symmetric solution. The measured displacement is
//! the mean radial displacement of the inner wall's nodes.
//!
//! Used by `tests/pressurized_sphere.rs`.

use pliant_core::{Integrator, Motion, NewtonSettings, Result, Simulator};
use pliant_fem::{Material, TetMesh};
use pliant_pneumatic::{Cavity, cavity_surface};

/// A built sphere: the model and what to measure on it.
#[derive(Debug)]
pub struct SphereModel {
    /// The model.
    pub model: pliant_core::Model,
    /// Initial node positions, m.
    pub positions: Vec<[f64; 3]>,
    /// The inner wall's nodes.
    pub wall: Vec<usize>,
    /// Number of tetrahedra.
    pub tets: usize,
}

/// A pressurized hollow sphere.
#[derive(Debug, Clone, Copy)]
pub struct PressurizedSphere {
    /// Inner radius, m.
    pub inner: f64,
    /// Outer radius, m.
    pub outer: f64,
    /// Young's modulus, Pa.
    pub youngs: f64,
    /// Poisson's ratio.
    pub poisson: f64,
    /// Gauge pressure, Pa.
    pub pressure: f64,
    /// Cells along each cube-face edge (even, so nodes lie on the planes).
    pub cells: usize,
    /// Radial layers.
    pub layers: usize,
}

impl Default for PressurizedSphere {
    /// `a = 0.5`, `b = 1` m, `E = 1 MPa`, `ν = 0.3`, `p = 1 kPa`
    /// (`u/a ≈ 10⁻³`: small strain), 8 × 8 cells per face, 8 layers.
    fn default() -> Self {
        Self {
            inner: 0.5,
            outer: 1.0,
            youngs: 1e6,
            poisson: 0.3,
            pressure: 1e3,
            cells: 8,
            layers: 8,
        }
    }
}

impl PressurizedSphere {
    /// Lamé's inner-wall radial displacement, m.
    pub fn lame(&self) -> f64 {
        let (a, b, nu) = (self.inner, self.outer, self.poisson);
        self.pressure * a / (self.youngs * (b.powi(3) - a.powi(3)))
            * ((1.0 - 2.0 * nu) * a.powi(3) + (1.0 + nu) * b.powi(3) / 2.0)
    }

    /// The model, its gauge pressure a channel `p` (Pa) following
    /// `keyframes` (time in s: load steps of the static solver; none: the
    /// constant [`PressurizedSphere::pressure`]).
    pub fn model(&self, keyframes: Vec<(f64, f64)>) -> Result<SphereModel> {
        let (x, tets) = pliant_mesh::hollow_sphere(self.inner, self.outer, self.cells, self.layers)
            .ok_or_else(|| {
                pliant_core::CoreError::degenerate(
                    "sphere",
                    "needs 0 < inner < outer, cells ≥ 1, layers ≥ 1",
                )
            })?;
        let radius = |p: &[f64; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        let on_wall = |i: usize| (radius(&x[i]) - self.inner).abs() < 1e-9 * self.inner;
        let wall: Vec<usize> = (0..x.len()).filter(|&i| on_wall(i)).collect();
        let cavity = cavity_surface(&x, &tets, on_wall);
        let mesh = TetMesh { nodes: x, tets };
        let mut b = pliant_core::ModelBuilder::new(3)?;
        mesh.add_to(
            &mut b,
            1000.0,
            Material::Constant {
                youngs_modulus: self.youngs,
                poisson_ratio: self.poisson,
            },
        )
        .map_err(|e| pliant_core::CoreError::Other(Box::new(e)))?;
        for (i, p) in mesh.nodes.iter().enumerate() {
            for d in 0..3 {
                if p[d].abs() < 1e-12 {
                    b.constrain(3 * i + d, Motion::Fixed)?;
                }
            }
        }
        b.add_param(
            pliant_core::ParamChannel::control("p", self.pressure).with_keyframes(keyframes),
        )?;
        b.add(Cavity::pressurized(cavity, "p").named("cavity"));
        Ok(SphereModel {
            model: b.build()?,
            tets: mesh.tets.len(),
            positions: mesh.nodes,
            wall,
        })
    }

    /// Solves the static problem at [`PressurizedSphere::pressure`];
    /// returns the mean radial displacement of the inner wall (m) and the
    /// number of tetrahedra.
    pub fn solve(&self) -> Result<(f64, usize)> {
        let SphereModel {
            model,
            positions: x,
            wall,
            tets,
        } = self.model(vec![])?;
        let radius = |p: &[f64; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        let mut sim = Simulator::new(model, Integrator::Static, 1.0, NewtonSettings::default())?;
        sim.step()?;
        let q = sim.q();
        let u: f64 = wall
            .iter()
            .map(|&i| radius(&[q[3 * i], q[3 * i + 1], q[3 * i + 2]]) - radius(&x[i]))
            .sum::<f64>()
            / wall.len() as f64;
        Ok((u, tets))
    }
}
