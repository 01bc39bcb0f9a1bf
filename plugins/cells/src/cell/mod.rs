//! Soft cells (scene type `"cells"`): a membrane ring of `n` nodes with
//! stretching and bending stiffness, enclosing an ideal gas (Germann et
//! al., Soft Cell Simulator, §III-A). Each cell is one element over its
//! `2n` membrane coordinates, with energy (J)
//!
//! `E = Σᵢ EA/(2ℓ̄ᵢ) (ℓᵢ − ℓ̄ᵢ)² + Σᵢ EI/(2ℓ̂ᵢ) (θᵢ − θ̄ᵢ)² + (C/ℓ̄) (V − V₀ − V₀ ln(V/V₀))`
//!
//! - **stretching** of segment `i` (node `i` to `i+1`), length `ℓᵢ`, rest
//!   length `ℓ̄ᵢ` (the initial one): `EA` is the membrane's axial
//!   stiffness (N, force per unit strain);
//! - **bending** at node `i`: `θᵢ` the signed turning angle between the
//!   segments meeting there (rad, `atan2` of their cross and dot
//!   products), `θ̄ᵢ` its initial value, `ℓ̂ᵢ` the mean rest length of the
//!   two segments; `EI` is the bending stiffness (N·m²), so this is the
//!   discrete `½ EI ∫ (κ − κ̄)² ds`. The angle is measured in (−π, π]:
//!   a membrane folded back on itself (a hairpin turn) is outside the
//!   model;
//! - **pressure**: `V` the enclosed area (m², [`crate::ring`]), `V₀` its
//!   initial value. The energy's gradient pushes node `i` outward with
//!
//!   `Fᵢ = C (V₀/V − 1) · ½ R(xᵢ₊₁ − xᵢ₋₁)/ℓ̄`, `R(u, v) = (v, −u)` (outward),
//!
//!   the paper's reactive force `F = C (V_init/V − 1)` per membrane
//!   segment, applied as a 2-D pressure `p = C (V₀/V − 1)/ℓ̄` (N/m) on the
//!   two half-segments at the node. `ℓ̄` is the mean rest segment length,
//!   so `C` (N) keeps the paper's meaning — the force on one segment of
//!   rest length — and a finer membrane (smaller `ℓ̄`) at the same `C` has
//!   the same pressure per segment, not per unit length: `p ℓ̄ = C (V₀/V − 1)`
//!   is what stays fixed. It is the ideal gas at constant temperature
//!   (`p_abs V = const`) less the ambient pressure `C/ℓ̄`, so `E` is convex
//!   in `V` with its minimum at `V₀`. `C` is a number or a control
//!   channel (the paper's parametric softness, changed at run time); its
//!   derivatives are exact.
//!
//! The paper's membrane is a chain of rigid bodies with free hinges: large
//! `EA` and small `EI` approach it (its rigid links become stiff springs,
//! which the implicit solver handles without the constraint iterations
//! Box2D needs). The pressure term couples every node of a cell with every
//! other (`∂²E/∂V² ∇V ∇Vᵀ` is dense); the rest of the Hessian couples
//! nodes at most two apart along the ring. The cell declares its Hessian
//! split that way ([`pliant_core::SplitHessian`]): 20 entries per node
//! plus one rank-one term kept out of the factorization, instead of a
//! dense `2n × 2n` block (40,000 entries for 100 nodes) whose fill made a
//! stack of cells factorize like a dense matrix. Everything is written
//! analytically and checked against dual numbers and finite differences,
//! the split form against the dense block (`tests/derivatives.rs`).

mod element;
mod set;

pub use set::CellSet;

use crate::error::{CellError, non_negative, positive};
use crate::ring::check_ring;
use element::{CellEl, split_entries};
use pliant_core::element::NO_PARAM;
use pliant_core::quantity::Quantity;
use pliant_core::{BindInfo, Energy, EnergySpec, Result};
use serde::{Deserialize, Serialize};

/// One cell as written in a scene: its membrane nodes, counter-clockwise,
/// and its pressure constant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    /// Membrane nodes in counter-clockwise order (at least three).
    pub nodes: Vec<usize>,
    /// Pressure constant `C`, N (a number or a channel): the outward force
    /// on one membrane segment is `C (V₀/V − 1)`.
    pub pressure: Quantity,
}

/// A set of cells sharing one membrane (scene type `"cells"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cells {
    /// The cells; all with the same number of membrane nodes.
    pub cells: Vec<Cell>,
    /// Membrane axial stiffness `EA`, N.
    pub stretch_stiffness: f64,
    /// Membrane bending stiffness `EI`, N·m² (0 for free hinges).
    #[serde(default)]
    pub bending_stiffness: f64,
    /// Prefix of the observables (`NAME.min_area_ratio`,
    /// `NAME.max_area_ratio`); default `"cells"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Cells {
    fn name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "cells".into())
    }

    fn bind_cells(&self, info: &BindInfo) -> std::result::Result<Vec<CellEl>, CellError> {
        positive("stretch_stiffness", self.stretch_stiffness, "N")?;
        non_negative("bending_stiffness", self.bending_stiffness, "N·m²")?;
        let count = info.layout.n_nodes();
        let expected = self.cells.first().map_or(0, |c| c.nodes.len());
        let mut out = Vec::with_capacity(self.cells.len());
        for (ci, cell) in self.cells.iter().enumerate() {
            let n = cell.nodes.len();
            if n < 3 {
                return Err(CellError::TooFewNodes { cell: ci, found: n });
            }
            if n != expected {
                return Err(CellError::MixedSizes {
                    cell: ci,
                    found: n,
                    expected,
                });
            }
            let mut seen = std::collections::HashSet::with_capacity(n);
            let mut dofs = Vec::with_capacity(2 * n);
            let mut pts = Vec::with_capacity(n);
            for &node in &cell.nodes {
                if !seen.insert(node) {
                    return Err(CellError::RepeatedNode { cell: ci, node });
                }
                let base =
                    *info
                        .layout
                        .node_base()
                        .get(node)
                        .ok_or_else(|| CellError::MissingNode {
                            what: format!("cells[{ci}]"),
                            node,
                            count,
                        })?;
                dofs.extend([base, base + 1]);
                pts.push([info.q0[base], info.q0[base + 1]]);
            }
            let v0 = check_ring(ci, &pts)?;
            if let Quantity::Value(c) = cell.pressure {
                non_negative(&format!("cells[{ci}].pressure"), c, "N")?;
            }
            let rest: Vec<f64> = (0..n)
                .map(|i| {
                    let (a, b) = (pts[i], pts[(i + 1) % n]);
                    (b[0] - a[0]).hypot(b[1] - a[1])
                })
                .collect();
            let angle = (0..n)
                .map(|i| {
                    let (z, a, b) = (pts[(i + n - 1) % n], pts[i], pts[(i + 1) % n]);
                    let (e1, e2) = ([a[0] - z[0], a[1] - z[1]], [b[0] - a[0], b[1] - a[1]]);
                    (e1[0] * e2[1] - e1[1] * e2[0]).atan2(e1[0] * e2[0] + e1[1] * e2[1])
                })
                .collect();
            let hinge = (0..n)
                .map(|i| 0.5 * (rest[(i + n - 1) % n] + rest[i]))
                .collect();
            let l_mean = rest.iter().sum::<f64>() / n as f64;
            out.push(CellEl {
                dofs,
                rest,
                angle,
                hinge,
                v0,
                l_mean,
                pressure: cell.pressure.bound(),
                param: NO_PARAM,
                ea: self.stretch_stiffness,
                ei: self.bending_stiffness,
            });
        }
        Ok(out)
    }
}

impl EnergySpec for Cells {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        info.require_dim("cells", 2)?;
        let mut cells = self.bind_cells(info)?;
        for (ci, (c, spec)) in cells.iter_mut().zip(&self.cells).enumerate() {
            if let Quantity::Channel(name) = &spec.pressure {
                c.param = info.param(name, &format!("cells[{ci}].pressure"))?;
                if let Some((lo, _)) = info.channel_range(name) {
                    non_negative(&format!("cells[{ci}].pressure (channel `{name}`)"), lo, "N")?;
                }
            }
        }
        let split = cells.first().map(|c| split_entries(c.n()));
        Ok(Box::new(CellSet {
            name: self.name(),
            cells,
            split,
        }))
    }
    fn label(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

pliant_core::register_energy!(
    Cells = "cells",
    "2-D soft cells (Germann et al. §III-A): membrane rings (counter-clockwise `nodes`) with `stretch_stiffness` EA (N) and `bending_stiffness` EI (N·m²), enclosing an ideal gas with pressure constant `pressure` C (N, number or channel): outward force C (V₀/V − 1) per segment",
    r#"{"type": "cells", "stretch_stiffness": 100.0, "bending_stiffness": 1e-5, "cells": [{"nodes": [0, 1, 2, 3], "pressure": 2.0}]}"#
);
