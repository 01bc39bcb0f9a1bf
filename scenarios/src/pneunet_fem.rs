//! A PneuNet bending actuator in FEM: an elastomer slab with a row of
//! closed chambers above a stiffer strain-limiting layer. Pressurizing the
//! chambers (one gauge pressure channel `p`, Pa, through a `"cavity"` per
//! chamber) balloons their walls, the elastomer above the stiff bottom
//! lengthens, and the slab curls towards its strain-limiting side.
//!
//! Geometry (voxels of `cell` = 2 mm): 80 × 16 × 12 mm; the bottom 2 mm
//! are the strain-limiting layer (`E = 5 MPa`), the rest elastomer
//! (`E = 0.25 MPa`, a soft silicone), both `ν = 0.45`
//! (compressible neo-Hookean); six chambers of 8 × 12 × 6 mm with 4 mm
//! walls between them, 2 mm side and top walls, starting 4 mm above the
//! bottom. The end `x = 0` is clamped, gravity is off. The tip angle is how
//! far the bottom edge's last cell has turned from `+x`
//! ([`PneuNetFem::tip_angle`]). Load stepping by static Newton solves.
//!
//! Used by `examples/pneunet.rs` and `tests/pneunet_fem.rs`.

use crate::Result;
use pliant_core::{Integrator, Model, ModelBuilder, NewtonSettings, ParamChannel, Simulator};
use pliant_fem::{Material, NeoHookeanTets, TetMesh};
use pliant_pneumatic::{Cavity, cavity_surface, check_closed};

/// Voxel size, m.
pub const CELL: f64 = 0.002;
/// Cells along x, y, z.
pub const CELLS: [i64; 3] = [40, 8, 6];

/// The PneuNet actuator.
#[derive(Debug, Clone, Copy)]
pub struct PneuNetFem {
    /// Young's modulus of the elastomer, Pa.
    pub elastomer: f64,
    /// Young's modulus of the strain-limiting layer, Pa.
    pub limiting_layer: f64,
    /// Poisson's ratio of both.
    pub poisson: f64,
}

impl Default for PneuNetFem {
    fn default() -> Self {
        Self {
            elastomer: 2.5e5,
            limiting_layer: 5e6,
            poisson: 0.45,
        }
    }
}

/// The chambers as cell boxes `[lo, hi)`.
fn chambers() -> Vec<([i64; 3], [i64; 3])> {
    (0..6)
        .map(|c| {
            let x0 = 4 + 6 * c;
            ([x0, 1, 2], [x0 + 4, 7, 5])
        })
        .collect()
}

fn inside(b: &([i64; 3], [i64; 3]), i: i64, j: i64, k: i64) -> bool {
    (b.0[0]..b.1[0]).contains(&i) && (b.0[1]..b.1[1]).contains(&j) && (b.0[2]..b.1[2]).contains(&k)
}

impl PneuNetFem {
    /// The mesh (solid cells only) and its chambers' surfaces (normals out
    /// of the gas).
    pub fn mesh(&self) -> Result<(TetMesh, Vec<Vec<[usize; 3]>>)> {
        let holes = chambers();
        let mut cells = vec![];
        for k in 0..CELLS[2] {
            for j in 0..CELLS[1] {
                for i in 0..CELLS[0] {
                    if !holes.iter().any(|b| inside(b, i, j, k)) {
                        cells.push(([i, j, k], [i + 1, j + 1, k + 1]));
                    }
                }
            }
        }
        let mesh = TetMesh::from_voxel_boxes(&cells, CELL, [0.0; 3])?;
        let mut surfaces = vec![];
        for b in &holes {
            let lo = b.0.map(|v| v as f64 * CELL - 1e-9);
            let hi = b.1.map(|v| v as f64 * CELL + 1e-9);
            let on = |n: usize| (0..3).all(|d| (lo[d]..=hi[d]).contains(&mesh.nodes[n][d]));
            let s = cavity_surface(&mesh.nodes, &mesh.tets, on);
            check_closed(&s, mesh.nodes.len()).map_err(pliant_core::CoreError::from)?;
            surfaces.push(s);
        }
        Ok((mesh, surfaces))
    }

    /// The model with pressure channel `p` (Pa, gauge) following
    /// `keyframes`; returns it with the mesh.
    pub fn model(&self, keyframes: Vec<(f64, f64)>) -> Result<(Model, TetMesh)> {
        let (mesh, surfaces) = self.mesh()?;
        let mut b = ModelBuilder::new(3)?;
        for (x, m) in mesh.nodes.iter().zip(mesh.lumped_masses(1100.0)) {
            b.add_node(x, m)?;
        }
        let centroid_z = |t: &[usize; 4]| t.iter().map(|&n| mesh.nodes[n][2]).sum::<f64>() / 4.0;
        let (bottom, top): (Vec<[usize; 4]>, Vec<[usize; 4]>) =
            mesh.tets.iter().partition(|t| centroid_z(t) < CELL);
        let material = |e: f64| Material::Constant {
            youngs_modulus: e,
            poisson_ratio: self.poisson,
        };
        b.add(NeoHookeanTets::new(top, material(self.elastomer)));
        b.add(NeoHookeanTets::new(bottom, material(self.limiting_layer)));
        for (n, x) in mesh.nodes.iter().enumerate() {
            if x[0] < 1e-12 {
                b.fix_node(n)?;
            }
        }
        b.add_param(ParamChannel::control("p", 0.0).with_keyframes(keyframes))?;
        for (c, s) in surfaces.into_iter().enumerate() {
            b.add(Cavity::pressurized(s, "p").named(&format!("chamber{c}")));
        }
        Ok((b.build()?, mesh))
    }

    /// The tip angle (rad) of state `q`: how far the bottom edge's last
    /// cell has turned from the `+x` axis (positive either way it curls).
    pub fn tip_angle(mesh: &TetMesh, q: &[f64]) -> f64 {
        let at = |x: f64| {
            mesh.nodes
                .iter()
                .position(|p| (p[0] - x).abs() < 1e-9 && p[1].abs() < 1e-9 && p[2].abs() < 1e-9)
                .map(|n| [q[3 * n], q[3 * n + 2]])
        };
        let l = CELLS[0] as f64 * CELL;
        match (at(l - CELL), at(l)) {
            (Some(a), Some(b)) => (b[1] - a[1]).atan2(b[0] - a[0]).abs(),
            _ => f64::NAN,
        }
    }

    /// Tip angle (rad) at each pressure of `pressures` (Pa, increasing
    /// from 0), by load steps: one static solve per pressure.
    pub fn tip_angles(&self, pressures: &[f64]) -> Result<Vec<(f64, f64)>> {
        self.sweep(pressures, |_, _, _| {})
    }

    /// [`PneuNetFem::tip_angles`], calling `each(p, mesh, sim)` after every
    /// load step with the pressure (Pa) and the simulator at the step's
    /// state (`sim.q()`, m) — so a caller keeps the steps done when a later
    /// one fails to converge.
    pub fn sweep(
        &self,
        pressures: &[f64],
        mut each: impl FnMut(f64, &TetMesh, &Simulator),
    ) -> Result<Vec<(f64, f64)>> {
        let keys: Vec<(f64, f64)> = pressures
            .iter()
            .enumerate()
            .map(|(k, &p)| ((k + 1) as f64, p))
            .collect();
        let (model, mesh) = self.model(keys)?;
        let newton = NewtonSettings {
            max_iterations: 100,
            max_step_halvings: 6,
            ..NewtonSettings::default()
        };
        let mut sim = Simulator::new(model, Integrator::Static, 1.0, newton)?;
        let mut out = Vec::with_capacity(pressures.len());
        for &p in pressures {
            sim.step()?;
            each(p, &mesh, &sim);
            out.push((p, Self::tip_angle(&mesh, sim.q())));
        }
        Ok(out)
    }
}
