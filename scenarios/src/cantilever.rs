//! The slender cantilever block of the FEM validation: a `10b × b × b`
//! neo-Hookean beam (b = 1 cm) clamped at `x = 0`, loaded by its own weight,
//! against Euler–Bernoulli `δ = q L⁴ / (8 E I)` with `q = ρ g b²`,
//! `I = b⁴/12`. Coarse linear-tetrahedron meshes are stiffer (the numerical
//! stiffening of the cable paper §II-A) and converge from below as the mesh
//! is refined. Used by `tests/cantilever.rs` and `examples/cantilever.rs`.

use crate::Result;
use pliant_core::{Model, ModelBuilder};
use pliant_environment::Gravity;
use pliant_fem::{Material, TetMesh};

/// Beam length, m.
pub const LENGTH: f64 = 0.1;
/// Side of the square section, m.
pub const SIDE: f64 = 0.01;
/// Young's modulus, Pa.
pub const YOUNGS: f64 = 1e5;
/// Poisson's ratio.
pub const POISSON: f64 = 0.3;
/// Density, kg/m³.
pub const DENSITY: f64 = 100.0;

/// A cantilever mesh with `cells` voxels across the section.
#[derive(Debug, Clone)]
pub struct Cantilever {
    /// The mesh (m).
    pub mesh: TetMesh,
    /// Gravity magnitude, m/s².
    pub gravity: f64,
}

impl Cantilever {
    /// `cells` voxels across the section (`10·cells` along), under gravity
    /// `g` (m/s², along −z).
    pub fn new(cells: i64, gravity: f64) -> Result<Self> {
        let h = SIDE / cells as f64;
        let mesh =
            TetMesh::from_voxel_boxes(&[([0, 0, 0], [10 * cells, cells, cells])], h, [0.0; 3])?;
        Ok(Self { mesh, gravity })
    }
    /// The model: clamped face `x = 0` fixed, self-weight.
    pub fn model(&self) -> Result<Model> {
        let mut b = ModelBuilder::new(3)?;
        self.mesh.add_to(
            &mut b,
            DENSITY,
            Material::Constant {
                youngs_modulus: YOUNGS,
                poisson_ratio: POISSON,
            },
        )?;
        for node in self.mesh.nodes_where(|p| p[0] < 1e-12) {
            b.fix_node(node)?;
        }
        b.add(Gravity::new(&[0.0, 0.0, -self.gravity]));
        Ok(b.build()?)
    }
    /// Mean downward displacement of the tip face (m) in state `q`.
    pub fn tip_deflection(&self, q: &[f64]) -> f64 {
        let tip = self.mesh.nodes_where(|p| p[0] > LENGTH - 1e-12);
        -tip.iter()
            .map(|&n| q[3 * n + 2] - self.mesh.nodes[n][2])
            .sum::<f64>()
            / tip.len() as f64
    }
    /// Euler–Bernoulli tip deflection, m.
    pub fn euler_bernoulli(&self) -> f64 {
        let q = DENSITY * self.gravity * SIDE * SIDE;
        let i = SIDE.powi(4) / 12.0;
        q * LENGTH.powi(4) / (8.0 * YOUNGS * i)
    }
}
