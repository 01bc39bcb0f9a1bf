//! The model: DOF layout, initial state, lumped mass, constraints, parameter
//! channels and energies. Built with [`ModelBuilder`], which binds and
//! validates every energy.

use crate::energy::Energy;
use crate::error::{CoreError, Result};
use crate::layout::{Layout, ParamKind};
use crate::motion::Motion;
use crate::params::ParamChannel;

/// A complete, validated model.
#[derive(Debug)]
pub struct Model {
    /// DOF and parameter layout.
    pub layout: Layout,
    /// Initial state `q0` (m, rad).
    pub q0: Vec<f64>,
    /// Initial velocity `v0` (m/s, rad/s).
    pub v0: Vec<f64>,
    /// Lumped mass per DOF: kg for positions, kg·m² for rotational extra DOFs.
    pub mass: Vec<f64>,
    /// Prescribed motion per DOF (`None` = free).
    pub constraints: Vec<Option<Motion>>,
    /// Parameter channels, in layout order.
    pub params: Vec<ParamChannel>,
    /// The energies.
    pub energies: Vec<Box<dyn Energy>>,
}

impl Model {
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
            if matches!(k, crate::layout::DofKind::Position { .. }) {
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

/// Incrementally assembles a [`Model`].
#[derive(Debug)]
pub struct ModelBuilder {
    layout: Layout,
    q0: Vec<f64>,
    v0: Vec<f64>,
    mass: Vec<f64>,
    constraints: Vec<Option<Motion>>,
    params: Vec<ParamChannel>,
    energies: Vec<Box<dyn Energy>>,
}

impl ModelBuilder {
    /// A builder for a `dim`-dimensional model (2 or 3).
    pub fn new(dim: usize) -> Result<Self> {
        Ok(Self {
            layout: Layout::new(dim)?,
            q0: vec![],
            v0: vec![],
            mass: vec![],
            constraints: vec![],
            params: vec![],
            energies: vec![],
        })
    }
    /// The layout so far.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// The initial state so far (m, rad), for energies that size masses or
    /// rest quantities from it in [`Energy::declare`].
    pub fn q0(&self) -> &[f64] {
        &self.q0
    }
    /// Adds a node at `pos` (m) with lumped mass `mass` (kg); returns its index.
    pub fn add_node(&mut self, pos: &[f64], mass: f64) -> Result<usize> {
        let d = self.layout.dim();
        if pos.len() != d {
            return Err(CoreError::Model(format!(
                "node {} has {} coordinates, the model is {d}-D",
                self.layout.n_nodes(),
                pos.len()
            )));
        }
        let n = self.layout.add_node();
        self.q0.extend_from_slice(pos);
        self.v0.extend(std::iter::repeat_n(0.0, d));
        self.mass.extend(std::iter::repeat_n(mass, d));
        self.constraints.extend(std::iter::repeat_n(None, d));
        Ok(n)
    }
    /// Adds an extra scalar DOF (`kind` e.g. "twist") with initial value and
    /// inertia (kg·m² for angles); returns its DOF index.
    pub fn add_extra_dof(&mut self, kind: &str, value: f64, inertia: f64) -> usize {
        let i = self.layout.add_extra(kind);
        self.q0.push(value);
        self.v0.push(0.0);
        self.mass.push(inertia);
        self.constraints.push(None);
        i
    }
    /// Adds lumped mass `m` to every position DOF of `node` (point masses such as motors).
    pub fn add_point_mass(&mut self, node: usize, m: f64) -> Result<()> {
        for a in 0..self.layout.dim() {
            let i = self.layout.node_dof(node, a, "point mass")?;
            self.mass[i] += m;
        }
        Ok(())
    }
    /// Sets the initial velocity of DOF `dof`.
    pub fn set_velocity(&mut self, dof: usize, v: f64) -> Result<()> {
        let n = self.q0.len();
        *self
            .v0
            .get_mut(dof)
            .ok_or_else(|| CoreError::Model(format!("velocity: DOF {dof} out of range ({n})")))? =
            v;
        Ok(())
    }
    /// Constrains DOF `dof` with a prescribed motion.
    pub fn constrain(&mut self, dof: usize, motion: Motion) -> Result<()> {
        let n = self.q0.len();
        *self.constraints.get_mut(dof).ok_or_else(|| {
            CoreError::Model(format!("constraint: DOF {dof} out of range ({n} DOFs)"))
        })? = Some(motion);
        Ok(())
    }
    /// Fixes every coordinate of `node`.
    pub fn fix_node(&mut self, node: usize) -> Result<()> {
        for a in 0..self.layout.dim() {
            let i = self.layout.node_dof(node, a, "fixed node")?;
            self.constraints[i] = Some(Motion::Fixed);
        }
        Ok(())
    }
    /// Adds a parameter channel; returns its index.
    pub fn add_param(&mut self, channel: ParamChannel) -> Result<usize> {
        let i = self.layout.add_param(&channel.name, channel.kind)?;
        self.params.push(channel);
        Ok(i)
    }
    /// Adds a constant design parameter; returns its index.
    pub fn add_design_param(&mut self, name: &str, value: f64) -> Result<usize> {
        self.add_param(ParamChannel {
            name: name.into(),
            kind: ParamKind::Design,
            value,
            keyframes: vec![],
        })
    }
    /// Adds an energy (bound when the model is built).
    pub fn add_energy(&mut self, e: Box<dyn Energy>) {
        self.energies.push(e);
    }
    /// Binds and validates everything and returns the model.
    pub fn build(mut self) -> Result<Model> {
        let mut energies = std::mem::take(&mut self.energies);
        for (k, e) in energies.iter_mut().enumerate() {
            e.declare(&mut self).map_err(|err| match err {
                CoreError::Model(m) => {
                    CoreError::Model(format!("energy #{k} ({}): {m}", e.typetag_name()))
                }
                other => other,
            })?;
        }
        energies.append(&mut self.energies);
        self.energies = energies;
        let ModelBuilder {
            layout,
            q0,
            v0,
            mass,
            constraints,
            params,
            mut energies,
        } = self;
        check_finite("initial state q0", &q0)?;
        check_finite("initial velocity v0", &v0)?;
        check_finite("mass", &mass)?;
        if let Some(i) = mass.iter().position(|&m| m < 0.0) {
            return Err(CoreError::Model(format!(
                "mass of DOF {i} is negative ({} kg)",
                mass[i]
            )));
        }
        for (i, c) in params.iter().enumerate() {
            if !c.value.is_finite()
                || c.keyframes
                    .iter()
                    .any(|k| !k.0.is_finite() || !k.1.is_finite())
            {
                return Err(CoreError::NonFinite {
                    what: format!("parameter channel `{}`", c.name),
                    index: i,
                    value: c.value,
                });
            }
            if c.keyframes.windows(2).any(|w| w[1].0 < w[0].0) {
                return Err(CoreError::Model(format!(
                    "parameter channel `{}`: keyframe times must be sorted",
                    c.name
                )));
            }
        }
        for (i, c) in constraints.iter().enumerate() {
            if let Some(m) = c {
                m.validate()
                    .map_err(|e| CoreError::Model(format!("prescribed motion of DOF {i}: {e}")))?;
            }
        }
        let n = q0.len();
        let np = params.len();
        for (k, e) in energies.iter_mut().enumerate() {
            e.bind(&crate::energy::BindInfo {
                layout: &layout,
                q0: &q0,
                mass: &mass,
            })
            .map_err(|err| match err {
                CoreError::Model(m) => {
                    CoreError::Model(format!("energy #{k} ({}): {m}", e.typetag_name()))
                }
                other => other,
            })?;
            let set = e.elements();
            let (ns, npe) = (set.stencil_size(), set.param_size());
            let mut d = vec![0; ns];
            let mut p = vec![0; npe];
            for i in 0..set.len() {
                set.dofs(i, &mut d);
                set.params(i, &mut p);
                if let Some(&bad) = d.iter().find(|&&x| x >= n) {
                    return Err(CoreError::Model(format!(
                        "energy #{k} ({}) element {i}: DOF {bad} out of range ({n} DOFs)",
                        e.typetag_name()
                    )));
                }
                if let Some(&bad) = p.iter().find(|&&x| x >= np) {
                    return Err(CoreError::Model(format!(
                        "energy #{k} ({}) element {i}: parameter {bad} out of range ({np} channels)",
                        e.typetag_name()
                    )));
                }
            }
        }
        Ok(Model {
            layout,
            q0,
            v0,
            mass,
            constraints,
            params,
            energies,
        })
    }
}

fn check_finite(what: &str, v: &[f64]) -> Result<()> {
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(CoreError::NonFinite {
            what: what.into(),
            index: i,
            value: v[i],
        });
    }
    Ok(())
}
