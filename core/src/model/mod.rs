//! The model: DOF layout, initial state, lumped mass, constraints, parameter
//! channels and energies, built and validated by [`ModelBuilder`].

mod builder;
mod declare;

pub use builder::ModelBuilder;
pub use declare::Declare;

use crate::energy::Energy;
use crate::layout::{DofKind, Layout};
use crate::motion::Motion;
use crate::params::ParamChannel;
use crate::spec::EnergySpec;

/// A complete, validated model: every energy bound to the layout. Built by
/// [`ModelBuilder::build`]; read-only afterwards.
#[derive(Debug)]
pub struct Model {
    pub(crate) layout: Layout,
    pub(crate) q0: Vec<f64>,
    pub(crate) v0: Vec<f64>,
    pub(crate) mass: Vec<f64>,
    pub(crate) constraints: Vec<Option<Motion>>,
    pub(crate) params: Vec<ParamChannel>,
    pub(crate) specs: Vec<Box<dyn EnergySpec>>,
    pub(crate) energies: Vec<Box<dyn Energy>>,
    /// Per energy, the index of the entry it came from (a composite entry
    /// such as a shell stands for several energies).
    pub(crate) origins: Vec<usize>,
}

impl Model {
    /// DOF and parameter layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// Initial state `q0` (m, rad).
    pub fn q0(&self) -> &[f64] {
        &self.q0
    }
    /// Initial velocity `v0` (m/s, rad/s).
    pub fn v0(&self) -> &[f64] {
        &self.v0
    }
    /// Lumped mass per DOF: kg for positions, kg·m² for rotational extra DOFs.
    pub fn mass(&self) -> &[f64] {
        &self.mass
    }
    /// Prescribed motion per DOF (`None` = free).
    pub fn constraints(&self) -> &[Option<Motion>] {
        &self.constraints
    }
    /// Parameter channels, in layout order.
    pub fn params(&self) -> &[ParamChannel] {
        &self.params
    }
    /// The bound energies, in model order.
    pub fn energies(&self) -> &[Box<dyn Energy>] {
        &self.energies
    }
    /// The specs the energies were bound from, in model order: what a
    /// scene file says, with each composite entry (a shell) replaced by its
    /// components.
    pub fn specs(&self) -> &[Box<dyn EnergySpec>] {
        &self.specs
    }
    /// What binding sees of this model (with no declared extra DOFs): for
    /// binding another copy of an energy outside the model, an objective's
    /// own view of a cable, say.
    pub fn bind_info(&self) -> crate::spec::BindInfo<'_> {
        crate::spec::BindInfo {
            layout: &self.layout,
            q0: &self.q0,
            mass: &self.mass,
            extra_dofs: &[],
            channels: &self.params,
        }
    }
    /// The entry (`energies[i]` of the scene or builder) energy `k` came
    /// from.
    pub fn energy_entry(&self, k: usize) -> usize {
        self.origins[k]
    }
    /// `energies[i] (type)` of energy `k`, for messages: the entry the user
    /// wrote and the energy's type.
    pub fn describe_energy(&self, k: usize) -> String {
        format!("energies[{}] ({})", self.origins[k], self.energy_name(k))
    }
    /// The scene type name of energy `k` (`"spring"`).
    pub fn energy_name(&self, k: usize) -> &'static str {
        self.specs[k].type_name()
    }
    /// The model's energies of concrete type `T` (those that expose
    /// themselves through [`Energy::as_any`]), in model order.
    pub fn energies_of<T: 'static>(&self) -> Vec<&T> {
        self.energies
            .iter()
            .filter_map(|e| e.as_any().and_then(|a| a.downcast_ref::<T>()))
            .collect()
    }
    /// Spatial dimension.
    pub fn dim(&self) -> usize {
        self.layout.dim()
    }
    /// Number of DOFs.
    pub fn n_dofs(&self) -> usize {
        self.q0.len()
    }
    /// Whether DOF `i` is solved for.
    pub fn is_free(&self, i: usize) -> bool {
        self.constraints[i].is_none()
    }
    /// Parameter vector at time `t` from the channels' schedules.
    pub fn params_at(&self, t: f64) -> Vec<f64> {
        self.params.iter().map(|c| c.at(t)).collect()
    }
    /// Sets the constrained DOFs of `q` to their prescribed values at time `t`.
    pub fn apply_constraints(&self, q: &mut [f64], t: f64) {
        for (i, c) in self.constraints.iter().enumerate() {
            if let Some(m) = c {
                q[i] = m.value(self.q0[i], t);
            }
        }
    }
    /// Total mass of the position DOFs divided by `dim` (kg).
    pub fn total_mass(&self) -> f64 {
        let mut m = 0.0;
        for (i, k) in self.layout.dof_kinds().iter().enumerate() {
            if matches!(k, DofKind::Position { .. }) {
                m += self.mass[i];
            }
        }
        m / self.dim() as f64
    }
    /// Centre of mass of `q` (m), over position DOFs.
    pub fn center_of_mass(&self, q: &[f64]) -> Vec<f64> {
        let d = self.dim();
        let mut c = vec![0.0; d];
        let mut m = 0.0;
        for &b in self.layout.node_base() {
            let mi = self.mass[b];
            m += mi;
            for a in 0..d {
                c[a] += mi * q[b + a];
            }
        }
        if m > 0.0 {
            c.iter_mut().for_each(|x| *x /= m);
        }
        c
    }
    /// Position of node `n` in `q`.
    pub fn node_position<'a>(&self, q: &'a [f64], n: usize) -> &'a [f64] {
        let b = self.layout.node_base()[n];
        &q[b..b + self.dim()]
    }
}
