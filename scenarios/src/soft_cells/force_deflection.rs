//! The single-cell force–deflection test of Germann et al. Fig. 3: a cell
//! bound to the ground (its lowest node fixed, the ground a rigid plane)
//! is pressed by a rigid horizontal bar from above; the bar's force (N,
//! ) against its travel (m) traces a progressive spring whose
//! stiffness grows with the pressure constant `C`.
//!
//! The bar is a rigid rectangle (a four-node membrane whose nodes follow a
//! prescribed motion) touching the cell through membrane contact
//! (frictionless). It moves down in equal increments, each over 0.5 s and
//! held 4 s while viscous damping near the critical value of the cell's
//! squash mode (`ω ≈ √(C/(ℓ̄ m))`) settles it; the force is
//! read at the end of each hold as the bar's reaction, `Σ ∂E_contact/∂y`
//! over the bar's nodes. Implicit Euler, dt = 1/50 s.

use super::{CellDesign, CellWorld, ContactDesign};
use pliant_cells::CellContactEnergy;
use pliant_core::element::Block;
use pliant_core::{Energy, EvalState, Integrator, Motion, Result, Simulator};
use pliant_environment::ViscousDamping;

/// One point of the curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeflectionPoint {
    /// Bar travel, m (it starts just out of contact).
    pub deflection: f64,
    /// Bar force, N.
    pub force: f64,
}

/// Seconds to move the bar by one increment, and to hold it.
const MOVE: f64 = 0.5;
const HOLD: f64 = 4.0;
const DT: f64 = 1.0 / 50.0;

/// `Σ ∂E/∂q` of `energy` over the DOFs `of` at state `q` (the force the
/// energy's elements exert on those DOFs, with the opposite sign).
fn gradient_sum(energy: &dyn Energy, q: &[f64], of: &[usize]) -> f64 {
    let set = energy.elements();
    let n = set.stencil_size();
    let p: Vec<f64> = Vec::new();
    let s = EvalState {
        q,
        q_prev: q,
        p: &p,
        h: DT,
        dt: DT,
        t: 0.0,
    };
    let mut g = vec![0.0; set.len() * n];
    set.blocks(&s, Block::Gradient, &mut g);
    let mut dofs = vec![0; n];
    let mut sum = 0.0;
    for e in 0..set.len() {
        set.dofs(e, &mut dofs);
        for (j, d) in dofs.iter().enumerate() {
            if of.contains(d) {
                sum += g[e * n + j];
            }
        }
    }
    sum
}

/// The bar's force at `steps` equally spaced travels up to `max_deflection`
/// (m) for a cell of `design` with pressure constant `pressure` (N).
pub fn force_deflection(
    design: CellDesign,
    pressure: f64,
    max_deflection: f64,
    steps: usize,
) -> Result<Vec<DeflectionPoint>> {
    let contact = ContactDesign {
        mu: 0.0,
        ..ContactDesign::paper(&design)
    };
    let r = design.radius;
    let mut w = CellWorld::new(CellDesign { pressure, ..design })?;
    let c = w.add_cell([0.0, r], -std::f64::consts::FRAC_PI_2)?;
    let bottom = w.node(c, 0);
    w.builder.fix_node(bottom)?;
    // The bar: 3R wide, R/10 thick, its underside just beyond the contact
    // band above the cell (the penalty reaches `w + 40δ/15`, δ = w/2), so
    // the first point is measured out of contact.
    let y0 = 2.0 * r + contact.thickness * (1.0 + 4.0 / 3.0) + 1e-3;
    let corners = [
        [-1.5 * r, y0],
        [1.5 * r, y0],
        [1.5 * r, y0 + 0.1 * r],
        [-1.5 * r, y0 + 0.1 * r],
    ];
    let step = max_deflection / steps as f64;
    // Window k (0 ≤ k ≤ steps) moves the bar to travel k·step over MOVE
    // seconds and holds it for HOLD; window 0 holds it where it starts.
    let mut keys = vec![(0.0, 0.0)];
    for k in 1..=steps {
        let t = k as f64 * (MOVE + HOLD);
        keys.push((t, -((k - 1) as f64) * step));
        keys.push((t + MOVE, -(k as f64) * step));
    }
    let mut bar = Vec::new();
    let mut bar_y = Vec::new();
    for p in corners {
        let n = w.builder.add_node(&p, 1.0)?;
        let dof = w.builder.layout().node_dof(n, 1, "bar")?;
        w.builder.constrain(dof - 1, Motion::Fixed)?;
        w.builder
            .constrain(dof, Motion::Keyframes { keys: keys.clone() })?;
        bar.push(n);
        bar_y.push(dof);
    }
    w.add_cells_energy(None);
    w.builder.add(pliant_cells::CellContact::new(
        vec![w.rings[c].clone(), bar],
        contact.thickness,
        contact.stiffness,
    ));
    w.add_wall([0.0, -contact.thickness], [0.0, 1.0], &contact);
    // Near-critical damping of the cell's squash mode, whose stiffness
    // scales as C/ℓ̄: ω ≈ √(C/(ℓ̄ m)), c = 2 m_node ω per node.
    let omega =
        (pressure.max(1e-6) / (design.segment() * design.node_mass * design.nodes as f64)).sqrt();
    let mut damping = ViscousDamping::uniform(2.0 * design.node_mass * omega);
    damping.nodes = Some(w.rings[c].clone());
    w.builder.add(damping);
    let model = w.builder.build()?;
    let mut sim = Simulator::new(model, Integrator::ImplicitEuler, DT, super::newton())?;
    let per_point = ((MOVE + HOLD) / DT).round() as usize;
    let mut out = Vec::with_capacity(steps + 1);
    for k in 0..=steps {
        for _ in 0..per_point {
            sim.step()?;
        }
        let cc = sim.model().energies_of::<CellContactEnergy>()[0];
        out.push(DeflectionPoint {
            deflection: k as f64 * step,
            force: -gradient_sum(cc, sim.q(), &bar_y),
        });
    }
    Ok(out)
}

/// Slope `dF/dδ` (N/m) of a curve between its points `i − 1` and `i`;
/// `None` outside the curve.
pub fn stiffness(curve: &[DeflectionPoint], i: usize) -> Option<f64> {
    let (a, b) = (curve.get(i.checked_sub(1)?)?, curve.get(i)?);
    Some((b.force - a.force) / (b.deflection - a.deflection))
}
