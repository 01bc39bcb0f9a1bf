//! What an energy may add to a model before it is bound.

use crate::error::{CoreError, Result};
use crate::layout::Layout;
use crate::motion::Motion;
use crate::params::ParamChannel;

/// The model under construction, as [`crate::EnergySpec::declare`] sees it:
/// it may add extra scalar DOFs (rod twist angles, shell mid-edge
/// variables), point masses and constraints.
#[derive(Debug)]
pub struct Declare<'a> {
    pub(crate) layout: &'a mut Layout,
    pub(crate) q0: &'a mut Vec<f64>,
    pub(crate) v0: &'a mut Vec<f64>,
    pub(crate) mass: &'a mut Vec<f64>,
    pub(crate) constraints: &'a mut Vec<Option<Motion>>,
    pub(crate) params: &'a mut Vec<ParamChannel>,
    /// The extra DOFs this energy added, handed back at binding.
    pub(crate) declared: &'a mut Vec<usize>,
    pub(crate) base_dir: Option<&'a std::path::Path>,
}

impl Declare<'_> {
    /// The layout so far.
    pub fn layout(&self) -> &Layout {
        self.layout
    }
    /// The initial state so far (m, rad).
    pub fn q0(&self) -> &[f64] {
        self.q0
    }
    /// Initial position of `node` as a 3-vector (`z = 0` in a 2-D model), m.
    pub fn node_position(&self, node: usize, field: &str) -> Result<[f64; 3]> {
        let mut x = [0.0; 3];
        for (a, xa) in x.iter_mut().enumerate().take(self.layout.dim()) {
            *xa = self.q0[self.layout.node_dof(node, a, field)?];
        }
        Ok(x)
    }
    /// Adds an extra scalar DOF of `kind` (e.g. `"rod_twist"`) with initial
    /// value `value` and inertia `inertia` (kg·m² for angles); returns its
    /// DOF index. The energy finds it again in
    /// [`BindInfo::extra_dofs`](crate::BindInfo::extra_dofs).
    pub fn add_extra_dof(&mut self, kind: &str, value: f64, inertia: f64) -> usize {
        let i = self.layout.add_extra(kind);
        self.q0.push(value);
        self.v0.push(0.0);
        self.mass.push(inertia);
        self.constraints.push(None);
        self.declared.push(i);
        i
    }
    /// Adds a node at `pos` (m, `dim` coordinates) with lumped mass `mass`
    /// (kg): a body read from a mesh file adds its nodes here. Returns its
    /// index.
    pub fn add_node(&mut self, pos: &[f64], mass: f64, field: &str) -> Result<usize> {
        let d = self.layout.dim();
        if pos.len() != d {
            return Err(CoreError::Count {
                field: field.into(),
                found: pos.len(),
                expected: d,
            });
        }
        let n = self.layout.add_node();
        self.q0.extend_from_slice(pos);
        self.v0.extend(std::iter::repeat_n(0.0, d));
        self.mass.extend(std::iter::repeat_n(mass, d));
        self.constraints.extend(std::iter::repeat_n(None, d));
        Ok(n)
    }
    /// Names a set of nodes (a mesh's physical group) so scenes can select
    /// it ([`crate::region::Selector`]); names are unique.
    pub fn add_region(&mut self, name: &str, nodes: Vec<usize>, field: &str) -> Result<()> {
        self.layout.add_region(name, nodes, field)
    }
    /// Names the tetrahedra `tets` (over model nodes) as body `name`, so
    /// other energies can bind inside it ([`Layout::volume`]).
    pub fn add_volume(&mut self, name: &str, tets: Vec<[usize; 4]>, field: &str) -> Result<()> {
        self.layout.add_volume(name, tets, field)
    }
    /// Publishes rod `name`'s framed edges (its edges with their twist
    /// DOFs, [`crate::edge_frame`]) so other energies can ride on its
    /// cross-sections ([`Layout::framed_edges`]).
    pub fn add_framed_edges(
        &mut self,
        name: &str,
        edges: Vec<crate::edge_frame::FramedEdge>,
        field: &str,
    ) -> Result<()> {
        self.layout.add_framed_edges(name, edges, field)
    }
    /// The directory relative paths in the energy's data are resolved
    /// against (the scene file's), if any.
    pub fn base_dir(&self) -> Option<&std::path::Path> {
        self.base_dir
    }
    /// Adds lumped mass `m` (kg) to every position DOF of `node`.
    pub fn add_point_mass(&mut self, node: usize, m: f64, field: &str) -> Result<()> {
        for a in 0..self.layout.dim() {
            let i = self.layout.node_dof(node, a, field)?;
            self.mass[i] += m;
        }
        Ok(())
    }
    /// Adds a parameter channel (a rest angle the energy owns, say);
    /// returns its index.
    pub fn add_param(&mut self, channel: ParamChannel) -> Result<usize> {
        let i = self.layout.add_param(&channel.name, channel.kind)?;
        self.params.push(channel);
        Ok(i)
    }
    /// Holds DOF `dof` with a prescribed motion.
    pub fn constrain(&mut self, dof: usize, motion: Motion, field: &str) -> Result<()> {
        let count = self.q0.len();
        *self
            .constraints
            .get_mut(dof)
            .ok_or_else(|| CoreError::DofOutOfRange {
                field: field.into(),
                index: dof,
                count,
            })? = Some(motion);
        Ok(())
    }
}
