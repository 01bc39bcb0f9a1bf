//! Stepping a model in time, and what differentiation needs at each step.

mod coarse;
mod derivatives;
mod potential;

pub use coarse::CoarseModel;
pub use derivatives::StepDerivatives;

use crate::amg::modes::FreeNodes;
use crate::assembly::Assembler;
use crate::error::{CoreError, Invalid, Result};
use crate::integrator::Integrator;
use crate::linsolve::LinearSolver;
use crate::local_blocks::LocalBlocks;
use crate::model::Model;
use crate::newton::{
    CoarseOperators, NewtonSettings, NewtonStart, NewtonStats, Potential, minimize_with,
};
use crate::state::EvalState;
use potential::StepPotential;
use std::sync::Arc;

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
///
/// Each [`Simulator::step`] minimizes the integrator's incremental
/// potential with Newton; [`Simulator::step_with`] takes the parameters
/// explicitly and can also return the step's differentiation blocks
/// ([`StepDerivatives`]), from which `pliant-optim` builds rollout
/// sensitivities and adjoints.
///
/// ```
/// use pliant_core::{Ctx, Element, ElementList, Integrator, ModelBuilder, NewtonSettings};
/// use pliant_core::{Scalar, Simulator, Stencil};
///
/// /// A node tied to the origin by a linear spring, `E = k/2 |x|²` (J).
/// #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
/// struct Anchor { node: [usize; 1], k: f64 }
/// impl Element for Anchor {
///     type Size = Stencil<3>;
///     fn nodes(&self) -> &[usize] { &self.node }
///     fn energy<D: Scalar>(&self, x: &[D], _: &[D], _: &[D], _: &Ctx) -> D {
///         (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) * (0.5 * self.k)
///     }
/// }
/// pliant_core::register_energy!(
///     elements Anchor = "doc_anchor", "spring to the origin",
///     r#"{"type": "doc_anchor", "elements": [{"node": [0], "k": 1}]}"#
/// );
///
/// // A 1 kg mass on a 4π² N/m spring: a 1 s period, released at 0.1 m.
/// let k = 4.0 * std::f64::consts::PI.powi(2);
/// let mut b = ModelBuilder::new(2)?;
/// b.add_node(&[0.1, 0.0], 1.0)?;
/// b.add(ElementList::new(vec![Anchor { node: [0], k }]));
/// let model = b.build()?;
/// let mut sim = Simulator::new(model, Integrator::ImplicitMidpoint, 1e-3, NewtonSettings::default())?;
/// let e0 = sim.potential_energy(&[]);
/// for _ in 0..1000 {
///     sim.step()?;
/// }
/// // After one period it is back where it started, and the implicit
/// // midpoint rule conserved the energy of this linear oscillator.
/// assert!((sim.q()[0] - 0.1).abs() < 1e-4);
/// let e1 = sim.potential_energy(&[]) + sim.kinetic_energy();
/// assert!((e1 - e0).abs() < 1e-9 * e0);
///
/// // One more step with its derivative blocks: ∂g/∂x is the step's Hessian.
/// let (report, blocks) = sim.step_with(&[], true)?;
/// assert_eq!(report.step, 1001);
/// assert!(blocks.is_some());
/// # Ok::<(), pliant_core::CoreError>(())
/// ```
#[derive(Debug)]
pub struct Simulator {
    model: Model,
    integrator: Integrator,
    dt: f64,
    newton: NewtonSettings,
    asm: Assembler,
    /// The node-local energies' Hessian entries, which Newton may refresh
    /// in a kept factorization ([`NewtonSettings::local_updates`]).
    local: LocalBlocks,
    solver: LinearSolver,
    /// The last Newton factorization, carried to the next step when
    /// [`NewtonSettings::reuse_below`] or PCG directions use it (dropped on `set_state` and
    /// when the sparsity pattern changes, so runs stay reproducible), and
    /// the last diagonal shift for [`NewtonSettings::carry_shift`] (dropped
    /// on `set_state`).
    newton_carry: crate::newton::NewtonCarry,
    mass_free: Vec<f64>,
    free_dofs: Arc<Vec<usize>>,
    /// The free DOFs grouped by node, for multigrid directions (`None` when
    /// some free DOF is not a node coordinate).
    free_nodes: Option<FreeNodes>,
    /// Coarser discretizations for geometric multigrid directions, finest
    /// first (see [`Simulator::set_coarse_models`]).
    coarse: Vec<coarse::CoarseLevel>,
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
            return Err(Invalid::new("dt", dt, "positive and finite (s)").into());
        }
        newton.validate()?;
        let asm = Assembler::new(&model)?;
        let solver = LinearSolver::new_augmented(asm.symbolic(), asm.n_aux())?;
        let free_dofs = Arc::new(asm.free_dofs().to_vec());
        let local = LocalBlocks::new(&model, &free_dofs);
        let mass_free: Vec<f64> = free_dofs.iter().map(|&i| model.mass[i]).collect();
        if integrator == Integrator::SymplecticEuler
            && let Some(k) = mass_free.iter().position(|&m| m <= 0.0)
        {
            return Err(Invalid::new(
                format!("mass of free DOF {}", free_dofs[k]),
                mass_free[k],
                "positive (symplectic Euler divides by every free DOF's mass)",
            )
            .into());
        }
        let mut q = model.q0.clone();
        model.apply_constraints(&mut q, 0.0);
        let v = model.v0.clone();
        let free_nodes = FreeNodes::new(model.layout(), &free_dofs);
        Ok(Self {
            model,
            integrator,
            dt,
            newton,
            asm,
            local,
            solver,
            newton_carry: Default::default(),
            mass_free,
            free_nodes,
            free_dofs,
            coarse: Vec::new(),
            q,
            v,
            t: 0.0,
            step: 0,
        })
    }

    /// Gives the simulator coarser discretizations of its model, finest
    /// first, for geometric multigrid directions
    /// ([`crate::Directions::Geometric`], which [`crate::Directions::Auto`]
    /// then takes where the factor would hold at least
    /// [`crate::GEOMETRIC_MIN_FACTOR_ENTRIES`] entries). Level `k`'s positions
    /// and prolongation refer to level `k − 1`'s nodes (level 0: this
    /// simulator's model). Every DOF of every model must be a free node
    /// coordinate. An empty list removes them. States, results and
    /// tolerances are unchanged: only how Newton solves for its directions.
    ///
    /// Errors (nothing is changed): a model with constrained, extra or
    /// split-Hessian DOFs, another dimension, positions or a prolongation
    /// of the wrong length or naming a missing node, a non-finite weight.
    pub fn set_coarse_models(&mut self, levels: Vec<CoarseModel>) -> Result<()> {
        if !levels.is_empty() {
            coarse::check_finest(&self.model, &self.asm)?;
        }
        let dim = self.model.layout().dim();
        let mut out: Vec<coarse::CoarseLevel> = Vec::with_capacity(levels.len());
        for (k, c) in levels.into_iter().enumerate() {
            let finer_q0 = out.last().map_or(self.model.q0(), |l| l.model().q0());
            let level = coarse::CoarseLevel::new(c, finer_q0, dim, k + 1)?;
            out.push(level);
        }
        self.coarse = out;
        self.newton_carry.amg = None;
        Ok(())
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
    /// What each energy carries from step to step ([`Energy::carried_state`](crate::Energy::carried_state)),
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
            return Err(CoreError::Length {
                what: "carried-state snapshots (one per energy)",
                found: snapshots.len(),
                expected: self.model.energies.len(),
            });
        }
        for (e, s) in self.model.energies.iter_mut().zip(snapshots) {
            e.restore_carried_state(s)?;
        }
        Ok(())
    }
    /// Resets the state (positions, velocities, time, step counter); energies
    /// re-derive what they carry from step to step for `q`
    /// ([`Energy::reset`](crate::Energy::reset)), so runs started from the same state agree.
    pub fn set_state(&mut self, q: &[f64], v: &[f64], t: f64, step: usize) -> Result<()> {
        let n = self.q.len();
        for (what, x) in [("set_state positions", q), ("set_state velocities", v)] {
            if x.len() != n {
                return Err(CoreError::Length {
                    what,
                    found: x.len(),
                    expected: n,
                });
            }
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
        self.newton_carry = Default::default();
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
    /// state with parameters `p`, in model order, then the centroid of
    /// every output group (`<region>.x`, `.y`, `.z`, m;
    /// [`Layout::outputs`](crate::Layout::outputs)).
    pub fn observables(&self, p: &[f64]) -> Vec<(String, f64)> {
        let s = EvalState {
            q: &self.q,
            q_prev: &self.q,
            p,
            h: self.dt,
            dt: self.dt,
            t: self.t,
        };
        let mut out: Vec<(String, f64)> = self
            .model
            .energies
            .iter()
            .flat_map(|e| e.observables(&s))
            .collect();
        let layout = &self.model.layout;
        let dim = layout.dim();
        for name in layout.outputs() {
            let Ok(nodes) = layout.region(name, "outputs") else {
                continue;
            };
            let c = layout.centroid(nodes, &self.q);
            for (a, axis) in ["x", "y", "z"].iter().enumerate().take(dim) {
                out.push((format!("{name}.{axis}"), c[a]));
            }
        }
        out
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
        self.step_from(p, derive, None)
    }

    /// [`Simulator::step_with`] whose Newton solve may start from `start`,
    /// a guess of the step's end positions (all coordinates; prescribed
    /// ones are overwritten by their constraints): it is taken when its
    /// incremental potential is finite and lower than that of the start
    /// [`NewtonStart`] chooses. The step ends at a stationary point meeting
    /// the same tolerance either way; a good guess — the same step of a
    /// nearby trajectory — saves Newton iterations. A step that has to be
    /// halved starts its halves as usual.
    pub fn step_from(
        &mut self,
        p: &[f64],
        derive: bool,
        start: Option<&[f64]>,
    ) -> Result<(StepReport, Option<StepDerivatives>)> {
        if let Some(s) = start
            && s.len() != self.q.len()
        {
            return Err(CoreError::Length {
                what: "start guess",
                found: s.len(),
                expected: self.q.len(),
            });
        }
        if p.len() != self.model.params.len() {
            return Err(CoreError::Length {
                what: "parameter values",
                found: p.len(),
                expected: self.model.params.len(),
            });
        }
        let (q0, v0, t0) = (self.q.clone(), self.v.clone(), self.t);
        // What the energies' carried state does in this step's begin_step,
        // taken before it happens.
        let carried = if derive {
            Some(self.carried_transitions(&q0, p)?)
        } else {
            None
        };
        let mut total = NewtonStats::default();
        let mut substeps = 0;
        let res = self.advance(
            &q0,
            &v0,
            t0,
            self.dt,
            p,
            start,
            0,
            &mut total,
            &mut substeps,
        );
        match res {
            Ok((q, v)) => {
                let deriv = if derive {
                    if substeps > 1 {
                        return Err(CoreError::Unsupported(
                            "differentiation blocks are unavailable for a step that was split by step halving",
                        ));
                    }
                    let carried = carried.unwrap_or_default();
                    Some(self.derivatives(&q, &q0, &v0, t0, p, &carried)?)
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
        start: Option<&[f64]>,
        depth: usize,
        total: &mut NewtonStats,
        substeps: &mut usize,
    ) -> Result<(Vec<f64>, Vec<f64>)> {
        for e in self.model.energies.iter_mut() {
            e.begin_step(q0, p, h, t0);
        }
        self.refresh_structure()?;
        match self.single(q0, v0, t0, h, p, start) {
            Ok((q, v, stats)) => {
                for e in self.model.energies.iter_mut() {
                    e.end_step(&q, p);
                }
                total.iterations += stats.iterations;
                total.factorizations += stats.factorizations;
                total.pcg_iterations += stats.pcg_iterations;
                total.amg_setups += stats.amg_setups;
                total.projected += stats.projected;
                total.shifted += stats.shifted;
                total.shift_tries += stats.shift_tries;
                total.majorized += stats.majorized;
                total.backtracks += stats.backtracks;
                total.at_noise_floor |= stats.at_noise_floor;
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
                let (qm, vm) =
                    self.advance(q0, v0, t0, h / 2.0, p, None, depth + 1, total, substeps)?;
                self.advance(
                    &qm,
                    &vm,
                    t0 + h / 2.0,
                    h / 2.0,
                    p,
                    None,
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
            self.solver = LinearSolver::new_augmented(asm.symbolic(), asm.n_aux())?;
            self.asm = asm;
            self.local = LocalBlocks::new(&self.model, &self.free_dofs);
            // The factorization no longer fits; a carried shift still
            // describes the model.
            self.newton_carry.factor = None;
            self.newton_carry.amg = None;
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
        start: Option<&[f64]>,
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
        let free_nodes = self.free_nodes.as_ref().filter(|_| self.asm.n_aux() == 0);
        let mut pot = StepPotential::new(
            &self.model,
            &mut self.asm,
            &mut self.local,
            form,
            &x_tilde,
            q0,
            p,
            t0 + form.h_eval,
            &self.mass_free,
        );
        // Newton starts from the inertial predictor x̃ = x₀ + h v₀ or from
        // the previous state (see `NewtonStart`): the predictor can be
        // infeasible (an inverted element: infinite potential), and by
        // default the previous state is taken when its potential is lower —
        // a block landing at 0.6 m/s is predicted a centimetre into the
        // ground, and Newton needs 2–3× more iterations from there
        // (`cargo bench --bench fem_block`, docs/benchmarks.md). Either way
        // the step ends at a stationary point meeting the same tolerance
        // (the same one where the potential is convex; with contact or
        // buckling another start may find another local minimum).
        let mut chosen = pot.value(&x);
        let compare = form.c_m != 0.0 && self.newton.start == NewtonStart::LowerPotential;
        if compare || !chosen.is_finite() {
            let mut previous = q0.to_vec();
            self.model.apply_constraints(&mut previous, t1);
            let at_previous = pot.value(&previous);
            if !chosen.is_finite() || at_previous < chosen {
                x = previous;
                chosen = at_previous;
            }
        }
        if let Some(s) = start {
            let mut guess = s.to_vec();
            self.model.apply_constraints(&mut guess, t1);
            let at_guess = pot.value(&guess);
            if at_guess.is_finite() && (!chosen.is_finite() || at_guess < chosen) {
                x = guess;
            }
        }
        let dim = self.model.layout().dim();
        let mut levels = coarse::CoarseAt {
            levels: &mut self.coarse,
            form,
            x_prev: q0,
            t_eval: t0 + form.h_eval,
            dim,
        };
        let has_coarse = !levels.levels.is_empty();
        let stats = minimize_with(
            &mut pot,
            &mut x,
            &self.free_dofs,
            &self.solver,
            &self.newton,
            &mut self.newton_carry,
            free_nodes,
            has_coarse.then_some(&mut levels as &mut dyn CoarseOperators),
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
        let np = self.model.params.len();
        for (what, len, expected) in [
            ("derivatives_at x", x.len(), n),
            ("derivatives_at x_prev", x_prev.len(), n),
            ("derivatives_at v_prev", v_prev.len(), n),
            ("derivatives_at parameters", p.len(), np),
        ] {
            if len != expected {
                return Err(CoreError::Length {
                    what,
                    found: len,
                    expected,
                });
            }
        }
        let carried = self.carried_transitions(x_prev, p)?;
        for e in self.model.energies.iter_mut() {
            e.begin_step(x_prev, p, self.dt, t_prev);
        }
        self.refresh_structure()?;
        let d = self.derivatives(x, x_prev, v_prev, t_prev, p, &carried)?;
        for e in self.model.energies.iter_mut() {
            e.end_step(x, p);
        }
        Ok(d)
    }
}
