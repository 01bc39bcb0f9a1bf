//! Stepping a model in time, and what differentiation needs at each step.

use crate::assembly::{Assembler, from_triplets};
use crate::energy::EvalState;
use crate::error::{CoreError, Result};
use crate::integrator::{Integrator, StepForm};
use crate::linsolve::{Factor, LinearSolver};
use crate::model::Model;
use crate::newton::{NewtonSettings, NewtonStats, Potential, minimize_with};
use faer::sparse::{SparseColMat, SparseColMatRef, Triplet};
use std::sync::Arc;

/// The incremental potential of one step (see [`crate::integrator`]).
struct StepPotential<'a> {
    model: &'a Model,
    asm: &'a mut Assembler,
    form: StepForm,
    x_tilde: &'a [f64],
    x_prev: &'a [f64],
    p: &'a [f64],
    t_eval: f64,
    mass_free: &'a [f64],
    y: Vec<f64>,
    g_full: Vec<f64>,
    diag: Vec<f64>,
}

impl StepPotential<'_> {
    fn eval_point(&mut self, x: &[f64]) {
        let (a, b) = (self.form.a_y, self.form.b_y);
        if b == 0.0 {
            self.y.copy_from_slice(x);
        } else {
            for ((y, xi), xp) in self.y.iter_mut().zip(x).zip(self.x_prev) {
                *y = a * xi + b * xp;
            }
        }
    }
    fn state(&self) -> EvalState<'_> {
        EvalState {
            q: &self.y,
            q_prev: self.x_prev,
            p: self.p,
            h: self.form.h_eval,
            dt: self.form.step,
            t: self.t_eval,
        }
    }
}

impl Potential for StepPotential<'_> {
    fn value(&mut self, x: &[f64]) -> f64 {
        self.eval_point(x);
        let e = self.asm.energy(self.model, &self.state());
        let mut kin = 0.0;
        if self.form.c_m != 0.0 {
            for (&i, &m) in self.asm.free_dofs().iter().zip(self.mass_free) {
                let d = x[i] - self.x_tilde[i];
                kin += m * d * d;
            }
        }
        0.5 * self.form.c_m * kin + self.form.c_e * e
    }
    fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
        self.eval_point(x);
        let mut gf = std::mem::take(&mut self.g_full);
        gf.fill(0.0);
        let s = EvalState {
            q: &self.y,
            q_prev: self.x_prev,
            p: self.p,
            h: self.form.h_eval,
            dt: self.form.step,
            t: self.t_eval,
        };
        self.asm
            .add_gradient(self.model, &s, self.form.c_e * self.form.a_y, &mut gf);
        for (k, &i) in self.asm.free_dofs().iter().enumerate() {
            g[k] = gf[i] + self.form.c_m * self.mass_free[k] * (x[i] - self.x_tilde[i]);
        }
        self.g_full = gf;
    }
    fn hessian(&mut self, x: &[f64], project: bool) -> Result<SparseColMatRef<'_, usize, f64>> {
        self.eval_point(x);
        for (d, m) in self.diag.iter_mut().zip(self.mass_free) {
            *d = self.form.c_m * m;
        }
        let s = EvalState {
            q: &self.y,
            q_prev: self.x_prev,
            p: self.p,
            h: self.form.h_eval,
            dt: self.form.step,
            t: self.t_eval,
        };
        let scale = self.form.c_e * self.form.a_y * self.form.a_y;
        self.asm.hessian(self.model, &s, scale, &self.diag, project)
    }
    fn project_last(&mut self) -> Result<SparseColMatRef<'_, usize, f64>> {
        let scale = self.form.c_e * self.form.a_y * self.form.a_y;
        Ok(self.asm.reproject(scale, &self.diag))
    }
    fn shifted(&mut self, shift: f64) -> Result<SparseColMatRef<'_, usize, f64>> {
        let d: Vec<f64> = self.diag.iter().map(|d| d + shift).collect();
        Ok(self.asm.with_diagonal(&d))
    }
    fn force_scale(&self) -> f64 {
        1.0 / self.form.c_e
    }
}

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
    /// `∂g_k/∂x_{k−1}`, `n × n`.
    pub dg_dx_prev: SparseColMat<usize, f64>,
    /// `∂g_k/∂v_{k−1}`, `n × n`.
    pub dg_dv_prev: SparseColMat<usize, f64>,
    /// `∂g_k/∂p_k`, `n × n_params`.
    pub dg_dp: SparseColMat<usize, f64>,
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
    pub fn three_term(&self) -> Result<(SparseColMat<usize, f64>, SparseColMat<usize, f64>)> {
        if !matches!(
            self.integrator,
            Integrator::Bdf1 | Integrator::ImplicitEuler
        ) {
            return Err(CoreError::Model(format!(
                "the three-term form needs a BDF1-type step, not {:?}",
                self.integrator
            )));
        }
        let mut t1 = triplets_of(&self.dg_dx_prev, 1.0);
        t1.extend(triplets_of(&self.dg_dv_prev, 1.0 / self.h));
        let t2 = triplets_of(&self.dg_dv_prev, -1.0 / self.h);
        Ok((
            from_triplets(self.n, self.n, &t1)?,
            from_triplets(self.n, self.n, &t2)?,
        ))
    }
}

/// `scale · A` as triplets.
pub fn triplets_of(a: &SparseColMat<usize, f64>, scale: f64) -> Vec<Triplet<usize, usize, f64>> {
    let mut t = Vec::with_capacity(a.val().len());
    let cp = a.symbolic().col_ptr();
    let ri = a.symbolic().row_idx();
    for j in 0..a.ncols() {
        let range = cp[j]..cp[j + 1];
        for (&r, &v) in ri[range.clone()].iter().zip(&a.val()[range]) {
            t.push(Triplet::new(r, j, scale * v));
        }
    }
    t
}

/// `y += A x` for a sparse `A`.
pub fn mul_add(a: &SparseColMat<usize, f64>, x: &[f64], y: &mut [f64]) {
    let cp = a.symbolic().col_ptr();
    let ri = a.symbolic().row_idx();
    let v = a.val();
    for j in 0..a.ncols() {
        let xj = x[j];
        if xj != 0.0 {
            for k in cp[j]..cp[j + 1] {
                y[ri[k]] += v[k] * xj;
            }
        }
    }
}

/// `y += Aᵀ x` for a sparse `A`.
pub fn tr_mul_add(a: &SparseColMat<usize, f64>, x: &[f64], y: &mut [f64]) {
    let cp = a.symbolic().col_ptr();
    let ri = a.symbolic().row_idx();
    let v = a.val();
    for (j, yj) in y.iter_mut().enumerate().take(a.ncols()) {
        let mut s = 0.0;
        for k in cp[j]..cp[j + 1] {
            s += v[k] * x[ri[k]];
        }
        *yj += s;
    }
}

/// The sparse matrix type of the derivative blocks.
pub type SparseMat = SparseColMat<usize, f64>;

/// Summary of one completed step.
#[derive(Debug, Clone, Copy, Default)]
pub struct StepReport {
    /// Index of the completed step (1-based).
    pub step: usize,
    /// Time at its end, s.
    pub time: f64,
    /// Newton statistics (summed over sub-steps when the step was halved).
    pub newton: NewtonStats,
    /// How many sub-steps the step was split into (1 = not halved).
    pub substeps: usize,
}

/// A model stepped in time by one integrator.
#[derive(Debug)]
pub struct Simulator {
    model: Model,
    integrator: Integrator,
    dt: f64,
    newton: NewtonSettings,
    asm: Assembler,
    solver: LinearSolver,
    /// The last Newton factorization, carried to the next step when
    /// [`NewtonSettings::reuse_below`] allows (dropped on `set_state` and
    /// when the sparsity pattern changes, so runs stay reproducible).
    newton_factor: Option<crate::linsolve::Factor>,
    mass_free: Vec<f64>,
    free_dofs: Arc<Vec<usize>>,
    /// Current positions (m, rad).
    q: Vec<f64>,
    /// Current velocities.
    v: Vec<f64>,
    t: f64,
    step: usize,
}

impl Simulator {
    /// Prepares `model` for stepping with `integrator` at step `dt` (s):
    /// builds the sparsity pattern and the symbolic factorization once.
    pub fn new(
        model: Model,
        integrator: Integrator,
        dt: f64,
        newton: NewtonSettings,
    ) -> Result<Self> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(CoreError::Model(format!(
                "time step must be positive and finite, got {dt} s"
            )));
        }
        let asm = Assembler::new(&model)?;
        let solver = LinearSolver::new(asm.symbolic())?;
        let free_dofs = Arc::new(asm.free_dofs().to_vec());
        let mass_free: Vec<f64> = free_dofs.iter().map(|&i| model.mass[i]).collect();
        if integrator == Integrator::SymplecticEuler
            && let Some(k) = mass_free.iter().position(|&m| m <= 0.0)
        {
            return Err(CoreError::Model(format!(
                "symplectic Euler needs a positive mass on every free DOF; DOF {} has {}",
                free_dofs[k], mass_free[k]
            )));
        }
        let mut q = model.q0.clone();
        model.apply_constraints(&mut q, 0.0);
        let v = model.v0.clone();
        Ok(Self {
            model,
            integrator,
            dt,
            newton,
            asm,
            solver,
            newton_factor: None,
            mass_free,
            free_dofs,
            q,
            v,
            t: 0.0,
            step: 0,
        })
    }
    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }
    /// Current positions.
    pub fn q(&self) -> &[f64] {
        &self.q
    }
    /// Current velocities.
    pub fn v(&self) -> &[f64] {
        &self.v
    }
    /// Current time, s.
    pub fn time(&self) -> f64 {
        self.t
    }
    /// Steps completed.
    pub fn steps_done(&self) -> usize {
        self.step
    }
    /// Step size, s.
    pub fn dt(&self) -> f64 {
        self.dt
    }
    /// Integrator.
    pub fn integrator(&self) -> Integrator {
        self.integrator
    }
    /// The assembler (sparsity pattern, free DOFs).
    pub fn assembler(&self) -> &Assembler {
        &self.asm
    }
    /// What each energy carries from step to step ([`Energy::carried_state`]),
    /// one snapshot per energy in model order.
    pub fn carried_state(&self) -> Vec<Vec<f64>> {
        self.model
            .energies
            .iter()
            .map(|e| e.carried_state())
            .collect()
    }
    /// Restores snapshots taken by [`Simulator::carried_state`].
    pub fn restore_carried_state(&mut self, snapshots: &[Vec<f64>]) -> Result<()> {
        if snapshots.len() != self.model.energies.len() {
            return Err(CoreError::Model(format!(
                "restore_carried_state: {} snapshots for {} energies",
                snapshots.len(),
                self.model.energies.len()
            )));
        }
        for (e, s) in self.model.energies.iter_mut().zip(snapshots) {
            e.restore_carried_state(s)?;
        }
        Ok(())
    }
    /// Resets the state (positions, velocities, time, step counter); energies
    /// re-derive what they carry from step to step for `q`
    /// ([`Energy::reset`]), so runs started from the same state agree.
    pub fn set_state(&mut self, q: &[f64], v: &[f64], t: f64, step: usize) -> Result<()> {
        let n = self.q.len();
        if q.len() != n || v.len() != n {
            return Err(CoreError::Model(format!(
                "set_state: {} positions and {} velocities for {n} DOFs",
                q.len(),
                v.len()
            )));
        }
        if let Some(i) = q.iter().chain(v).position(|x| !x.is_finite()) {
            let value = if i < n { q[i] } else { v[i - n] };
            return Err(CoreError::NonFinite {
                what: "state given to set_state".into(),
                index: i % n,
                value,
            });
        }
        self.q.copy_from_slice(q);
        self.v.copy_from_slice(v);
        self.t = t;
        self.step = step;
        self.newton_factor = None;
        for e in self.model.energies.iter_mut() {
            e.reset(q);
        }
        Ok(())
    }
    /// Total energy `E(q)` of the current state with parameters `p` (J),
    /// history energies evaluated with `q_prev = q`.
    pub fn potential_energy(&self, p: &[f64]) -> f64 {
        let s = EvalState {
            q: &self.q,
            q_prev: &self.q,
            p,
            h: self.dt,
            dt: self.dt,
            t: self.t,
        };
        self.asm.energy(&self.model, &s)
    }
    /// Every energy's observables (cable tension, slack, …) at the current
    /// state with parameters `p`, in model order.
    pub fn observables(&self, p: &[f64]) -> Vec<(String, f64)> {
        let s = EvalState {
            q: &self.q,
            q_prev: &self.q,
            p,
            h: self.dt,
            dt: self.dt,
            t: self.t,
        };
        self.model
            .energies
            .iter()
            .flat_map(|e| e.observables(&s))
            .collect()
    }
    /// Kinetic energy `½ vᵀ M v` (J).
    pub fn kinetic_energy(&self) -> f64 {
        0.5 * self
            .v
            .iter()
            .zip(&self.model.mass)
            .map(|(v, m)| m * v * v)
            .sum::<f64>()
    }

    /// One step with the parameters scheduled in the model.
    pub fn step(&mut self) -> Result<StepReport> {
        let p = self.model.params_at(self.t + self.dt);
        self.step_with(&p, false).map(|(r, _)| r)
    }

    /// One step with parameters `p` (held over the step). With `derive`, also
    /// returns the differentiation blocks at the converged state. On error the
    /// state is left as it was before the step.
    pub fn step_with(
        &mut self,
        p: &[f64],
        derive: bool,
    ) -> Result<(StepReport, Option<StepDerivatives>)> {
        if p.len() != self.model.params.len() {
            return Err(CoreError::Model(format!(
                "{} parameter values given, the model has {} channels",
                p.len(),
                self.model.params.len()
            )));
        }
        let (q0, v0, t0) = (self.q.clone(), self.v.clone(), self.t);
        let mut total = NewtonStats::default();
        let mut substeps = 0;
        let res = self.advance(&q0, &v0, t0, self.dt, p, 0, &mut total, &mut substeps);
        match res {
            Ok((q, v)) => {
                let deriv = if derive {
                    if substeps > 1 {
                        return Err(CoreError::Model(
                            "differentiation blocks are unavailable for a step that was split by step halving".into(),
                        ));
                    }
                    Some(self.derivatives(&q, &q0, &v0, t0, p)?)
                } else {
                    None
                };
                self.q = q;
                self.v = v;
                self.step += 1;
                self.t = t0 + self.dt;
                Ok((
                    StepReport {
                        step: self.step,
                        time: self.t,
                        newton: total,
                        substeps,
                    },
                    deriv,
                ))
            }
            Err(e) => Err(e),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn advance(
        &mut self,
        q0: &[f64],
        v0: &[f64],
        t0: f64,
        h: f64,
        p: &[f64],
        depth: usize,
        total: &mut NewtonStats,
        substeps: &mut usize,
    ) -> Result<(Vec<f64>, Vec<f64>)> {
        for e in self.model.energies.iter_mut() {
            e.begin_step(q0, p, h, t0);
        }
        self.refresh_structure()?;
        match self.single(q0, v0, t0, h, p) {
            Ok((q, v, stats)) => {
                for e in self.model.energies.iter_mut() {
                    e.end_step(&q, p);
                }
                total.iterations += stats.iterations;
                total.factorizations += stats.factorizations;
                total.projected += stats.projected;
                total.shifted += stats.shifted;
                total.backtracks += stats.backtracks;
                total.residual = stats.residual;
                *substeps += 1;
                Ok((q, v))
            }
            Err(e) if depth < self.newton.max_step_halvings => {
                log::warn!(
                    "step {}: {e}; halving the step to {} s",
                    self.step + 1,
                    h / 2.0
                );
                let (qm, vm) = self.advance(q0, v0, t0, h / 2.0, p, depth + 1, total, substeps)?;
                self.advance(
                    &qm,
                    &vm,
                    t0 + h / 2.0,
                    h / 2.0,
                    p,
                    depth + 1,
                    total,
                    substeps,
                )
            }
            Err(e) => Err(e),
        }
    }

    /// Rebuilds the sparsity pattern and the symbolic factorization when an
    /// energy's element set changed shape in `begin_step` (contact pairs).
    fn refresh_structure(&mut self) -> Result<()> {
        if !self.asm.is_current(&self.model) {
            let asm = Assembler::new(&self.model)?;
            debug_assert_eq!(asm.free_dofs(), self.free_dofs.as_slice());
            self.solver = LinearSolver::new(asm.symbolic())?;
            self.asm = asm;
            self.newton_factor = None;
        }
        Ok(())
    }

    /// One step of size `h` from `(q0, v0)` at `t0`.
    fn single(
        &mut self,
        q0: &[f64],
        v0: &[f64],
        t0: f64,
        h: f64,
        p: &[f64],
    ) -> Result<(Vec<f64>, Vec<f64>, NewtonStats)> {
        let form = self.integrator.form(h);
        let t1 = t0 + h;
        if self.integrator == Integrator::SymplecticEuler {
            return self.explicit_step(q0, v0, t0, h, p);
        }
        let x_tilde: Vec<f64> = if form.c_m != 0.0 {
            q0.iter().zip(v0).map(|(x, v)| x + h * v).collect()
        } else {
            q0.to_vec()
        };
        let mut x = x_tilde.clone();
        self.model.apply_constraints(&mut x, t1);
        let n = x.len();
        let mut pot = StepPotential {
            model: &self.model,
            asm: &mut self.asm,
            form,
            x_tilde: &x_tilde,
            x_prev: q0,
            p,
            t_eval: t0 + form.h_eval,
            mass_free: &self.mass_free,
            y: vec![0.0; n],
            g_full: vec![0.0; n],
            diag: vec![0.0; self.mass_free.len()],
        };
        // The inertial guess may be infeasible (an inverted element): start
        // from the previous state instead, which was accepted.
        if !pot.value(&x).is_finite() {
            x.copy_from_slice(q0);
            self.model.apply_constraints(&mut x, t1);
        }
        let stats = minimize_with(
            &mut pot,
            &mut x,
            &self.free_dofs,
            &self.solver,
            &self.newton,
            &mut self.newton_factor,
        )
        .map_err(|f| CoreError::NewtonDiverged {
            step: self.step + 1,
            time: t1,
            iterations: f.stats.iterations,
            residual: f.stats.residual,
            tolerance: f.tolerance,
            reason: f.reason,
        })?;
        let v: Vec<f64> = (0..n)
            .map(|i| form.vx * x[i] + form.vxp * q0[i] + form.vv * v0[i])
            .collect();
        Ok((x, v, stats))
    }

    fn explicit_step(
        &mut self,
        q0: &[f64],
        v0: &[f64],
        t0: f64,
        h: f64,
        p: &[f64],
    ) -> Result<(Vec<f64>, Vec<f64>, NewtonStats)> {
        let n = q0.len();
        let x_prev_eval: Vec<f64> = q0.iter().zip(v0).map(|(x, v)| x - h * v).collect();
        let s = EvalState {
            q: q0,
            q_prev: &x_prev_eval,
            p,
            h,
            dt: h,
            t: t0,
        };
        let mut g = vec![0.0; n];
        self.asm.add_gradient(&self.model, &s, 1.0, &mut g);
        let mut v = v0.to_vec();
        let mut x = q0.to_vec();
        for (k, &i) in self.free_dofs.iter().enumerate() {
            v[i] = v0[i] - h * g[i] / self.mass_free[k];
            x[i] = q0[i] + h * v[i];
        }
        self.model.apply_constraints(&mut x, t0 + h);
        for i in 0..n {
            if !self.model.is_free(i) {
                v[i] = (x[i] - q0[i]) / h;
            }
        }
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(CoreError::NonFinite {
                what: format!("state after explicit step {}", self.step + 1),
                index: i,
                value: x[i],
            });
        }
        Ok((x, v, NewtonStats::default()))
    }

    /// The differentiation blocks of a step that already converged: from
    /// `(x_prev, v_prev)` at `t_prev` with parameters `p` to `x` — what
    /// `step_with(p, true)` returns, without solving the step again. The
    /// energies' step hooks are replayed (`begin_step` from the start state,
    /// `end_step` with `x`). The blocks equal `step_with`'s for energies
    /// whose lagged quantities are functions of the step's start state (all
    /// built-in energies); an energy that carries state committed in
    /// `end_step` from step to step needs the blocks recorded during the
    /// rollout instead. The simulator's own state is unchanged.
    pub fn derivatives_at(
        &mut self,
        x: &[f64],
        x_prev: &[f64],
        v_prev: &[f64],
        t_prev: f64,
        p: &[f64],
    ) -> Result<StepDerivatives> {
        let n = self.q.len();
        if x.len() != n
            || x_prev.len() != n
            || v_prev.len() != n
            || p.len() != self.model.params.len()
        {
            return Err(CoreError::Model(format!(
                "derivatives_at: sizes {} / {} / {} / {} for {n} DOFs and {} channels",
                x.len(),
                x_prev.len(),
                v_prev.len(),
                p.len(),
                self.model.params.len()
            )));
        }
        for e in self.model.energies.iter_mut() {
            e.begin_step(x_prev, p, self.dt, t_prev);
        }
        self.refresh_structure()?;
        let d = self.derivatives(x, x_prev, v_prev, t_prev, p)?;
        for e in self.model.energies.iter_mut() {
            e.end_step(x, p);
        }
        Ok(d)
    }

    /// Differentiation blocks at the converged `x = x_k` (see [`StepDerivatives`]).
    fn derivatives(
        &mut self,
        x: &[f64],
        q0: &[f64],
        v0: &[f64],
        t0: f64,
        p: &[f64],
    ) -> Result<StepDerivatives> {
        let h = self.dt;
        let n = x.len();
        let np = p.len();
        let form = self.integrator.form(h);
        let mut txp = Vec::new();
        let mut tvp = Vec::new();
        let mut tp = Vec::new();
        let factor;
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
                .hessian_triplets(&self.model, &s, h * h, &mut txp)?;
            self.asm
                .history_triplets(&self.model, &s, h * h, &mut txp)?;
            self.asm
                .history_triplets(&self.model, &s, -h * h * h, &mut tvp)?;
            self.asm.param_triplets(&self.model, &s, h * h, &mut tp)?;
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
            let f = self.solver.factor(hl).map_err(|e| {
                CoreError::LinearSolve(format!(
                    "exact ∂g/∂x at the converged step ending at t = {} s is not positive definite ({e}); sensitivities need a strict minimum",
                    t0 + h
                ))
            })?;
            factor = DiffFactor::Cholesky(f);
            let ce = form.c_e * form.a_y;
            if form.b_y != 0.0 {
                // Blocks already filled at this state by the factorized Hessian above.
                self.asm.last_hessian_triplets(ce * form.b_y, &mut txp);
            }
            self.asm.history_triplets(&self.model, &s, ce, &mut txp)?;
            self.asm.param_triplets(&self.model, &s, ce, &mut tp)?;
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
            dg_dx_prev: from_triplets(n, n, &txp)?,
            dg_dv_prev: from_triplets(n, n, &tvp)?,
            dg_dp: from_triplets(n, np, &tp)?,
            vx: form.vx,
            vxp: form.vxp,
            vv: form.vv,
            free_dofs: self.free_dofs.clone(),
            n,
            factor,
        })
    }
}
