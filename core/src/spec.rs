//! Scene-side energies: what a scene file (or code) says, before the model
//! exists. An [`EnergySpec`] declares what it adds to the model (extra DOFs,
//! masses) and then binds into a bound [`Energy`] that the solver
//! evaluates; an unbound spec cannot be evaluated.

use crate::energy::Energy;
use crate::error::{CoreError, Result};
use crate::layout::Layout;
use crate::model::Declare;
use crate::params::ParamChannel;

/// What an energy may read from the model when it is bound.
#[derive(Debug, Clone, Copy)]
pub struct BindInfo<'a> {
    /// DOF and parameter layout.
    pub layout: &'a Layout,
    /// Initial state `q0` (m, rad): rest lengths default to initial lengths.
    pub q0: &'a [f64],
    /// Lumped mass per DOF (kg, kg·m² for rotational extra DOFs).
    pub mass: &'a [f64],
    /// The extra DOFs this energy declared ([`Declare::add_extra_dof`]), in
    /// the order it declared them.
    pub extra_dofs: &'a [usize],
    /// The model's parameter channels with their schedules as written (an
    /// optimizer may later drive controls elsewhere): for energies that can
    /// reject impossible values up front, a pressure below vacuum, say.
    pub channels: &'a [ParamChannel],
}

impl BindInfo<'_> {
    /// Spatial dimension of the model (2 or 3).
    pub fn dim(&self) -> usize {
        self.layout.dim()
    }
    /// Errors unless the model is `dim`-dimensional (`what` names the energy).
    pub fn require_dim(&self, what: &str, dim: usize) -> Result<()> {
        if self.dim() == dim {
            Ok(())
        } else {
            Err(CoreError::dimension(what, dim, self.dim()))
        }
    }
    /// Index of parameter channel `name` (`field` names where it was written).
    pub fn param(&self, name: &str, field: &str) -> Result<usize> {
        self.layout.param(name, field)
    }
    /// The smallest and largest value channel `name` takes as written —
    /// its keyframes for a scheduled control, its value otherwise (what
    /// [`ParamChannel::at`] reads) — `None` when there is no such channel.
    pub fn channel_range(&self, name: &str) -> Option<(f64, f64)> {
        let c = self.channels.iter().find(|c| c.name == name)?;
        let scheduled = c.kind == crate::layout::ParamKind::Control && !c.keyframes.is_empty();
        let values: Box<dyn Iterator<Item = f64>> = if scheduled {
            Box::new(c.keyframes.iter().map(|k| k.1))
        } else {
            Box::new(std::iter::once(c.value))
        };
        Some(
            values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            }),
        )
    }
    /// Initial position of `node` as a 3-vector (`z = 0` in a 2-D model), m.
    pub fn node_position(&self, node: usize, field: &str) -> Result<[f64; 3]> {
        let mut x = [0.0; 3];
        for (a, xa) in x.iter_mut().enumerate().take(self.dim()) {
            *xa = self.q0[self.layout.node_dof(node, a, field)?];
        }
        Ok(x)
    }
}

/// The registered scene name of a spec (`"spring"`). Implemented for every
/// type registered with [`register_energy!`](crate::register_energy).
pub trait Named {
    /// The `"type"` of this energy in scene files.
    fn type_name(&self) -> &'static str;
}

/// An energy as a scene describes it; registered by name with
/// [`register_energy!`](crate::register_energy) so scene files can use it.
///
/// `declare` runs first for every energy of a model, in model order, and may
/// add extra DOFs, point masses and constraints; then `bind` runs for every
/// energy with the final layout and returns the bound energy.
pub trait EnergySpec: Named + erased_serde::Serialize + Send + Sync + std::fmt::Debug {
    /// Adds what the energy needs to the model before binding (extra DOFs
    /// such as rod twist angles, the mass they carry). Most energies add
    /// nothing.
    fn declare(&self, _d: &mut Declare) -> Result<()> {
        Ok(())
    }
    /// Validates the data against the model and returns the bound energy.
    /// A composite spec (non-empty [`EnergySpec::components`]) is never
    /// bound itself.
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>>;
    /// For a composite energy — one scene entry standing for several
    /// energies of different element kinds, like a shell's stretching and
    /// bending — the specs it stands for; the model builder declares and
    /// binds those instead, in order, and errors still name this entry.
    /// Empty (the default) for an ordinary energy.
    fn components(&self) -> Result<Vec<Box<dyn EnergySpec>>> {
        Ok(Vec::new())
    }
    /// The energy's own name, for energies that have one (a cable, a rod):
    /// errors say `energies[3] (cable `front_left`)`.
    fn label(&self) -> Option<&str> {
        None
    }
}

erased_serde::serialize_trait_object!(EnergySpec);

/// The scene JSON of a spec: its fields plus `"type"`.
pub fn to_json(spec: &dyn EnergySpec) -> Result<serde_json::Value> {
    let mut v = serde_json::to_value(spec).map_err(|e| CoreError::Scene {
        path: "<memory>".into(),
        field: spec.type_name().into(),
        message: format!("cannot be written as JSON: {e}"),
    })?;
    if let Some(m) = v.as_object_mut() {
        let mut out = serde_json::Map::with_capacity(m.len() + 1);
        out.insert("type".into(), spec.type_name().into());
        out.append(m);
        v = serde_json::Value::Object(out);
    }
    Ok(v)
}
