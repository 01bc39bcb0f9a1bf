//! What differentiation needs at a converged step: the factorized
//! `∂g_k/∂x_k` and the blocks of the step residual with respect to the
//! previous state and the parameters.

use super::Simulator;
use crate::error::{CoreError, Result};
use crate::integrator::Integrator;
use crate::linsolve::Factor;
use crate::model::Model;
use crate::sparse::{SparseMat, SparsePlusLowRank, from_triplets, triplets_of};
use crate::state::EvalState;
use faer::sparse::Triplet;
use std::sync::Arc;

/// Factorized `∂g_k/∂x_k` over the free DOFs.
#[derive(Debug, Clone)]
enum DiffFactor {
    Cholesky(Factor),
    /// Diagonal (explicit integrator: the lumped mass).
    Diagonal(Vec<f64>),
}

/// What differentiation needs at a converged step `k`: the factorized
/// `∂g_k/∂x_k` and the blocks of `g_k(x_k; x_{k−1}, v_{k−1}, p_k)` with respect
/// to the previous state and the parameters, plus the velocity update
/// `v_k = vx·x_k + vxp·x_{k−1} + vv·v_{k−1}`. Rows of constrained DOFs are
/// meaningless (their sensitivity is zero: prescribed motions do not depend on
/// parameters); [`StepDerivatives::solve`] returns zero there.
#[derive(Debug, Clone)]
pub struct StepDerivatives {
    /// Integrator that produced the step.
    pub integrator: Integrator,
    /// Step size, s.
    pub h: f64,
    /// `∂g_k/∂x_{k−1}`, `n × n`: sparse, plus one rank-one term per split
    /// energy term ([`crate::SplitHessian`], e.g. an ideal-gas cavity)
    /// where the integrator puts the Hessian into this block (implicit
    /// midpoint, symplectic Euler), applied as products so a cavity of any
    /// size costs `O(nodes)` here.
    pub dg_dx_prev: SparsePlusLowRank,
    /// `∂g_k/∂v_{k−1}`, `n × n`.
    pub dg_dv_prev: SparseMat,
    /// `∂g_k/∂p_k`, `n × n_params`.
    pub dg_dp: SparseMat,
    /// `∂g_k/∂c_k`, `n × m`: the residual's dependence on what the energies
    /// carry (`c`, the concatenation of every energy's carried state that
    /// the energy value depends on, in model order; `m = 0` for most models).
    pub dg_dc: SparseMat,
    /// `∂c_k/∂x_{k−1}`, `m × n` (the carried-state update at the step's start).
    pub dc_dx_prev: SparseMat,
    /// `∂c_k/∂c_{k−1}`, `m × m`.
    pub dc_dc_prev: SparseMat,
    /// Velocity update coefficients.
    pub vx: f64,
    /// See `vx`.
    pub vxp: f64,
    /// See `vx`.
    pub vv: f64,
    free_dofs: Arc<Vec<usize>>,
    n: usize,
    factor: DiffFactor,
}

impl StepDerivatives {
    /// Solves `(∂g_k/∂x_k) y = b` on the free DOFs (`b` full length; its
    /// constrained entries are ignored; `y` is zero there). The matrix is
    /// symmetric, so this is also the transposed solve the adjoint needs.
    pub fn solve(&self, b: &[f64]) -> Vec<f64> {
        let bf: Vec<f64> = self.free_dofs.iter().map(|&i| b[i]).collect();
        let yf = match &self.factor {
            DiffFactor::Cholesky(f) => f.solve(&bf),
            DiffFactor::Diagonal(m) => bf.iter().zip(m).map(|(b, m)| b / m).collect(),
        };
        let mut y = vec![0.0; self.n];
        for (k, &i) in self.free_dofs.iter().enumerate() {
            y[i] = yf[k];
        }
        y
    }
    /// [`StepDerivatives::solve`] for `m` right-hand sides at once (`b`
    /// column-major `n × m`, full length columns): one blocked triangular
    /// solve instead of `m`, as the forward-sensitivity sweep needs.
    pub fn solve_many(&self, b: &[f64], m: usize) -> Vec<f64> {
        let (n, nf) = (self.n, self.free_dofs.len());
        let mut bf = vec![0.0; nf * m];
        for j in 0..m {
            for (k, &i) in self.free_dofs.iter().enumerate() {
                bf[j * nf + k] = b[j * n + i];
            }
        }
        match &self.factor {
            DiffFactor::Cholesky(f) => {
                let x = f.solve_mat(faer::MatRef::from_column_major_slice(&bf, nf, m));
                for j in 0..m {
                    for k in 0..nf {
                        bf[j * nf + k] = x[(k, j)];
                    }
                }
            }
            DiffFactor::Diagonal(d) => {
                for j in 0..m {
                    for k in 0..nf {
                        bf[j * nf + k] /= d[k];
                    }
                }
            }
        }
        let mut y = vec![0.0; n * m];
        for j in 0..m {
            for (k, &i) in self.free_dofs.iter().enumerate() {
                y[j * n + i] = bf[j * nf + k];
            }
        }
        y
    }
    /// Free DOFs in solve order.
    pub fn free_dofs(&self) -> &[usize] {
        &self.free_dofs
    }
    /// The cable paper's three-term form (eq. 10) for BDF1-type steps, where
    /// `v_{k−1} = (x_{k−1} − x_{k−2})/h`: returns `(∂g_k/∂x_{k−1}, ∂g_k/∂x_{k−2})`.
    pub fn three_term(&self) -> Result<(SparseMat, SparseMat)> {
        if !matches!(
            self.integrator,
            Integrator::Bdf1 | Integrator::ImplicitEuler
        ) {
            return Err(CoreError::Unsupported(
                "the three-term form (eq. 10) needs a BDF1-type step (bdf1 or implicit_euler)",
            ));
        }
        // A BDF1-type step evaluates the Hessian at x_k only: no rank-one
        // terms reach ∂g/∂x_{k−1}.
        if !self.dg_dx_prev.rank_one.is_empty() {
            return Err(CoreError::Inconsistent {
                field: format!(
                    "dg_dx_prev of a {} step: {} rank-one terms",
                    self.integrator.name(),
                    self.dg_dx_prev.rank_one.len()
                ),
                problem: "the three-term form has no place for rank-one terms",
            });
        }
        let mut t1 = triplets_of(&self.dg_dx_prev.sparse, 1.0);
        t1.extend(triplets_of(&self.dg_dv_prev, 1.0 / self.h));
        let t2 = triplets_of(&self.dg_dv_prev, -1.0 / self.h);
        Ok((
            from_triplets(self.n, self.n, &t1)?,
            from_triplets(self.n, self.n, &t2)?,
        ))
    }
}

impl StepDerivatives {
    /// Length `m` of the carried state the blocks follow (0 for most models).
    pub fn carried_len(&self) -> usize {
        self.dc_dc_prev.nrows()
    }
}

/// The carried-state update of one step, for every energy that reports one
/// ([`crate::Energy::carried_transition`]), in the concatenated index space.
#[derive(Debug, Default)]
pub(super) struct CarriedUpdate {
    /// Per energy, the offset and length of its carried state (`None`: it
    /// reports none).
    spans: Vec<Option<(usize, usize)>>,
    len: usize,
    dq: Vec<Triplet<usize, usize, f64>>,
    dc: Vec<Triplet<usize, usize, f64>>,
}

impl Simulator {
    /// Every energy's carried-state transition from `q_prev` (before `begin_step`).
    pub(super) fn carried_transitions(&self, q_prev: &[f64], p: &[f64]) -> Result<CarriedUpdate> {
        let n = q_prev.len();
        let mut u = CarriedUpdate::default();
        for (k, e) in self.model.energies.iter().enumerate() {
            let Some(t) = e.carried_transition(q_prev, p) else {
                u.spans.push(None);
                continue;
            };
            let off = u.len;
            let bad = |what: &str, r: usize, c: usize| CoreError::Inconsistent {
                field: format!(
                    "{} carried transition: {what} entry ({r}, {c}) with {} carried values and {n} DOFs",
                    self.model.describe_energy(k),
                    t.len
                ),
                problem: "an entry lies outside the carried state or the DOFs",
            };
            for &(r, c, v) in &t.dq {
                if r >= t.len || c >= n {
                    return Err(bad("∂c/∂q", r, c));
                }
                u.dq.push(Triplet::new(
                    off + r,
                    c,
                    finite_entry(v, &self.model, k, "∂c/∂q", r, c)?,
                ));
            }
            for &(r, c, v) in &t.dc {
                if r >= t.len || c >= t.len {
                    return Err(bad("∂c/∂c", r, c));
                }
                u.dc.push(Triplet::new(
                    off + r,
                    off + c,
                    finite_entry(v, &self.model, k, "∂c/∂c", r, c)?,
                ));
            }
            u.spans.push(Some((off, t.len)));
            u.len += t.len;
        }
        Ok(u)
    }

    /// `scale · ∂²E/∂q∂c` of every energy with carried state, at `s`.
    fn carried_blocks(
        &self,
        carried: &CarriedUpdate,
        s: &EvalState,
        scale: f64,
        out: &mut Vec<Triplet<usize, usize, f64>>,
    ) -> Result<()> {
        let n = s.q.len();
        for (k, (e, span)) in self.model.energies.iter().zip(&carried.spans).enumerate() {
            let &Some((off, len)) = span else { continue };
            for (r, c, v) in e.carried_block(s) {
                if r >= n || c >= len {
                    return Err(CoreError::Inconsistent {
                        field: format!(
                            "{} carried block: entry ({r}, {c}) with {n} DOFs and {len} carried values",
                            self.model.describe_energy(k)
                        ),
                        problem: "an entry lies outside the DOFs or the carried state",
                    });
                }
                out.push(Triplet::new(
                    r,
                    off + c,
                    scale * finite_entry(v, &self.model, k, "∂²E/∂q∂c", r, c)?,
                ));
            }
        }
        Ok(())
    }

    /// Differentiation blocks at the converged `x = x_k` (see [`StepDerivatives`]).
    pub(super) fn derivatives(
        &mut self,
        x: &[f64],
        q0: &[f64],
        v0: &[f64],
        t0: f64,
        p: &[f64],
        carried: &CarriedUpdate,
    ) -> Result<StepDerivatives> {
        let h = self.dt;
        let n = x.len();
        let np = p.len();
        let form = self.integrator.form(h);
        let mut txp = Vec::new();
        let mut tvp = Vec::new();
        let mut tp = Vec::new();
        let mut tc = Vec::new();
        let m = carried.len;
        let factor;
        let mut rank_one = Vec::new();
        if self.integrator == Integrator::SymplecticEuler {
            // g = M(x − x_{k−1} − h v_{k−1}) + h² ∇E(x_{k−1}; x_{k−1} − h v_{k−1}).
            let x_prev_eval: Vec<f64> = q0.iter().zip(v0).map(|(x, v)| x - h * v).collect();
            let s = EvalState {
                q: q0,
                q_prev: &x_prev_eval,
                p,
                h,
                dt: h,
                t: t0,
            };
            self.asm
                .hessian_triplets(&self.model, &s, h * h, &mut txp, &mut rank_one)?;
            self.asm
                .history_triplets(&self.model, &s, h * h, &mut txp)?;
            self.asm
                .history_triplets(&self.model, &s, -h * h * h, &mut tvp)?;
            self.asm.param_triplets(&self.model, &s, h * h, &mut tp)?;
            self.carried_blocks(carried, &s, h * h, &mut tc)?;
            factor = DiffFactor::Diagonal(self.mass_free.clone());
        } else {
            let y: Vec<f64> = x
                .iter()
                .zip(q0)
                .map(|(a, b)| form.a_y * a + form.b_y * b)
                .collect();
            let s = EvalState {
                q: &y,
                q_prev: q0,
                p,
                h: form.h_eval,
                dt: h,
                t: t0 + form.h_eval,
            };
            let diag: Vec<f64> = self.mass_free.iter().map(|m| form.c_m * m).collect();
            let hl = self.asm.hessian(
                &self.model,
                &s,
                form.c_e * form.a_y * form.a_y,
                &diag,
                false,
            )?;
            let f = self.solver.factor(hl).map_err(|e| CoreError::LinearSolve {
                what: "exact ∂g/∂x at a converged step (sensitivities need a strict minimum)",
                detail: format!("step ending at t = {:.6} s: {e}", t0 + h),
            })?;
            factor = DiffFactor::Cholesky(f);
            let ce = form.c_e * form.a_y;
            if form.b_y != 0.0 {
                // Blocks already filled at this state by the factorized Hessian above.
                self.asm
                    .last_hessian_split_triplets(ce * form.b_y, &mut txp, &mut rank_one);
            }
            self.asm.history_triplets(&self.model, &s, ce, &mut txp)?;
            self.asm.param_triplets(&self.model, &s, ce, &mut tp)?;
            self.carried_blocks(carried, &s, ce, &mut tc)?;
        }
        if form.c_m != 0.0 {
            for (k, &i) in self.free_dofs.iter().enumerate() {
                txp.push(Triplet::new(i, i, -form.c_m * self.mass_free[k]));
                tvp.push(Triplet::new(i, i, -form.c_m * h * self.mass_free[k]));
            }
        }
        Ok(StepDerivatives {
            integrator: self.integrator,
            h,
            dg_dx_prev: SparsePlusLowRank {
                sparse: from_triplets(n, n, &txp)?,
                rank_one,
            },
            dg_dv_prev: from_triplets(n, n, &tvp)?,
            dg_dp: from_triplets(n, np, &tp)?,
            dg_dc: from_triplets(n, m, &tc)?,
            dc_dx_prev: from_triplets(m, n, &carried.dq)?,
            dc_dc_prev: from_triplets(m, m, &carried.dc)?,
            vx: form.vx,
            vxp: form.vxp,
            vv: form.vv,
            free_dofs: self.free_dofs.clone(),
            n,
            factor,
        })
    }
}

/// `v` if finite; else an error naming entry `(r, c)` of block `what` of
/// energy `k` of `model` (`index` is the row).
fn finite_entry(v: f64, model: &Model, k: usize, what: &str, r: usize, c: usize) -> Result<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(CoreError::NonFinite {
            what: format!("entry ({r}, {c}) of {what} of {}", model.describe_energy(k)),
            index: r,
            value: v,
        })
    }
}
