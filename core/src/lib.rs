//! # pliant-core
//!
//! The engine of pliant. SI units throughout (m, kg, s, N, J, Pa, rad).
//!
//! - **Model** ([`ModelBuilder`], [`Model`]): a flat DOF vector `q` — node
//!   coordinates (2-D or 3-D) and extra scalar DOFs such as rod twist angles
//!   — with a lumped mass, prescribed motions and named parameter channels
//!   (controls that vary per step, design parameters that do not).
//! - **Energies**: write an [`Element`] once, generic over the scalar
//!   ([`Scalar`]); the engine binds it ([`Elements`]), derives what it is not
//!   given analytically with dual numbers, and checks both
//!   ([`derivcheck`]). Scene files name energies registered with
//!   [`register_energy!`]; runtime plugins add more ([`plugin`]).
//! - **Stepping** ([`Simulator`]): each step minimizes an incremental
//!   potential ([`Integrator`]) with Newton ([`NewtonSettings`]) on a deterministic
//!   parallel sparse assembly and a faer Cholesky ([`linsolve`]); a
//!   converged step also yields what differentiation needs
//!   ([`StepDerivatives`]).
//! - **Scenes** ([`scene`]): JSON files that describe a whole model and how
//!   to run it.
//!
//! ```
//! use pliant_core::scene::Scene;
//!
//! // A point mass thrown upwards in 2-D, with no energy at all: it keeps
//! // its velocity (energies such as gravity come from plugin crates).
//! let scene = Scene::from_json(
//!     r#"{"dim": 2, "nodes": [[0, 0]], "velocities": [[0, 1]], "mass": 1.0,
//!         "energies": [], "integrator": "implicit_euler", "dt": 0.01, "steps": 10}"#,
//!     "<doc>",
//! )?;
//! let mut run = scene.into_simulator()?;
//! for _ in 0..run.settings.steps {
//!     run.simulator.step()?;
//! }
//! assert_eq!(run.simulator.steps_done(), 10);
//! assert!((run.simulator.q()[1] - 0.1).abs() < 1e-12);
//! # Ok::<(), pliant_core::CoreError>(())
//! ```
#![warn(missing_docs)]

mod amg;
pub mod assembly;
pub mod derivcheck;
pub mod edge_frame;
pub mod element;
mod energy;
mod error;
pub mod geometry;
mod integrator;
pub mod json;
mod layout;
pub mod linsolve;
mod local_blocks;
pub mod mat3;
mod model;
mod motion;
pub(crate) mod newton;
mod ordering;
pub mod parallel;
mod parallel_choice;
mod params;
pub mod penalty;
pub mod plugin;
pub mod pvd;
pub mod quantity;
pub mod region;
pub mod registry;
mod scalar;
pub mod scene;
mod simulator;
pub mod sparse;
mod spec;
mod state;
pub mod timing;
pub mod vec3;

pub use element::{
    Block, Element, ElementList, ElementSet, Elements, Local, SplitHessian, Stencil,
};
pub use energy::{CarriedTransition, Energy};
pub use error::{CoreError, Invalid, Result};
pub use integrator::Integrator;
pub use layout::{DofKind, Layout, ParamKind};
pub use model::{Declare, Model, ModelBuilder};
pub use motion::Motion;
pub use newton::{
    AMG_MAX_ITERATIONS, AMG_MIN_FACTOR_ENTRIES, AMG_MIN_FILL_PER_LOG2, AMG_REFRESH_ABOVE,
    Directions, GEOMETRIC_MIN_FACTOR_ENTRIES, HessianStrategy, NewtonSettings, NewtonStart,
    NewtonStats, PCG_MAX_ITERATIONS, PCG_MIN_FACTOR_ENTRIES, PCG_MIN_FILL,
};
pub use params::ParamChannel;
pub use quantity::Quantity;
pub use registry::Registered;
pub use scalar::{Scalar, atan2};
pub use simulator::{CoarseModel, Simulator, StepDerivatives, StepReport};
pub use spec::{BindInfo, EnergySpec, Named, to_json};
pub use state::{Ctx, EvalState};

#[doc(hidden)]
pub use inventory;
/// Re-exported so elements are written against the same num-dual.
pub use num_dual;
/// Re-exported for plugins and scene code.
pub use serde_json;
