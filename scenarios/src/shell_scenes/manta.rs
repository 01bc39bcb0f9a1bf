//! The manta ray of MAT-DiSMech §7.1 (Fig. 6): a 1 m × 1 m elastic plate
//! (equilateral mesh, E = 6 GPa, ν = 0.3, ρ = 1057 kg/m³) in water
//! (ρ_med = 1000 kg/m³, C_D = 0.5, g = 9.81 m/s² with buoyancy) flapping by
//! the natural angle of its centre-line hinges,
//!
//! `φ̄_k(t) = A r(t) sin(2π f t − ψ_k)`, `A = 2π/3`, `f = 3.4 Hz`,
//!
//! with the phase `ψ_k` growing linearly from 0 at the leading edge
//! (`y = 1 m`) to π at the trailing edge (`y = 0`), so the wave runs
//! backwards and the ray swims towards `+y`.
//!
//! Choices the paper leaves open (stated here and in `docs/results.md`):
//! - **thickness `h = 10 mm`**: the paper gives none. Its Fig. 6 shows the
//!   whole wing flapping at 3.4 Hz, which needs the half-wing's first
//!   bending mode above the flapping frequency: with `D = E h³/12` the
//!   0.5 m cantilever half-wing has `f₁ = (1.875²/2π L²) √(D/ρh)` ≈ 16 Hz
//!   at 10 mm, but 0.5 Hz at 1 mm (where only a strip near the centre line
//!   would move);
//! - **ramp `r(t) = min(1, t/T)`** over the first period `T = 1/f`, so the
//!   flapping starts from rest instead of with a jump of the natural
//!   angles;
//! - hinge bending (natural hinge angles are its actuation), centre line
//!   `x = 0`, mesh of about `cells` triangles across.

use super::newton;
use pliant_core::{
    CoarseModel, Integrator, Model, ModelBuilder, NewtonSettings, ParamChannel, Result, Simulator,
};
use pliant_environment::Gravity;
use pliant_shell::generate::{MeshKind, rectangle};
use pliant_shell::subdivide::{Weights, refine};
use pliant_shell::transfer::between;
use pliant_shell::{Bending, Shell, ShellDrag, TriMesh};
use std::f64::consts::PI;

/// The manta-ray scene.
#[derive(Debug, Clone, Copy)]
pub struct Manta {
    /// Triangles across the 1 m span (the mesh spacing is `1 m / cells`);
    /// rounded so that a column of nodes lies on the centre line.
    pub cells: usize,
    /// Time step, s.
    pub dt: f64,
    /// Simulated time, s.
    pub duration: f64,
    /// Newton's settings ([`newton`] by default).
    pub newton: NewtonSettings,
    /// Whether [`Manta::build`] gives the simulator coarser meshes of the
    /// plate (half the cells each, down to [`COARSEST_CELLS`]) as geometric
    /// multigrid levels (`true` by default; they cost memory and build
    /// time, and [`pliant_core::Directions::Auto`] uses them only where the
    /// factor would be large).
    pub multigrid: bool,
}

/// The fewest cells across of a multigrid level [`Manta::build`] adds.
pub const COARSEST_CELLS: usize = 12;

impl Default for Manta {
    fn default() -> Self {
        Self {
            cells: 12,
            dt: 5e-3,
            duration: 3.0,
            newton: newton(),
            multigrid: true,
        }
    }
}

/// A built manta ray: the simulator and what to measure.
#[derive(Debug)]
pub struct MantaRun {
    /// The simulator at rest.
    pub sim: Simulator,
    /// The mesh (node `i` of the mesh is model node `i`).
    pub mesh: TriMesh,
    /// The node at the middle of the leading edge, `(0, 1, 0)`.
    pub leading: usize,
    /// The centre-line hinges as node pairs, with their phase ψ (rad).
    pub centre_line: Vec<([usize; 2], f64)>,
    /// Steps to take.
    pub steps: usize,
}

/// Thickness, m (see the module documentation).
pub const THICKNESS: f64 = 0.01;
/// Flapping frequency, Hz.
pub const FREQUENCY: f64 = 3.4;
/// Flapping amplitude of the natural hinge angle, rad.
pub const AMPLITUDE: f64 = 2.0 * PI / 3.0;

impl Manta {
    /// The mesh: a 1 m × 1 m equilateral mesh (edges along `y`) on
    /// `x ∈ [−0.5, 0.5]`, `y ∈ [0, 1]`, with a node column on `x = 0`.
    pub fn mesh(&self) -> Result<TriMesh> {
        // The equilateral generator puts node columns at x = k/n_x with
        // n_x = round(2 n/√3) for n cells along y: take the first n ≥ cells
        // with n_x even.
        let n = (self.cells.max(2)..)
            .find(|&n| ((2.0 * n as f64 / 3f64.sqrt()).round() as usize).is_multiple_of(2))
            .expect("some n works");
        Ok(
            rectangle(1.0, 1.0, 1.0 / n as f64, MeshKind::Equilateral, 0)?
                .translated([-0.5, 0.0, 0.0]),
        )
    }

    /// Builds the scene on [`Manta::mesh`], with coarser meshes as
    /// geometric multigrid levels where [`Manta::multigrid`] asks for them
    /// and there are cells to halve: the equilateral meshes of `cells / 2`,
    /// `cells / 4`, … (at least [`COARSEST_CELLS`]), each tied to the next
    /// finer by barycentric transfers (`pliant_shell::transfer`: the meshes
    /// are not nested).
    pub fn build(&self) -> Result<MantaRun> {
        let mesh = self.mesh()?;
        let mut run = self.build_on(mesh)?;
        if self.multigrid {
            let levels = self.coarse_levels(&run.mesh)?;
            if !levels.is_empty() {
                run.sim.set_coarse_models(levels)?;
            }
        }
        Ok(run)
    }

    /// The coarser generated meshes' models below `fine` (finest first).
    fn coarse_levels(&self, fine: &TriMesh) -> Result<Vec<CoarseModel>> {
        let mut levels = Vec::new();
        let mut finer = fine.clone();
        let mut cells = self.cells / 2;
        while cells >= COARSEST_CELLS {
            let mesh = Manta { cells, ..*self }.mesh()?;
            let t = between(&mesh, &finer)?;
            levels.push(CoarseModel {
                model: self.model_on(&mesh)?,
                positions: t.positions,
                prolongation: t.prolongation,
            });
            finer = mesh;
            cells /= 2;
        }
        Ok(levels)
    }

    /// Builds the scene on `mesh` (m) instead: any triangulation of the
    /// plate `x ∈ [−0.5, 0.5]`, `y ∈ [0, 1]` whose edges follow the centre
    /// line `x = 0` (its hinges there are the actuated ones), such as a
    /// refinement of [`Manta::mesh`]; `cells` is then unused.
    pub fn build_on(&self, mesh: TriMesh) -> Result<MantaRun> {
        let (model, centre_line, steps) = self.parts_on(&mesh)?;
        let sim = Simulator::new(model, Integrator::ImplicitEuler, self.dt, self.newton)?;
        let leading = mesh.nearest([0.0, 1.0, 0.0]);
        Ok(MantaRun {
            sim,
            mesh,
            leading,
            centre_line,
            steps,
        })
    }

    /// Builds the scene on [`Manta::mesh`] refined 1 : 4 `refinements`
    /// times (`pliant_shell::subdivide`), with the coarser meshes given to
    /// the simulator as coarse models for geometric multigrid directions
    /// (linear prolongation; [`pliant_core::Directions::Auto`] takes them
    /// where the factor would be large). `cells` sets the coarsest mesh;
    /// the finest has `4^refinements` times its triangles.
    pub fn refined(&self, refinements: usize) -> Result<MantaRun> {
        let mut meshes = vec![self.mesh()?];
        let mut weights = Vec::new();
        for _ in 0..refinements {
            let r = refine(meshes.last().expect("a mesh"), Weights::Linear)?;
            weights.push(r.weights);
            meshes.push(r.fine);
        }
        let fine = meshes.pop().expect("a mesh");
        let mut run = self.build_on(fine)?;
        let mut coarse = Vec::new();
        // Finest first: mesh k's nodes are the first of mesh k + 1's.
        for (mesh, w) in meshes.iter().zip(weights).rev() {
            let injection: Vec<usize> = (0..mesh.nodes.len()).collect();
            coarse.push(CoarseModel::nested(self.model_on(mesh)?, &injection, w));
        }
        run.sim.set_coarse_models(coarse)?;
        Ok(run)
    }

    /// The scene's model on `mesh` (as [`Manta::build_on`] steps it; a
    /// coarse model for [`pliant_core::Simulator::set_coarse_models`]).
    pub fn model_on(&self, mesh: &TriMesh) -> Result<Model> {
        Ok(self.parts_on(mesh)?.0)
    }

    /// The model on `mesh`, its centre-line hinges with their phases, and
    /// the number of steps.
    #[allow(clippy::type_complexity)]
    fn parts_on(&self, mesh: &TriMesh) -> Result<(Model, Vec<([usize; 2], f64)>, usize)> {
        let topo = mesh.topology()?;
        let mut b = ModelBuilder::new(3)?;
        for x in &mesh.nodes {
            b.add_node(x, 0.0)?;
        }
        let on_centre = |n: usize| mesh.nodes[n][0].abs() < 1e-9;
        let mut centre_line = Vec::new();
        for h in &topo.hinges {
            let [a, c] = topo.edges[h.edge];
            if on_centre(a) && on_centre(c) {
                let y = 0.5 * (mesh.nodes[a][1] + mesh.nodes[c][1]);
                centre_line.push(([a, c], PI * (1.0 - y)));
            }
        }
        let steps = (self.duration / self.dt).round().max(1.0) as usize;
        let mut shell =
            Shell::new(mesh.triangles.clone(), THICKNESS, 6e9, 0.3, 1057.0).bending(Bending::Hinge);
        for (k, (edge, psi)) in centre_line.iter().enumerate() {
            let name = format!("flap_{k}");
            let period = 1.0 / FREQUENCY;
            let keyframes = (0..=steps)
                .map(|i| {
                    let t = i as f64 * self.dt;
                    let ramp = (t / period).min(1.0);
                    (t, AMPLITUDE * ramp * (2.0 * PI * FREQUENCY * t - psi).sin())
                })
                .collect();
            b.add_param(ParamChannel {
                keyframes,
                ..ParamChannel::control(&name, 0.0)
            })?;
            shell = shell.actuate(&name, vec![*edge], 1.0);
        }
        b.add(shell);
        b.add(Gravity {
            g: vec![0.0, 0.0, -9.81],
            nodes: None,
            density: Some(1057.0),
            medium_density: Some(1000.0),
        });
        b.add(ShellDrag {
            triangles: mesh.triangles.clone(),
            medium_density: 1000.0,
            drag_coefficient: 0.5,
        });
        Ok((b.build()?, centre_line, steps))
    }
}
