//! Coarser discretizations of a simulator's model: the levels of geometric
//! multigrid directions ([`crate::Directions::Geometric`]).
//!
//! Each level is a model of its own — the same energies on a coarser mesh
//! of the same body — with the prolongation that carries a displacement of
//! its nodes to the finer nodes (`P`, one weight list per finer node, each
//! coordinate alike) and the map that places its nodes from the finer
//! nodes' positions (`S`, one weight list per coarse node). Nested meshes
//! (a mesh and its 1 : 4 refinements, whose coarse nodes are finer nodes)
//! inject (`S` picks the coincident finer node); meshes that are not
//! nested interpolate both ways (each node at its rest place in a triangle
//! of the other mesh, barycentric weights). At a Newton iterate a level's
//! nodes are its rest positions displaced by `S` applied to the finer
//! level's displacement (so a level is at rest when the finer one is, also
//! where a curved surface's coarse nodes lie off the finer mesh), and each
//! level's
//! operator is its own step Hessian
//! `c_e a_y² ∇²E_c + c_m M_c` there (with its element Hessians projected
//! onto the PSD cone when a level's own is not positive definite: see
//! [`crate::Directions::Geometric`]): the energies rediscretized, not
//! Galerkin's `Pᵀ A P`, with which on the bending-dominated manta ray a
//! V-cycle's PCG iterations grew from 8 to 29 over 2 to 5 levels
//! (Gauss–Seidel smoothing; rediscretized: 7 to 13; `cargo bench --bench
//! shell_multigrid`, docs/benchmarks.md).

use crate::amg::GeometricLevel;
use crate::amg::csr::Csr;
use crate::assembly::Assembler;
use crate::error::{CoreError, Result};
use crate::integrator::StepForm;
use crate::model::Model;
use crate::newton::CoarseOperators;
use crate::state::EvalState;

/// One coarser level given to [`crate::Simulator::set_coarse_models`].
#[derive(Debug)]
pub struct CoarseModel {
    /// The same energies on the coarser mesh (positions in m). Every DOF
    /// must be a free node coordinate, as in the finer model.
    pub model: Model,
    /// Per node of this model, its position as weights on the next finer
    /// model's nodes `(finer node, weight)` (dimensionless; each list
    /// should sum to 1): `[(f, 1.0)]` for a node that coincides with finer
    /// node `f` (see [`CoarseModel::nested`]), barycentric weights of the
    /// finer triangle it lies in otherwise. They carry displacements: the
    /// node sits at its own rest position plus the weighted finer
    /// displacements.
    pub positions: Vec<Vec<(usize, f64)>>,
    /// Per node of the next finer model, its weights on this model's nodes
    /// (dimensionless; each list should sum to 1).
    pub prolongation: Vec<Vec<(usize, f64)>>,
}

impl CoarseModel {
    /// A level whose nodes are finer nodes: node `i` of `model` coincides
    /// with node `injection[i]` of the next finer model.
    pub fn nested(
        model: Model,
        injection: &[usize],
        prolongation: Vec<Vec<(usize, f64)>>,
    ) -> CoarseModel {
        CoarseModel {
            model,
            positions: injection.iter().map(|&f| vec![(f, 1.0)]).collect(),
            prolongation,
        }
    }
}

/// A coarser level in use: its model, assembler, placement and
/// prolongation by unknowns and the buffers its states are placed into.
pub(crate) struct CoarseLevel {
    model: Model,
    asm: Assembler,
    /// `S`, by unknowns: this level's positions from the finer level's.
    s: Csr,
    /// `q0 − S q0_finer`: where `S` misses this level's rest positions (0
    /// for nested meshes; a curved surface's chords otherwise).
    offset: Vec<f64>,
    p: Csr,
    /// `Pᵀ`.
    r: Csr,
    q: Vec<f64>,
    q_prev: Vec<f64>,
    diag: Vec<f64>,
}

fn inconsistent(field: String, problem: &'static str) -> CoreError {
    CoreError::Inconsistent { field, problem }
}

/// Checks that every DOF of `model` is a free coordinate of a node, in node
/// order (what the levels' placement and prolongation assume).
fn nodes_only(model: &Model, asm: &Assembler, what: &str) -> Result<()> {
    let l = model.layout();
    let dim = l.dim();
    if l.n_dofs() != dim * l.n_nodes() || asm.n_free() != l.n_dofs() {
        return Err(inconsistent(
            what.to_string(),
            "geometric multigrid needs every DOF to be a free node coordinate (no constrained DOFs, no extra DOFs)",
        ));
    }
    if asm.n_aux() != 0 {
        return Err(inconsistent(
            what.to_string(),
            "geometric multigrid does not take split Hessians",
        ));
    }
    Ok(())
}

impl std::fmt::Debug for CoarseLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoarseLevel")
            .field("nodes", &self.model.layout().n_nodes())
            .field("prolongation_entries", &self.p.nnz())
            .finish()
    }
}

impl CoarseLevel {
    /// Checks `c` against the next finer model (rest positions `finer_q0`,
    /// nodes of `dim` coordinates) and prepares it; `k` is its level (1 =
    /// the first below the simulator's model).
    pub(crate) fn new(
        c: CoarseModel,
        finer_q0: &[f64],
        dim: usize,
        k: usize,
    ) -> Result<CoarseLevel> {
        let finer_nodes = finer_q0.len() / dim;
        let what = |f: &str| format!("coarse level {k}: {f}");
        let asm = Assembler::new(&c.model)?;
        nodes_only(&c.model, &asm, &what("model"))?;
        if c.model.layout().dim() != dim {
            return Err(CoreError::Dimension {
                what: what("model"),
                expected: dim,
                found: c.model.layout().dim(),
            });
        }
        let nc = c.model.layout().n_nodes();
        if c.positions.len() != nc {
            return Err(CoreError::Count {
                field: what("positions"),
                found: c.positions.len(),
                expected: nc,
            });
        }
        if c.prolongation.len() != finer_nodes {
            return Err(CoreError::Count {
                field: what("prolongation"),
                found: c.prolongation.len(),
                expected: finer_nodes,
            });
        }
        let s = by_unknowns(&c.positions, finer_nodes, dim, &what("positions"), "node")?;
        // Finite weights on existing nodes (checked above): their sum.
        for (i, row) in c.positions.iter().enumerate() {
            let sum: f64 = row.iter().map(|e| e.1).sum();
            if (sum - 1.0).abs() > 1e-9 {
                return Err(CoreError::Inconsistent {
                    field: what(&format!("positions of node {i}")),
                    problem: "a node's position weights must sum to 1 (an empty list places the node nowhere)",
                });
            }
        }
        let p = by_unknowns(
            &c.prolongation,
            nc,
            dim,
            &what("prolongation"),
            "finer node",
        )?;
        let n = c.model.n_dofs();
        let mut offset = vec![0.0; n];
        s.mul_vec(finer_q0, &mut offset);
        for (o, q0) in offset.iter_mut().zip(c.model.q0()) {
            *o = q0 - *o;
        }
        Ok(CoarseLevel {
            q: c.model.q0().to_vec(),
            q_prev: c.model.q0().to_vec(),
            diag: vec![0.0; n],
            model: c.model,
            asm,
            s,
            offset,
            r: p.transpose(),
            p,
        })
    }

    /// This level's model.
    pub(crate) fn model(&self) -> &Model {
        &self.model
    }

    /// This level's states placed from the finer level's: its rest
    /// positions displaced as `S` interpolates the finer level's
    /// displacement, `q0 + S (q_finer − q0_finer) = S q_finer + offset`.
    fn place(&mut self, finer_q: &[f64], finer_prev: &[f64]) {
        self.s.mul_vec(finer_q, &mut self.q);
        self.s.mul_vec(finer_prev, &mut self.q_prev);
        for ((q, p), o) in self.q.iter_mut().zip(&mut self.q_prev).zip(&self.offset) {
            *q += o;
            *p += o;
        }
    }
}

/// `rows` (per node, weights on `cols` nodes) as a matrix by unknowns, each
/// of the `dim` coordinates alike; `what` and `row_name` name them in
/// errors.
fn by_unknowns(
    rows: &[Vec<(usize, f64)>],
    cols: usize,
    dim: usize,
    what: &str,
    row_name: &str,
) -> Result<Csr> {
    let mut ptr = vec![0];
    let (mut idx, mut val) = (Vec::new(), Vec::new());
    for (i, row) in rows.iter().enumerate() {
        let mut row = row.clone();
        row.sort_by_key(|e| e.0);
        if let Some(&(bad, _)) = row.iter().find(|e| e.0 >= cols) {
            return Err(CoreError::NodeOutOfRange {
                field: format!("{what} of {row_name} {i}"),
                index: bad,
                count: cols,
            });
        }
        if let Some(&(_, w)) = row.iter().find(|e| !e.1.is_finite()) {
            return Err(CoreError::NonFinite {
                what: format!("{what}: a weight of {row_name} {i}"),
                index: i,
                value: w,
            });
        }
        for d in 0..dim {
            for &(c, w) in &row {
                idx.push((dim * c + d) as u32);
                val.push(w);
            }
            ptr.push(idx.len());
        }
    }
    Ok(Csr {
        n_cols: dim * cols,
        ptr,
        idx,
        val,
    })
}

/// The levels with what a step's operators need besides the iterate.
pub(crate) struct CoarseAt<'a> {
    pub(crate) levels: &'a mut [CoarseLevel],
    pub(crate) form: StepForm,
    pub(crate) x_prev: &'a [f64],
    pub(crate) t_eval: f64,
    pub(crate) dim: usize,
}

impl CoarseOperators for CoarseAt<'_> {
    fn operators(&mut self, x: &[f64], project: bool) -> Result<Vec<GeometricLevel<'_>>> {
        let (a, b) = (self.form.a_y, self.form.b_y);
        let y: Vec<f64> = x
            .iter()
            .zip(self.x_prev)
            .map(|(x, p)| a * x + b * p)
            .collect();
        operators(
            self.levels,
            &self.form,
            &y,
            self.x_prev,
            self.t_eval,
            project,
        )
    }
    fn node_size(&self) -> usize {
        self.dim
    }
}

/// Checks that the simulator's own model suits geometric multigrid.
pub(crate) fn check_finest(model: &Model, asm: &Assembler) -> Result<()> {
    nodes_only(model, asm, "the simulator's model")
}

/// The levels' operators for a step of form `form` from `x_prev`, at the
/// finest iterate `y` (the evaluation point, `a_y x + b_y x_prev`), time
/// `t_eval`: each level placed from the one above and its step Hessian
/// assembled there (its parameters at `t_eval` by its own channels), its
/// element Hessians projected onto the PSD cone when `project`.
pub(crate) fn operators<'a>(
    levels: &'a mut [CoarseLevel],
    form: &StepForm,
    y: &[f64],
    x_prev: &[f64],
    t_eval: f64,
    project: bool,
) -> Result<Vec<GeometricLevel<'a>>> {
    let mut matrices = Vec::with_capacity(levels.len());
    let (mut finer_q, mut finer_prev) = (y.to_vec(), x_prev.to_vec());
    for l in levels.iter_mut() {
        l.place(&finer_q, &finer_prev);
        let p = l.model.params_at(t_eval);
        for (d, m) in l.diag.iter_mut().zip(l.model.mass()) {
            *d = form.c_m * m;
        }
        let s = EvalState {
            q: &l.q,
            q_prev: &l.q_prev,
            p: &p,
            h: form.h_eval,
            dt: form.step,
            t: t_eval,
        };
        let scale = form.c_e * form.a_y * form.a_y;
        if !l.asm.is_current(&l.model) {
            l.asm = Assembler::new(&l.model)?;
        }
        let n = l.asm.n_free();
        let h = l.asm.hessian(&l.model, &s, scale, &l.diag, project)?;
        matrices.push(Csr::from_lower(h, n).0);
        finer_q.clone_from(&l.q);
        finer_prev.clone_from(&l.q_prev);
    }
    Ok(levels
        .iter()
        .zip(matrices)
        .map(|(l, a)| GeometricLevel {
            p: &l.p,
            r: &l.r,
            a,
        })
        .collect())
}
