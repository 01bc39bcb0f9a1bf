//! The direct-shooting problem (cable paper §III) and its argmin adapters.
//!
//! A [`Shooting`] problem owns a simulator, the initial state, a
//! [`ControlMap`] and objectives. For a parameter vector it rolls the robot
//! out and returns residuals, their Jacobian (forward sensitivity, for
//! Gauss–Newton), the cost `½‖r‖²` or its gradient (adjoint, for L-BFGS):
//! it implements argmin's `Operator` + `Jacobian` and `CostFunction` +
//! `Gradient`, so any argmin solver, line search, observer and checkpoint
//! works on it.
//!
//! **Bounds.** With bounds `[lo, hi]` on `z`, either the parameterization
//! keeps them ([`BoundHandling::Transform`], for solvers without bounds:
//! the solver works on `w` with `z = m + r tanh(w)`, `m`, `r` the box's
//! centre and half-width) or the solver does
//! ([`BoundHandling::Solver`]: `w = z`, and a bound-aware solver such as
//! [`crate::LevenbergMarquardt`] projects its trials onto the box; the
//! transform flattens the objective near the bounds, where optimal gaits
//! often sit). Either way every iterate is feasible — and, because the
//! zero-tangent splines are convex combinations, so is every control value.
//! [`Shooting::z_of`] and [`Shooting::w_of`] convert.
//!
//! **Regularization.** An optional residual `√λ ρ (w − w_ref)` (ρ the box's
//! half-width, 1 without bounds, so that near the box centre it reads
//! `√λ (z − z_ref)`) keeps `JᵀJ` invertible where a slack cable makes the
//! dynamics flat in its control or the bound transform saturates.

mod argmin_adapters;
mod stats;
mod trials;

pub use stats::ShootingStats;

use crate::controls::ControlMap;
use crate::error::{OptimError, Result};
use crate::gradient::{cost, residuals};
use crate::machine_load::CpuTicks;
use crate::objective::Objective;
use crate::trajectory::{Memory, Reference, Trajectory, rollout};
use pliant_core::Invalid;
use pliant_core::Simulator;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Who keeps the bounds on `z` (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoundHandling {
    /// `z = m + r tanh(w)`.
    #[default]
    Transform,
    /// `w = z`; the solver keeps `z` in the box.
    Solver,
}

/// The most memory the step sensitivities kept for start guesses may take
/// (`trajectory::Reference`); beyond it rollouts start near the reference
/// trajectory without them.
const SENSITIVITY_BYTES: usize = 256 << 20;

struct Inner {
    sim: Simulator,
    cache: Option<(Vec<f64>, Trajectory, Vec<f64>)>,
    /// The trajectory at the last point derivatives were taken at (the
    /// solver's current iterate): rollouts start each step's Newton solve
    /// near it (`trajectory::Reference`).
    reference: Option<(Vec<f64>, Arc<Reference>)>,
    stats: ShootingStats,
}

impl Inner {
    /// Records what other processes took of the machine since `since`
    /// (see [`Shooting::with_load_check`]), when that can be told.
    fn note_load(&mut self, since: Option<CpuTicks>) {
        if let Some(others) = since
            .zip(CpuTicks::now())
            .and_then(|(a, b)| a.others_until(&b))
        {
            self.stats.others_cores = Some(others);
        }
    }
}

/// A shooting problem over control parameters `z` (see the module docs).
///
/// A mass on a spring whose anchor a motor moves (`u`, m) is asked to
/// follow a point moving right at 0.1 m/s; the motor's keyframes are found
/// by Levenberg–Marquardt on exact rollout Jacobians:
///
/// ```
/// use pliant_core::{Ctx, Element, ElementList, Integrator, ModelBuilder, NewtonSettings};
/// use pliant_core::{ParamChannel, Scalar, Simulator, Stencil};
/// use pliant_optim::{ComPath, Damping, Gait, Method, Motor, Objective, OptimizeSettings, Shooting};
///
/// /// `E = k/2 |x − (u, 0, 0)|²` (J), `u` a control channel (m).
/// #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
/// struct Leash { node: [usize; 1], k: f64, channel: String }
/// impl Element for Leash {
///     type Size = Stencil<3, 1>;
///     fn nodes(&self) -> &[usize] { &self.node }
///     fn channels(&self) -> impl IntoIterator<Item = Option<&str>> { [Some(self.channel.as_str())] }
///     fn energy<D: Scalar>(&self, x: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
///         let dx = x[0] - p[0];
///         (dx * dx + x[1] * x[1] + x[2] * x[2]) * (0.5 * self.k)
///     }
/// }
/// pliant_core::register_energy!(
///     elements Leash = "doc_leash", "spring to a moving anchor",
///     r#"{"type": "doc_leash", "elements": [{"node": [0], "k": 10, "channel": "u"}]}"#
/// );
///
/// # fn main() -> pliant_optim::Result<()> {
/// let mut b = ModelBuilder::new(2)?;
/// b.add_node(&[0.0, 0.0], 0.1)?; // 0.1 kg
/// b.add_param(ParamChannel::control("u", 0.0))?;
/// b.add(ElementList::new(vec![Leash { node: [0], k: 10.0, channel: "u".into() }]));
/// let h = 0.01; // s
/// let sim = Simulator::new(b.build()?, Integrator::ImplicitEuler, h, NewtonSettings::default())?;
///
/// // Controls: one motor, 4 keyframes per cycle, interpolated per step.
/// let gait = Gait {
///     motors: vec![Motor { name: "anchor".into(), channels: vec!["u".into()], mirror_of: None }],
///     keyframes: 4, prep_steps: 5, cycle_steps: 20, cycles: 1, bounds: Some((-0.05, 0.05)),
/// };
/// let map = gait.control_map(sim.model())?;
/// let targets = ComPath::straight(&[0.0, 0.0], &[0.1, 0.0], gait.steps(), h);
/// let objective: Box<dyn Objective> =
///     Box::new(ComPath::new(sim.model(), &[0, 1], targets, 1.0)?);
/// let problem = Shooting::new(sim, map, vec![objective])?;
///
/// // The adjoint gradient of the whole rollout agrees with finite differences.
/// let z = [0.01, 0.03, 0.0, -0.02];
/// let w = problem.w_of(&z);
/// let (_, g) = problem.gradient(&w)?;
/// let cost = |w: &[f64]| -> pliant_optim::Result<f64> {
///     Ok(problem.residuals(w)?.iter().map(|r| 0.5 * r * r).sum())
/// };
/// let e = 1e-6;
/// let (mut wp, mut wm) = (w.clone(), w.clone());
/// wp[1] += e;
/// wm[1] -= e;
/// let fd = (cost(&wp)? - cost(&wm)?) / (2.0 * e);
/// assert!((g[1] - fd).abs() <= 1e-6 * g[1].abs());
///
/// // Levenberg–Marquardt (argmin) on the forward-sensitivity Jacobian.
/// let settings = OptimizeSettings {
///     method: Method::LevenbergMarquardt {
///         tol: 1e-10,
///         damping: Damping::Nielsen,
///     },
///     max_iters: 20,
///     checkpoint: None,
/// };
/// let (result, _) = pliant_optim::optimize(problem, &[0.0; 4], &settings, None)?;
/// assert!(result.objective < 0.01 * result.initial_objective);
/// # Ok(())
/// # }
/// ```
pub struct Shooting {
    inner: Mutex<Inner>,
    /// Simulators of the same model for concurrent trials.
    spares: Vec<Mutex<Simulator>>,
    x0: Vec<f64>,
    v0: Vec<f64>,
    base: Vec<f64>,
    map: ControlMap,
    objectives: Vec<Box<dyn Objective>>,
    memory: Memory,
    /// `(λ, z_ref)`.
    regularization: Option<(f64, Vec<f64>)>,
    bound_handling: BoundHandling,
    reference_starts: bool,
    load_check: bool,
    forecast_cuts: bool,
}

impl std::fmt::Debug for Shooting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Shooting {{ steps: {}, nz: {}, objectives: {} }}",
            self.map.steps(),
            self.map.nz(),
            self.objectives.len()
        )
    }
}

impl Shooting {
    /// A problem starting from the simulator's model initial state, with the
    /// model's parameters at `t = 0` as the base for uncontrolled channels.
    pub fn new(
        sim: Simulator,
        map: ControlMap,
        objectives: Vec<Box<dyn Objective>>,
    ) -> Result<Self> {
        if objectives.is_empty() {
            return Err(OptimError::inconsistent(
                "shooting",
                "a shooting problem needs at least one objective",
            ));
        }
        let model = sim.model();
        let mut x0 = model.q0().to_vec();
        model.apply_constraints(&mut x0, 0.0);
        let v0 = model.v0().to_vec();
        let base = model.params_at(0.0);
        if let Some(&c) = map.channels().iter().find(|&&c| c >= base.len()) {
            return Err(OptimError::Size {
                what: "control map channel index (must be below the model's channel count)",
                found: c,
                expected: base.len(),
            });
        }
        Ok(Self {
            inner: Mutex::new(Inner {
                sim,
                cache: None,
                reference: None,
                stats: ShootingStats::default(),
            }),
            spares: Vec::new(),
            x0,
            v0,
            base,
            map,
            objectives,
            // Line-search trials only need the objective: record nothing
            // during rollouts and build step blocks when a derivative is asked.
            memory: Memory::Recompute,
            regularization: None,
            bound_handling: BoundHandling::Transform,
            reference_starts: true,
            load_check: true,
            forecast_cuts: true,
        })
    }
    /// Whether trial rollouts ([`Shooting::costs_below`]) start each
    /// step's Newton solve near the trajectory at the point where a
    /// derivative was last taken — the solver's current iterate — (default
    /// `true`). After [`Shooting::jacobian`] the forward sweep's `S_k =
    /// ∂x_k/∂z` are kept (when they take at most 256 MiB) and step `k` of a
    /// trial at `z` starts from the reference's step linearly predicted for
    /// `z`, applied to the trial's own state after step `k − 1`; after
    /// [`Shooting::gradient`], from the reference's step alone. Off, every
    /// step starts where [`NewtonStart`](pliant_core::NewtonStart) says.
    ///
    /// On the Puppy (`cargo bench --bench gait_iteration -- starts`,
    /// 2026-11-29) a trial 1 % away from the reference takes 4.4 Newton
    /// iterations per step instead of 12.2, and one 0.01 % away 1.1; a
    /// trial 10 % away gains little (11.0).
    pub fn with_reference_starts(mut self, on: bool) -> Self {
        self.reference_starts = on;
        self
    }
    /// Whether [`Shooting::concurrent_trials`] asks for fewer trials than
    /// there are simulators while other processes hold the cores the
    /// spares would run on (default `true`). Every rollout, round of trials
    /// and derivative sweep measures the CPU time the rest of the machine
    /// took meanwhile (Linux `/proc`; elsewhere nothing changes); the next
    /// rounds run as many trials at once as the cores left can give three
    /// quarters of a core each — one beside a busy process on two cores —
    /// until a measurement sees the cores free again. A solver that tries
    /// points in order accepts the same one either way, so the iterates are
    /// bitwise the same; only the wall time changes.
    pub fn with_load_check(mut self, on: bool) -> Self {
        self.load_check = on;
        self
    }
    /// Whether a Levenberg–Marquardt trial (whose Gauss–Newton model
    /// reaches the rollouts through
    /// [`TrialCost::trial_costs_forecast`](crate::levenberg_marquardt::TrialCost::trial_costs_forecast),
    /// see [`Forecast`](crate::Forecast); [`Shooting::costs_below`] has
    /// none) is given up before its end when the model says it will not
    /// get below the bound (default `true`). After each step `k` the
    /// trial's cost so far, `Σ_{j ≤ k} ½‖r_j(w + δ)‖²` (its regularization
    /// included), plus the model's cost of the remaining steps,
    /// `Σ_{j > k} ½‖r_j + J_j δ‖²`, is compared with the cost to beat; when
    /// it reaches it, the trial is counted as rejected there
    /// ([`ShootingStats::rollouts_cut_by_forecast`]). The exact test (the
    /// cost so far alone reaches the bound) is the same with the remaining
    /// steps costing nothing.
    ///
    /// A gait's residuals grow along the rollout, so the exact test stops a
    /// rejected trial only near its end; the forecast stops it where the
    /// trial would have to beat the model over the rest of the rollout to
    /// be accepted. It may give up a trial that would have been accepted
    /// (one whose remaining steps beat the model); the iteration then goes
    /// on with a larger damping, as after any rejection, and the iterates
    /// differ from those without the test. It cannot keep
    /// Levenberg–Marquardt from finding a step: as the damping grows and
    /// `δ` shrinks, the trial's cost so far differs from the model's by
    /// `O(|δ|²)` (plus the rollout's own noise, within Newton's tolerance)
    /// while the forecast decrease is of order `|δ|`.
    ///
    /// Measured on the Puppy and the Tripod (`cargo bench --bench
    /// gait_iteration -- run [nocut]` and replays of traced trials, see
    /// `docs/benchmarks.md`): in traces of four gait problems it gave up
    /// none of the accepted trials and saved 9 % of the rejected ones'
    /// steps.
    pub fn with_forecast_cuts(mut self, on: bool) -> Self {
        self.forecast_cuts = on;
        self
    }
    /// Chooses what rollouts keep for differentiation (default
    /// [`Memory::Recompute`]: blocks are built only for derivatives).
    pub fn with_memory(mut self, memory: Memory) -> Self {
        self.memory = memory;
        self
    }
    /// Adds the residual `√λ ρ (w − w_ref)` (see the module docs); `λ` in
    /// the units of the objective per unit of `z` squared.
    pub fn with_regularization(mut self, lambda: f64, z_ref: Vec<f64>) -> Result<Self> {
        Invalid::non_negative("regularization λ", lambda, "objective units per z²")?;
        if z_ref.len() != self.map.nz() {
            return Err(OptimError::Size {
                what: "regularization reference values",
                found: z_ref.len(),
                expected: self.map.nz(),
            });
        }
        self.regularization = Some((lambda, z_ref));
        Ok(self)
    }
    /// Starts rollouts from `(x0, v0)` instead of the model's initial state
    /// (e.g. a robot settled on the ground).
    pub fn with_initial_state(mut self, x0: Vec<f64>, v0: Vec<f64>) -> Result<Self> {
        for (what, found, expected) in [
            ("initial positions", x0.len(), self.x0.len()),
            ("initial velocities", v0.len(), self.v0.len()),
        ] {
            if found != expected {
                return Err(OptimError::Size {
                    what,
                    found,
                    expected,
                });
            }
        }
        self.x0 = x0;
        self.v0 = v0;
        Ok(self)
    }
    /// Adds simulators of the same model (built the same way as the
    /// problem's own, same step and Newton settings), on which
    /// [`Shooting::costs_below`] rolls out trials concurrently, one thread
    /// each. Every rollout starts from `set_state`, which resets a
    /// simulator completely, so a trial's result does not depend on the
    /// simulator that ran it: an optimization gives bitwise the same
    /// iterates with or without spares. The first spare also works in
    /// [`Shooting::jacobian`] and [`Shooting::gradient`] when no trial holds
    /// it: with [`Memory::Recompute`] it rebuilds two steps' blocks of every
    /// three on a second thread (each rebuild restores its step's carried
    /// state, so the blocks, and the derivatives, are the same bit for bit —
    /// for energies whose element set is a function of the carried state.
    /// Membrane contact of cells keeps its candidate pairs across steps
    /// when they still cover the band, so with it the factorization's
    /// pattern, and the derivatives' round-off, can depend on which
    /// simulator rebuilt a step; leave the spares out where that matters).
    /// Spares must step with the same time step and integrator.
    pub fn with_spare_simulators(mut self, sims: Vec<Simulator>) -> Result<Self> {
        let (n, np, dt, integrator) = {
            let inner = crate::lock(&self.inner);
            let m = inner.sim.model();
            (
                m.n_dofs(),
                m.layout().n_params(),
                inner.sim.dt(),
                inner.sim.integrator(),
            )
        };
        for sim in &sims {
            if sim.dt() != dt || sim.integrator() != integrator {
                return Err(OptimError::inconsistent(
                    "spare simulator",
                    "must step with the problem simulator's time step and integrator",
                ));
            }
            let m = sim.model();
            for (what, found, expected) in [
                ("spare simulator DOFs", m.n_dofs(), n),
                (
                    "spare simulator parameter channels",
                    m.layout().n_params(),
                    np,
                ),
            ] {
                if found != expected {
                    return Err(OptimError::Size {
                        what,
                        found,
                        expected,
                    });
                }
            }
        }
        self.spares = sims.into_iter().map(Mutex::new).collect();
        Ok(self)
    }
    /// How many trials a solver should hand [`Shooting::costs_below`] at
    /// once: one per simulator, fewer while other processes hold the cores
    /// (see [`Shooting::with_load_check`]).
    pub fn concurrent_trials(&self) -> usize {
        let simulators = 1 + self.spares.len();
        if !self.load_check || simulators == 1 {
            return simulators;
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut inner = crate::lock(&self.inner);
        let n = crate::machine_load::concurrent_trials(simulators, cores, inner.stats.others_cores);
        if n < simulators {
            inner.stats.busy_machine_batches += 1;
        }
        n
    }
    /// Chooses who keeps the bounds.
    pub fn with_bound_handling(mut self, b: BoundHandling) -> Self {
        self.bound_handling = b;
        self
    }
    /// Who keeps the bounds.
    pub fn bound_handling(&self) -> BoundHandling {
        self.bound_handling
    }
    /// The regularization residual's coefficient `√λ ρ` and `w_ref`.
    fn reg(&self) -> Option<(f64, Vec<f64>)> {
        self.regularization.as_ref().map(|(lambda, z_ref)| {
            let rho = self
                .transform_bounds()
                .map_or(1.0, |(lo, hi)| 0.5 * (hi - lo));
            (lambda.sqrt() * rho, self.w_of(z_ref))
        })
    }
    /// Bounds enforced by the transform, if any.
    pub(crate) fn transform_bounds(&self) -> Option<(f64, f64)> {
        match self.bound_handling {
            BoundHandling::Transform => self.map.bounds(),
            BoundHandling::Solver => None,
        }
    }
    /// The control map.
    pub fn map(&self) -> &ControlMap {
        &self.map
    }
    /// Base parameters (uncontrolled channels).
    pub fn base(&self) -> &[f64] {
        &self.base
    }
    /// Work counters so far.
    pub fn stats(&self) -> ShootingStats {
        crate::lock(&self.inner).stats.clone()
    }
    /// `z` from the solver's variable `w` (identity without bounds).
    pub fn z_of(&self, w: &[f64]) -> Vec<f64> {
        z_from_w(self.transform_bounds(), w)
    }
    /// `dz/dw` entrywise.
    fn dz_dw(&self, w: &[f64]) -> Vec<f64> {
        match self.transform_bounds() {
            None => vec![1.0; w.len()],
            Some((lo, hi)) => {
                let r = 0.5 * (hi - lo);
                w.iter()
                    .map(|w| {
                        let t = w.tanh();
                        r * (1.0 - t * t)
                    })
                    .collect()
            }
        }
    }
    /// The solver's variable for a feasible `z` (values on or outside the
    /// bounds are pulled 0.1 % inside).
    pub fn w_of(&self, z: &[f64]) -> Vec<f64> {
        match self.transform_bounds() {
            None => z.to_vec(),
            Some((lo, hi)) => {
                let (m, r) = (0.5 * (lo + hi), 0.5 * (hi - lo));
                z.iter()
                    .map(|z| ((z - m) / r).clamp(-0.999, 0.999).atanh())
                    .collect()
            }
        }
    }
    /// Rolls out the controls `z` (not `w`) and returns the trajectory.
    pub fn rollout_z(&self, z: &[f64]) -> Result<Trajectory> {
        let p = self.map.params(&self.base, z)?;
        let mut inner = crate::lock(&self.inner);
        let t0 = Instant::now();
        let tr = rollout(&mut inner.sim, &self.x0, &self.v0, &p, self.memory)?;
        inner.stats.rollouts += 1;
        inner.stats.steps += tr.steps();
        inner.stats.newton_iterations += tr.newton_iterations.iter().sum::<usize>();
        inner.stats.rollout_seconds += t0.elapsed().as_secs_f64();
        Ok(tr)
    }
    fn reg_residuals(&self, w: &[f64], r: &mut Vec<f64>) {
        if let Some((c, wr)) = &self.reg() {
            r.extend(w.iter().zip(wr).map(|(w, wr)| c * (w - wr)));
        }
    }
    /// Residuals at `w` (rolled out once per distinct `w`, then cached).
    pub fn residuals(&self, w: &[f64]) -> Result<Vec<f64>> {
        {
            let inner = crate::lock(&self.inner);
            if let Some((cw, _, r)) = &inner.cache
                && cw == w
            {
                return Ok(r.clone());
            }
        }
        let z = self.z_of(w);
        let ticks = CpuTicks::now();
        let tr = self.rollout_z(&z)?;
        let mut r = residuals(&tr, &self.base, &self.objectives);
        self.reg_residuals(w, &mut r);
        let mut inner = crate::lock(&self.inner);
        inner.note_load(ticks);
        inner.cache = Some((w.to_vec(), tr, r.clone()));
        Ok(r)
    }
    fn with_trajectory<T>(
        &self,
        w: &[f64],
        f: impl FnOnce(&Trajectory, &mut Simulator) -> Result<T>,
    ) -> Result<T> {
        loop {
            self.residuals(w)?;
            let mut inner = crate::lock(&self.inner);
            let Inner { sim, cache, .. } = &mut *inner;
            // Another thread may have replaced the cache in between: check
            // under the same lock that it holds this `w`.
            if let Some((cw, tr, _)) = cache.as_ref()
                && cw == w
            {
                return f(tr, sim);
            }
        }
    }
    /// The trajectory rollouts start their steps near, if any.
    fn reference_of(&self, inner: &Inner) -> Option<Arc<Reference>> {
        if !self.reference_starts {
            return None;
        }
        inner.reference.as_ref().map(|(_, r)| Arc::clone(r))
    }
    /// Makes the trajectory at `w` (cached) the reference of later
    /// rollouts, with its sensitivities when given.
    fn set_reference(&self, w: &[f64], s: Option<crate::gradient::Sensitivities>) {
        if !self.reference_starts {
            return;
        }
        let mut inner = crate::lock(&self.inner);
        let Inner {
            cache, reference, ..
        } = &mut *inner;
        let Some((cw, tr, _)) = cache.as_ref().filter(|(cw, _, _)| cw == w) else {
            return;
        };
        if s.is_none() && reference.as_ref().is_some_and(|(rw, _)| rw == cw) {
            // Keep the sensitivities of a Jacobian at the same point.
            return;
        }
        let s = s.unwrap_or_default();
        *reference = Some((
            w.to_vec(),
            Arc::new(Reference {
                x: tr.x.clone(),
                v: tr.v.clone(),
                z: self.z_of(w),
                s: s.s,
                v_update: s.v_update,
            }),
        ));
    }
    /// The first spare simulator if no trial is using it: it rebuilds step
    /// blocks beside the calling thread in derivative sweeps (the same
    /// blocks, so the same derivatives, with or without it).
    fn idle_spare(&self) -> Option<std::sync::MutexGuard<'_, Simulator>> {
        self.spares.first().and_then(|m| match m.try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        })
    }
    /// Residual Jacobian `∂r/∂w` (row-major `rows × nz`) by forward sensitivity.
    pub fn jacobian(&self, w: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
        let t0 = Instant::now();
        let ticks = CpuTicks::now();
        let (mut r, mut jac, sens) = self.with_trajectory(w, |tr, sim| {
            let mut spare = self.idle_spare();
            // Keep `S_k` for later rollouts' start guesses when they fit.
            let bytes = 4 * tr.x[0].len() * self.map.nz() * tr.steps();
            let mut sens = (self.reference_starts && bytes <= SENSITIVITY_BYTES)
                .then(crate::gradient::Sensitivities::default);
            let (r, jac) = crate::gradient::jacobian_forward_helped(
                tr,
                sim,
                spare.as_deref_mut(),
                &self.map,
                &self.base,
                &self.objectives,
                sens.as_mut(),
            )?;
            Ok((r, jac, sens))
        })?;
        self.set_reference(w, sens);
        let nz = self.map.nz();
        // ∂r/∂w = ∂r/∂z · dz/dw.
        let d = self.dz_dw(w);
        for row in jac.chunks_mut(nz) {
            for j in 0..nz {
                row[j] *= d[j];
            }
        }
        if let Some((c, _)) = &self.reg() {
            let row0 = r.len();
            self.reg_residuals(w, &mut r);
            jac.resize(r.len() * nz, 0.0);
            for j in 0..nz {
                jac[(row0 + j) * nz + j] = *c;
            }
        }
        let g = crate::gradient::jt_r(&jac, &r, nz);
        let mut inner = crate::lock(&self.inner);
        inner.note_load(ticks);
        inner.stats.jacobians += 1;
        inner.stats.derivative_seconds += t0.elapsed().as_secs_f64();
        inner.stats.last_gradient_norm = norm(&g);
        Ok((r, jac))
    }
    /// Cost `½‖r‖²` and its gradient w.r.t. `w` by the adjoint method.
    pub fn gradient(&self, w: &[f64]) -> Result<(f64, Vec<f64>)> {
        let t0 = Instant::now();
        let ticks = CpuTicks::now();
        let (mut r, mut g) = self.with_trajectory(w, |tr, sim| {
            let mut spare = self.idle_spare();
            crate::gradient::gradient_adjoint_helped(
                tr,
                sim,
                spare.as_deref_mut(),
                &self.map,
                &self.base,
                &self.objectives,
            )
        })?;
        self.set_reference(w, None);
        let d = self.dz_dw(w);
        for j in 0..g.len() {
            g[j] *= d[j];
        }
        if let Some((c, wr)) = &self.reg() {
            for j in 0..g.len() {
                g[j] += c * c * (w[j] - wr[j]);
            }
            self.reg_residuals(w, &mut r);
        }
        let mut inner = crate::lock(&self.inner);
        inner.note_load(ticks);
        inner.stats.gradients += 1;
        inner.stats.derivative_seconds += t0.elapsed().as_secs_f64();
        inner.stats.last_gradient_norm = norm(&g);
        Ok((cost(&r), g))
    }
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// `z = m + r tanh(w)` with `m`, `r` the centre and half-width of the
/// transform's bounds `(lo, hi)`; the identity without.
pub(crate) fn z_from_w(bounds: Option<(f64, f64)>, w: &[f64]) -> Vec<f64> {
    match bounds {
        None => w.to_vec(),
        Some((lo, hi)) => {
            let (m, r) = (0.5 * (lo + hi), 0.5 * (hi - lo));
            w.iter().map(|w| m + r * w.tanh()).collect()
        }
    }
}
