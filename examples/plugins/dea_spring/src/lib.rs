//! A dielectric-elastomer actuator (DEA) strip as a two-node spring — an
//! energy none of pliant's built-ins provides, written as one generic element.
//!
//! The strip has length `L0` (m), Young's modulus `Y` (Pa), cross-section
//! `A` (m²), film thickness `t` (m) and relative permittivity `ε_r`. A voltage
//! `V` (channel, volts) across the film presses it with the Maxwell stress
//! `σ = ε₀ ε_r (V/t)²`; for an incompressible film stretched equi-biaxially
//! the free in-plane strain is `σ/(2Y)` (small strain), so the rest length is
//!
//! `L(V) = L0 (1 + ε₀ ε_r V² / (2 Y t²))`
//!
//! and the energy is `E = k/2 (‖x_b − x_a‖ − L(V))²` with `k = Y A / L0` (N/m).

use pliant_core::geometry::CellKind;
use pliant_core::{Ctx, Element, Invalid, Scalar, Stencil};
use serde::{Deserialize, Serialize};

/// Vacuum permittivity ε₀, F/m.
pub const EPSILON_0: f64 = 8.854_187_812_8e-12;

/// One DEA strip between two nodes of a 3-D model.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeaSpring {
    /// End nodes.
    pub nodes: [usize; 2],
    /// Unactuated length L0, m.
    pub rest_length: f64,
    /// Young's modulus Y, Pa.
    pub youngs_modulus: f64,
    /// Cross-section A, m².
    pub area: f64,
    /// Film thickness t, m.
    pub thickness: f64,
    /// Relative permittivity ε_r.
    pub permittivity: f64,
    /// Parameter channel holding the voltage V, volts.
    pub voltage: String,
}

impl DeaSpring {
    /// Axial stiffness `k = Y A / L0`, N/m.
    pub fn stiffness(&self) -> f64 {
        self.youngs_modulus * self.area / self.rest_length
    }
    /// Free strain per volt², `ε₀ ε_r / (2 Y t²)`, 1/V².
    pub fn strain_per_volt2(&self) -> f64 {
        EPSILON_0 * self.permittivity
            / (2.0 * self.youngs_modulus * self.thickness * self.thickness)
    }
}

impl Element for DeaSpring {
    type Size = Stencil<6, 1>; // 2 nodes × 3 coordinates, 1 channel
    // Drawn as a segment between its nodes (replay, ParaView).
    const CELL: Option<CellKind> = Some(CellKind::Line);
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [Some(self.voltage.as_str())]
    }
    fn validate(&self) -> Result<(), Invalid> {
        Invalid::positive("rest_length", self.rest_length, "m")?;
        Invalid::positive("youngs_modulus", self.youngs_modulus, "Pa")?;
        Invalid::positive("area", self.area, "m²")?;
        Invalid::positive("thickness", self.thickness, "m")?;
        Invalid::positive("permittivity", self.permittivity, "dimensionless")
    }
    fn energy<D: Scalar>(&self, x: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let (dx, dy, dz) = (x[3] - x[0], x[4] - x[1], x[5] - x[2]);
        let l = (dx * dx + dy * dy + dz * dz).sqrt();
        let rest = (p[0] * p[0] * self.strain_per_volt2() + 1.0) * self.rest_length;
        let s = l - rest;
        s * s * (0.5 * self.stiffness())
    }
}

pliant_core::export_plugin! {
    elements DeaSpring = "dea_spring",
    "dielectric-elastomer actuator strip: rest length L0(1 + ε0 εr V²/(2 Y t²)), stiffness Y A/L0; V from channel `voltage` (volts)",
    r#"{"type": "dea_spring", "elements": [{"nodes": [0, 1], "rest_length": 0.05, "youngs_modulus": 1e6, "area": 1e-5, "thickness": 5e-5, "permittivity": 4.7, "voltage": "V"}]}"#;
}
