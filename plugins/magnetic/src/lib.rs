//! # pliant-magnetic
//!
//! Connections between bodies (Germann et al., *Soft Cell Simulator*,
//! §III-B and §V-D), SI units throughout (m, kg, s, N, J, A, H):
//!
//! - [`MagneticConnectors`] (scene type `"magnetic_connectors"`):
//!   connectors on nodes of any bodies, 2-D or 3-D. Two connectors of
//!   *different* bodies (their `body` ids differ) interact while closer
//!   than the interaction radius `R`; connectors of one body never do.
//!   The default `"pole"` model has the pair energy
//!
//!   `U = k φ(r) S(r)`, `k = μ q_i q_j a_i a_j / (4π)`,
//!
//!   with pole strengths `q` (A·m, signed), permeability `μ` (H/m,
//!   default μ₀ = 4π·10⁻⁷), and activation channels `a` (1 without a
//!   channel; a control switching a connector off at 0, differentiable).
//!   `φ = 1/r` for `r ≥ r_c`, so between the core radius `r_c` and the
//!   switch band the force is exactly `F = μ q_i q_j/(4π r²)`: like poles
//!   repel, opposite poles attract. Below `r_c`,
//!   `φ = (15/8 − 5/4 u² + 3/8 u⁴)/r_c` (`u = r/r_c`) matches `1/r` to
//!   second order at `r_c`, so energy (≤ 15|k|/(8 r_c)) and force
//!   (≤ 1.25 |k|/r_c²) stay bounded and, as a function of `r²`, smooth at
//!   `r = 0`, where the force vanishes. `S = 1` up to `R − w` and falls to 0 at `R` as the quintic
//!   smoothstep `1 − (10t³ − 15t⁴ + 6t⁵)`, `t = (r − R + w)/w`: `U` is C²
//!   everywhere and zero from `R` on. Defaults: `r_c = R/20`,
//!   `w = min(R/5, R − r_c)`. The `"dipole"` model gives each connector
//!   a moment `m` (A·m²) along a body-fixed axis of two nodes,
//!   `U = μ/(4π r³)[m_i·m_j − 3 (m_i·r̂)(m_j·r̂)] a_i a_j S(r)`, with
//!   `1/r⁵` (in the equivalent form `[(m_i·m_j) r² − 3 (m_i·d)(m_j·d)]/r⁵`)
//!   regularized the same way inside `r_c`. Pairs are found at the start
//!   of every step by a grid broad phase; observables `NAME.pairs` and
//!   `NAME.min_distance` (m).
//! - [`Joints`] (scene type `"joints"`): permanent bonds
//!   `E = k/2 (|x_b − x_a| − L)²` (k in N/m, L in m, default the initial
//!   distance) that break when their tensile force `k(l − L)` exceeds an
//!   optional `break_force` (N) at the end of a step; the bound
//!   [`JointsEnergy`] lists the [`BreakEvent`]s. Observables `NAME.broken`
//!   and `NAME.max_force` (N).
//!
//! Bad input is a typed [`MagneticError`] (inside
//! [`pliant_core::CoreError::Other`]), never a panic. The pole pairs and
//! the joints have analytic gradients and Hessians (and, for the poles,
//! parameter blocks); the dipole pairs use the dual-number fallback. All
//! are checked against the fallback and finite differences in
//! `tests/derivatives.rs`.
//!
//! # Scene example
//!
//! Two single-node bodies carrying opposite poles 1 cm apart, attracting
//! each other, while a joint holds the second node to a fixed anchor and
//! breaks when pulled harder than 0.5 mN:
//!
//! ```
//! use pliant_core::scene::Scene;
//! pliant_magnetic::link();
//! let scene = Scene::from_json(
//!     r#"{
//!       "dim": 2,
//!       "nodes": [[0, 0], [0.01, 0], [0.02, 0]],
//!       "mass": 0.001,
//!       "constraints": [{"node": 0}, {"node": 2}],
//!       "params": [{"name": "on", "kind": "control", "value": 1.0}],
//!       "energies": [
//!         {"type": "magnetic_connectors", "radius": 0.03,
//!          "connectors": [{"node": 0, "body": 0, "strength": 5.0, "channel": "on"},
//!                         {"node": 1, "body": 1, "strength": -5.0}]},
//!         {"type": "joints", "joints": [{"nodes": [1, 2], "stiffness": 10.0, "break_force": 5e-4}]}
//!       ],
//!       "integrator": "implicit_euler", "dt": 0.001, "steps": 50
//!     }"#,
//!     "<doc>",
//! )?;
//! let mut run = scene.into_simulator()?;
//! for _ in 0..run.settings.steps {
//!     run.simulator.step()?;
//! }
//! // The attraction μ q²/(4π r²) = 25 mN at 1 cm pulled the joint apart.
//! let joints = run.simulator.model().energies_of::<pliant_magnetic::JointsEnergy>();
//! assert_eq!(joints[0].events().len(), 1);
//! # Ok::<(), pliant_core::CoreError>(())
//! ```

#![warn(missing_docs)]

mod connectors;
mod dipole;
mod error;
mod grid;
mod joints;
mod law;
mod pole;

pub use connectors::{
    Connector, MagnetModel, MagneticConnectors, MagneticConnectorsEnergy, VACUUM_PERMEABILITY,
};
pub use error::MagneticError;
pub use joints::{BreakEvent, Joint, Joints, JointsEnergy};
pub use law::pole_force;

/// Call once from a binary so the linker keeps this crate's energy
/// registrations even if nothing else from it is referenced.
pub fn link() {}
