//! The cantilever plate of MAT-DiSMech §7.2 (Figs. 11 and 12): a strip of
//! free length `L = 0.1 m`, width `w = 0.02 m`, thickness `h = 1 mm`,
//! density `ρ = 1200 kg/m³`, `ν = 0.5`, clamped along one short edge and
//! bent by its own weight (`g = 9.81 m/s²`), against Euler–Bernoulli
//! `δ = q L⁴/(8 E I)` with `q = ρ g w h` (N/m) and `I = w h³/12` (m⁴) — the
//! beam modulus `E`, not the plate modulus `E/(1 − ν²)`: the strip is
//! narrow (`w²/(R h)` small at these curvatures), so its long edges are
//! free to curl anticlastically — and against the elastica at large
//! deflection.
//!
//! The mesh covers `[0, L + c] × [0, w]` with `c` one mesh spacing; the
//! nodes with `x ≤ c` are clamped (fixed). The free length is measured
//! from the outermost clamped node to the tip edge `x = L + c` (it is `L`
//! when a column of nodes lies on `x = c`, a little more otherwise), and the
//! references use it. The tip deflection is the mean `z` of the nodes on
//! `x = L + c`.
//!
//! Used by `tests/shell_cantilever.rs` and `benches/shell.rs`.

use crate::rod_cantilever::elastica_tip;
use pliant_core::{Integrator, Model, ModelBuilder, NewtonSettings, Result, Simulator};
use pliant_environment::Gravity;
use pliant_shell::generate::{MeshKind, rectangle};
use pliant_shell::{Bending, Shell, TriMesh};

/// Free length, m.
pub const LENGTH: f64 = 0.1;
/// Width, m.
pub const WIDTH: f64 = 0.02;
/// Thickness, m.
pub const THICKNESS: f64 = 1e-3;
/// Density, kg/m³.
pub const DENSITY: f64 = 1200.0;
/// Poisson's ratio.
pub const POISSON: f64 = 0.5;
/// Gravity, m/s².
pub const GRAVITY: f64 = 9.81;

/// A shell cantilever.
#[derive(Debug, Clone, Copy)]
pub struct ShellCantilever {
    /// Young's modulus, Pa.
    pub youngs: f64,
    /// Bending model.
    pub bending: Bending,
    /// Mesh type.
    pub kind: MeshKind,
    /// Mesh spacing, m.
    pub spacing: f64,
    /// Seed of random meshes.
    pub seed: u64,
    /// Poisson's ratio ([`POISSON`] in the paper).
    pub poisson: f64,
}

impl ShellCantilever {
    /// The mesh (clamp region included).
    pub fn mesh(&self) -> Result<TriMesh> {
        Ok(rectangle(
            LENGTH + self.spacing,
            WIDTH,
            self.spacing,
            self.kind,
            self.seed,
        )?)
    }
    /// The free length (m): from the outermost clamped node to the tip.
    pub fn free_length(&self) -> Result<f64> {
        let mesh = self.mesh()?;
        let clamp = self.spacing * (1.0 + 1e-9);
        let inner = mesh
            .nodes
            .iter()
            .map(|x| x[0])
            .filter(|&x| x <= clamp)
            .fold(0.0, f64::max);
        Ok(LENGTH + self.spacing - inner)
    }
    /// The model and the tip nodes.
    pub fn model(&self) -> Result<(Model, Vec<usize>)> {
        let mesh = self.mesh()?;
        let clamp = self.spacing * (1.0 + 1e-9);
        let end = LENGTH + self.spacing;
        let mut b = ModelBuilder::new(3)?;
        let mut tip = Vec::new();
        for x in &mesh.nodes {
            let n = b.add_node(x, 0.0)?;
            if x[0] <= clamp {
                b.fix_node(n)?;
            }
            if (x[0] - end).abs() < 1e-9 * end {
                tip.push(n);
            }
        }
        b.add(
            Shell::new(
                mesh.triangles,
                THICKNESS,
                self.youngs,
                self.poisson,
                DENSITY,
            )
            .bending(self.bending),
        );
        b.add(Gravity::new(&[0.0, 0.0, -GRAVITY]));
        Ok((b.build()?, tip))
    }

    /// Static tip deflection (m, positive down): static steps from the
    /// flat plate, each starting where the last ended (the mid-edge frames
    /// follow the shape), until the tip moves less than `1e-9` of itself;
    /// with the number of static steps taken.
    pub fn static_tip(&self) -> Result<(f64, usize)> {
        let (model, tip) = self.model()?;
        let mut sim = Simulator::new(model, Integrator::Static, 1.0, NewtonSettings::default())?;
        let deflection =
            |q: &[f64]| -tip.iter().map(|&n| q[3 * n + 2]).sum::<f64>() / tip.len() as f64;
        let mut last = 0.0;
        for k in 1..=50 {
            sim.step()?;
            let d = deflection(sim.q());
            if (d - last).abs() <= 1e-9 * d.abs() {
                return Ok((d, k));
            }
            last = d;
        }
        Ok((last, 50))
    }

    /// Euler–Bernoulli tip deflection `q L⁴/(8 E I)` over the free
    /// length, m.
    pub fn euler_bernoulli(&self) -> Result<f64> {
        let (q, ei) = load_and_bending_stiffness(self.youngs);
        Ok(q * self.free_length()?.powi(4) / (8.0 * ei))
    }
    /// Elastica tip deflection (inextensible, large deflection) over the
    /// free length, m.
    pub fn elastica(&self) -> Result<f64> {
        let (q, ei) = load_and_bending_stiffness(self.youngs);
        Ok(elastica_tip(q, ei, self.free_length()?).1)
    }
}

/// Weight per length `q = ρ g w h` (N/m) and `E I = E w h³/12` (N·m²).
fn load_and_bending_stiffness(youngs: f64) -> (f64, f64) {
    (
        DENSITY * GRAVITY * WIDTH * THICKNESS,
        youngs * WIDTH * THICKNESS.powi(3) / 12.0,
    )
}
