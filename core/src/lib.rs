//! # pliant-core
//!
//! The engine of pliant: a flat DOF vector `q` (m, rad) with a lumped mass,
//! constraints and named parameter channels ([`model`]); the [`Energy`]
//! plugin interface with a dual-number fallback ([`element`]); deterministic
//! parallel sparse assembly ([`assembly`]); faer Cholesky ([`linsolve`]);
//! Newton with line search ([`newton`]); implicit and explicit integrators
//! ([`integrator`], [`simulator`]); scene files ([`scene`]) and the energy
//! registry ([`registry`]). SI units throughout.

pub mod assembly;
pub mod derivcheck;
pub mod element;
pub mod energy;
pub mod error;
pub mod integrator;
pub mod layout;
pub mod linsolve;
pub mod model;
pub mod motion;
pub mod newton;
pub mod node_energy;
pub mod params;
mod pattern;
pub mod penalty;
pub mod plugin;
pub mod pvd;
pub mod reduced;
pub mod registry;
pub mod scene;
pub mod simulator;

pub use element::{Ctx, Element, ElementSet, Elements};
pub use energy::{BindInfo, Energy, EvalState};
pub use error::{CoreError, Result};
pub use integrator::Integrator;
pub use layout::{Layout, ParamKind};
pub use model::{Model, ModelBuilder};
pub use motion::Motion;
pub use newton::{HessianStrategy, NewtonSettings};
pub use node_energy::{NodeElement, NodeEnergy};
pub use params::ParamChannel;
pub use reduced::{ReducedElement, ReducedElements};
pub use simulator::{Simulator, StepDerivatives, StepReport};

#[doc(hidden)]
pub use inventory;
/// Re-exported so plugins write elements against the same num-dual.
pub use num_dual;
/// Re-exported for plugin constructors.
pub use serde_json;
/// Re-exported for plugins registering energies.
pub use typetag;
