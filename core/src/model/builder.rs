//! Building a model: nodes, extra DOFs, masses, constraints, parameter
//! channels and energy specs; [`ModelBuilder::build`] declares and binds
//! every energy and validates the whole.

use super::{Declare, Model};
use crate::element::NO_PARAM;
use crate::error::{CoreError, Invalid, Result};
use crate::layout::Layout;
use crate::motion::Motion;
use crate::params::ParamChannel;
use crate::region::Selector;
use crate::spec::{BindInfo, EnergySpec};

/// Incrementally assembles a [`Model`].
///
/// ```
/// use pliant_core::{ModelBuilder, Motion};
/// let mut b = ModelBuilder::new(2)?;
/// let a = b.add_node(&[0.0, 0.0], 0.1)?;
/// b.add_node(&[0.1, 0.0], 0.1)?;
/// b.fix_node(a)?;
/// let model = b.build()?;
/// assert_eq!(model.n_dofs(), 4);
/// assert!(!model.is_free(0) && model.is_free(2));
/// # Ok::<(), pliant_core::CoreError>(())
/// ```
#[derive(Debug)]
pub struct ModelBuilder {
    layout: Layout,
    q0: Vec<f64>,
    v0: Vec<f64>,
    mass: Vec<f64>,
    constraints: Vec<Option<Motion>>,
    params: Vec<ParamChannel>,
    specs: Vec<Box<dyn EnergySpec>>,
    /// Selections applied after every energy declared its nodes, in order.
    deferred: Vec<Deferred>,
    base_dir: Option<std::path::PathBuf>,
}

/// A selection-based step of model building: it runs once every energy
/// has declared (a body from a mesh file adds its nodes and regions then).
#[derive(Debug)]
enum Deferred {
    Region {
        name: String,
        select: Selector,
        field: String,
    },
    Output {
        name: String,
        field: String,
    },
    Constrain {
        select: Selector,
        axes: Option<Vec<usize>>,
        motion: Motion,
        field: String,
    },
    Mass {
        select: Selector,
        total: f64,
        field: String,
    },
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
            specs: vec![],
            deferred: vec![],
            base_dir: None,
        })
    }
    /// The directory energies resolve relative file names against (a
    /// scene's directory, for its mesh files).
    pub fn set_base_dir(&mut self, dir: Option<std::path::PathBuf>) {
        self.base_dir = dir;
    }
    /// Names the nodes `select` chooses as region `name`, once every energy
    /// has declared its nodes (so it can select a body's nodes); `field`
    /// names it in errors.
    pub fn add_region(&mut self, name: &str, select: Selector, field: &str) {
        self.deferred.push(Deferred::Region {
            name: name.into(),
            select,
            field: field.into(),
        });
    }
    /// Reports region `name` (defined by then) as an output group: the
    /// centroid of its nodes joins the observables every step
    /// ([`Layout::outputs`]).
    pub fn add_output(&mut self, name: &str, field: &str) {
        self.deferred.push(Deferred::Output {
            name: name.into(),
            field: field.into(),
        });
    }
    /// Constrains the `axes` (default all) of every node `select` chooses
    /// with `motion`, once every energy has declared its nodes.
    pub fn constrain_selection(
        &mut self,
        select: Selector,
        axes: Option<Vec<usize>>,
        motion: Motion,
        field: &str,
    ) {
        self.deferred.push(Deferred::Constrain {
            select,
            axes,
            motion,
            field: field.into(),
        });
    }
    /// Spreads `total` kg (a motor) equally over the nodes `select`
    /// chooses, once every energy has declared its nodes.
    pub fn add_selection_mass(&mut self, select: Selector, total: f64, field: &str) {
        self.deferred.push(Deferred::Mass {
            select,
            total,
            field: field.into(),
        });
    }

    /// Runs the deferred selections in order.
    fn apply_deferred(&mut self) -> Result<()> {
        for d in std::mem::take(&mut self.deferred) {
            match d {
                Deferred::Region {
                    name,
                    select,
                    field,
                } => {
                    let nodes = select.resolve(&self.layout, &self.q0, &field)?;
                    self.layout.add_region(&name, nodes, &field)?;
                }
                Deferred::Output { name, field } => self.layout.add_output(&name, &field)?,
                Deferred::Constrain {
                    select,
                    axes,
                    motion,
                    field,
                } => {
                    let nodes = select.resolve(&self.layout, &self.q0, &field)?;
                    let axes = axes.unwrap_or_else(|| (0..self.layout.dim()).collect());
                    for n in nodes {
                        for &a in &axes {
                            let i = self.layout.node_dof(n, a, &format!("{field}.axes"))?;
                            self.constraints[i] = Some(motion.clone());
                        }
                    }
                }
                Deferred::Mass {
                    select,
                    total,
                    field,
                } => {
                    if !(total.is_finite() && total >= 0.0) {
                        return Err(Invalid::new(format!("{field}.mass"), total, "≥ 0 (kg)").into());
                    }
                    let nodes = select.resolve(&self.layout, &self.q0, &field)?;
                    let each = total / nodes.len() as f64;
                    for n in nodes {
                        for a in 0..self.layout.dim() {
                            let i = self.layout.node_dof(n, a, &field)?;
                            self.mass[i] += each;
                        }
                    }
                }
            }
        }
        Ok(())
    }
    /// The layout so far.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// The initial state so far (m, rad).
    pub fn q0(&self) -> &[f64] {
        &self.q0
    }
    /// Adds a node at `pos` (m) with lumped mass `mass` (kg); returns its index.
    pub fn add_node(&mut self, pos: &[f64], mass: f64) -> Result<usize> {
        let field = format!("nodes[{}]", self.layout.n_nodes());
        let mut none = Vec::new();
        self.declare(&mut none).add_node(pos, mass, &field)
    }
    /// Adds an extra scalar DOF (`kind` e.g. "twist") with initial value and
    /// inertia (kg·m² for angles); returns its DOF index.
    pub fn add_extra_dof(&mut self, kind: &str, value: f64, inertia: f64) -> usize {
        let mut none = Vec::new();
        self.declare(&mut none).add_extra_dof(kind, value, inertia)
    }
    /// Adds lumped mass `m` to every position DOF of `node` (point masses such as motors).
    pub fn add_point_mass(&mut self, node: usize, m: f64) -> Result<()> {
        let mut none = Vec::new();
        self.declare(&mut none)
            .add_point_mass(node, m, "point mass")
    }
    /// Sets the initial velocity of DOF `dof`.
    pub fn set_velocity(&mut self, dof: usize, v: f64) -> Result<()> {
        let count = self.q0.len();
        *self.v0.get_mut(dof).ok_or(CoreError::DofOutOfRange {
            field: "velocity".into(),
            index: dof,
            count,
        })? = v;
        Ok(())
    }
    /// Constrains DOF `dof` with a prescribed motion.
    pub fn constrain(&mut self, dof: usize, motion: Motion) -> Result<()> {
        let mut none = Vec::new();
        self.declare(&mut none).constrain(dof, motion, "constraint")
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
        let mut none = Vec::new();
        self.declare(&mut none).add_param(channel)
    }
    /// Adds a constant design parameter; returns its index.
    pub fn add_design_param(&mut self, name: &str, value: f64) -> Result<usize> {
        self.add_param(ParamChannel::design(name, value))
    }
    /// Adds an energy (declared and bound when the model is built).
    pub fn add(&mut self, spec: impl EnergySpec + 'static) {
        self.specs.push(Box::new(spec));
    }
    /// Adds an energy given as a boxed spec (from a scene or a plugin).
    pub fn add_boxed(&mut self, spec: Box<dyn EnergySpec>) {
        self.specs.push(spec);
    }

    fn declare<'a>(&'a mut self, declared: &'a mut Vec<usize>) -> Declare<'a> {
        Declare {
            layout: &mut self.layout,
            q0: &mut self.q0,
            v0: &mut self.v0,
            mass: &mut self.mass,
            constraints: &mut self.constraints,
            params: &mut self.params,
            declared,
            base_dir: self.base_dir.as_deref(),
        }
    }

    /// Declares and binds every energy, validates everything, and returns
    /// the model. An energy's error names it: `energies[k] (type): …`.
    pub fn build(mut self) -> Result<Model> {
        // Composite specs (a shell: stretching + bending) stand for their
        // components; errors still name the entry the user wrote.
        #[derive(Clone)]
        struct Origin {
            index: usize,
            energy: &'static str,
            label: Option<String>,
        }
        let wrap_at = |o: &Origin, e: CoreError| CoreError::Energy {
            index: o.index,
            energy: o.energy.into(),
            label: o.label.clone(),
            source: Box::new(e),
        };
        let mut specs = Vec::with_capacity(self.specs.len());
        let mut origins = Vec::with_capacity(self.specs.len());
        for (k, spec) in std::mem::take(&mut self.specs).into_iter().enumerate() {
            let origin = Origin {
                index: k,
                energy: spec.type_name(),
                label: spec.label().filter(|l| !l.is_empty()).map(str::to_string),
            };
            // Depth-first, so components that are composite themselves
            // expand too (bounded, in case a composite contains itself).
            let mut stack = vec![spec];
            let mut out = Vec::new();
            let mut expansions = 0usize;
            while let Some(s) = stack.pop() {
                let parts = s.components().map_err(|e| wrap_at(&origin, e))?;
                if parts.is_empty() {
                    out.push(s);
                    continue;
                }
                expansions += 1;
                if expansions > 1000 {
                    return Err(wrap_at(
                        &origin,
                        CoreError::inconsistent(
                            "components",
                            "a composite energy expands into more than 1000 composites (does it contain itself?)",
                        ),
                    ));
                }
                stack.extend(parts.into_iter().rev());
            }
            for part in out {
                origins.push(origin.clone());
                specs.push(part);
            }
        }
        let wrap = |k: usize, _: &dyn EnergySpec, e: CoreError| wrap_at(&origins[k], e);
        let entries: Vec<usize> = origins.iter().map(|o| o.index).collect();
        let mut declared = vec![Vec::new(); specs.len()];
        for (k, spec) in specs.iter().enumerate() {
            spec.declare(&mut self.declare(&mut declared[k]))
                .map_err(|e| wrap(k, spec.as_ref(), e))?;
        }
        self.apply_deferred()?;
        let ModelBuilder {
            layout,
            q0,
            v0,
            mass,
            constraints,
            params,
            ..
        } = self;
        check_finite("initial state q0", &q0)?;
        check_finite("initial velocity v0", &v0)?;
        check_finite("mass", &mass)?;
        if let Some(i) = mass.iter().position(|&m| m < 0.0) {
            return Err(Invalid::new(format!("mass of DOF {i}"), mass[i], "≥ 0 (kg)").into());
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
                return Err(CoreError::inconsistent(
                    format!("params[{i}].keyframes"),
                    "keyframe times must be sorted",
                ));
            }
        }
        for (i, c) in constraints.iter().enumerate() {
            if let Some(m) = c {
                m.validate()
                    .map_err(|e| e.within(&format!("constraint of DOF {i}")))?;
            }
        }
        let (n, np) = (q0.len(), params.len());
        let mut energies = Vec::with_capacity(specs.len());
        for (k, spec) in specs.iter().enumerate() {
            let info = BindInfo {
                layout: &layout,
                q0: &q0,
                mass: &mass,
                extra_dofs: &declared[k],
                channels: &params,
            };
            let e = spec.bind(&info).map_err(|e| wrap(k, spec.as_ref(), e))?;
            let set = e.elements();
            let (ns, npe) = (set.stencil_size(), set.param_size());
            let mut d = vec![0; ns];
            let mut p = vec![0; npe];
            for i in 0..set.len() {
                set.dofs(i, &mut d);
                set.params(i, &mut p);
                let field = || format!("element {i}");
                if let Some(&bad) = d.iter().find(|&&x| x >= n) {
                    let e = CoreError::DofOutOfRange {
                        field: field(),
                        index: bad,
                        count: n,
                    };
                    return Err(wrap(k, spec.as_ref(), e));
                }
                if let Some(&bad) = p.iter().find(|&&x| x >= np && x != NO_PARAM) {
                    let e = CoreError::ParamOutOfRange {
                        field: field(),
                        index: bad,
                        count: np,
                    };
                    return Err(wrap(k, spec.as_ref(), e));
                }
            }
            energies.push(e);
        }
        Ok(Model {
            layout,
            q0,
            v0,
            mass,
            constraints,
            params,
            specs,
            energies,
            origins: entries,
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
