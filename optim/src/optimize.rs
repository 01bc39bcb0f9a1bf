//! Running argmin on a [`Shooting`] problem: Gauss–Newton with a
//! backtracking (Armijo) line search on the forward-sensitivity Jacobian, or
//! L-BFGS with a Moré–Thuente line search on the adjoint gradient;
//! per-iteration progress (objective, gradient norm, step, rollouts, time) and
//! checkpoints from which a killed optimization resumes to the same result.

use crate::error::{OptimError, Result};
use crate::levenberg_marquardt::{Damping, LevenbergMarquardt};
use crate::shooting::{BoundHandling, Shooting, ShootingStats, z_from_w};
use argmin::core::checkpointing::{Checkpoint, CheckpointingFrequency};
use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{Error as ArgminError, Executor, IterState, KV, State};
use argmin::solver::gaussnewton::GaussNewtonLS;
use argmin::solver::linesearch::condition::ArmijoCondition;
use argmin::solver::linesearch::{BacktrackingLineSearch, MoreThuenteLineSearch};
use argmin::solver::quasinewton::LBFGS;
use argmin_checkpointing_file::FileCheckpoint;
use nalgebra::{DMatrix, DVector};
use pliant_core::Invalid;
use serde::{Serialize, de::DeserializeOwned};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Which argmin solver to run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// Gauss–Newton with Armijo backtracking; stops when the residual norm
    /// changes by less than `tol` between iterations.
    GaussNewton {
        /// Tolerance on the change of `‖r‖`.
        tol: f64,
    },
    /// Levenberg–Marquardt (adaptive damping, monotone): the robust choice
    /// for gaits; stops when a step lowers the objective by less than
    /// `tol` relative.
    LevenbergMarquardt {
        /// Relative decrease tolerance.
        tol: f64,
        /// How the damping follows the trials.
        damping: Damping,
    },
    /// L-BFGS with `memory` pairs and a Moré–Thuente line search; stops when
    /// the gradient norm is below `tol_grad`.
    Lbfgs {
        /// History length.
        memory: usize,
        /// Gradient-norm tolerance.
        tol_grad: f64,
    },
}

/// Settings of an optimization run.
#[derive(Debug, Clone)]
pub struct OptimizeSettings {
    /// Solver.
    pub method: Method,
    /// Iteration budget.
    pub max_iters: u64,
    /// Checkpoint file `(directory, name)`: saved after every iteration and,
    /// when present at start, resumed from (with this run's `max_iters`).
    pub checkpoint: Option<(PathBuf, String)>,
}

/// One iteration as reported.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct IterationRecord {
    /// Iteration number: 1 after the first iteration (the objective
    /// before any is [`OptimizeResult::initial_objective`]).
    pub iter: u64,
    /// Objective after the iteration (`½‖r‖²`).
    #[serde(deserialize_with = "null_as_nan")]
    pub objective: f64,
    /// Norm of the last gradient computed (w.r.t. the solver variable).
    #[serde(deserialize_with = "null_as_nan")]
    pub gradient_norm: f64,
    /// The iteration's step in the controls: the largest change of any
    /// entry of `z` (its ∞-norm `‖z_k − z_(k−1)‖∞`, in the units of `z`;
    /// m for contracted cable lengths). Zero when the solver kept its point;
    /// NaN if the solver reported no point (none of ours does that).
    #[serde(deserialize_with = "null_as_nan")]
    pub step: f64,
    /// Rollouts so far (line search included; counted across resumes).
    pub rollouts: usize,
    /// Wall time since the start of the optimization, s (across resumes:
    /// the time of the runs before a resume plus this run's).
    #[serde(deserialize_with = "null_as_nan")]
    pub seconds: f64,
}

/// JSON has no NaN (serde_json writes `null`): read `null` back as NaN.
fn null_as_nan<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    use serde::Deserialize;
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// Outcome of [`optimize`].
#[derive(Debug, Clone)]
pub struct OptimizeResult {
    /// Best controls found.
    pub z: Vec<f64>,
    /// Their objective `½‖r‖²`.
    pub objective: f64,
    /// Objective at the start.
    pub initial_objective: f64,
    /// Iterations done (including those before a resume).
    pub iterations: u64,
    /// Why the solver stopped.
    pub termination: String,
    /// Per-iteration records, those before a resume included.
    pub history: Vec<IterationRecord>,
    /// The iteration of the checkpoint this run resumed from, if it did.
    pub resumed_at: Option<u64>,
    /// Work counters of this run.
    pub stats: ShootingStats,
}

impl std::fmt::Display for IterationRecord {
    /// One line: `iteration   3: objective 3.21000e2, |gradient| 9.200e4,
    /// step 1.20e-3, 8 rollouts, 18.5 s`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "iteration {:>3}: objective {:.5e}, |gradient| {:.3e}, step {:.2e}, {} rollouts, {:.1} s",
            self.iter, self.objective, self.gradient_norm, self.step, self.rollouts, self.seconds
        )
    }
}

/// A per-iteration progress callback.
pub type ProgressFn = Box<dyn FnMut(&IterationRecord) + Send>;

struct Progress {
    start: Instant,
    /// Argmin's Gauss–Newton reports `‖r‖`; records hold `½‖r‖²`.
    norm_cost: bool,
    problem_stats: Arc<Mutex<ShootingStats>>,
    history: Arc<Mutex<Vec<IterationRecord>>>,
    callback: Option<ProgressFn>,
    /// Bounds of the `w → z` transform the solver runs on, if any.
    transform: Option<(f64, f64)>,
    /// `z` of the previous iteration (the start, or the resumed point:
    /// [`Resumable`] sets it when it loads a checkpoint).
    last_z: Arc<Mutex<Vec<f64>>>,
    /// What a resumed run continues from (set by [`Resumable`]).
    resumed: Arc<Mutex<Resumed>>,
}

/// Where a resumed run continues: its checkpoint's iteration, and the
/// rollouts and seconds of the runs before it.
#[derive(Debug, Clone, Copy, Default)]
struct Resumed {
    at: Option<u64>,
    rollouts: usize,
    seconds: f64,
}

impl<I: State<Float = f64, Param = DVector<f64>>> Observe<I> for Progress {
    fn observe_iter(&mut self, state: &I, _kv: &KV) -> std::result::Result<(), ArgminError> {
        let st = crate::lock(&self.problem_stats).clone();
        let step = match state.get_param() {
            Some(w) => {
                let z = z_from_w(self.transform, w.as_slice());
                let mut last = crate::lock(&self.last_z);
                let step = z
                    .iter()
                    .zip(last.iter())
                    .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
                *last = z;
                step
            }
            None => f64::NAN,
        };
        let before = *crate::lock(&self.resumed);
        let rec = IterationRecord {
            // argmin counts from 0 and increments after observing.
            iter: state.get_iter() + 1,
            objective: if self.norm_cost {
                0.5 * state.get_cost() * state.get_cost()
            } else {
                state.get_cost()
            },
            gradient_norm: st.last_gradient_norm,
            step,
            rollouts: st.rollouts + before.rollouts,
            seconds: self.start.elapsed().as_secs_f64() + before.seconds,
        };
        log::info!("{rec}");
        if let Some(cb) = self.callback.as_mut() {
            cb(&rec);
        }
        crate::lock(&self.history).push(rec);
        Ok(())
    }
}

/// A file checkpoint that, when resuming, replaces the stored iteration
/// budget by this run's (so a run stopped after `k` iterations can be
/// continued to `n`) and tells the progress observer where it resumes
/// (so the first step after a resume is measured from there). Next to the
/// solver state it keeps the iteration history (`NAME.history.json`), so a
/// resumed run reports every iteration, counters continued.
struct Resumable {
    file: FileCheckpoint,
    history_path: PathBuf,
    max_iters: u64,
    transform: Option<(f64, f64)>,
    last_z: Arc<Mutex<Vec<f64>>>,
    history: Arc<Mutex<Vec<IterationRecord>>>,
    resumed: Arc<Mutex<Resumed>>,
}

/// The history file of checkpoint `name` in `dir`.
pub fn history_path(dir: &std::path::Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.history.json"))
}

type State64<G, J, H, R> = IterState<DVector<f64>, G, J, H, R, f64>;

impl<S, G, J, H, R> Checkpoint<S, State64<G, J, H, R>> for Resumable
where
    S: Serialize + DeserializeOwned,
    State64<G, J, H, R>: Serialize + DeserializeOwned + State<Float = f64, Param = DVector<f64>>,
{
    fn save(
        &self,
        solver: &S,
        state: &State64<G, J, H, R>,
    ) -> std::result::Result<(), ArgminError> {
        // History first: a checkpoint never points past its history.
        let json = serde_json::to_vec(&*crate::lock(&self.history))
            .map_err(|e| ArgminError::msg(e.to_string()))?;
        let tmp = self.history_path.with_extension("json.tmp");
        if let Some(dir) = self.history_path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| ArgminError::msg(format!("{}: {e}", dir.display())))?;
        }
        std::fs::write(&tmp, json)
            .and_then(|_| std::fs::rename(&tmp, &self.history_path))
            .map_err(|e| ArgminError::msg(format!("{}: {e}", self.history_path.display())))?;
        Checkpoint::<S, State64<G, J, H, R>>::save(&self.file, solver, state)
    }
    fn load(&self) -> std::result::Result<Option<(S, State64<G, J, H, R>)>, ArgminError> {
        let loaded = Checkpoint::<S, State64<G, J, H, R>>::load(&self.file)?;
        let Some((solver, st)) = loaded else {
            return Ok(None);
        };
        if let Some(w) = st.get_param() {
            *crate::lock(&self.last_z) = z_from_w(self.transform, w.as_slice());
        }
        // The iterations before the checkpoint (a checkpoint without its
        // history, e.g. from an older pliant, resumes with none).
        let past: Vec<IterationRecord> = match std::fs::read(&self.history_path) {
            Ok(b) => serde_json::from_slice(&b).unwrap_or_else(|e| {
                log::warn!(
                    "{}: unreadable ({e}); the iterations before the resume are not reported",
                    self.history_path.display()
                );
                Vec::new()
            }),
            Err(_) => Vec::new(),
        };
        let past: Vec<IterationRecord> = past
            .into_iter()
            .filter(|r| r.iter <= st.get_iter())
            .collect();
        *crate::lock(&self.resumed) = Resumed {
            at: Some(st.get_iter()),
            rollouts: past.last().map_or(0, |r| r.rollouts),
            seconds: past.last().map_or(0.0, |r| r.seconds),
        };
        *crate::lock(&self.history) = past;
        Ok(Some((solver, st.max_iters(self.max_iters))))
    }
    fn frequency(&self) -> CheckpointingFrequency {
        CheckpointingFrequency::Always
    }
}

/// Minimizes the shooting problem from `z0` (must satisfy the map's
/// bounds). `progress` is called after every iteration.
pub fn optimize(
    problem: Shooting,
    z0: &[f64],
    settings: &OptimizeSettings,
    progress: Option<ProgressFn>,
) -> Result<(OptimizeResult, Shooting)> {
    if z0.len() != problem.map().nz() {
        return Err(OptimError::Size {
            what: "initial keyframe values z0",
            found: z0.len(),
            expected: problem.map().nz(),
        });
    }
    if let Some((lo, hi)) = problem.map().bounds()
        && let Some(z) = z0.iter().find(|z| !(**z >= lo && **z <= hi))
    {
        return Err(Invalid::new("z0", *z, format!("within the bounds [{lo}, {hi}]")).into());
    }
    // Levenberg–Marquardt keeps the bounds itself (projection); the other
    // solvers get the tanh parameterization.
    let problem = problem.with_bound_handling(match settings.method {
        Method::LevenbergMarquardt { .. } => BoundHandling::Solver,
        _ => BoundHandling::Transform,
    });
    let w0 = DVector::from_vec(problem.w_of(z0));
    let lm_bounds = problem.map().bounds();
    let initial_objective = crate::gradient::cost(&problem.residuals(w0.as_slice())?);
    let stats_handle = Arc::new(Mutex::new(ShootingStats::default()));
    let history = Arc::new(Mutex::new(Vec::new()));
    let transform = problem.transform_bounds();
    let last_z = Arc::new(Mutex::new(problem.z_of(w0.as_slice())));
    let resumed = Arc::new(Mutex::new(Resumed::default()));
    let observer = Progress {
        start: Instant::now(),
        norm_cost: matches!(settings.method, Method::GaussNewton { .. }),
        problem_stats: stats_handle.clone(),
        history: history.clone(),
        callback: progress,
        transform,
        last_z: last_z.clone(),
        resumed: resumed.clone(),
    };
    let problem = StatsMirror {
        inner: problem,
        stats: stats_handle,
    };
    let checkpoint = settings.checkpoint.as_ref().map(|(dir, name)| Resumable {
        file: FileCheckpoint::new(
            dir.to_string_lossy().as_ref(),
            name.as_str(),
            CheckpointingFrequency::Always,
        ),
        history_path: history_path(dir, name),
        max_iters: settings.max_iters,
        transform,
        last_z,
        history: history.clone(),
        resumed: resumed.clone(),
    });
    let solver_err = |e: ArgminError| OptimError::Solver(e.to_string());
    let run = Run {
        w0: &w0,
        max_iters: settings.max_iters,
        observer,
        checkpoint,
    };
    let (problem, w, objective, iterations, termination) = match settings.method {
        Method::GaussNewton { tol } => {
            // Halve the step per trial (argmin's default shrinks by 0.9,
            // which costs many rollouts per iteration).
            let ls = BacktrackingLineSearch::new(ArmijoCondition::new(1e-4).map_err(solver_err)?)
                .rho(0.5)
                .map_err(solver_err)?;
            let solver = GaussNewtonLS::new(ls)
                .with_tolerance(tol)
                .map_err(solver_err)?;
            run.execute(problem, solver)?
        }
        Method::LevenbergMarquardt { tol, damping } => {
            let mut solver = LevenbergMarquardt::new(1.0, tol).with_damping(damping);
            if let Some((lo, hi)) = lm_bounds {
                solver = solver.with_bounds(lo, hi);
            }
            run.execute(problem, solver)?
        }
        Method::Lbfgs { memory, tol_grad } => {
            let ls = MoreThuenteLineSearch::new();
            let solver: LBFGS<_, DVector<f64>, DVector<f64>, f64> = LBFGS::new(ls, memory)
                .with_tolerance_grad(tol_grad)
                .map_err(solver_err)?;
            run.execute(problem, solver)?
        }
    };
    let shooting = problem.inner;
    // Gauss–Newton's reported cost is argmin's ‖r‖; report ½‖r‖² uniformly.
    let objective = match settings.method {
        Method::GaussNewton { .. } => 0.5 * objective * objective,
        Method::LevenbergMarquardt { .. } | Method::Lbfgs { .. } => objective,
    };
    let history = crate::lock(&history).clone();
    let resumed_at = crate::lock(&resumed).at;
    Ok((
        OptimizeResult {
            z: shooting.z_of(w.as_slice()),
            objective,
            initial_objective,
            iterations,
            termination,
            history,
            resumed_at,
            stats: shooting.stats(),
        },
        shooting,
    ))
}

/// What every solver's executor gets: start, budget, observer, checkpoint.
struct Run<'a> {
    w0: &'a DVector<f64>,
    max_iters: u64,
    observer: Progress,
    checkpoint: Option<Resumable>,
}

impl Run<'_> {
    /// Runs `solver` on `problem`; returns the problem, the best parameters,
    /// their cost (as the solver reports it), the iteration count and why it
    /// stopped.
    fn execute<S, G, J, H>(
        self,
        problem: StatsMirror,
        solver: S,
    ) -> Result<(StatsMirror, DVector<f64>, f64, u64, String)>
    where
        S: argmin::core::Solver<StatsMirror, IterState<DVector<f64>, G, J, H, (), f64>>
            + Serialize
            + DeserializeOwned
            + 'static,
        IterState<DVector<f64>, G, J, H, (), f64>:
            State<Param = DVector<f64>, Float = f64> + Serialize + DeserializeOwned + 'static,
    {
        let solver_err = |e: ArgminError| OptimError::Solver(e.to_string());
        let w0 = self.w0.clone();
        let max_iters = self.max_iters;
        let mut ex = Executor::new(problem, solver)
            .configure(|s| s.param(w0.clone()).max_iters(max_iters))
            .add_observer(self.observer, ObserverMode::Always);
        if let Some(c) = self.checkpoint {
            ex = ex.checkpointing(c);
        }
        let res = ex.run().map_err(solver_err)?;
        let st = res.state();
        let w = st.get_best_param().cloned().unwrap_or(w0);
        let (obj, it, term) = (
            st.get_best_cost(),
            st.get_iter(),
            st.get_termination_status().to_string(),
        );
        let problem = res
            .problem
            .problem
            .ok_or_else(|| OptimError::Solver("argmin did not return the problem".into()))?;
        Ok((problem, w, obj, it, term))
    }
}

/// Forwards to the problem and mirrors its counters for the observer.
struct StatsMirror {
    inner: Shooting,
    stats: Arc<Mutex<ShootingStats>>,
}

impl StatsMirror {
    fn sync(&self) {
        *crate::lock(&self.stats) = self.inner.stats();
    }
}

impl argmin::core::Operator for StatsMirror {
    type Param = DVector<f64>;
    type Output = DVector<f64>;
    fn apply(&self, w: &Self::Param) -> std::result::Result<Self::Output, ArgminError> {
        let r = argmin::core::Operator::apply(&self.inner, w);
        self.sync();
        r
    }
}
impl argmin::core::Jacobian for StatsMirror {
    type Param = DVector<f64>;
    type Jacobian = DMatrix<f64>;
    fn jacobian(&self, w: &Self::Param) -> std::result::Result<Self::Jacobian, ArgminError> {
        let r = argmin::core::Jacobian::jacobian(&self.inner, w);
        self.sync();
        r
    }
}
impl argmin::core::CostFunction for StatsMirror {
    type Param = DVector<f64>;
    type Output = f64;
    fn cost(&self, w: &Self::Param) -> std::result::Result<f64, ArgminError> {
        let r = argmin::core::CostFunction::cost(&self.inner, w);
        self.sync();
        r
    }
}
impl crate::levenberg_marquardt::TrialCost for StatsMirror {
    fn trial_cost(
        &self,
        w: &DVector<f64>,
        bound: f64,
    ) -> std::result::Result<Option<f64>, ArgminError> {
        let r = self.inner.trial_cost(w, bound);
        self.sync();
        r
    }
    fn concurrent_trials(&self) -> usize {
        crate::levenberg_marquardt::TrialCost::concurrent_trials(&self.inner)
    }
    fn trial_costs(
        &self,
        ws: &[DVector<f64>],
        bound: f64,
    ) -> Vec<std::result::Result<Option<f64>, ArgminError>> {
        let r = self.inner.trial_costs(ws, bound);
        self.sync();
        r
    }
    fn trial_costs_forecast(
        &self,
        ws: &[DVector<f64>],
        bound: f64,
        forecast: crate::levenberg_marquardt::Forecast<'_>,
    ) -> Vec<std::result::Result<Option<f64>, ArgminError>> {
        let r = self.inner.trial_costs_forecast(ws, bound, forecast);
        self.sync();
        r
    }
}
impl argmin::core::Gradient for StatsMirror {
    type Param = DVector<f64>;
    type Gradient = DVector<f64>;
    fn gradient(&self, w: &Self::Param) -> std::result::Result<Self::Gradient, ArgminError> {
        let r = argmin::core::Gradient::gradient(&self.inner, w);
        self.sync();
        r
    }
}
