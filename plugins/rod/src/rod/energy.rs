//! The bound rod: its element set, the lagged reference frames it carries
//! from step to step (time-parallel transport, MAT-DiSMech §3.2), and what
//! output reads of it (energies, strains, material frames).

use crate::element::{ElEval, RodEl};
use crate::frames::{EdgeFrame, RodFrames, transport};
use crate::network::{Plan, RodNetwork};
use pliant_core::edge_frame::{reset_waypoint, unit_tangent};
use pliant_core::geometry::{CellKind, Cells, Field, Shape};
use pliant_core::parallel::deterministic_sum;
use pliant_core::vec3::cross;
use pliant_core::{
    CarriedTransition, CoreError, DofKind, Element, ElementSet, Elements, Energy, EvalState,
    Layout, Result,
};

/// The DOF kind of the rod twist angles.
pub const TWIST_KIND: &str = "rod_twist";

/// Stretching, bending and twisting energy of a rod, J.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RodEnergies {
    /// Σ stretching energies, J.
    pub stretch: f64,
    /// Σ bending energies, J.
    pub bend: f64,
    /// Σ twisting energies, J.
    pub twist: f64,
}

/// Strains of a rod at one state.
#[derive(Debug, Clone, PartialEq)]
pub struct RodStrains {
    /// Axial strain ε per edge (eq. 9), against the natural length (rest
    /// length times the actuated natural stretch).
    pub stretch: Vec<f64>,
    /// Discrete material curvatures `(κ⁽¹⁾, κ⁽²⁾)` per spring (eqs. 12–13),
    /// dimensionless; divide by the Voronoi length for 1/m.
    pub curvature: Vec<[f64; 2]>,
    /// Twist τ per spring (eq. 15), rad.
    pub twist: Vec<f64>,
}

/// Unit tangents of every edge from the node DOFs (the one formula used by
/// binding and transport, so that equal states give bitwise-equal tangents).
pub(crate) fn tangents(node_dofs: &[[[usize; 3]; 2]], q: &[f64]) -> Vec<[f64; 3]> {
    node_dofs
        .iter()
        .map(|[a, b]| unit_tangent(&a.map(|i| q[i]), &b.map(|i| q[i])))
        .collect()
}

/// A rod bound to a model (what [`Rod`](super::Rod) binds into).
#[derive(Debug)]
pub struct RodEnergy {
    pub(crate) name: String,
    /// Cross-section radius, m (for drawing).
    pub(crate) radius: f64,
    pub(crate) net: RodNetwork,
    pub(crate) twist: Vec<usize>,
    /// Per edge, the DOFs of its two nodes.
    pub(crate) node_dofs: Vec<[[usize; 3]; 2]>,
    pub(crate) plan: Vec<Plan>,
    /// Frames at binding (space-parallel transport on `q0`), for `reset`.
    pub(crate) init_frames: RodFrames,
    pub(crate) frames: RodFrames,
    pub(crate) set: Elements<RodEl>,
}

impl RodEnergy {
    /// The rod's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The topology.
    pub fn network(&self) -> &RodNetwork {
        &self.net
    }
    /// The θ DOF of every edge.
    pub fn twist_dofs(&self) -> &[usize] {
        &self.twist
    }
    /// The lagged frames.
    pub fn frames(&self) -> &RodFrames {
        &self.frames
    }
    /// Lagged reference twists `ψ₀` per spring (rad, unwrapped).
    pub fn reference_twists(&self) -> &[f64] {
        &self.frames.ref_twist
    }

    /// Stretching, bending and twisting energies at `s`, J.
    pub fn energies(&self, s: &EvalState) -> RodEnergies {
        let n = self.set.len();
        let part = |k: usize| {
            deterministic_sum(n, |i| {
                self.set.with_local(i, s, |e, l| e.value_parts(l.x, l.p)[k])
            })
        };
        RodEnergies {
            stretch: part(0),
            bend: part(1),
            twist: part(2),
        }
    }

    /// The energy (J) evaluated from the literal definitions (eqs. 9–16,
    /// the function the dual-number fallback differentiates) instead of the
    /// closed forms the solver uses; equal up to round-off.
    pub fn literal_value(&self, s: &EvalState) -> f64 {
        (0..self.set.len())
            .map(|i| {
                self.set.with_local(i, s, |e, l| {
                    let mut r = [0.0; 8];
                    e.reduce(l.x, &mut r);
                    e.energy(&r, &r, l.p, &l.ctx)
                })
            })
            .sum()
    }

    /// Strains at `(q, p)` with the current lagged frames.
    pub fn strains(&self, q: &[f64], p: &[f64]) -> RodStrains {
        let b = self;
        let s = EvalState::at_rest(q, p, 1.0, 0.0);
        let mut out = RodStrains {
            stretch: vec![0.0; b.net.edges().len()],
            curvature: vec![[0.0; 2]; b.net.springs().len()],
            twist: vec![0.0; b.net.springs().len()],
        };
        for (i, plan) in b.plan.iter().enumerate() {
            let ev: ElEval = b.set.with_local(i, &s, |e, l| e.eval::<false>(l.x, l.p));
            match *plan {
                Plan::Spring { spring, .. } => {
                    let sp = &b.net.springs()[spring];
                    for k in 0..2 {
                        if let Some(e) = ev.strain[k] {
                            out.stretch[sp.edges[k]] = e;
                        }
                    }
                    if let Some((kap, tau)) = ev.bend {
                        out.curvature[spring] = kap;
                        out.twist[spring] = tau;
                    }
                }
                Plan::Edge { edge } => out.stretch[edge] = ev.strain[0].unwrap_or(0.0),
            }
        }
        out
    }

    /// Material frames `[m₁, m₂, t]` of every edge at `q`, in the edge's own
    /// orientation, from the current lagged frames.
    pub fn material_frames(&self, q: &[f64]) -> Vec<[[f64; 3]; 3]> {
        let b = self;
        tangents(&b.node_dofs, q)
            .iter()
            .zip(&b.frames.edges)
            .zip(&b.twist)
            .map(|((t, f), &dof)| {
                let d1 = transport(&f.tangent, t, &f.director);
                let d2 = cross(t, &d1);
                let (s, c) = q[dof].sin_cos();
                [
                    std::array::from_fn(|k| c * d1[k] + s * d2[k]),
                    std::array::from_fn(|k| c * d2[k] - s * d1[k]),
                    *t,
                ]
            })
            .collect()
    }

    /// Per edge, the DOFs of its two nodes.
    pub fn edge_node_dofs(&self) -> &[[[usize; 3]; 2]] {
        &self.node_dofs
    }

    /// Copies the lagged frames into the elements.
    pub(crate) fn push_frames(&mut self) {
        let items = self.set.items_mut();
        for (i, p) in self.plan.iter().enumerate() {
            if let Plan::Spring { spring, .. } = *p {
                let s = &self.net.springs()[spring];
                let fi: EdgeFrame = self.frames.edges[s.edges[0]].oriented(s.signs[0]);
                let fj: EdgeFrame = self.frames.edges[s.edges[1]].oriented(s.signs[1]);
                items[i].set_frames(&fi, &fj, self.frames.ref_twist[spring]);
            }
        }
    }
}

/// Every `"rod_twist"` DOF of a layout, in DOF order (for one rod: its
/// edges in order; several rods: consecutive blocks in energy order).
pub fn twist_dofs(layout: &Layout) -> Vec<usize> {
    layout
        .dof_kinds()
        .iter()
        .enumerate()
        .filter(|(_, k)| matches!(k, DofKind::Extra { kind } if kind == TWIST_KIND))
        .map(|(i, _)| i)
        .collect()
}

impl Energy for RodEnergy {
    fn elements(&self) -> &dyn ElementSet {
        &self.set
    }

    /// The centreline edges with the cross-section radius (m), the
    /// stretching strain ε (eq. 9) and the twist angle θ (rad) per edge.
    fn geometry(&self, s: &EvalState) -> Vec<Shape> {
        let edges = self.net.edges();
        let nodes: Vec<usize> = edges.iter().flatten().copied().collect();
        let theta = self.twist.iter().map(|&d| s.q[d]).collect();
        let strain = self.strains(s.q, s.p).stretch;
        let c = Cells::over_nodes(&format!("rod {}", self.name), CellKind::Line, &nodes)
            .with(Field::cells("radius", "m", vec![self.radius; edges.len()]))
            .with(Field::cells("strain", "1", strain))
            .with(Field::cells("theta", "rad", theta));
        vec![Shape::Cells(c)]
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    /// Frames are committed here rather than in `end_step`: the transport
    /// from the committed tangents to those of `q_prev` is the identity when
    /// the previous step ended at `q_prev`, a second call changes nothing,
    /// and replaying steps backwards (adjoint recomputation) undoes each
    /// transport exactly, since `P(b → a) P(a → b) = I`.
    fn begin_step(&mut self, q_prev: &[f64], _p: &[f64], _dt: f64, _t: f64) {
        let t = tangents(&self.node_dofs, q_prev);
        self.frames.transport_to(&self.net, &t);
        self.push_frames();
    }

    /// The lagged frames: per edge its tangent and director (6 values),
    /// then per spring its reference twist.
    fn carried_state(&self) -> Vec<f64> {
        let b = self;
        let mut out = Vec::with_capacity(6 * b.frames.edges.len() + b.frames.ref_twist.len());
        for f in &b.frames.edges {
            out.extend_from_slice(&f.tangent);
            out.extend_from_slice(&f.director);
        }
        out.extend_from_slice(&b.frames.ref_twist);
        out
    }

    /// Exact rollout derivatives through the frames (see `carried.rs`).
    fn carried_transition(&self, q_prev: &[f64], _p: &[f64]) -> Option<CarriedTransition> {
        Some(self.transition(q_prev))
    }

    fn carried_block(&self, s: &EvalState) -> Vec<(usize, usize, f64)> {
        self.frame_block(s)
    }

    fn restore_carried_state(&mut self, snapshot: &[f64]) -> Result<()> {
        let b = self;
        let (ne, ns) = (b.frames.edges.len(), b.frames.ref_twist.len());
        if snapshot.len() != 6 * ne + ns {
            return Err(CoreError::Length {
                what: "rod frame snapshot",
                found: snapshot.len(),
                expected: 6 * ne + ns,
            });
        }
        if let Some(i) = snapshot.iter().position(|v| !v.is_finite()) {
            return Err(CoreError::NonFinite {
                what: format!("rod `{}` frame snapshot", b.name),
                index: i,
                value: snapshot[i],
            });
        }
        for (f, c) in b.frames.edges.iter_mut().zip(snapshot.chunks_exact(6)) {
            f.tangent.copy_from_slice(&c[..3]);
            f.director.copy_from_slice(&c[3..]);
        }
        b.frames.ref_twist.copy_from_slice(&snapshot[6 * ne..]);
        b.push_frames();
        Ok(())
    }

    /// Frames of a new rollout from `q`: the binding-time frames transported
    /// to the tangents of `q` in one step (the binding-time frames
    /// themselves when `q` has the initial shape).
    /// Frames for `q` by transporting the binding-time frames to its
    /// tangents (beyond 120° in two halves, through the bisecting tangent, so
    /// an edge that points opposite to its binding direction stays well
    /// defined).
    /// This is a function of `q` alone, so every run started from `q`
    /// agrees; it is not the frame a run would have carried to `q` along
    /// its path (that differs by a holonomy angle out of the plane): to
    /// continue a run, restore its `carried_state` after `set_state`.
    fn reset(&mut self, q: &[f64]) {
        {
            let b = self;
            b.frames = b.init_frames.clone();
            let t = tangents(&b.node_dofs, q);
            let mid: Vec<[f64; 3]> = b
                .frames
                .edges
                .iter()
                .zip(&t)
                .map(|(f, t)| reset_waypoint(&f.tangent, t))
                .collect();
            b.frames.transport_to(&b.net, &mid);
            b.frames.transport_to(&b.net, &t);
            b.push_frames();
        }
    }

    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let e = self.energies(s);
        vec![
            (format!("{}.stretch_energy", self.name), e.stretch),
            (format!("{}.bend_energy", self.name), e.bend),
            (format!("{}.twist_energy", self.name), e.twist),
        ]
    }
}
