//! See every pliant run.
//!
//! Energies report their shapes through [`pliant_core::Energy::geometry`]
//! (tetrahedra, rod and cable polylines, shell triangles, membranes,
//! planes, spheres); this crate draws any scene from them alone:
//!
//! - [`Snapshot`]: the shapes of a model at one state, with positions (m),
//!   velocities (m/s) and the forces (N) of the energies that act through
//!   the bodies (ground contact, friction, gravity);
//! - [`VtkWriter`]: a ParaView `.pvd` series of legacy `.vtk` frames, one
//!   piece per shape, the ground its own piece;
//! - [`Replay`]: `replay.html`, one self-contained page that plays the run
//!   back offline (play/pause, time slider, orbit/zoom, colour by field,
//!   ground, centre-of-mass path);
//! - [`plots`]: SVG plots with units on the axes;
//! - [`Recorder`]: all three, written while a run goes, with bounded memory.
//!
//! ```
//! use pliant_core::{ModelBuilder, Simulator, Integrator, NewtonSettings};
//! use pliant_viz::{Recorder, RecorderOptions, StateView};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut b = ModelBuilder::new(3)?;
//! b.add_node(&[0.0, 0.0, 0.1], 0.01)?;
//! let mut sim = Simulator::new(b.build()?, Integrator::ImplicitEuler, 0.01, NewtonSettings::default())?;
//! let dir = std::env::temp_dir().join(format!("pliant-viz-doc-{}", std::process::id()));
//! let opts = RecorderOptions { vtk: false, ..Default::default() };
//! let mut rec = Recorder::new(&dir, "drop", "one node", sim.model(), opts)?;
//! let p = sim.model().params_at(0.0);
//! fn view<'a>(sim: &'a Simulator, p: &'a [f64]) -> StateView<'a> {
//!     StateView { q: sim.q(), v: sim.v(), p, t: sim.time(), dt: sim.dt() }
//! }
//! rec.frame(sim.model(), view(&sim, &p), &[])?;
//! sim.step()?;
//! let files = rec.finish(sim.model(), view(&sim, &p), &[])?;
//! assert!(files.iter().any(|f| f.ends_with("replay.html")));
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok(())
//! # }
//! ```
#![warn(missing_docs)]

mod error;
pub mod plots;
mod recorder;
mod replay;
mod snapshot;
mod sweep_plot;
mod vtk;

pub use error::VizError;
pub use recorder::{Recorder, RecorderOptions};
pub use replay::Replay;
pub use snapshot::{Part, Snapshot, StateView};
pub use sweep_plot::plot_sweep;
pub use vtk::VtkWriter;
