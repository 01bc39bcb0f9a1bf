//! The stacked-cells set-up of the scalability benchmark (Germann et al.
//! §V-C, rebuilt for pymunk in `shared/peers/pymunk_softcells.py`): `n`
//! cells of [`CellDesign::paper`] in a grid — `rows = min(3, round(√(n/10)))`
//! rows (at least one), `⌈n/rows⌉` columns — a membrane thickness plus
//! 1 mm apart and 1 mm above the ground, between two side walls, under
//! gravity, with membrane contact and friction 0.5.

use super::{CellDesign, CellWorld, ContactDesign};
use pliant_core::{Model, Result};

/// Gravity, m/s².
pub const GRAVITY: f64 = 9.81;

/// The grid of `n` cells: `(rows, columns)`.
pub fn grid(n: usize, max_rows: usize) -> (usize, usize) {
    let rows = ((n as f64 / 10.0).sqrt().round() as usize).clamp(1, max_rows.max(1));
    (rows, n.div_ceil(rows))
}

/// The stack of `n` cells (at most `max_rows` rows, the pymunk default 3)
/// and its cell rings.
pub fn stack(n: usize, max_rows: usize) -> Result<(Model, Vec<Vec<usize>>)> {
    let design = CellDesign::paper();
    let contact = ContactDesign::paper(&design);
    let (rows, cols) = grid(n, max_rows);
    let gap = 1e-3;
    let pitch = 2.0 * design.radius + contact.thickness + gap;
    let width = cols as f64 * pitch;
    let mut w = CellWorld::new(design)?;
    'fill: for row in 0..rows {
        for col in 0..cols {
            if w.rings.len() == n {
                break 'fill;
            }
            let center = [
                (col as f64 + 0.5) * pitch,
                contact.thickness + gap + design.radius + row as f64 * pitch,
            ];
            w.add_cell(center, 0.0)?;
        }
    }
    w.add_cells_energy(Some(contact));
    w.add_gravity(GRAVITY);
    w.add_wall([0.0, 0.0], [0.0, 1.0], &contact);
    w.add_wall([0.0, 0.0], [1.0, 0.0], &contact);
    w.add_wall([width, 0.0], [-1.0, 0.0], &contact);
    let rings = w.rings.clone();
    Ok((w.builder.build()?, rings))
}
