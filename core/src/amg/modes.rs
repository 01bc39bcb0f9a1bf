//! The near-null space of the multigrid hierarchy: rigid motions of the
//! free nodes.

use super::aggregate::Nodes;
use crate::layout::{DofKind, Layout};

/// The free unknowns grouped by mesh node, for models whose free unknowns
/// are all node coordinates (FEM bodies, spring lattices, membranes).
#[derive(Debug, Clone)]
pub(crate) struct FreeNodes {
    dim: usize,
    /// Free unknowns of each node (indices into the free list).
    ptr: Vec<usize>,
    /// Per free unknown: its axis and the first DOF of its node in `q`.
    axis: Vec<(usize, usize)>,
}

impl FreeNodes {
    /// The grouping of the free DOFs `free` (sorted indices into `q`), or
    /// `None` when one of them is not a node coordinate (a rod's twist, a
    /// shell's mid-edge unknown): the rigid motions do not describe those.
    pub(crate) fn new(layout: &Layout, free: &[usize]) -> Option<FreeNodes> {
        let kinds = layout.dof_kinds();
        let base = layout.node_base();
        let mut ptr = vec![0];
        let mut axis = Vec::with_capacity(free.len());
        let mut current = usize::MAX;
        for (k, &i) in free.iter().enumerate() {
            let DofKind::Position { node, axis: a } = kinds.get(i)? else {
                return None;
            };
            if *node != current && k > 0 {
                ptr.push(k);
            }
            current = *node;
            axis.push((*a, *base.get(*node)?));
        }
        ptr.push(free.len());
        if free.is_empty() {
            ptr.truncate(1);
        }
        Some(FreeNodes {
            dim: layout.dim(),
            ptr,
            axis,
        })
    }

    /// Columns of the near-null space: translations and rotations.
    pub(crate) fn modes(&self) -> usize {
        if self.dim == 3 { 6 } else { 3 }
    }

    /// The node grouping and the rigid motions at the state `q` (row-major,
    /// [`FreeNodes::modes`] columns, one row per free unknown): unit
    /// translations, then rotations about the axes through the free nodes'
    /// centroid, in metres per radian.
    pub(crate) fn near_null_space(&self, q: &[f64]) -> (Nodes, Vec<f64>) {
        let (dim, k) = (self.dim, self.modes());
        let mut centre = [0.0; 3];
        for &(_, base) in &self.axis {
            for (a, c) in centre.iter_mut().enumerate().take(dim) {
                *c += q[base + a];
            }
        }
        let count = self.axis.len().max(1) as f64;
        centre.iter_mut().for_each(|c| *c /= count);
        let mut b = vec![0.0; self.axis.len() * k];
        for (u, &(a, base)) in self.axis.iter().enumerate() {
            let mut p = [0.0; 3];
            for (d, pd) in p.iter_mut().enumerate().take(dim) {
                *pd = q[base + d] - centre[d];
            }
            let row = &mut b[u * k..(u + 1) * k];
            row[a] = 1.0;
            if dim == 3 {
                // Component a of e_x × p, e_y × p, e_z × p.
                let rot = [[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]];
                for (r, e) in rot.iter().enumerate() {
                    row[3 + r] = e[a];
                }
            } else {
                row[2] = if a == 0 { -p[1] } else { p[0] };
            }
        }
        (
            Nodes {
                ptr: self.ptr.clone(),
            },
            b,
        )
    }
}
