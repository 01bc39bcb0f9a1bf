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
    Friction, Gravity, Ground, NodeForce, NormalLaw, PointForces, ResistiveForce, RodContact,
    SphereContact,
};
use pliant_rod::{Actuation, Rod};

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

fn bad(what: String) -> CoreError {
    CoreError::Model(what)
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
        return Err(bad(format!(
            "a rod needs at least {min} nodes, got {nodes}"
        )));
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

// ---------------------------------------------------------------- PneuNet

/// A PneuNet actuator (Fig. 4): a rod along `+x` clamped at the origin whose
/// natural curvature (all springs) is its pressure, bending towards `+z`
/// (against gravity), under gravity and optionally an end-effector force.
///
/// Static equilibrium by load stepping: the natural curvature ramps from 0
/// over the first `load_steps` steps (channel `"curvature"`, 1/m), then the
/// tip force over as many more (channel `"tip_force"`, its scale 0 → 1).
///
/// The paper's force `(175, 0, 7)` N is about 45 times the force
/// `EI κ̄² ≈ 3.9` N at which even the least curved actuator (15.70 1/m,
/// `EI = 0.0157` N·m²) deforms by order one: it pulls all three nearly
/// straight along the force, their shapes differing only within
/// `√(EI/F) ≈ 1` cm of the clamp. The example runs it as printed and also at
/// 1/100 of it, `(1.75, 0, 0.07)` N, where the three shapes differ visibly.
#[derive(Debug, Clone)]
pub struct PneuNet {
    /// Natural curvature, 1/m (the paper's 15.70, 31.45, 47.15).
    pub curvature: f64,
    /// Nodes (default 51: Δl = 2 mm, where the paper's 15.70 1/m is the
    /// discrete curvature 0.0314 of the authors' code).
    pub nodes: usize,
    /// End-effector force, N (default none).
    pub tip_force: Option<[f64; 3]>,
    /// Gravity on (default).
    pub gravity: bool,
    /// Load steps per ramp (default 20).
    pub load_steps: usize,
}

impl Default for PneuNet {
    fn default() -> Self {
        Self {
            curvature: PNEUNET_CURVATURES[0],
            nodes: 51,
            tip_force: None,
            gravity: true,
            load_steps: 20,
        }
    }
}

impl PneuNet {
    /// Young's modulus, Pa.
    pub const E: f64 = 20e9;
    /// Poisson's ratio.
    pub const NU: f64 = 0.5;
    /// Density, kg/m³.
    pub const RHO: f64 = 1200.0;

    /// The actuator with natural curvature `curvature` (1/m), defaults otherwise.
    pub fn with_curvature(curvature: f64) -> Self {
        Self {
            curvature,
            ..Self::default()
        }
    }

    /// The model (static; `info.steps` covers both ramps, or only the
    /// curvature ramp without a tip force).
    pub fn build(&self) -> Result<RodScene> {
        check_nodes(self.nodes, 3)?;
        let n = self.load_steps.max(1) as f64;
        let mut b = ModelBuilder::new(3)?;
        let nodes = add_nodes(&mut b, &line([0.0; 3], [LENGTH, 0.0, 0.0], self.nodes))?;
        b.add_param(control("curvature", vec![(0.0, 0.0), (n, self.curvature)]))?;
        clamp(&mut b, &nodes)?;
        b.add_energy(Box::new(
            Rod::chain(&nodes, RADIUS, Self::E, Self::NU, Self::RHO)
                .named("pneunet")
                .with_first_director([0.0, 0.0, 1.0])
                .fix_twist(0)
                .actuate(Actuation::curvature("curvature", 1, None)),
        ));
        if self.gravity {
            b.add_energy(Box::new(Gravity::new(&[0.0, 0.0, -GRAVITY])));
        }
        let mut total = self.load_steps.max(1);
        if let Some(f) = self.tip_force {
            b.add_param(control("tip_force", vec![(n, 0.0), (2.0 * n, 1.0)]))?;
            b.add_energy(Box::new(
                PointForces::new(vec![NodeForce {
                    node: *nodes.last().expect("≥ 3 nodes"),
                    force: f.to_vec(),
                }])
                .scaled_by("tip_force"),
            ));
            total *= 2;
        }
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo {
                name: format!("pneunet_{:.2}", self.curvature),
                integrator: Integrator::Static,
                dt: 1.0,
                steps: total,
                newton: newton(),
                rods: vec![nodes],
                radius: RADIUS,
            },
        })
    }
}

// ---------------------------------------------------------------- Earthworm

/// The earthworm (Fig. 5): three nodes and two edges along `+x` on the
/// ground, the front end at `+x` (node 2). The natural length of each edge
/// contracts by `contraction` and comes back, out of phase, in a cycle of
/// three equal phases as in the authors' code: edge 0 (rear) contracts;
/// edge 0 extends while edge 1 (front) contracts; edge 1 extends. Channels
/// `"edge0"`, `"edge1"` (0 rest → 1 contracted; stretch gain `−Δ/|ē|`).
///
/// With Coulomb friction the rear/front anchoring alternates and the worm
/// crawls forward; without friction no horizontal force acts, its centre of
/// mass stays put and it only oscillates in place.
///
/// Ground: log-exp with the paper's stiffness 1000 read as N/m, δ = r₀;
/// the nodes start at the gap that carries a third of the worm's weight
/// each.
#[derive(Debug, Clone)]
pub struct Earthworm {
    /// Friction coefficient μ (default 0.25; `None`: frictionless ground).
    pub friction: Option<f64>,
    /// Contraction of each edge's natural length, m (default 1 mm, the
    /// paper's text).
    pub contraction: f64,
    /// Actuation period, s (default 0.6 s: three 0.2-s phases as in the
    /// authors' code).
    pub period: f64,
    /// Duration, s (default 10 s).
    pub duration: f64,
    /// Time step, s (default 0.01 s).
    pub dt: f64,
    /// Ground stiffness, N/m (default 1000).
    pub stiffness: f64,
}

impl Default for Earthworm {
    fn default() -> Self {
        Self {
            friction: Some(0.25),
            contraction: 1e-3,
            period: 0.6,
            duration: 10.0,
            dt: 0.01,
            stiffness: 1000.0,
        }
    }
}

impl Earthworm {
    /// Young's modulus, Pa.
    pub const E: f64 = 200e6;
    /// Poisson's ratio.
    pub const NU: f64 = 0.5;
    /// Density, kg/m³.
    pub const RHO: f64 = 1200.0;
    /// The front node.
    pub const FRONT: usize = 2;

    /// Natural-length schedules `(edge0, edge1)` as keyframes (0 rest, 1
    /// contracted) over `duration`.
    pub fn keyframes(&self) -> (Keyframes, Keyframes) {
        let (t, ph) = (self.period, self.period / 3.0);
        let cycles = (self.duration / t).ceil() as usize + 1;
        let (mut a, mut b) = (vec![], vec![]);
        for c in 0..cycles {
            let t0 = c as f64 * t;
            a.extend([(t0, 0.0), (t0 + ph, 1.0), (t0 + 2.0 * ph, 0.0)]);
            b.extend([(t0, 0.0), (t0 + ph, 0.0), (t0 + 2.0 * ph, 1.0)]);
        }
        (a, b)
    }

    /// The model.
    pub fn build(&self) -> Result<RodScene> {
        let half = 0.5 * LENGTH;
        let mass = Self::RHO * std::f64::consts::PI * RADIUS * RADIUS * LENGTH;
        // Each node starts at the gap where the ground carries its lumped
        // weight (a quarter, a half and a quarter of the worm).
        let z =
            |share: f64| RADIUS + log_exp_rest_gap(share * mass * GRAVITY, self.stiffness, RADIUS);
        let mut b = ModelBuilder::new(3)?;
        let nodes = add_nodes(
            &mut b,
            &[
                [0.0, 0.0, z(0.25)],
                [half, 0.0, z(0.5)],
                [LENGTH, 0.0, z(0.25)],
            ],
        )?;
        let (k0, k1) = self.keyframes();
        b.add_param(control("edge0", k0))?;
        b.add_param(control("edge1", k1))?;
        let gain = -self.contraction / half;
        b.add_energy(Box::new(
            Rod::chain(&nodes, RADIUS, Self::E, Self::NU, Self::RHO)
                .named("earthworm")
                .with_first_director([0.0, 0.0, 1.0])
                .actuate(Actuation::stretch("edge0", Some(vec![0])).with_gain(gain))
                .actuate(Actuation::stretch("edge1", Some(vec![1])).with_gain(gain)),
        ));
        b.add_energy(Box::new(Gravity::new(&[0.0, 0.0, -GRAVITY])));
        b.add_energy(Box::new(ground(self.stiffness, self.friction)));
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo::implicit_euler(
                "earthworm",
                self.dt,
                steps(self.duration, self.dt),
                vec![nodes],
            ),
        })
    }
}

// ---------------------------------------------------------------- Snake

/// The swimming snake (Fig. 7): a free rod along `+x` in the plane `z = 0`,
/// tail at the origin, head (node `nodes − 1`) at `x = L`, neutrally
/// buoyant (no gravity), with resistive-force drag (eq. 29). Each bending
/// spring has its own natural-curvature channel `"kappa{j}"` (axis 2: in
/// the `x`–`y` plane), driven by a wave travelling from head to tail,
///
/// `κ̄(s, t) = a(t) κ₀ sin(2π f t + 2π s/λ)`,
///
/// so that with `C_n > C_t` the snake swims head first (`+x`). The
/// amplitude `a(t)` ramps from 0 to 1 over `ramp` so the body is not
/// kicked at `t = 0`.
///
/// **Amplitude.** The paper's "amplitude of 0.05 m" cannot be a lateral
/// amplitude `A` of the body wave `y = A sin(k x − ω t)`: on a 0.1 m body it
/// needs a curvature amplitude `κ₀ = A k² = 0.05 (2π/λ)²`, i.e. 197 1/m for
/// one wavelength per body length and still 49 1/m for λ = 2L (bending radii
/// of 5 and 20 mm). The authors' code (`actuate_snake.m`) drives the
/// discrete curvature per bend, `κ̄ = amplitude · sin(ω t − k s)` with one
/// wavelength per body length on a 21-node rod, so we read 0.05 as that
/// discrete amplitude: `κ₀ = 0.05/Δl = 10` 1/m at Δl = 5 mm, wavelength
/// λ = L. The resulting body wave has lateral amplitude `κ₀/k² ≈ 2.5` mm
/// (peak slope ≈ 9°).
#[derive(Debug, Clone)]
pub struct Snake {
    /// Tangential resistive coefficient C_t, N·s/m² (default 0.01).
    pub ct: f64,
    /// Normal resistive coefficient C_n, N·s/m² (default 0.1).
    pub cn: f64,
    /// Nodes (default 21, as the authors' code).
    pub nodes: usize,
    /// Curvature amplitude κ₀, 1/m (default 10).
    pub curvature_amplitude: f64,
    /// Wavelength λ, m (default L).
    pub wavelength: f64,
    /// Frequency f, Hz (default 1).
    pub frequency: f64,
    /// Amplitude ramp at the start, s (default 1 period).
    pub ramp: f64,
    /// Duration, s (default 10 s).
    pub duration: f64,
    /// Time step, s (default 0.01 s).
    pub dt: f64,
}

impl Default for Snake {
    fn default() -> Self {
        Self {
            ct: 0.01,
            cn: 0.1,
            nodes: 21,
            curvature_amplitude: 10.0,
            wavelength: LENGTH,
            frequency: 1.0,
            ramp: 1.0,
            duration: 10.0,
            dt: 0.01,
        }
    }
}

impl Snake {
    /// Young's modulus, Pa.
    pub const E: f64 = 2e6;
    /// Poisson's ratio.
    pub const NU: f64 = 0.5;
    /// Density, kg/m³.
    pub const RHO: f64 = 1200.0;

    /// The head node.
    pub fn head(&self) -> usize {
        self.nodes - 1
    }

    /// Natural curvature (1/m) of the spring at arc length `s` (m) at time `t` (s).
    pub fn curvature(&self, s: f64, t: f64) -> f64 {
        use std::f64::consts::TAU;
        let a = if self.ramp > 0.0 {
            (t / self.ramp).clamp(0.0, 1.0)
        } else {
            1.0
        };
        a * self.curvature_amplitude * (TAU * self.frequency * t + TAU * s / self.wavelength).sin()
    }

    /// The model; the channels hold keyframes at every step time.
    pub fn build(&self) -> Result<RodScene> {
        check_nodes(self.nodes, 3)?;
        let n = steps(self.duration, self.dt);
        let dl = LENGTH / (self.nodes - 1) as f64;
        let mut b = ModelBuilder::new(3)?;
        let nodes = add_nodes(&mut b, &line([0.0; 3], [LENGTH, 0.0, 0.0], self.nodes))?;
        let mut rod = Rod::chain(&nodes, RADIUS, Self::E, Self::NU, Self::RHO)
            .named("snake")
            .with_first_director([0.0, 0.0, 1.0]);
        for j in 0..self.nodes - 2 {
            let s = (j + 1) as f64 * dl;
            let name = format!("kappa{j}");
            let keys = (0..=n + 1)
                .map(|k| {
                    let t = k as f64 * self.dt;
                    (t, self.curvature(s, t))
                })
                .collect();
            b.add_param(control(&name, keys))?;
            rod = rod.actuate(Actuation::curvature(&name, 2, Some(vec![j])));
        }
        b.add_energy(Box::new(rod));
        let edges = nodes.windows(2).map(|w| [w[0], w[1]]).collect();
        b.add_energy(Box::new(ResistiveForce::new(edges, self.ct, self.cn)));
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo::implicit_euler("snake", self.dt, n, vec![nodes]),
        })
    }
}

// ---------------------------------------------------------------- Drop

/// A rod dropped on the ground (Fig. 9): L = 0.1 m (the length of the other
/// §7.1 rods; the paper does not give it), r = 1 mm, its lowest point 5 cm
/// above the ground, at rest. It is tilted along the direction
/// `(2, 1, 2)/3` (42° to the ground, out of any symmetry plane), as in the
/// authors' input file, so one end hits first and the rod slaps down.
/// Ground: the paper's stiffness 20 read as N/m, δ = r₀, μ = 0.25.
#[derive(Debug, Clone)]
pub struct DroppedRod {
    /// Young's modulus, Pa (the paper's 2 MPa or 2 GPa; default 2 GPa).
    pub youngs_modulus: f64,
    /// Nodes (default 41).
    pub nodes: usize,
    /// Height of the rod's lowest surface point above the ground, m (default 5 cm).
    pub height: f64,
    /// Friction coefficient (default 0.25).
    pub friction: Option<f64>,
    /// Ground stiffness, N/m (default 20).
    pub stiffness: f64,
    /// Duration, s (default 1 s).
    pub duration: f64,
    /// Time step, s (default 1 ms).
    pub dt: f64,
}

impl Default for DroppedRod {
    fn default() -> Self {
        Self {
            youngs_modulus: 2e9,
            nodes: 41,
            height: 0.05,
            friction: Some(0.25),
            stiffness: 20.0,
            duration: 1.0,
            dt: 1e-3,
        }
    }
}

impl DroppedRod {
    /// Poisson's ratio.
    pub const NU: f64 = 0.3;
    /// Density, kg/m³.
    pub const RHO: f64 = 1500.0;
    /// Unit direction of the rod.
    pub const DIRECTION: [f64; 3] = [2.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0];

    /// The model.
    pub fn build(&self) -> Result<RodScene> {
        check_nodes(self.nodes, 3)?;
        let a = [0.0, 0.0, self.height + RADIUS];
        let tip = std::array::from_fn(|i| a[i] + LENGTH * Self::DIRECTION[i]);
        let mut b = ModelBuilder::new(3)?;
        let nodes = add_nodes(&mut b, &line(a, tip, self.nodes))?;
        b.add_energy(Box::new(
            Rod::chain(&nodes, RADIUS, self.youngs_modulus, Self::NU, Self::RHO).named("rod"),
        ));
        b.add_energy(Box::new(Gravity::new(&[0.0, 0.0, -GRAVITY])));
        b.add_energy(Box::new(ground(self.stiffness, self.friction)));
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo::implicit_euler(
                "drop",
                self.dt,
                steps(self.duration, self.dt),
                vec![nodes],
            ),
        })
    }
}

// ---------------------------------------------------------------- Gripper

/// A rod gripping a fixed sphere (Fig. 10): a rod along `+x` clamped at the
/// origin; the natural curvature (axis 1, towards `+z`) of the springs on
/// its distal three quarters ramps from 0 to `curvature`, then holds. No
/// gravity (the paper lists only contact and friction). The sphere is
/// centred at `(0.1, 0, 0.05)`.
///
/// **Curvature.** The paper's target is the discrete curvature 0.1886 per
/// bend, i.e. `0.1886/Δl` in 1/m, on a discretization it does not state. At
/// Δl = 1 cm that is 18.86 1/m, which we use whatever the discretization:
/// the distal 7.5 cm then bend through 81° and the free (contact-less) shape
/// ends with its tip at `(0.077, 0, 0.045)`, 2.3 cm from the sphere's
/// centre. Finer readings curl tighter and never reach a sphere centred 5 cm
/// above the tip (at Δl = 2.5 mm, 75 1/m: a 13-mm curl near the clamp).
///
/// **Sphere radius** (not given): R = 3.5 cm, so the straight rod's tip is
/// 1.4 cm clear of it and the free shape's tip ends 1.3 cm inside it.
/// Closing towards the sphere centred above its tip, the rod meets the
/// sphere's lower left face and is held against it. (A rod clamped at the
/// origin and bending towards `+z` cannot wrap around this sphere in the
/// strict sense: the sphere never lies inside its curl.)
///
/// **Contact**: the paper's stiffness 20 read as N/m with δ = r₀; μ = 0.25.
#[derive(Debug, Clone)]
pub struct Gripper {
    /// Whether the sphere is there (default true).
    pub contact: bool,
    /// Nodes (default 41).
    pub nodes: usize,
    /// Target natural curvature, 1/m (default 18.86).
    pub curvature: f64,
    /// Sphere radius R, m (default 3.5 cm).
    pub sphere_radius: f64,
    /// Sphere centre, m.
    pub sphere_centre: [f64; 3],
    /// Contact stiffness, N/m (default 20).
    pub stiffness: f64,
    /// Friction coefficient (default 0.25).
    pub friction: f64,
    /// Ramp time of the curvature, s (default 5 s).
    pub ramp: f64,
    /// Duration, s (default 6 s: ramp, then 1 s hold).
    pub duration: f64,
    /// Time step, s (default 0.01 s).
    pub dt: f64,
}

impl Default for Gripper {
    fn default() -> Self {
        Self {
            contact: true,
            nodes: 41,
            curvature: 18.86,
            sphere_radius: 0.035,
            sphere_centre: [0.1, 0.0, 0.05],
            stiffness: 20.0,
            friction: 0.25,
            ramp: 5.0,
            duration: 6.0,
            dt: 0.01,
        }
    }
}

impl Gripper {
    /// Young's modulus, Pa.
    pub const E: f64 = 200e6;
    /// Poisson's ratio.
    pub const NU: f64 = 0.5;
    /// Density, kg/m³.
    pub const RHO: f64 = 1200.0;

    /// Springs on the distal three quarters (whose node lies at `s ≥ L/4`).
    pub fn actuated_springs(&self) -> Vec<usize> {
        let dl = LENGTH / (self.nodes - 1) as f64;
        (0..self.nodes - 2)
            .filter(|&j| (j + 1) as f64 * dl >= 0.25 * LENGTH - 1e-12)
            .collect()
    }

    /// Smallest gap (m) between the rod's surface and the sphere over `points`.
    pub fn sphere_gap(&self, points: &[[f64; 3]]) -> f64 {
        points
            .iter()
            .map(|p| {
                let d: f64 = (0..3)
                    .map(|i| (p[i] - self.sphere_centre[i]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                d - self.sphere_radius - RADIUS
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// The model.
    pub fn build(&self) -> Result<RodScene> {
        check_nodes(self.nodes, 5)?;
        let mut b = ModelBuilder::new(3)?;
        let nodes = add_nodes(&mut b, &line([0.0; 3], [LENGTH, 0.0, 0.0], self.nodes))?;
        b.add_param(control(
            "curvature",
            vec![(0.0, 0.0), (self.ramp, self.curvature)],
        ))?;
        clamp(&mut b, &nodes)?;
        b.add_energy(Box::new(
            Rod::chain(&nodes, RADIUS, Self::E, Self::NU, Self::RHO)
                .named("gripper")
                .with_first_director([0.0, 0.0, 1.0])
                .fix_twist(0)
                .actuate(Actuation::curvature(
                    "curvature",
                    1,
                    Some(self.actuated_springs()),
                )),
        ));
        if self.contact {
            b.add_energy(Box::new(
                SphereContact::new(
                    self.sphere_centre,
                    self.sphere_radius,
                    self.stiffness,
                    RADIUS,
                )
                .with_node_radius(RADIUS)
                .with_friction(self.friction, SLIP_VELOCITY),
            ));
        }
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo::implicit_euler(
                if self.contact {
                    "gripper_contact"
                } else {
                    "gripper_free"
                },
                self.dt,
                steps(self.duration, self.dt),
                vec![nodes],
            ),
        })
    }
}

// ---------------------------------------------------------------- Crossing rods

/// Two cantilevers crossing at right angles, pushed together: rod A along
/// `+x` from `(−L/2, 0, c/2)`, rod B along `+y` from `(0, −L/2, −c/2)`,
/// each clamped at its start, their centre lines `c = 2r₀ + gap` apart where
/// they cross (at both midpoints). Tip forces `∓force` along `z` (A down, B
/// up), scaled by channel `"push"` ramping 0 → 1 over `ramp`, press A's
/// middle onto B's. With [`RodContact`] (IMC, eq. 21) on every edge of both
/// rods, stiffness `k_c` (J/m²), tolerance δ = 0.01·2r₀ = 20 µm as in the
/// authors' code, friction μ = 0.25. No gravity.
///
/// E = 200 MPa (first bending mode 11 Hz, so the 0.5-s ramp is nearly
/// quasi-static): each 5-mN tip force alone would move its rod's midpoint by
/// `P a²(3L − a)/(6EI) = 3.3` mm (`a = L/2`), so without contact the centre
/// lines, 3 mm apart, cross.
#[derive(Debug, Clone)]
pub struct CrossingRods {
    /// Rod–rod contact on (default true).
    pub contact: bool,
    /// Nodes per rod (default 21).
    pub nodes: usize,
    /// Initial surface gap at the crossing, m (default 1 mm).
    pub gap: f64,
    /// Tip force magnitude, N (default 5 mN).
    pub force: f64,
    /// Contact stiffness k_c, J/m² (default 10³: the force `≈ 2 k_c δ =
    /// 0.04` N the contact carries at penetration δ is several times the
    /// contact force of the push, about 10 mN).
    pub stiffness: f64,
    /// Contact tolerance δ, m (default 20 µm).
    pub delta: f64,
    /// Ramp time of the push, s (default 0.5 s).
    pub ramp: f64,
    /// Duration, s (default 0.8 s).
    pub duration: f64,
    /// Time step, s (default 2 ms).
    pub dt: f64,
}

impl Default for CrossingRods {
    fn default() -> Self {
        Self {
            contact: true,
            nodes: 21,
            gap: 1e-3,
            force: 5e-3,
            stiffness: 1e3,
            delta: 0.02 * RADIUS,
            ramp: 0.5,
            duration: 0.8,
            dt: 2e-3,
        }
    }
}

impl CrossingRods {
    /// Young's modulus, Pa.
    pub const E: f64 = 200e6;
    /// Poisson's ratio.
    pub const NU: f64 = 0.5;
    /// Density, kg/m³.
    pub const RHO: f64 = 1200.0;

    /// The model (`info.rods[0]` is A, `info.rods[1]` is B).
    pub fn build(&self) -> Result<RodScene> {
        check_nodes(self.nodes, 3)?;
        let (h, c) = (0.5 * LENGTH, 2.0 * RADIUS + self.gap);
        let mut b = ModelBuilder::new(3)?;
        let a = add_nodes(
            &mut b,
            &line([-h, 0.0, 0.5 * c], [h, 0.0, 0.5 * c], self.nodes),
        )?;
        let bb = add_nodes(
            &mut b,
            &line([0.0, -h, -0.5 * c], [0.0, h, -0.5 * c], self.nodes),
        )?;
        b.add_param(control("push", vec![(0.0, 0.0), (self.ramp, 1.0)]))?;
        for (name, nodes) in [("rod_a", &a), ("rod_b", &bb)] {
            clamp(&mut b, nodes)?;
            b.add_energy(Box::new(
                Rod::chain(nodes, RADIUS, Self::E, Self::NU, Self::RHO)
                    .named(name)
                    .fix_twist(0),
            ));
        }
        b.add_energy(Box::new(
            PointForces::new(vec![
                NodeForce {
                    node: *a.last().expect("≥ 3 nodes"),
                    force: vec![0.0, 0.0, -self.force],
                },
                NodeForce {
                    node: *bb.last().expect("≥ 3 nodes"),
                    force: vec![0.0, 0.0, self.force],
                },
            ])
            .scaled_by("push"),
        ));
        if self.contact {
            let edges = a
                .windows(2)
                .chain(bb.windows(2))
                .map(|w| [w[0], w[1]])
                .collect();
            b.add_energy(Box::new(
                RodContact::new(edges, RADIUS, self.delta, self.stiffness)
                    .with_friction(0.25, SLIP_VELOCITY),
            ));
        }
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo::implicit_euler(
                "crossing",
                self.dt,
                steps(self.duration, self.dt),
                vec![a, bb],
            ),
        })
    }
}

// ---------------------------------------------------------------- Measures

/// Positions (m) of `nodes` in state `q`.
pub fn node_positions(model: &Model, q: &[f64], nodes: &[usize]) -> Vec<[f64; 3]> {
    nodes
        .iter()
        .map(|&n| {
            let p = model.node_position(q, n);
            [p[0], p[1], p[2]]
        })
        .collect()
}

/// Total signed turning angle (rad) of a polyline in the `x`–`z` plane,
/// positive from `+x` towards `+z` (the tip angle of a rod starting along
/// `+x`, unwrapped).
pub fn turning_angle_xz(points: &[[f64; 3]]) -> f64 {
    let ang: Vec<f64> = points
        .windows(2)
        .map(|w| (w[1][2] - w[0][2]).atan2(w[1][0] - w[0][0]))
        .collect();
    ang.windows(2)
        .map(|w| {
            let mut d = w[1] - w[0];
            while d > std::f64::consts::PI {
                d -= std::f64::consts::TAU;
            }
            while d < -std::f64::consts::PI {
                d += std::f64::consts::TAU;
            }
            d
        })
        .sum::<f64>()
        + ang.first().copied().unwrap_or(0.0)
}

/// Smallest distance (m) between the centre lines of two polylines.
pub fn centreline_distance(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    let mut best = f64::INFINITY;
    for s in a.windows(2) {
        for t in b.windows(2) {
            best = best.min(segment_distance(&s[0], &s[1], &t[0], &t[1]));
        }
    }
    best
}

/// Lowest `z` (m) of a polyline's nodes.
pub fn lowest_z(points: &[[f64; 3]]) -> f64 {
    points.iter().map(|p| p[2]).fold(f64::INFINITY, f64::min)
}
