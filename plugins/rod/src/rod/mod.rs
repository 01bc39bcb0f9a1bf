//! The rod energy (scene type `"rod"`): stretching (eqs. 9–10), bending
//! (eqs. 11–14) and twisting (eqs. 15–16) of a rod or rod network, with
//! time-parallel-transported reference frames and actuation by natural
//! curvature, twist and stretch (MAT-DiSMech §6.1).
//!
//! **DOFs.** Positions are the model's 3-D nodes; the rod adds one scalar
//! DOF θ (rad, kind `"rod_twist"`) per edge when the model is built
//! ([`EnergySpec::declare`](pliant_core::EnergySpec::declare)), in edge order, with rotational inertia
//! `ρ J |ē|` (kg·m², polar moment `J = π r⁴/2`). Unless `add_mass` is false it
//! also lumps the translational mass `ρ A |ē|/2` (kg, `A = π r²`) of every
//! edge onto each of its two nodes (the node's share of the Voronoi length);
//! set `add_mass: false` when the nodes already carry the rod's mass.
//!
//! **Stiffnesses** default to a solid circular section of radius `r`:
//! `k_s = E π r²` (N), `EI = E π r⁴/4`, `GJ = G π r⁴/2` (N·m²) with
//! `G = E/(2(1 + ν))`; per-edge and per-spring overrides replace them.
//! **Natural values** default to the rest state: rest lengths `|ē|`, and
//! `κ̄`, `τ̄` of the initial shape (so the initial state is stress-free).
//!
//! **Actuation channels** ([`Actuation`]): each entry drives one quantity
//! of a set of springs (or edges) from one parameter channel, times a gain.
//! The channel value is an *increment over the rest value*, in physical
//! units: natural curvature `κ̄⁽ᵃ⁾ = κ̄⁽ᵃ⁾_rest + Δl·gain·p` with `p` in 1/m
//! (the discrete curvature of eq. 14 is the physical one times the Voronoi
//! length, §7.1), natural twist likewise in rad/m, natural stretch as a
//! strain: natural length `|ē|(1 + gain·p)`. A channel at 0 leaves the rod at
//! rest; on a straight rod the increment is the natural curvature itself.
//! A PneuNet section is one entry listing the section's springs; a snake gait
//! is one entry per spring, each with its own channel (a travelling wave).
//!
//! **JSON** (`deny_unknown_fields`; units SI):
//!
//! ```json
//! {"type": "rod", "name": "snake", "edges": [[0, 1], [1, 2], [2, 3]],
//!  "radius": 0.001, "youngs_modulus": 2e6, "poisson_ratio": 0.5, "density": 1200,
//!  "rest_lengths": 0.05,
//!  "first_director": [0, 0, 1],
//!  "spring_overrides": [{"spring": 0, "bend_stiffness": 1e-6}],
//!  "actuation": [{"type": "curvature", "axis": 1, "springs": [0], "channel": "k0"},
//!                {"type": "curvature", "axis": 1, "springs": [1], "channel": "k1"}]}
//! ```
//!
//! `rest_lengths` (one value or one per edge, m) default to the edge lengths
//! of the model's initial node positions.
//! `fixed_twists` lists edges whose twist angle θ is held (a clamp fixes the
//! first edge's two nodes and its twist).

mod bind;
mod carried;
mod energy;
mod spec;
mod validate;

pub use energy::{RodEnergies, RodEnergy, RodStrains, TWIST_KIND, twist_dofs};
pub use spec::{Actuation, EdgeOverride, RestLengths, Rod, ShellJoints, SpringOverride};

#[cfg(test)]
mod tests;
