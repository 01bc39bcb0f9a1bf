//! The pneumatic soft robotic snake (SRS) of Arachchige et al. 2023: three
//! bending sections of three McKibben muscles each, on a spring–damper
//! ground with anisotropic Coulomb friction, rolling sideways by rotating
//! its bending plane (planar rolling: every section's muscles driven
//! alike; spatial rolling: adjacent sections' a sixth of a period apart;
//! [`gait`] says how these read the paper and what else they could mean).
//!
//! **Body model.** The paper integrates a 15-DOF floating-base
//! constant-curvature model. pliant builds the robot from what it is made
//! of instead, so that bending, contact and actuation are all resolved
//! along the body:
//!
//! - `rings` rigid cross-sections (default 31, every 2 cm along the
//!   0.6 m body — the paper's 31 axial contact stations), each a hub node
//!   on the centre line, a stub node 5 mm along the axis, the skin nodes
//!   at radius `skin_radius` (default 10 per ring: the paper's 31 × 10 = 310
//!   contact points) and the muscle anchors at 12.5 mm; stiff springs
//!   (`ring_stiffness`) between them make the ring a rigid body (the
//!   stub takes it out of its plane, so it is rigid in 3-D);
//! - per section, three muscles ([`pliant_pneumatic::PneumaticMuscles`],
//!   linear model: `K = 1900 N/m`, `D = 90 N·s/m` per muscle,
//!   `A = 3.5625 cm²` from "50 % at 4 bar" of a 0.15 m PMA) 120° apart,
//!   each through the anchors of the section's 11 rings — the constrainer
//!   plates; consecutive sections are mounted π/3 apart, so the two rings
//!   where sections meet carry six anchors;
//! - shear panels between neighbouring rings' skin nodes
//!   ([`pliant_environment::ShearPanels`]): the skin and constrainer
//!   plates' twist and shear stiffness, with no stretch stiffness of their
//!   own, so bending and extension come from the muscles alone, as in the
//!   prototype.
//!
//! The muscles' rest length is the section length (0.2 m: the 5 cm of end
//! plates and connectors per section are lumped into the muscle span); a
//! section's bending angle for given pressures does not depend on that
//! choice (moment `p A r`, stiffness `K L r²`, angle `∝ (p A r) L / (K L r²)`).
//!
//! **Environment** (paper §III-A, §IV-A): gravity 9.81 m/s²; the skin
//! nodes touch the ground `z = 0` through eq. 3 (`K_g = 1000 N/m`,
//! `B_g = 130 N·s/m` per point) and slide with Coulomb friction, `μ = 0.6`
//! along the robot's long axis and `0.2` across it, smoothed over
//! `slip_velocity`. Which axis, and how the two coefficients combine, is
//! [`SnakeFriction`]: by default as eq. 4 writes it, each component on its
//! own, in the robot's frame (the chord from the tail's hub to the head's).
//!
//! **Run.** The snake is released with its skin `drop_height` above the
//! ground, settles for `settle` seconds with the muscles unpressurized
//! (the paper's drop test), then follows the gait ([`gait`]) for
//! `duration` seconds. Dynamics by implicit Euler.

mod body;
mod friction;
pub mod gait;
pub mod optimize;
pub mod table_i;

pub use body::{Mounting, SnakeBody};
pub use friction::SnakeFriction;
pub use gait::Gait;

use pliant_core::{Integrator, NewtonSettings, NewtonStart, Result, Simulator};

/// Total length, m.
pub const LENGTH: f64 = 0.6;
/// Total mass, kg.
pub const MASS: f64 = 0.35;
/// Number of bending sections.
pub const SECTIONS: usize = 3;
/// Muscle radius from the centre line, m.
pub const MUSCLE_RADIUS: f64 = 0.0125;
/// Muscle axial stiffness, N/m (§IV-A).
pub const MUSCLE_STIFFNESS: f64 = 1900.0;
/// Muscle axial damping, N·s/m (§IV-A).
pub const MUSCLE_DAMPING: f64 = 90.0;
/// Unactuated PMA length, m (§II-A).
pub const PMA_LENGTH: f64 = 0.15;
/// Ground stiffness per contact point, N/m (eq. 3).
pub const GROUND_STIFFNESS: f64 = 1000.0;
/// Ground damping per contact point, N·s/m (eq. 3).
pub const GROUND_DAMPING: f64 = 130.0;
/// Friction coefficient along the body axis (eq. 4, `μ_x`).
pub const MU_AXIAL: f64 = 0.6;
/// Friction coefficient across the body axis (eq. 4, `μ_y`).
pub const MU_LATERAL: f64 = 0.2;
/// Gravity, m/s².
pub const GRAVITY: f64 = 9.81;

/// The paper's Table I: `(Vx, Vy)` in cm/s of planar and spatial rolling,
/// numerical model.
pub const TABLE_I_MODEL: [(f64, f64); 2] = [(3.51, 9.39), (0.67, 7.77)];
/// The paper's Table I: prototype.
pub const TABLE_I_PROTOTYPE: [(f64, f64); 2] = [(3.31, 9.01), (0.61, 7.12)];

/// The soft snake and its run. `Default` holds the paper's values and the
/// choices documented on each field.
#[derive(Debug, Clone)]
pub struct SoftSnake {
    /// The gait after the drop.
    pub gait: Gait,
    /// Cross-sections along the body (default 31; `3k + 1` so sections
    /// start and end on a ring).
    pub rings: usize,
    /// Which way consecutive sections are turned by the π/3 mounting
    /// offset (default [`Mounting::LeftHanded`]; it decides the sign of the
    /// drift along the body under the joint-space reading of the gaits).
    pub mounting: Mounting,
    /// Skin contact points per ring (default 10).
    pub skin_points: usize,
    /// Skin radius, m (default 0.03: rolling without slip moves the body
    /// `2π R` per turn of its bending plane, and the paper's model moves
    /// 18.8 cm per 2 s cycle, `R ≈ 3.0 cm`).
    pub skin_radius: f64,
    /// Stiffness of the springs that make each ring rigid, N/m (default 2e5).
    pub ring_stiffness: f64,
    /// Shear panel stiffness, N/m (default 500: 8 N·m/rad of twist
    /// stiffness per 2 cm of body).
    pub shear_stiffness: f64,
    /// Ground stiffness per contact point, N/m (default [`GROUND_STIFFNESS`]).
    pub ground_stiffness: f64,
    /// Ground damping per contact point, N·s/m (default [`GROUND_DAMPING`]).
    pub ground_damping: f64,
    /// Friction along the body axis (default [`MU_AXIAL`]).
    pub mu_axial: f64,
    /// Friction across the body axis (default [`MU_LATERAL`]).
    pub mu_lateral: f64,
    /// How the friction coefficients combine, and along which axis
    /// (default [`SnakeFriction::PerAxisRobot`]).
    pub friction: SnakeFriction,
    /// Slip velocity of the smooth Coulomb friction, m/s (default 5 mm/s).
    pub slip_velocity: f64,
    /// Height of the lowest skin point at release, m (default 0.6, the
    /// paper's drop height).
    pub drop_height: f64,
    /// Time from release to the start of the gait, s (default 2).
    pub settle: f64,
    /// Duration of the gait, s (default 15, as Table I).
    pub duration: f64,
    /// Time step, s (default 5 ms).
    pub dt: f64,
}

impl Default for SoftSnake {
    fn default() -> Self {
        Self {
            gait: Gait::default(),
            mounting: Mounting::default(),
            rings: 31,
            skin_points: 10,
            skin_radius: 0.03,
            ring_stiffness: 2e5,
            shear_stiffness: 500.0,
            ground_stiffness: GROUND_STIFFNESS,
            ground_damping: GROUND_DAMPING,
            mu_axial: MU_AXIAL,
            mu_lateral: MU_LATERAL,
            friction: SnakeFriction::default(),
            slip_velocity: 5e-3,
            drop_height: 0.6,
            settle: 2.0,
            duration: 15.0,
            dt: 5e-3,
        }
    }
}

/// A built snake: the model and where everything is.
#[derive(Debug)]
pub struct SnakeScene {
    /// The model (pressure schedules are keyframes of its channels).
    pub model: pliant_core::Model,
    /// Where everything is and how to step it.
    pub info: SnakeInfo,
}

/// Where everything of a built snake is, and how to step it.
#[derive(Debug, Clone)]
pub struct SnakeInfo {
    /// Node indices of the body.
    pub body: SnakeBody,
    /// Time step, s.
    pub dt: f64,
    /// Steps of the whole run (drop, settle, gait).
    pub steps: usize,
    /// Time the gait starts, s.
    pub gait_start: f64,
}

impl SoftSnake {
    /// Builds the model.
    pub fn build(&self) -> Result<SnakeScene> {
        let g = &self.gait;
        for (field, v, ok) in [
            ("dt", self.dt, self.dt > 0.0),
            ("settle", self.settle, self.settle >= 0.0),
            ("duration", self.duration, self.duration >= 0.0),
            ("gait.frequency", g.frequency, g.frequency > 0.0),
            (
                "gait.keyframe_interval",
                g.keyframe_interval,
                g.keyframe_interval > 0.0,
            ),
            ("gait.ramp", g.ramp, g.ramp >= 0.0),
            (
                "gait.peak_pressure",
                g.peak_pressure,
                g.peak_pressure >= 0.0,
            ),
            ("gait.amplitude", g.amplitude, g.amplitude >= 0.0),
        ] {
            pliant_core::Invalid::check(
                ok && v.is_finite(),
                field,
                v,
                "finite and positive (≥ 0 for times and pressures)",
            )?;
        }
        pliant_core::Invalid::check(
            g.start_phase.is_finite(),
            "gait.start_phase",
            g.start_phase,
            "finite (rad)",
        )?;
        for (field, v) in [("gait.sense", g.sense), ("gait.wave", g.wave)] {
            if v != 1.0 && v != -1.0 {
                return Err(pliant_core::Invalid::new(field, v, "+1 or −1").into());
            }
        }
        let (mut b, body) = body::build(self)?;
        self.gait.add_channels(
            &mut b,
            &body,
            self.settle,
            self.settle + self.duration,
            self.dt,
        )?;
        let steps = ((self.settle + self.duration) / self.dt).round() as usize;
        Ok(SnakeScene {
            model: b.build()?,
            info: SnakeInfo {
                body,
                dt: self.dt,
                steps,
                gait_start: self.settle,
            },
        })
    }
}

impl SnakeScene {
    /// The simulator at release, and the scene's description.
    pub fn simulator(self) -> Result<(Simulator, SnakeInfo)> {
        self.simulator_with(newton())
    }
    /// [`SnakeScene::simulator`] with other Newton settings.
    pub fn simulator_with(self, newton: NewtonSettings) -> Result<(Simulator, SnakeInfo)> {
        let sim = Simulator::new(self.model, Integrator::ImplicitEuler, self.info.dt, newton)?;
        Ok((sim, self.info))
    }
}

/// Newton settings of the snake: default tolerances, up to four step
/// halvings when a step fails, and each step started from the inertial
/// predictor ([`NewtonStart::Predictor`]: 4.7 Newton iterations per step
/// instead of 7.9 while rolling at dt = 5 ms; planar Vy 8.33 against 8.32
/// cm/s at 5 ms and 8.23 against 8.35 at 10 ms, `docs/benchmarks.md`).
pub fn newton() -> NewtonSettings {
    NewtonSettings {
        max_iterations: 60,
        max_step_halvings: 4,
        start: NewtonStart::Predictor,
        ..NewtonSettings::default()
    }
}

/// Mean velocity (m/s) of the centre of mass between the samples of a
/// path of `(t, com)` nearest to times `t0` and `t1`; `None` when those are
/// the same sample (an empty or one-sample path, or `t0 ≈ t1`).
///
/// ```
/// use pliant_scenarios::soft_snake::mean_velocity;
/// let path = [(0.0, [0.0; 3]), (1.0, [0.0, 0.1, 0.0]), (2.0, [0.0, 0.3, 0.0])];
/// assert!((mean_velocity(&path, 0.0, 2.0).unwrap()[1] - 0.15).abs() < 1e-12);
/// assert!(mean_velocity(&path[..1], 0.0, 2.0).is_none());
/// ```
pub fn mean_velocity(path: &[(f64, [f64; 3])], t0: f64, t1: f64) -> Option<[f64; 3]> {
    let at = |t: f64| {
        path.iter()
            .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
            .copied()
    };
    let ((ta, a), (tb, b)) = (at(t0)?, at(t1)?);
    (tb > ta).then(|| std::array::from_fn(|i| (b[i] - a[i]) / (tb - ta)))
}
