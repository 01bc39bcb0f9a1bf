//! The robot of the argmin examples (`argmin_reach`,
//! `argmin_reach_gradient_free`, `argmin_design`) and of
//! `tests/argmin_scripts.rs`: a small cable-driven soft finger, and the
//! objective a user writes for it. Included with
//! `#[path = "common/finger.rs"] mod finger;`.
//!
//! **The finger.** A 60 × 10 × 10 mm neo-Hookean block (5 mm voxels, 240
//! tetrahedra, silicone-like density 1100 kg/m³), clamped at `x = 0`,
//! hanging horizontally under gravity (−z). Two cables run from the clamp
//! to the tip: the *flexor* 2.5 mm above the underside (pulling it bends
//! the tip down) and the *abductor* 2.5 mm inside the +y side (bends the
//! tip towards +y). Each cable is length-controlled (contracted length, m)
//! or tension-controlled (N) through a channel named after it. Implicit
//! (BDF1) steps of 10 ms.
//!
//! **The objective** ([`TipReach`], written here with the public
//! [`Objective`] trait): the mean position of the tip face's nodes should
//! sit at a target over the last steps of the rollout,
//! `O = ½ Σ_{k ≥ k0} Σ_a ((tip_a(x_k) − target_a)/σ)² / n_hold`, `σ` a
//! length scale (m) that makes `O` dimensionless.
//!
//! **The controls** ([`keyframe_map`]): each cable's contraction is
//! piecewise linear in time from 0 at `t = 0` through keyframes at
//! `T/n, 2T/n, …, T`, the keyframe values (mm) being the optimization
//! vector `z`. [`reach_problem`] assembles the reaching task of the
//! controls examples: tip at `y = 10 mm`, `z = −8 mm` (the relaxed finger's
//! tip hangs at about `y = 5.6 mm`, `z = 2.8 mm`) from `t = 0.2 s` to
//! `t = 0.5 s`.
//!
//! **The design task** ([`design_problem`]): Young's modulus on a design
//! channel, `E = z · 100 kPa` held over the rollout by a [`ControlMap`], the
//! flexor pulled at a constant 0.3 N, [`TipReach`] on the tip height alone
//! (target −5 mm).

#![allow(dead_code)]

use anyhow::Context;
use pliant::cable::{Cable, CableControl, bind_points_in_tets};
use pliant::core::{Integrator, Model, ModelBuilder, NewtonSettings, ParamChannel, Simulator};
use pliant::environment::Gravity;
use pliant::fem::{Material, TetMesh};
use pliant::optim::{ControlMap, Objective, Residuals, Shooting, StepView};
use std::sync::Arc;

/// The shooting problem behind an `Arc`, so that an observer can read its
/// work counters (`stats`) and convert `w` to keyframes (`z_of`) while
/// argmin's `Executor` owns the problem. Forwards to `Shooting`'s own
/// argmin implementations (cost `½‖r‖²` and its adjoint gradient).
pub struct Shared(pub Arc<Shooting>);

impl argmin::core::CostFunction for Shared {
    type Param = nalgebra::DVector<f64>;
    type Output = f64;
    fn cost(&self, w: &Self::Param) -> Result<f64, argmin::core::Error> {
        argmin::core::CostFunction::cost(&*self.0, w)
    }
}

impl argmin::core::Gradient for Shared {
    type Param = nalgebra::DVector<f64>;
    type Gradient = nalgebra::DVector<f64>;
    fn gradient(&self, w: &Self::Param) -> Result<Self::Gradient, argmin::core::Error> {
        argmin::core::Gradient::gradient(&*self.0, w)
    }
}

/// Voxel size, m.
pub const VOXEL: f64 = 0.005;
/// Finger length along x, m.
pub const LENGTH: f64 = 12.0 * VOXEL;
/// Density, kg/m³.
pub const DENSITY: f64 = 1100.0;
/// Poisson's ratio.
pub const POISSON: f64 = 0.45;
/// Young's modulus of the controls examples, Pa.
pub const YOUNGS: f64 = 3e5;
/// Stiffness of a length-controlled cable, N/m.
pub const CABLE_STIFFNESS: f64 = 2000.0;
/// Time step, s.
pub const H: f64 = 0.01;
/// The cables, in channel order.
pub const CABLES: [&str; 2] = ["flexor", "abductor"];

/// How the cables are driven.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Drive {
    /// Contracted length `u` (m) per cable: rest length `α0 − u`.
    Length,
    /// Tension `τ` (N) per cable.
    Tension,
}

/// The finger's mesh and tip.
pub struct Finger {
    /// Rest mesh, m.
    pub mesh: TetMesh,
    /// Nodes of the tip face `x = LENGTH`.
    pub tip: Vec<usize>,
}

impl Finger {
    /// Meshes the finger.
    pub fn new() -> anyhow::Result<Self> {
        let mesh = TetMesh::from_voxel_boxes(&[([0, 0, 0], [12, 2, 2])], VOXEL, [0.0; 3])?;
        let tip = mesh.nodes_where(|p| p[0] > LENGTH - 1e-9);
        Ok(Self { mesh, tip })
    }

    /// The model: body of `material` (add design channels it reads to
    /// `design` as `(name, value)`), clamp, gravity, and the two cables,
    /// each on a control channel named after it holding `cables[c]`
    /// (m of contraction or N of tension, constant unless optimized).
    pub fn model(
        &self,
        material: Material,
        design: &[(&str, f64)],
        drive: Drive,
        cables: [f64; 2],
    ) -> anyhow::Result<Model> {
        let mut b = ModelBuilder::new(3)?;
        for (name, value) in design {
            b.add_param(ParamChannel::design(name, *value))?;
        }
        self.mesh.add_to(&mut b, DENSITY, material)?;
        for node in self.mesh.nodes_where(|p| p[0] < 1e-9) {
            b.fix_node(node)?;
        }
        b.add(Gravity::new(&[0.0, 0.0, -9.81]));
        // Cable routes: one vertex per voxel along x, from the first voxel's
        // centre to the last's, at (y, z) inside the cross-section.
        let routes = [[1.0 * VOXEL, 0.5 * VOXEL], [1.5 * VOXEL, 1.0 * VOXEL]];
        for ((name, [y, z]), value) in CABLES.iter().zip(routes).zip(cables) {
            b.add_param(ParamChannel::control(name, value))?;
            let pts: Vec<[f64; 3]> = (0..12).map(|i| [(i as f64 + 0.5) * VOXEL, y, z]).collect();
            let vertices = bind_points_in_tets(&pts, &self.mesh.nodes, &self.mesh.tets, 1e-9)
                .with_context(|| format!("binding cable {name}"))?;
            let channel = name.to_string();
            let control = match drive {
                Drive::Length => CableControl::Length { channel },
                Drive::Tension => CableControl::Tension { channel },
            };
            b.add(Cable::new(name, vertices, control, CABLE_STIFFNESS));
        }
        Ok(b.build()?)
    }

    /// The controls examples' finger: constant material, length-driven cables.
    pub fn controls_model(&self) -> anyhow::Result<Model> {
        self.model(
            Material::Constant {
                youngs_modulus: YOUNGS,
                poisson_ratio: POISSON,
            },
            &[],
            Drive::Length,
            [0.0; 2],
        )
    }

    /// A simulator of `model` with BDF1 steps of [`H`].
    pub fn simulator(model: Model) -> anyhow::Result<Simulator> {
        let newton = NewtonSettings {
            abs_tol: 1e-10,
            rel_tol: 1e-12,
            ..Default::default()
        };
        Ok(Simulator::new(model, Integrator::Bdf1, H, newton)?)
    }

    /// Mean position of the tip face in state `x`, m.
    pub fn tip_of(&self, x: &[f64]) -> [f64; 3] {
        let mut c = [0.0; 3];
        for &n in &self.tip {
            for a in 0..3 {
                c[a] += x[3 * n + a] / self.tip.len() as f64;
            }
        }
        c
    }
}

/// The user's objective: the tip (mean of the tip face's nodes) at
/// `target` along `axes` over steps `from_step ..= K`, residuals
/// `r = (tip_a(x_k) − target_a) / (σ √n_hold)` (dimensionless).
#[derive(Debug, Clone)]
pub struct TipReach {
    /// Tip-face nodes.
    pub tip: Vec<usize>,
    /// Coordinate axes that count (0 = x, 1 = y, 2 = z).
    pub axes: Vec<usize>,
    /// Target per axis in `axes`, m.
    pub target: Vec<f64>,
    /// Length scale σ, m.
    pub sigma: f64,
    /// First step (1-based) that counts.
    pub from_step: usize,
}

impl Objective for TipReach {
    fn name(&self) -> String {
        "tip_reach".into()
    }
    fn eval(&self, s: &StepView, out: &mut Residuals) {
        if s.k < self.from_step {
            return;
        }
        let n_hold = (s.steps + 1 - self.from_step) as f64;
        let scale = 1.0 / (self.sigma * n_hold.sqrt());
        let w = scale / self.tip.len() as f64;
        for (row, (&a, &t)) in self.axes.iter().zip(&self.target).enumerate() {
            let mean =
                self.tip.iter().map(|&n| s.x[3 * n + a]).sum::<f64>() / self.tip.len() as f64;
            out.r.push(scale * (mean - t));
            // ∂r/∂x_k: the mean's weight on every tip node's coordinate a.
            out.dx.extend(self.tip.iter().map(|&n| (row, 3 * n + a, w)));
        }
    }
}

/// Target of the reaching task along y and z, m.
pub const REACH_TARGET: [f64; 2] = [0.012, -0.006];
/// Steps of the reaching task (0.5 s).
pub const REACH_STEPS: usize = 50;
/// First step of the reaching task's hold (t = 0.2 s).
pub const REACH_HOLD_FROM: usize = 20;
/// Keyframes per cable.
pub const KEYFRAMES: usize = 5;
/// Bounds on every keyframe (contraction, mm).
pub const CONTRACTION_MM: (f64, f64) = (0.0, 15.0);

/// Piecewise-linear keyframe controls on the cable channels over `steps`
/// steps: `u_c(t) = 1 mm × interp((0, 0), (T/n, z_{c,1}), …, (T, z_{c,n}))`
/// at the end of every step, `z` in mm (`z_{c,j}` at index `c·n + j − 1`),
/// linear in `z` as a [`ControlMap`] must be.
pub fn keyframe_map(model: &Model, steps: usize, keyframes: usize) -> anyhow::Result<ControlMap> {
    let channels = CABLES
        .iter()
        .map(|c| model.layout().param(c, "keyframe map"))
        .collect::<Result<Vec<_>, _>>()?;
    let (nc, nz) = (channels.len(), channels.len() * keyframes);
    let mut jac = vec![0.0; steps * nc * nz];
    for k in 1..=steps {
        // Position of t_k on the keyframe grid: knot j at s = j (knot 0 is the rest value 0).
        let s = k as f64 * keyframes as f64 / steps as f64;
        let j = (s.floor() as usize).min(keyframes - 1);
        let f = s - j as f64;
        for c in 0..nc {
            let row = ((k - 1) * nc + c) * nz + c * keyframes;
            if j >= 1 {
                jac[row + j - 1] += 1e-3 * (1.0 - f);
            }
            jac[row + j] += 1e-3 * f;
        }
    }
    Ok(ControlMap::new(
        steps,
        channels,
        nz,
        jac,
        Some(CONTRACTION_MM),
    )?)
}

/// The reaching task over `steps` steps (hold from [`REACH_HOLD_FROM`], or
/// the last 60 % of a shorter horizon): the finger, [`keyframe_map`] with
/// [`KEYFRAMES`] per cable and [`TipReach`] at [`REACH_TARGET`] with σ = 1 mm.
pub fn reach_problem(finger: &Finger, steps: usize) -> anyhow::Result<Shooting> {
    let sim = Finger::simulator(finger.controls_model()?)?;
    let map = keyframe_map(sim.model(), steps, KEYFRAMES)?;
    let objective = TipReach {
        tip: finger.tip.clone(),
        axes: vec![1, 2],
        target: REACH_TARGET.to_vec(),
        sigma: 1e-3,
        from_step: REACH_HOLD_FROM.min(1 + 2 * steps / 5),
    };
    Ok(Shooting::new(sim, map, vec![Box::new(objective)])?)
}

// The design task of `argmin_design`.

/// Flexor tension, N.
pub const TENSION: f64 = 0.3;
/// Target tip height, m.
pub const TARGET_Z: f64 = -0.005;
/// `E = z · E_UNIT`, Pa.
pub const E_UNIT: f64 = 1e5;
/// Bounds on `z` (50 kPa – 1 MPa).
pub const Z_BOUNDS: (f64, f64) = (0.5, 10.0);
/// Starting `z` (300 kPa).
pub const Z0: f64 = 3.0;

/// The design problem: the finger with `E` and ν on design channels, a
/// constant flexor tension, and the map `E = z · E_UNIT` over `steps` steps.
pub fn design_problem(finger: &Finger, steps: usize, from_step: usize) -> anyhow::Result<Shooting> {
    let material = Material::Channels {
        youngs_modulus: "E".into(),
        poisson_ratio: "nu".into(),
    };
    let model = finger.model(
        material,
        &[("E", Z0 * E_UNIT), ("nu", POISSON)],
        Drive::Tension,
        [TENSION, 0.0],
    )?;
    let e = model.layout().param("E", "design map")?;
    // p_k[E] = E_UNIT · z at every step: a design parameter as a ControlMap.
    let map = ControlMap::new(steps, vec![e], 1, vec![E_UNIT; steps], Some(Z_BOUNDS))?;
    let objective = TipReach {
        tip: finger.tip.clone(),
        axes: vec![2],
        target: vec![TARGET_Z],
        sigma: 1e-3,
        from_step,
    };
    let sim = Finger::simulator(model)?;
    Ok(Shooting::new(sim, map, vec![Box::new(objective)])?)
}
