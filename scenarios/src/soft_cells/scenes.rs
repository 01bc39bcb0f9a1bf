//! The paper's qualitative scenes (Germann et al. Fig. 2): a cell dropped
//! on the ground at high and low pressure (2a).

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
/// frictional ground, implicit midpoint at `dt`, for `seconds`; returns
/// the samples of every step and the membrane positions at every step
/// (`[x, y]` per node).
pub fn bounce(
    design: CellDesign,
    pressure: f64,
    height: f64,
    integrator: Integrator,
    dt: f64,
    seconds: f64,
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
