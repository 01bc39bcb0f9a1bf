//! Gait optimization for the cable-driven robots (cable paper §III–IV):
//! the robot settled on the ground, its motors reparameterized as a cyclic
//! keyframe gait, a centre-of-mass target, the slack-eating regularizer
//! (appendix B), and post-processing that removes slack before export.
//!
//! Units: lengths m, time s, controls are contracted cable lengths `u` (m).

use crate::robots::Robot;
use pliant_cable::Cable;
use pliant_core::penalty::one_sided_quadratic_d;
use pliant_core::{Integrator, Model, NewtonSettings, Simulator};
use pliant_environment::Friction;
use pliant_optim::{
    CentreOfMass, ComPath, ControlSmoothness, Gait, Heading, Motor, Objective, OptimError,
    Residuals, Shooting, StepView, Trajectory,
};
use serde::{Deserialize, Serialize};

/// The slack-eating regularizer (cable paper eq. 13): `w Q(ε − Γ)` per
/// cable and step, written as the residual `r = √(2 w Q(ε − Γ))` so that
/// `½ r² = w Q`. It is zero once every cable is taut by at least `ε`, and
/// removes the flat regions a slack cable puts in the objective.
#[derive(Debug)]
pub struct SlackRegularizer {
    cables: Vec<Cable>,
    epsilon: f64,
    weight: f64,
}

impl SlackRegularizer {
    /// `cables` bound to the model; `epsilon` (m) the tautness aimed for,
    /// also the smoothing width of `Q`; `weight` in J/m².
    pub fn new(cables: Vec<Cable>, epsilon: f64, weight: f64) -> pliant_optim::Result<Self> {
        if !(epsilon > 0.0 && weight > 0.0) {
            return Err(OptimError::Input(format!(
                "slack regularizer: epsilon ({epsilon} m) and weight ({weight}) must be positive"
            )));
        }
        if let Some(c) = cables.iter().find(|c| !c.is_bound()) {
            return Err(OptimError::Input(format!(
                "slack regularizer: cable `{}` is not bound to a model",
                c.name
            )));
        }
        Ok(Self {
            cables,
            epsilon,
            weight,
        })
    }
}

impl Objective for SlackRegularizer {
    fn name(&self) -> String {
        "slack".into()
    }
    fn eval(&self, s: &StepView, out: &mut Residuals) {
        for (row, c) in self.cables.iter().enumerate() {
            let d = c.deformation(s.x, s.p);
            let (q, dq, _) = one_sided_quadratic_d(self.epsilon - d.gamma, self.epsilon);
            let r = (2.0 * self.weight * q).sqrt();
            out.r.push(r);
            if r > 0.0 {
                // dr/ds = w Q'(s)/r, s = ε − Γ.
                let drs = self.weight * dq / r;
                out.dx.extend(d.dq.iter().map(|&(i, v)| (row, i, -drs * v)));
                out.dp.extend(d.dp.iter().map(|&(i, v)| (row, i, -drs * v)));
            }
        }
    }
}

/// Slack post-processing (§III-B.2): per step, each motor takes in the
/// smallest slack `s = max(0, −Γ)` of the cables on its channels,
/// `u_post = u + s`, which leaves every cable's tension, hence the motion,
/// unchanged. Returns `u_post[k][motor]` for steps `1 … K`.
pub fn remove_slack(
    tr: &Trajectory,
    cables: &[Cable],
    model: &Model,
    motors: &[Motor],
) -> pliant_optim::Result<Vec<Vec<f64>>> {
    // Parameter indices of each motor's channels.
    let idx: Vec<Vec<usize>> = motors
        .iter()
        .map(|m| {
            m.channels
                .iter()
                .map(|c| {
                    model
                        .layout
                        .param(c, "slack removal")
                        .map_err(OptimError::from)
                })
                .collect()
        })
        .collect::<pliant_optim::Result<_>>()?;
    let mut out = Vec::with_capacity(tr.steps());
    for k in 1..=tr.steps() {
        let p = &tr.p[k - 1];
        let gammas: Vec<(f64, Vec<usize>)> = cables
            .iter()
            .map(|c| {
                let d = c.deformation(&tr.x[k], p);
                (d.gamma, d.dp.iter().map(|&(i, _)| i).collect())
            })
            .collect();
        let row = idx
            .iter()
            .map(|chs| {
                let slack = gammas
                    .iter()
                    .filter(|(_, ps)| ps.iter().any(|i| chs.contains(i)))
                    .map(|(g, _)| (-g).max(0.0))
                    .fold(f64::INFINITY, f64::min);
                p[chs[0]] + if slack.is_finite() { slack } else { 0.0 }
            })
            .collect();
        out.push(row);
    }
    Ok(out)
}

/// Where the centre of mass should go.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Target {
    /// A straight line along +x at `speed` m/s, starting when the cycles start.
    Straight {
        /// m/s.
        speed: f64,
    },
    /// A circular arc of `angle` rad (> 0) and radius `radius` m (positive
    /// turns right, i.e. towards −y; negative left) covered at constant
    /// speed during the cycles.
    Arc {
        /// m.
        radius: f64,
        /// rad.
        angle: f64,
    },
}

/// Objective weights.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    /// COM tracking, 1/m² (per step).
    pub com: f64,
    /// Heading tracking, 1/rad² (per step): the body faces along the
    /// target path ([`pliant_optim::Heading`]). A 10° error costs as much
    /// as about 2.5 mm of COM error at the default weights.
    #[serde(default = "default_heading_weight")]
    pub heading: f64,
    /// Slack regularizer, J/m².
    pub slack: f64,
    /// Tautness aimed for by the slack regularizer, m.
    pub slack_epsilon: f64,
    /// Control smoothness, s²/m².
    pub smoothness: f64,
    /// `λ` of the Tikhonov term `½ λ ‖z − z₀‖²` (near the box centre; see
    /// [`pliant_optim::Shooting::with_regularization`]) that keeps `JᵀJ`
    /// invertible, 1/m².
    pub regularization: f64,
}

impl Weights {
    /// All weights finite and ≥ 0 (COM weight and `slack_epsilon` > 0).
    pub fn validate(&self) -> pliant_optim::Result<()> {
        let all = [
            ("com", self.com),
            ("heading", self.heading),
            ("slack", self.slack),
            ("slack_epsilon", self.slack_epsilon),
            ("smoothness", self.smoothness),
            ("regularization", self.regularization),
        ];
        for (name, v) in all {
            if !(v.is_finite() && v >= 0.0) {
                return Err(OptimError::Input(format!(
                    "weights.{name} must be finite and non-negative, got {v}"
                )));
            }
        }
        if self.com <= 0.0 || self.slack_epsilon <= 0.0 {
            return Err(OptimError::Input(
                "weights.com and weights.slack_epsilon must be positive".into(),
            ));
        }
        Ok(())
    }
}

impl Default for Weights {
    fn default() -> Self {
        Self {
            com: 1e4,
            heading: default_heading_weight(),
            slack: 1e2,
            slack_epsilon: 1e-3,
            smoothness: 1e-4,
            regularization: 1e-2,
        }
    }
}

fn default_heading_weight() -> f64 {
    2.0
}

impl Weights {
    /// The default weights for `target`: a turn ([`Target::Arc`]) weights
    /// heading ten times more, since turning is mostly about heading (from
    /// the straight Puppy gait, 10 Levenberg–Marquardt iterations turn the
    /// Puppy 17.8° at this weight and 7.6° at the straight-walking one).
    pub fn for_target(target: &Target) -> Self {
        let mut w = Self::default();
        if let Target::Arc { .. } = target {
            w.heading *= 10.0;
        }
        w
    }
}

/// A complete gait problem: robot, environment, gait layout, target.
#[derive(Debug, Clone)]
pub struct GaitSetup {
    /// Name for outputs.
    pub name: String,
    /// The robot.
    pub robot: Robot,
    /// Gravity, m/s² (rotate it for an incline).
    pub gravity: [f64; 3],
    /// Ground friction.
    pub friction: Friction,
    /// Step, s.
    pub h: f64,
    /// Motors, keyframes, phases, bounds.
    pub gait: Gait,
    /// COM target.
    pub target: Target,
    /// Objective weights.
    pub weights: Weights,
    /// Steps to settle on the ground (u = 0) before the gait starts.
    pub settle_steps: usize,
    /// Newton settings of every rollout.
    pub newton: NewtonSettings,
    /// Simulators on which Levenberg–Marquardt rolls out its trials at
    /// `μ, 4μ, …` concurrently (≥ 1; [`Shooting::with_spare_simulators`]).
    /// The iterates are the same for any value; the default is the number
    /// of cores, at most 2 (a rollout of these robots gains nothing from a
    /// second thread in assembly: 1.23 s with one, 1.24 s with two,
    /// `RAYON_NUM_THREADS=1 cargo bench --bench gait_iteration`).
    pub trial_simulators: usize,
}

/// The number of cores, at most 2 (see [`GaitSetup::trial_simulators`]).
pub fn default_trial_simulators() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
}

/// The paper's layout: h = 0.033 s, 24 preparatory steps, two cycles of 72
/// steps, four keyframes (§IV); contracted lengths within [−5 mm, 15 mm].
fn paper_gait(motors: Vec<Motor>) -> Gait {
    Gait {
        motors,
        keyframes: 4,
        prep_steps: 24,
        cycle_steps: 72,
        cycles: 2,
        bounds: Some((-0.005, 0.015)),
    }
}

fn motors_of(robot: &Robot, mirror: &[(&str, &str)]) -> pliant_core::Result<Vec<Motor>> {
    let names = robot.motors();
    let index = |n: &str| {
        names.iter().position(|m| m == n).ok_or_else(|| {
            pliant_core::CoreError::Model(format!(
                "mirror pair names motor `{n}`, which {} does not have",
                robot.name
            ))
        })
    };
    let mut pairs = Vec::new();
    for (a, b) in mirror {
        pairs.push((index(a)?, index(b)?));
    }
    Ok(names
        .iter()
        .enumerate()
        .map(|(i, m)| Motor {
            name: m.clone(),
            channels: vec![m.clone()],
            mirror_of: pairs.iter().find(|(a, _)| *a == i).map(|(_, b)| *b),
        })
        .collect())
}

/// Smooth Coulomb friction μ = 0.6 (foam on a table), regularized below
/// 1 mm/s. Standing feet must stick: with a 1 cm/s regularization they creep
/// and the optimized Tripod walked at half the speed (1.1 vs 1.9 body
/// lengths per minute after 8–12 iterations, `examples/gait.rs`).
///
/// The cable paper's own lagged tangential penalty (§II-C, `Friction::
/// LaggedQuadratic`) is not used: it resists each step's sliding but cannot
/// hold a load, so on the 10° incline the Puppy slid 108 mm down in 5.5 s
/// (μ = 100/m). On flat ground it gave the Puppy 1.98 and the Tripod 0.95
/// body lengths per minute after 10 iterations, with cheaper rollouts
/// (`cargo bench --bench gait_iteration -- lagged`).
pub fn table_friction() -> Friction {
    Friction::SmoothCoulomb {
        mu: 0.6,
        mu_axis: None,
        slip_velocity: 1e-3,
    }
}

impl GaitSetup {
    /// The Tripod walking straight (Table I: 6.1 body lengths per minute in
    /// the paper's simulation; the target asks for 8).
    pub fn tripod_walk() -> pliant_core::Result<Self> {
        let robot = Robot::tripod()?;
        let motors = motors_of(&robot, &[])?;
        Ok(Self {
            name: "tripod_walk".into(),
            gait: paper_gait(motors),
            target: Target::Straight {
                speed: 8.0 * robot.length / 60.0,
            },
            robot,
            gravity: [0.0, 0.0, -9.81],
            friction: table_friction(),
            h: 0.033,
            weights: Weights::default(),
            settle_steps: 30,
            newton: NewtonSettings::fast(),
            trial_simulators: default_trial_simulators(),
        })
    }
    /// The Puppy walking straight; with `symmetric`, each left motor repeats
    /// its right partner half a period later (16 parameters instead of 32).
    pub fn puppy_walk(symmetric: bool) -> pliant_core::Result<Self> {
        let robot = Robot::puppy()?;
        let mirror: &[(&str, &str)] = if symmetric {
            &[
                ("rear_left_front", "rear_right_front"),
                ("rear_left_back", "rear_right_back"),
                ("front_left_front", "front_right_front"),
                ("front_left_back", "front_right_back"),
            ]
        } else {
            &[]
        };
        let motors = motors_of(&robot, mirror)?;
        Ok(Self {
            name: if symmetric {
                "puppy_walk".into()
            } else {
                "puppy_walk_asymmetric".into()
            },
            gait: paper_gait(motors),
            target: Target::Straight {
                speed: 10.0 * robot.length / 60.0,
            },
            robot,
            gravity: [0.0, 0.0, -9.81],
            friction: table_friction(),
            h: 0.033,
            weights: Weights::default(),
            settle_steps: 30,
            newton: NewtonSettings::fast(),
            trial_simulators: default_trial_simulators(),
        })
    }
    /// The Puppy turning right along a quarter circle of 4 cm radius (63 mm of
    /// path) (symmetry off), with the turn's weights
    /// ([`Weights::for_target`]).
    pub fn puppy_turn() -> pliant_core::Result<Self> {
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
    pub fn puppy_incline(degrees: f64) -> pliant_core::Result<Self> {
        let mut s = Self::puppy_walk(true)?;
        s.name = "puppy_incline".into();
        let a = degrees.to_radians();
        s.gravity = [-9.81 * a.sin(), 0.0, -9.81 * a.cos()];
        Ok(s)
    }

    /// Checks the target's numbers.
    pub fn validate_target(&self) -> pliant_optim::Result<()> {
        let ok = match self.target {
            Target::Straight { speed } => speed.is_finite(),
            Target::Arc { radius, angle } => {
                radius.is_finite() && radius != 0.0 && angle.is_finite() && angle > 0.0
            }
        };
        if ok {
            Ok(())
        } else {
            Err(OptimError::Input(format!(
                "target {:?}: speed must be finite; an arc needs a finite non-zero radius and a positive angle",
                self.target
            )))
        }
    }
    /// A fingerprint of everything that defines the optimization problem
    /// (robot, environment, gait, target, weights), used to tell checkpoints
    /// of different problems apart.
    pub fn fingerprint(&self) -> u64 {
        let text = format!(
            "{} {:?} {:?} {:?} {:?} {} {:?} {:?} {:?} {} {:?}",
            self.robot.name,
            self.robot.mesh.tets.len(),
            self.robot.platform,
            self.gravity,
            self.friction,
            self.h,
            self.gait,
            self.target,
            self.weights,
            self.settle_steps,
            self.newton
        );
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
    /// all feet on the ground). A constant start has no cycle to improve on
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
    pub fn problem(&self, z_ref: &[f64]) -> pliant_optim::Result<(Shooting, GaitContext)> {
        self.validate_target()?;
        let (model, cables) = self
            .robot
            .actuated(0.001, self.gravity, self.friction)
            .map_err(OptimError::from)?;
        let (model_for_objectives, cables_for_post) = self
            .robot
            .actuated(0.001, self.gravity, self.friction)
            .map_err(OptimError::from)?;
        let mut sim = Simulator::new(model, Integrator::Bdf1, self.h, self.newton)?;
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
        let (rear, front) = self.robot.heading_nodes();
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
                let (m, _) = self
                    .robot
                    .actuated(0.001, self.gravity, self.friction)
                    .map_err(OptimError::from)?;
                Ok(Simulator::new(m, Integrator::Bdf1, self.h, self.newton)?)
            })
            .collect::<pliant_optim::Result<Vec<_>>>()?;
        let shooting = Shooting::new(sim, map, objectives)?
            .with_spare_simulators(spares)?
            .with_initial_state(x0.clone(), v0)?
            .with_regularization(self.weights.regularization, z_ref.to_vec())?;
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

/// What post-processing a gait needs besides the shooting problem.
pub struct GaitContext {
    /// A copy of the model (same layout) for post-processing.
    pub model: Model,
    /// Cables bound to `model`.
    pub cables: Vec<Cable>,
    /// The motors, in gait order.
    pub motors: Vec<Motor>,
    /// COM targets per step.
    pub targets: Vec<Vec<f64>>,
    /// Settled initial state.
    pub x0: Vec<f64>,
    /// Horizontal centre of mass.
    pub com: CentreOfMass,
    /// The body's heading (only its [`Heading::angle_of`] is used).
    pub heading: Heading,
}

impl std::fmt::Debug for GaitContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GaitContext {{ motors: {:?} }}", self.motors)
    }
}

/// What a gait achieved.
#[derive(Debug, Clone, Serialize)]
pub struct GaitSummary {
    /// Problem name.
    pub name: String,
    /// Horizontal COM displacement over the cycles, m.
    pub displacement: [f64; 2],
    /// Average speed over the cycles, body lengths per minute (straight-line
    /// distance from the start to the end of the cycles, so for a turn the
    /// chord, not the path length; negative when it went backwards).
    pub body_lengths_per_minute: f64,
    /// Change of heading over the cycles, degrees (negative: turned right).
    pub heading_change_degrees: f64,
    /// The change of heading the target asks for, degrees
    /// ([`GaitSetup::heading_change_asked_degrees`]).
    pub heading_change_asked_degrees: f64,
    /// Final objective.
    pub objective: f64,
    /// Mean Newton iterations per step of the final rollout.
    pub newton_per_step: f64,
}

impl std::fmt::Display for GaitSummary {
    /// `centre of mass moved (60.2, 0.1) mm over the cycles: 5.85 body
    /// lengths per minute; heading changed 1.5° (asked 0.0°)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "centre of mass moved ({:.1}, {:.1}) mm over the cycles: {:.2} body lengths per minute; heading changed {:.1}° (asked {:.1}°)",
            1e3 * self.displacement[0],
            1e3 * self.displacement[1],
            self.body_lengths_per_minute,
            self.heading_change_degrees,
            self.heading_change_asked_degrees
        )
    }
}

impl GaitContext {
    /// Speed and displacement of a rollout over its cyclic phase.
    pub fn summary(&self, setup: &GaitSetup, tr: &Trajectory, objective: f64) -> GaitSummary {
        let k0 = setup.gait.prep_steps;
        let a = self.com.of(&tr.x[k0]);
        let b = self.com.of(&tr.x[tr.steps()]);
        let d = [b[0] - a[0], b[1] - a[1]];
        let t = (tr.steps() - k0) as f64 * setup.h;
        let dist = (d[0] * d[0] + d[1] * d[1]).sqrt() * d[0].signum();
        let turn = self.heading.angle_of(&tr.x[tr.steps()]) - self.heading.angle_of(&tr.x[k0]);
        // Wrap to (−180°, 180°].
        let turn =
            (turn + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
        GaitSummary {
            name: setup.name.clone(),
            displacement: d,
            heading_change_degrees: turn.to_degrees(),
            heading_change_asked_degrees: setup.heading_change_asked_degrees(),
            body_lengths_per_minute: dist / setup.robot.length / t * 60.0,
            objective,
            newton_per_step: tr.newton_iterations.iter().sum::<usize>() as f64 / tr.steps() as f64,
        }
    }
}

/// A gait optimization as written in a file for `pliant optimize`: which
/// robot, what it should do, the gait layout, weights and solver. Omitted
/// fields take the paper's values (§IV).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimizeSpec {
    /// Name for outputs (default: robot and task).
    #[serde(default)]
    pub name: Option<String>,
    /// `"tripod"` or `"puppy"`.
    pub robot: String,
    /// Centre-of-mass target (default: straight at 8 body lengths/min).
    #[serde(default)]
    pub target: Option<Target>,
    /// Bilateral symmetry (Puppy only).
    #[serde(default)]
    pub symmetric: bool,
    /// Incline of the ground, degrees (uphill along +x).
    #[serde(default)]
    pub incline_degrees: f64,
    /// Steps of the preparatory phase (paper: 24).
    #[serde(default = "default_prep")]
    pub prep_steps: usize,
    /// Steps per cycle (paper: 72).
    #[serde(default = "default_cycle")]
    pub cycle_steps: usize,
    /// Copies of the cycle (paper: 2).
    #[serde(default = "default_cycles")]
    pub cycles: usize,
    /// Keyframes per cycle (paper: 4).
    #[serde(default = "default_keys")]
    pub keyframes: usize,
    /// Objective weights (default [`Weights::for_target`] of the target).
    #[serde(default)]
    pub weights: Option<Weights>,
    /// `"levenberg_marquardt"` (default), `"gauss_newton"` or `"lbfgs"`.
    #[serde(default = "default_method")]
    pub method: String,
    /// Iteration budget.
    #[serde(default = "default_iterations")]
    pub iterations: u64,
    /// Initial keyframe values (default [`GaitSetup::default_z0`]).
    #[serde(default)]
    pub z0: Option<Vec<f64>>,
}

fn default_prep() -> usize {
    24
}
fn default_cycle() -> usize {
    72
}
fn default_cycles() -> usize {
    2
}
fn default_keys() -> usize {
    4
}
fn default_method() -> String {
    "levenberg_marquardt".into()
}
fn default_iterations() -> u64 {
    10
}

impl OptimizeSpec {
    /// The gait setup it describes.
    pub fn setup(&self) -> pliant_core::Result<GaitSetup> {
        let bad = |m: String| pliant_core::CoreError::Model(format!("optimize spec: {m}"));
        let mut s = match self.robot.as_str() {
            "tripod" => {
                if self.symmetric {
                    return Err(bad("the Tripod has no mirrored motors".into()));
                }
                GaitSetup::tripod_walk()?
            }
            "puppy" => GaitSetup::puppy_walk(self.symmetric)?,
            other => return Err(bad(format!("unknown robot `{other}` (tripod or puppy)"))),
        };
        if let Some(t) = self.target {
            s.target = t;
        }
        if self.incline_degrees != 0.0 {
            let a = self.incline_degrees.to_radians();
            s.gravity = [-9.81 * a.sin(), 0.0, -9.81 * a.cos()];
        }
        s.gait.prep_steps = self.prep_steps;
        s.gait.cycle_steps = self.cycle_steps;
        s.gait.cycles = self.cycles;
        s.gait.keyframes = self.keyframes;
        s.weights = self.weights.unwrap_or(Weights::for_target(&s.target));
        if let Some(n) = &self.name {
            s.name = n.clone();
        }
        Ok(s)
    }
    /// The solver it names.
    pub fn method(&self) -> pliant_core::Result<pliant_optim::Method> {
        Ok(match self.method.as_str() {
            "levenberg_marquardt" => pliant_optim::Method::LevenbergMarquardt { tol: 1e-4 },
            "gauss_newton" => pliant_optim::Method::GaussNewton { tol: 1e-6 },
            "lbfgs" => pliant_optim::Method::Lbfgs {
                memory: 7,
                tol_grad: 1e-6,
            },
            other => {
                return Err(pliant_core::CoreError::Model(format!(
                    "optimize spec: unknown method `{other}` (levenberg_marquardt, gauss_newton, lbfgs)"
                )));
            }
        })
    }
    /// Initial `z` for `setup` (default [`GaitSetup::default_z0`]).
    pub fn z0(&self, setup: &GaitSetup) -> pliant_core::Result<Vec<f64>> {
        let nz = setup.gait.nz();
        match &self.z0 {
            None => setup
                .default_z0()
                .map_err(|e| pliant_core::CoreError::Model(e.to_string())),
            Some(z) if z.len() == nz => Ok(z.clone()),
            Some(z) => Err(pliant_core::CoreError::Model(format!(
                "optimize spec: z0 has {} values, the gait has {nz} parameters",
                z.len()
            ))),
        }
    }
}

/// The built-in demo's gait: the Tripod on a short horizon (6 preparatory
/// steps, two cycles of 24) from the trot seed, 6
/// Levenberg–Marquardt iterations.
pub fn demo_spec() -> OptimizeSpec {
    OptimizeSpec {
        name: Some("demo_tripod".into()),
        robot: "tripod".into(),
        target: None,
        symmetric: false,
        incline_degrees: 0.0,
        prep_steps: 6,
        cycle_steps: 24,
        cycles: 2,
        keyframes: 4,
        weights: None,
        method: default_method(),
        iterations: 6,
        z0: None,
    }
}
