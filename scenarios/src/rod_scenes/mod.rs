//! The rod examples of MAT-DiSMech §7.1 (Lahoti & Jawed) as ready-to-run
//! models, plus two crossing rods pushed together (a rod–rod contact check).
//! Used by `examples/rods.rs` and `tests/rod_examples.rs`. SI units.
//!
//! Every builder is a plain struct whose `Default` holds the paper's values
//! (and, where the paper is silent, the choices documented on its fields);
//! [`build`](PneuNet::build) returns a [`RodScene`]: the model, how to step
//! it, and the node indices of its rods. Time-varying actuation is written
//! into the model as keyframes of its parameter channels, so
//! [`Simulator::step`] picks it up; nothing has to be fed per step.
//!
//! Choices common to all scenes:
//! - Rods are discretized with uniform edges; rest lengths are the initial
//!   edge lengths; masses are lumped (`ρ A |ē|/2` per node and edge).
//! - A clamp fixes the first edge's two nodes and its twist angle.
//! - Rods lying along `x` take `z` as their first reference director, so
//!   curvature axis 1 bends towards `+z` (the `x`–`z` plane) and axis 2
//!   towards `−y` (the `x`–`y` plane).
//! - Ground and sphere contact use MAT-DiSMech's log-exp penalty (eq. 25)
//!   with the paper's stiffness read as `k_c` in N/m (the energy
//!   `k_c (ln(1 + e^{−K₁d})/K₁)²`, force `≈ 2 k_c |d|` when deep) and the
//!   tolerance `δ = r₀` of the authors' code (`K₁ = 15/δ`); the gap `d` is
//!   measured from the rod's surface: the contact plane of the centre line
//!   is `z = r₀` for a ground at `z = 0`, and a node touches a sphere of
//!   radius `R` at distance `R + r₀` from its centre.
//! - Friction is smooth Coulomb (eq. 23) with slip velocity ν = 1 mm/s
//!   (`K₂ = 15/ν`), a tenth or less of the sliding speeds of the scenes, so
//!   sliding is in the Coulomb regime and not a viscous drag.
//! - Dynamics by implicit Euler (MAT-DiSMech eqs. 4–5); the PneuNet is a
//!   static equilibrium reached by load stepping.
//! - Gravity `(0, 0, −9.8)` m/s² as in the paper's text.

use pliant_core::{
    CoreError, Integrator, Model, ModelBuilder, NewtonSettings, ParamChannel, ParamKind, Result,
    Simulator,
};
use pliant_environment::segment_distance::segment_distance;
use pliant_environment::{
    Friction, Gravity, Ground, LogExpPenalty, NodeForce, NormalLaw, PointForces, ResistiveForce,
    RodContact, SphereContact,
};
use pliant_rod::{Actuation, Rod};

mod crossing;
mod dropped;
mod earthworm;
mod geometry;
mod gripper;
mod pneunet;
mod snake;

pub use crossing::CrossingRods;
pub use dropped::DroppedRod;
pub use earthworm::Earthworm;
pub use geometry::{centreline_distance, lowest_z, node_positions, turning_angle_xz};
pub use gripper::Gripper;
pub use pneunet::PneuNet;
pub use snake::Snake;

/// Gravitational acceleration, m/s² (MAT-DiSMech §7.1).
pub const GRAVITY: f64 = 9.8;
/// Cross-section radius of every §7.1 rod, m.
pub const RADIUS: f64 = 1e-3;
/// Length of every §7.1 rod, m.
pub const LENGTH: f64 = 0.1;
/// Slip velocity of the smooth Coulomb friction, m/s (`K₂ = 15/ν`).
pub const SLIP_VELOCITY: f64 = 1e-3;
/// The PneuNets' natural curvatures, 1/m (Fig. 4).
pub const PNEUNET_CURVATURES: [f64; 3] = [15.70, 31.45, 47.15];
/// The PneuNets' end-effector force as printed in the paper, N (Fig. 4e).
pub const PNEUNET_PAPER_FORCE: [f64; 3] = [175.0, 0.0, 7.0];

/// Keyframes `(t in s, value)` of a parameter channel.
pub type Keyframes = Vec<(f64, f64)>;

/// A ready-to-run scene: the model and how to step it.
#[derive(Debug)]
pub struct RodScene {
    /// The model.
    pub model: Model,
    /// Everything else about the scene.
    pub info: SceneInfo,
}

/// How to step a scene, and where its rods are.
#[derive(Debug, Clone)]
pub struct SceneInfo {
    /// Scene name.
    pub name: String,
    /// Integrator.
    pub integrator: Integrator,
    /// Time step, s (for the static PneuNet: one load step).
    pub dt: f64,
    /// Number of steps of the full run.
    pub steps: usize,
    /// Newton settings.
    pub newton: NewtonSettings,
    /// Node indices of each rod, in order along it (clamp → tip, tail → head).
    pub rods: Vec<Vec<usize>>,
    /// Rod radius r₀, m.
    pub radius: f64,
}

impl SceneInfo {
    /// A dynamic scene: implicit Euler at `dt` (s) for `steps` steps, the
    /// scenes' Newton settings, rods of radius [`RADIUS`].
    fn implicit_euler(name: &str, dt: f64, steps: usize, rods: Vec<Vec<usize>>) -> Self {
        Self {
            name: name.into(),
            integrator: Integrator::ImplicitEuler,
            dt,
            steps,
            newton: newton(),
            rods,
            radius: RADIUS,
        }
    }
}

impl RodScene {
    /// The simulator at the initial state, and the scene's description.
    pub fn simulator(self) -> Result<(Simulator, SceneInfo)> {
        let i = self.info;
        let sim = Simulator::new(self.model, i.integrator, i.dt, i.newton)?;
        Ok((sim, i))
    }
}

/// Newton settings of the dynamic scenes: default tolerances, more
/// iterations, and up to four step halvings when a step fails.
pub fn newton() -> NewtonSettings {
    NewtonSettings {
        max_iterations: 100,
        max_step_halvings: 4,
        ..NewtonSettings::default()
    }
}

fn steps(duration: f64, dt: f64) -> usize {
    (duration / dt).round().max(1.0) as usize
}

fn control(name: &str, keyframes: Keyframes) -> ParamChannel {
    ParamChannel {
        name: name.into(),
        kind: ParamKind::Control,
        value: 0.0,
        keyframes,
    }
}

/// Adds massless nodes at `points`; returns their indices.
fn add_nodes(b: &mut ModelBuilder, points: &[[f64; 3]]) -> Result<Vec<usize>> {
    points.iter().map(|p| b.add_node(p, 0.0)).collect()
}

/// `n` equally spaced points from `a` to `b`.
fn line(a: [f64; 3], b: [f64; 3], n: usize) -> Vec<[f64; 3]> {
    (0..n)
        .map(|k| {
            let s = k as f64 / (n - 1) as f64;
            std::array::from_fn(|i| a[i] + s * (b[i] - a[i]))
        })
        .collect()
}

fn check_nodes(nodes: usize, min: usize) -> Result<()> {
    if nodes < min {
        return Err(CoreError::TooFew {
            field: "nodes".into(),
            found: nodes,
            min,
        });
    }
    Ok(())
}

/// Clamps the first edge of `nodes` (its two nodes; the rod fixes its twist).
fn clamp(b: &mut ModelBuilder, nodes: &[usize]) -> Result<()> {
    b.fix_node(nodes[0])?;
    b.fix_node(nodes[1])
}

fn ground(stiffness: f64, friction: Option<f64>) -> Ground {
    Ground::new(
        &[0.0, 0.0, RADIUS],
        &[0.0, 0.0, 1.0],
        NormalLaw::LogExp {
            stiffness,
            delta: RADIUS,
        },
        friction.map(|mu| Friction::SmoothCoulomb {
            mu,
            mu_axis: None,
            slip_velocity: SLIP_VELOCITY,
        }),
    )
}

/// Normal force (N) of the log-exp penalty `k (ln(1 + e^{−K d})/K)²`,
/// `K = 15/δ`, at gap `d` (m).
pub fn log_exp_force(d: f64, stiffness: f64, delta: f64) -> f64 {
    let k1 = 15.0 / delta;
    let z = -k1 * d;
    let sp = if z > 30.0 { z } else { z.exp().ln_1p() };
    let sig = 1.0 / (1.0 + (-z).exp());
    2.0 * stiffness * sp * sig / k1
}

/// The gap (m) at which the log-exp penalty carries `weight` (N).
pub fn log_exp_rest_gap(weight: f64, stiffness: f64, delta: f64) -> f64 {
    let (mut lo, mut hi) = (-10.0 * delta, 10.0 * delta);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if log_exp_force(mid, stiffness, delta) > weight {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}
