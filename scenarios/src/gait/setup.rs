//! A gait problem on a robot: the robot settled on the ground, its motors
//! as a cyclic keyframe gait (cable paper §III-B), the objectives, and the
//! simulators that roll it out.

use super::{ActuatorMap, GaitContext, GaitRobot, SlackRegularizer, Target, Weights};
use crate::Result;
use crate::robots::Robot;
use pliant_cable::CableEnergy;
use pliant_core::{Invalid, NewtonSettings, Simulator};
use pliant_environment::Friction;
use pliant_optim::{
    CentreOfMass, ComPath, ControlSmoothness, Gait, Heading, Motor, Objective, OptimError, Shooting,
};

/// Largest target speed, m/s.
pub(crate) const MAX_TARGET_SPEED: f64 = 10.0;
/// Largest target arc radius, m.
pub(crate) const MAX_TARGET_RADIUS: f64 = 1000.0;

/// A complete gait problem: the robot's scene, gait layout, target.
#[derive(Debug, Clone)]
pub struct GaitSetup {
    /// Name for outputs.
    pub name: String,
    /// The robot's scene (body, motors, cables, ground, gravity).
    pub robot: GaitRobot,
    /// Step, s (the scene's).
    pub h: f64,
    /// Motors, keyframes, phases, bounds.
    pub gait: Gait,
    /// COM target.
    pub target: Target,
    /// Objective weights.
    pub weights: Weights,
    /// Steps to settle on the ground (u = 0) before the gait starts.
    pub settle_steps: usize,
    /// Newton settings of every rollout (the scene's).
    pub newton: NewtonSettings,
    /// Simulators on which Levenberg–Marquardt rolls out its trials at
    /// `μ, 2μ, 8μ, …` concurrently (≥ 1; [`Shooting::with_spare_simulators`]);
    /// a second one also rebuilds step blocks beside the Jacobian's and the
    /// adjoint gradient's sweeps.
    /// The iterates are the same for any value; the default is the number
    /// of cores, at most 2 (a rollout of these robots gains nothing from a
    /// second thread in assembly: compare
    /// `RAYON_NUM_THREADS=1 cargo bench --bench gait_iteration` with the
    /// default; figures in `docs/benchmarks.md`).
    pub trial_simulators: usize,
    /// Whether Levenberg–Marquardt's trials are given up once their cost
    /// so far plus the Gauss–Newton model's cost of the remaining steps
    /// reaches the cost to beat (default `true`;
    /// [`Shooting::with_forecast_cuts`]).
    pub forecast_cuts: bool,
}

/// The number of cores, at most 2 (see [`GaitSetup::trial_simulators`]).
pub fn default_trial_simulators() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
}

/// Steps the paper robots settle on the ground before the gait starts.
pub(crate) const SETTLE_STEPS: usize = 30;

/// The paper's layout: 24 preparatory steps, two cycles of 72 steps, four
/// keyframes (§IV); keyframe values within `bounds`.
pub(crate) fn paper_gait(motors: Vec<Motor>, bounds: (f64, f64)) -> Gait {
    Gait {
        motors,
        keyframes: 4,
        prep_steps: 24,
        cycle_steps: 72,
        cycles: 2,
        bounds: Some(bounds),
    }
}

/// The table both paper robots walk on: smooth Coulomb friction μ = 0.4
/// (foam on a table), regularized below 1 mm/s. Standing feet must stick:
/// with a 1 cm/s regularization they creep and the optimized Tripod walked
/// at half the speed (1.1 vs 1.9 body lengths per minute after 8–12
/// iterations, `examples/gait.rs`, measured on the 3 cm legs, 1 cm voxels
/// and μ = 0.6 used until 2026-11-28).
///
/// The paper gives no coefficient (its friction is a "tunable weight",
/// §II-C). μ = 0.4 is where the Puppy's optimized trot walks the paper's
/// 8.6 body lengths/min (8.60; 8.99 at μ = 0.3, 9.10 at 0.6) and the
/// Tripod 5.36 (paper 6.1; it is the robot that feels friction, 4.36 →
/// 1.20 from μ = 0.3 to 1.0 on 3 cm legs). On it the Puppy re-optimized
/// for a 15° incline climbs (2.86 body lengths/min); on 20° (tan 20° =
/// 0.36) it slides down. `docs/results.md`, "legs, foam and friction".
///
/// The cable paper's own lagged tangential penalty (§II-C, `Friction::
/// LaggedQuadratic`) is not used: it resists each step's sliding but cannot
/// hold a load, so on the 10° incline the Puppy slid 108 mm down in 5.5 s
/// (μ = 100/m). On flat ground it gave the Puppy 1.98 and the Tripod (3 cm
/// legs, 1 cm voxels) 0.95 body lengths per minute after 10 iterations,
/// with cheaper rollouts
/// (`cargo bench --bench gait_iteration -- lagged`).
pub fn table_friction() -> Friction {
    table_friction_with(TABLE_MU)
}

/// The table's Coulomb coefficient, [`table_friction`].
pub const TABLE_MU: f64 = 0.4;

/// [`table_friction`] with Coulomb coefficient `mu` instead of
/// [`TABLE_MU`] (`docs/results.md`, "legs, foam and friction").
pub fn table_friction_with(mu: f64) -> Friction {
    Friction::SmoothCoulomb {
        mu,
        mu_axis: None,
        slip_velocity: 1e-3,
    }
}

/// The Puppy's mirror pairs for bilateral symmetry: each left motor
/// repeats its right partner.
pub(crate) const PUPPY_MIRROR: [(&str, &str); 4] = [
    ("rear_left_front", "rear_right_front"),
    ("rear_left_back", "rear_right_back"),
    ("front_left_front", "front_right_front"),
    ("front_left_back", "front_right_back"),
];

/// The cable energies bound in `model` (for the slack regularizer and
/// post-processing).
fn cables_of(model: &pliant_core::Model) -> Vec<CableEnergy> {
    model
        .energies_of::<CableEnergy>()
        .into_iter()
        .cloned()
        .collect()
}

impl GaitSetup {
    /// A gait of the paper's layout (§IV) on `robot` with `actuators`
    /// (`origin`, the spec, names fields in errors), walking straight at
    /// `speed` m/s with the default weights — what every spec starts from.
    pub fn on_scene(
        name: &str,
        robot: GaitRobot,
        actuators: &ActuatorMap,
        speed: f64,
        origin: &str,
    ) -> Result<Self> {
        let motors = actuators.motors(&robot, origin)?;
        let bounds = actuators.bounds(origin)?;
        Ok(Self {
            name: name.into(),
            gait: paper_gait(motors, bounds),
            target: Target::Straight { speed },
            h: robot.dt,
            newton: robot.newton,
            robot,
            weights: Weights::default(),
            settle_steps: SETTLE_STEPS,
            trial_simulators: default_trial_simulators(),
            forecast_cuts: true,
        })
    }

    /// The Tripod walking straight (Table I: 6.1 body lengths per minute in
    /// the paper's simulation; the target asks for 8), on the scene
    /// [`Robot::gait_scene_text`] generates.
    pub fn tripod_walk() -> Result<Self> {
        let robot = Robot::tripod()?;
        let speed = 8.0 * robot.length / 60.0;
        let scene = GaitRobot::from_robot(&robot, [0.0, 0.0, -9.81], table_friction())?;
        Self::on_scene(
            "tripod_walk",
            scene,
            &ActuatorMap::default(),
            speed,
            "<tripod>",
        )
    }
    /// The Puppy walking straight; with `symmetric`, each left motor repeats
    /// its right partner half a period later (16 parameters instead of 32).
    pub fn puppy_walk(symmetric: bool) -> Result<Self> {
        let robot = Robot::puppy()?;
        let speed = 10.0 * robot.length / 60.0;
        let scene = GaitRobot::from_robot(&robot, [0.0, 0.0, -9.81], table_friction())?;
        let actuators = if symmetric {
            ActuatorMap::all_with_mirror(&PUPPY_MIRROR)
        } else {
            ActuatorMap::default()
        };
        let name = if symmetric {
            "puppy_walk"
        } else {
            "puppy_walk_asymmetric"
        };
        Self::on_scene(name, scene, &actuators, speed, "<puppy>")
    }
    /// The Puppy turning right along a quarter circle of 4 cm radius (63 mm of
    /// path) (symmetry off), with the turn's weights
    /// ([`Weights::for_target`]).
    pub fn puppy_turn() -> Result<Self> {
        let mut s = Self::puppy_walk(false)?;
        s.name = "puppy_turn".into();
        s.target = Target::Arc {
            radius: 0.04,
            angle: std::f64::consts::FRAC_PI_2,
        };
        s.weights = Weights::for_target(&s.target);
        Ok(s)
    }
    /// The Puppy walking up an incline of `degrees` (gravity rotated about y,
    /// so uphill is +x).
    pub fn puppy_incline(degrees: f64) -> Result<Self> {
        let mut s = Self::puppy_walk(true)?;
        s.name = "puppy_incline".into();
        s.robot.incline(degrees)?;
        Ok(s)
    }

    /// Checks the target's numbers: a speed of at most 10 m/s; an arc with
    /// a non-zero radius of at most 1000 m and an angle in `(0, 4π]`. (A target far beyond
    /// what a soft robot can reach only makes the objective overflow.)
    pub fn validate_target(&self) -> pliant_optim::Result<()> {
        match self.target {
            Target::Straight { speed } => Invalid::check(
                speed.is_finite() && speed.abs() <= MAX_TARGET_SPEED,
                "target.speed",
                speed,
                "m/s, at most 10 in magnitude",
            )?,
            Target::Arc { radius, angle } => {
                Invalid::check(
                    radius.is_finite() && radius != 0.0 && radius.abs() <= MAX_TARGET_RADIUS,
                    "target.radius",
                    radius,
                    "m, non-zero and at most 1000 in magnitude",
                )?;
                Invalid::check(
                    angle.is_finite() && angle > 0.0 && angle <= 4.0 * std::f64::consts::PI,
                    "target.angle",
                    angle,
                    "rad, in (0, 4π]",
                )?;
            }
        }
        Ok(())
    }
    /// A fingerprint of everything that defines the optimization problem
    /// (robot, environment, gait, target, weights), used to tell checkpoints
    /// of different problems apart.
    pub fn fingerprint(&self) -> u64 {
        let mut text = format!(
            "{} {:016x} {} {:?} {} {:?} {:?} {:?} {} {:?}",
            self.robot.scene_text(),
            self.robot.model_hash(),
            self.robot.body_length,
            self.robot.heading,
            self.h,
            self.gait,
            self.target,
            self.weights,
            self.settle_steps,
            self.newton
        );
        // Without forecast cuts the iterates may differ (the default keeps
        // the fingerprint it had before the setting existed).
        if !self.forecast_cuts {
            text.push_str(" no_forecast_cuts");
        }
        // FNV-1a: stable across runs and builds.
        text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }
    /// A trotting starting gait (the paper does not state its initial
    /// guess). Motors come in (front, back) pairs per leg, as
    /// [`Robot`]'s constructors build them. Over a cycle (phase `s` from 0
    /// to 1), with `hi` the upper bound (8 mm without bounds), every leg
    /// 1. pushes: its front cable contracts to `hi` over the first quarter,
    ///    bending the leg forward, so a planted foot moves the body ahead;
    /// 2. lifts: its back cable contracts over the second quarter; the two
    ///    pulled together shorten the leg and lift its foot;
    /// 3. swings: the front cable releases over the third quarter, carrying
    ///    the lifted foot forward;
    /// 4. lands: the back cable releases over the last quarter.
    ///
    /// Diagonal legs move together and the two diagonals half a period
    /// apart (the Puppy's rear right and front left legs lead), so the gait
    /// is also a valid symmetric one.
    ///
    /// Keyframes sample these trapezoids at `s = i/n` (four keyframes: front
    /// `0, hi, hi, 0`, back `0, 0, hi, hi`). With fewer than four keyframes
    /// per cycle the trot cannot be represented (two give co-contraction
    /// only).
    ///
    /// The seed decides which local optimum the optimizer reaches. Rolled
    /// out unchanged, this trot walks the Puppy 5.23 body lengths per
    /// minute; 10 Levenberg–Marquardt iterations from it reach 9.10, against
    /// 6.19 from the previous seed (sinusoids whose feet trace loops, with
    /// all feet on the ground), both on a table of μ = 0.6 (8.60 from the
    /// trot on [`TABLE_MU`] = 0.4). A constant start has no cycle to improve on
    /// and leads Gauss–Newton into a static lean.
    pub fn default_z0(&self) -> pliant_optim::Result<Vec<f64>> {
        let n = self.gait.keyframes;
        let hi = self.gait.bounds.map_or(0.008, |(_, hi)| hi);
        let mut keys = Vec::with_capacity(self.gait.motors.len() * n);
        for m in 0..self.gait.motors.len() {
            let (leg, back) = (m / 2, m % 2 == 1);
            // Legs 0 and 3 (rear right, front left) lead; 1 and 2 follow.
            let lag = if (leg + leg / 2) % 2 == 1 { 0.5 } else { 0.0 };
            // The front cable's trapezoid: up over the first quarter, held,
            // down over the third; the back cable's a quarter later.
            let front = |s: f64| hi * (4.0 * s).min(3.0 - 4.0 * s).clamp(0.0, 1.0);
            for i in 0..n {
                let s = (i as f64 / n as f64 + lag).fract();
                keys.push(if back {
                    front((s - 0.25).rem_euclid(1.0))
                } else {
                    front(s)
                });
            }
        }
        self.gait.z_from_keys(&keys)
    }
    /// Total steps of a rollout.
    pub fn steps(&self) -> usize {
        self.gait.steps()
    }

    /// Builds the model, settles the robot on the ground, and returns the
    /// shooting problem started from the settled state, with what
    /// post-processing needs (a copy of the model, bound cables, targets).
    pub fn problem(&self, z_ref: &[f64]) -> Result<(Shooting, GaitContext)> {
        self.validate_target()?;
        let model = self.robot.model()?;
        let cables = cables_of(&model);
        let model_for_objectives = self.robot.model()?;
        let cables_for_post = cables_of(&model_for_objectives);
        let integrator = self.robot.integrator;
        let mut sim = Simulator::new(model, integrator, self.h, self.newton)?;
        let p0 = sim.model().params_at(0.0);
        for k in 0..self.settle_steps {
            sim.step_with(&p0, false).map_err(|e| OptimError::Rollout {
                step: k + 1,
                source: e,
            })?;
        }
        let (x0, v0) = (sim.q().to_vec(), sim.v().to_vec());
        let com = CentreOfMass::new(sim.model(), &[0, 1])?;
        let c0 = com.of(&x0);
        let targets = self.targets(&c0);
        let (rear, front) = self.robot.heading_nodes(sim.model())?;
        let heading = Heading::new(sim.model(), [0, 1], &rear, &front, Vec::new(), 1.0)?;
        let theta0 = heading.angle_of(&x0);
        let map = self.gait.control_map(sim.model())?;
        let motors = self.gait.motors.clone();
        let channel_names: Vec<&str> = motors
            .iter()
            .flat_map(|m| m.channels.iter().map(String::as_str))
            .collect();
        let mut objectives: Vec<Box<dyn Objective>> = vec![
            Box::new(ComPath::new(
                sim.model(),
                &[0, 1],
                targets.clone(),
                self.weights.com,
            )?),
            Box::new(SlackRegularizer::new(
                cables,
                self.weights.slack_epsilon,
                self.weights.slack,
            )?),
            Box::new(ControlSmoothness::new(
                sim.model(),
                &channel_names,
                self.h,
                self.weights.smoothness,
            )?),
        ];
        if self.weights.heading > 0.0 {
            objectives.push(Box::new(Heading::new(
                sim.model(),
                [0, 1],
                &rear,
                &front,
                self.heading_targets(theta0),
                self.weights.heading,
            )?));
        }
        let spares = (1..self.trial_simulators.max(1))
            .map(|_| {
                let m = self.robot.model()?;
                Ok(Simulator::new(m, integrator, self.h, self.newton)?)
            })
            .collect::<Result<Vec<_>>>()?;
        let shooting = Shooting::new(sim, map, objectives)?
            .with_spare_simulators(spares)?
            .with_initial_state(x0.clone(), v0)?
            .with_regularization(self.weights.regularization, z_ref.to_vec())?
            .with_forecast_cuts(self.forecast_cuts);
        Ok((
            shooting,
            GaitContext {
                model: model_for_objectives,
                cables: cables_for_post,
                motors,
                targets,
                x0,
                com,
                heading,
            },
        ))
    }

    /// Heading targets for steps `1 … K` from the settled heading `theta0`
    /// (rad): unchanged during the preparatory phase and for a straight
    /// target; along an arc, the arc's tangent, turning at constant rate
    /// during the cycles (right, i.e. decreasing, for a positive radius).
    pub fn heading_targets(&self, theta0: f64) -> Vec<f64> {
        let (prep, k_total) = (self.gait.prep_steps, self.steps());
        let cycle_steps = (k_total - prep).max(1) as f64;
        (1..=k_total)
            .map(|k| match self.target {
                Target::Straight { .. } => theta0,
                Target::Arc { radius, angle } => {
                    let frac = k.saturating_sub(prep) as f64 / cycle_steps;
                    theta0 - radius.signum() * angle * frac
                }
            })
            .collect()
    }

    /// The change of heading the target asks for over the cycles, degrees
    /// (0 for a straight target, negative for a right turn).
    pub fn heading_change_asked_degrees(&self) -> f64 {
        self.heading_targets(0.0)
            .last()
            .map_or(0.0, |t| t.to_degrees())
    }

    /// COM targets for steps `1 … K` from the settled COM `c0`: at rest
    /// during the preparatory phase, then the path at constant speed.
    pub fn targets(&self, c0: &[f64]) -> Vec<Vec<f64>> {
        debug_assert!(self.validate_target().is_ok());
        let (prep, k_total) = (self.gait.prep_steps, self.steps());
        let cyc = (k_total - prep) as f64 * self.h;
        (1..=k_total)
            .map(|k| {
                let tau = (k.saturating_sub(prep)) as f64 * self.h;
                match self.target {
                    Target::Straight { speed } => vec![c0[0] + speed * tau, c0[1]],
                    Target::Arc { radius, angle } => {
                        let th = angle * tau / cyc;
                        vec![
                            c0[0] + radius.abs() * th.sin(),
                            c0[1] - radius * (1.0 - th.cos()),
                        ]
                    }
                }
            })
            .collect()
    }
}
