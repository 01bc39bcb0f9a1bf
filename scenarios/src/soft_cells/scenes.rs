//! The paper's qualitative scenes (Germann et al. Fig. 2): a cell dropped
//! on the ground at high and low pressure (2a), two cells attaching and
//! detaching under a growing pull (2b), a chain bent by contractile
//! actuators (2c).

use super::{CellDesign, CellWorld, ContactDesign};
use pliant_cells::CellSet;
use pliant_core::{Integrator, Result, Simulator};

/// Membrane positions of every cell at one time, `[x, y]` per node (m).
pub type Frame = Vec<[f64; 2]>;

/// One sample of a run: time (s), the cell's centre height (m), its height
/// over width (the flattening), its area over the initial one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BounceSample {
    /// Time, s.
    pub t: f64,
    /// Mean height of the membrane nodes, m.
    pub center: f64,
    /// Height of the membrane's bounding box over its width.
    pub aspect: f64,
    /// `V/V₀`.
    pub area_ratio: f64,
}

/// A cell of `design` with pressure constant `pressure` (N) dropped from
/// `height` (m, lowest membrane point above the ground) under gravity,
/// frictional ground, `integrator` at `dt`, for `seconds`; returns
/// the samples of every step and the membrane positions at every step
/// (`[x, y]` per node). `each` sees the simulator at the initial state and
/// after every step (for pictures).
pub fn bounce(
    design: CellDesign,
    pressure: f64,
    height: f64,
    integrator: Integrator,
    dt: f64,
    seconds: f64,
    mut each: impl FnMut(&Simulator),
) -> Result<(Vec<BounceSample>, Vec<Frame>)> {
    let contact = ContactDesign::paper(&design);
    let mut w = CellWorld::new(CellDesign { pressure, ..design })?;
    let c = w.add_cell([0.0, design.radius + height], 0.0)?;
    w.add_cells_energy(None);
    w.add_gravity(super::stack::GRAVITY);
    w.add_wall([0.0, 0.0], [0.0, 1.0], &contact);
    let ring = w.rings[c].clone();
    let model = w.builder.build()?;
    let mut sim = Simulator::new(model, integrator, dt, super::newton())?;
    let steps = (seconds / dt).round() as usize;
    let (mut samples, mut frames) = (Vec::new(), Vec::new());
    for _ in 0..=steps {
        if !samples.is_empty() {
            sim.step()?;
        }
        each(&sim);
        let pts: Vec<[f64; 2]> = ring
            .iter()
            .map(|&n| [sim.q()[2 * n], sim.q()[2 * n + 1]])
            .collect();
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for p in &pts {
            x0 = x0.min(p[0]);
            x1 = x1.max(p[0]);
            y0 = y0.min(p[1]);
            y1 = y1.max(p[1]);
        }
        let cells = sim.model().energies_of::<CellSet>()[0];
        samples.push(BounceSample {
            t: sim.time(),
            center: pts.iter().map(|p| p[1]).sum::<f64>() / pts.len() as f64,
            aspect: (y1 - y0) / (x1 - x0),
            area_ratio: cells.areas(sim.q())[0] / cells.rest_areas()[0],
        });
        frames.push(pts);
    }
    Ok((samples, frames))
}

/// What [`attach_and_pull`] saw.
#[derive(Debug, Clone, PartialEq)]
pub struct AttachRun {
    /// Time the two connectors first came within the interaction radius, s.
    pub attached_at: Option<f64>,
    /// Smallest connector distance reached, m.
    pub closest: f64,
    /// The pull (N) when the connectors left the interaction radius again.
    pub detach_force: Option<f64>,
    /// The pole law's largest force `≈ 1.24 μ q²/(4π r_c²)` (N), sampled
    /// from [`pliant_magnetic::pole_force`]: the most a single pair can hold.
    pub peak_force: f64,
    /// Membranes of both cells every `every` steps.
    pub frames: Vec<(f64, Vec<Frame>)>,
}

/// Germann et al. Fig. 2b: a cell drifting at `speed` (m/s, no gravity,
/// no friction) towards another held by its far node attaches when the
/// connectors on their facing sides come within the interaction radius
/// `radius` (m); from `pull_from` (s) a pull on the right cell grows at
/// `pull_rate` (N/s), spread over its far half, until the connection
/// detaches. Pole strength `strength` (A·m), core radius `radius/4`.
/// `each` sees the simulator at the initial state and after every step.
#[allow(clippy::too_many_arguments)]
pub fn attach_and_pull(
    design: CellDesign,
    strength: f64,
    radius: f64,
    speed: f64,
    pull_from: f64,
    pull_rate: f64,
    seconds: f64,
    every: usize,
    mut each: impl FnMut(&Simulator),
) -> Result<AttachRun> {
    use pliant_core::ParamChannel;
    use pliant_environment::{NodeForce, PointForces};
    use pliant_magnetic::{Connector, MagneticConnectors};
    let contact = ContactDesign {
        mu: 0.0,
        ..ContactDesign::paper(&design)
    };
    let r = design.radius;
    let gap = 1.5 * radius;
    let mut w = CellWorld::new(design)?;
    let a = w.add_cell([0.0, 0.0], 0.0)?;
    let b = w.add_cell([2.0 * r + gap, 0.0], 0.0)?;
    let (na, nb) = (w.node(a, 0), w.node_towards(b, std::f64::consts::PI, 0.0));
    for &n in &w.rings[b] {
        w.builder.set_velocity(2 * n, -speed)?;
    }
    // The pull: 1 N in total over the right cell's far half, scaled by a
    // ramp channel (N).
    let far: Vec<usize> = (0..design.nodes / 2)
        .map(|k| w.node(b, k + 3 * design.nodes / 4))
        .collect();
    let share = 1.0 / far.len() as f64;
    let ramp_end = seconds.max(pull_from + 1.0);
    w.builder
        .add_param(ParamChannel::control("pull", 0.0).with_keyframes(vec![
            (0.0, 0.0),
            (pull_from, 0.0),
            (ramp_end, pull_rate * (ramp_end - pull_from)),
        ]))?;
    w.add_cells_energy(Some(contact));
    let core = 0.25 * radius;
    let mut magnets = MagneticConnectors::new(
        vec![
            Connector::pole(na, a, strength),
            Connector::pole(nb, b, -strength),
        ],
        radius,
    )
    .with_profile(core, 0.2 * radius);
    magnets.name = "magnets".into();
    w.builder.add(magnets);
    w.builder.add(
        PointForces::new(
            far.iter()
                .map(|&n| NodeForce {
                    node: n,
                    force: vec![share, 0.0],
                })
                .collect(),
        )
        .scaled_by("pull"),
    );
    // The left cell is held by its leftmost node (a pull needs a
    // counter-hold).
    w.builder
        .fix_node(w.node_towards(a, std::f64::consts::PI, 0.0))?;
    let mut run = AttachRun {
        attached_at: None,
        closest: f64::INFINITY,
        detach_force: None,
        peak_force: 0.0,
        frames: Vec::new(),
    };
    let model = w.builder.build()?;
    let mut sim = Simulator::new(model, Integrator::ImplicitEuler, 0.005, super::newton())?;
    let steps = (seconds / 0.005).round() as usize;
    for s in 0..=steps {
        if s > 0 {
            sim.step()?;
        }
        each(&sim);
        let q = sim.q();
        let d = (q[2 * nb] - q[2 * na]).hypot(q[2 * nb + 1] - q[2 * na + 1]);
        run.closest = run.closest.min(d);
        if run.attached_at.is_none() && d < radius {
            run.attached_at = Some(sim.time());
        }
        if run.attached_at.is_some() && run.detach_force.is_none() && d > radius {
            let t = sim.time();
            run.detach_force = Some(pull_rate * (t - pull_from).max(0.0));
        }
        if s % every.max(1) == 0 {
            let frame: Vec<Frame> = [a, b]
                .iter()
                .map(|&c| {
                    w.rings[c]
                        .iter()
                        .map(|&n| [q[2 * n], q[2 * n + 1]])
                        .collect()
                })
                .collect();
            run.frames.push((sim.time(), frame));
        }
    }
    // The law's largest attraction for this pair, sampled on the law.
    let k =
        pliant_magnetic::VACUUM_PERMEABILITY * strength * strength / (4.0 * std::f64::consts::PI);
    run.peak_force = (1..4000)
        .map(|i| {
            let r = radius * i as f64 / 4000.0;
            // Opposite poles: a negative (attracting) force.
            -pliant_magnetic::pole_force(-k, r, core, radius, 0.2 * radius)
        })
        .fold(0.0, f64::max);
    Ok(run)
}

/// Germann et al. Fig. 2c: a row of `cells` cells joined by permanent
/// joints (three bonds across each contact facet), the inner ones with a
/// contractile actuator between the membrane points at 45° and 135°
/// (across the cell's top). The actuators' length follows a channel from
/// their rest length down to `(1 − contraction)` of it over the first half
/// of `seconds`; the chain bends from straight to an arc. Returns, every
/// `every` steps, the time, the bend (the turn between the first and last
/// cells' joint directions, rad) and the membranes. `each` sees the
/// simulator at the initial state and after every step.
pub fn bending_chain(
    design: CellDesign,
    cells: usize,
    contraction: f64,
    seconds: f64,
    every: usize,
    mut each: impl FnMut(&Simulator),
) -> Result<Vec<(f64, f64, Vec<Frame>)>> {
    use pliant_cells::{Actuator, Actuators};
    use pliant_core::{ParamChannel, Quantity};
    use pliant_environment::ViscousDamping;
    use pliant_magnetic::{Joint, Joints};
    use std::f64::consts::PI;
    if cells < 3 || !(0.0..1.0).contains(&contraction) {
        return Err(pliant_core::CoreError::degenerate(
            "bending chain",
            format!(
                "{cells} cells, contraction {contraction}: need at least 3 cells and 0 ≤ contraction < 1"
            ),
        ));
    }
    let contact = ContactDesign {
        mu: 0.0,
        ..ContactDesign::paper(&design)
    };
    let r = design.radius;
    let pitch = 2.0 * r + contact.thickness;
    let mut w = CellWorld::new(design)?;
    for k in 0..cells {
        w.add_cell([k as f64 * pitch, 0.0], 0.0)?;
    }
    let mut joints = Vec::new();
    for k in 0..cells - 1 {
        for s in [-0.3, 0.0, 0.3] {
            joints.push(Joint::new(
                [
                    w.node_towards(k, s, 0.0),
                    w.node_towards(k + 1, PI - s, 0.0),
                ],
                2000.0,
            ));
        }
    }
    // Rest length of an actuator across the top: the chord 45°–135°.
    let chord = 2.0 * r * (PI / 4.0).cos();
    w.builder
        .add_param(ParamChannel::control("length", chord).with_keyframes(vec![
            (0.0, chord),
            (0.5 * seconds, (1.0 - contraction) * chord),
        ]))?;
    let actuators = (1..cells - 1)
        .map(|k| Actuator {
            nodes: [
                w.node_towards(k, PI / 4.0, 0.0),
                w.node_towards(k, 3.0 * PI / 4.0, 0.0),
            ],
            length: Some(Quantity::Channel("length".into())),
        })
        .collect();
    w.add_cells_energy(Some(contact));
    w.builder.add(Joints::new(joints));
    w.builder.add(Actuators {
        actuators,
        stiffness: 500.0,
    });
    w.builder
        .add(ViscousDamping::uniform(0.1 / design.nodes as f64));
    let rings = w.rings.clone();
    let model = w.builder.build()?;
    let mut sim = Simulator::new(
        model,
        Integrator::ImplicitEuler,
        1.0 / 50.0,
        super::newton(),
    )?;
    let steps = (seconds * 50.0).round() as usize;
    let mut out = Vec::new();
    for s in 0..=steps {
        if s > 0 {
            sim.step()?;
        }
        each(&sim);
        if s % every.max(1) == 0 || s == steps {
            let c = super::folding::centroids(&rings, sim.q());
            let dir = |i: usize| (c[i + 1][1] - c[i][1]).atan2(c[i + 1][0] - c[i][0]);
            let bend = dir(cells - 2) - dir(0);
            let frame = rings
                .iter()
                .map(|ring| {
                    ring.iter()
                        .map(|&n| [sim.q()[2 * n], sim.q()[2 * n + 1]])
                        .collect()
                })
                .collect();
            out.push((sim.time(), bend, frame));
        }
    }
    Ok(out)
}
