//! Levenberg–Marquardt as an argmin solver: Gauss–Newton with an adaptive
//! trust region, for shooting problems whose residuals are far from linear
//! (contact and friction make a full Gauss–Newton step overshoot).
//!
//! Each iteration solves `(JᵀJ + μ D) δ = −Jᵀr` with `D = diag(JᵀJ)`
//! (floored at `1e-12 · max D`), tries `p + δ` and accepts it only if
//! `½‖r‖²` decreases (so the objective decreases monotonically). The gain
//! ratio `ρ` = actual / predicted decrease (predicted
//! `−δᵀJᵀr − ½δᵀJᵀJδ`) steers `μ` as [`Damping`] says: by default
//! (Nielsen's update) `μ · max(1/3, 1 − (2ρ − 1)³)` after an accepted
//! trial, and a rejected one multiplies `μ` by 2, 4, 8, … and solves
//! again; [`Damping::Marquardt`] takes Marquardt's fixed steps instead.
//! A trial whose rollout fails (Newton does not converge) counts as no
//! decrease. With bounds, variables on a bound whose gradient pushes
//! outward are held fixed and every trial is projected onto the box, so all
//! iterates are feasible.
//! When the problem evaluates several trials at once
//! ([`TrialCost::concurrent_trials`] > 1), the trials at `μ, 2μ, 8μ, 64μ, …`
//! (Marquardt's: `μ, 4μ, 16μ, …`) are rolled out together and the first
//! that decreases the objective is accepted — the one trying them in turn
//! would accept — so the iterates do not depend on how many run at once;
//! a rejected first trial then costs no extra wall time when a core is
//! free. Each round hands the problem its Gauss–Newton forecast
//! ([`Forecast`], [`TrialCost::trial_costs_forecast`]); a problem may give
//! up a trial that could be accepted only by beating it (pliant's shooting
//! problems do, see
//! `Shooting::with_forecast_cuts`), which counts as a rejected trial even
//! if its rollout would have ended below the objective.
//! It stops when a step accepted at the first trial (the model is trusted,
//! the damping did not have to grow) lowers the objective by less than
//! `tol · objective`, or when no trial in `max_trials` is accepted.

use argmin::core::{
    Error, IterState, Jacobian, KV, Operator, Problem, Solver, State, TerminationReason,
    TerminationStatus,
};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// How the damping `μ` follows the trials of a Levenberg–Marquardt
/// iteration. Both start each iteration at the `μ` the last one left and
/// accept the first trial that lowers the objective; they differ in how far
/// `μ` moves.
///
/// Measured on the Puppy (`cargo bench --bench gait_iteration -- run
/// iters=25 [marquardt]`, 2026-12-05): from the default seed Nielsen's
/// update reached an objective of 45.1 in 25 iterations where Marquardt's
/// stalled at 59.3 (`μ` stuck near 340 after a run of small gains), and the
/// 60.4 that Marquardt's reached in 10 iterations 1.4× sooner; see
/// `docs/benchmarks.md`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Damping {
    /// Nielsen's update (the default; Madsen, Nielsen & Tingleff, *Methods
    /// for Non-Linear Least Squares Problems*, 2004, §3.2): after an
    /// accepted trial with gain ratio `ρ`, `μ · max(1/3, 1 − (2ρ − 1)³)`,
    /// so `μ` shrinks as far as the model predicted the decrease well; a
    /// rejected trial multiplies `μ` by `ν`, which starts at 2 and doubles
    /// with every rejection (trial `j` of an iteration, from 0, at
    /// `2^{j(j+1)/2} μ`: `μ, 2μ, 8μ, 64μ, …`).
    #[default]
    Nielsen,
    /// Marquardt's steps (pliant's rule before 2026-12-05, which the gaits
    /// of `docs/results.md` dated before then were optimized with): after
    /// an accepted trial, `μ/3` when `ρ > 0.75`, `2μ` when `ρ < 0.25`, else
    /// unchanged; trial `j` at `4^j μ`.
    Marquardt,
}

impl Damping {
    /// The damping of trial `j` (from 0) of an iteration that starts at `mu0`.
    fn trial(self, mu0: f64, j: usize) -> f64 {
        match self {
            Damping::Marquardt => mu0 * 4f64.powi(j as i32),
            Damping::Nielsen => mu0 * 2f64.powi((j * (j + 1) / 2) as i32),
        }
    }
    /// The next iteration's damping after accepting a trial damped by `mu`
    /// with gain ratio `rho` (a decrease is floored at `1e-12`).
    fn after(self, mu: f64, rho: f64) -> f64 {
        match self {
            Damping::Marquardt if rho > 0.75 => (mu / 3.0).max(1e-12),
            Damping::Marquardt if rho < 0.25 => mu * 2.0,
            Damping::Marquardt => mu,
            Damping::Nielsen => (mu * (1.0 - (2.0 * rho - 1.0).powi(3)).max(1.0 / 3.0)).max(1e-12),
        }
    }
}

/// The solver's settings and adaptive damping (serialized in checkpoints).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevenbergMarquardt {
    /// Damping `μ`.
    pub mu: f64,
    /// Relative decrease below which the run has converged.
    pub tol: f64,
    /// Trials per iteration before giving up.
    pub max_trials: usize,
    /// Box on every parameter.
    pub bounds: Option<(f64, f64)>,
    converged: bool,
    stalled: bool,
    /// How `μ` follows the trials (last, so that a checkpoint written
    /// before this setting existed fails to load instead of being misread).
    pub damping: Damping,
}

impl LevenbergMarquardt {
    /// Keeps every parameter in `[lo, hi]`.
    pub fn with_bounds(mut self, lo: f64, hi: f64) -> Self {
        self.bounds = Some((lo, hi));
        self
    }
    /// Moves `μ` by `damping` ([`Damping::Nielsen`] unless set).
    pub fn with_damping(mut self, damping: Damping) -> Self {
        self.damping = damping;
        self
    }
    /// Initial damping `mu0`, relative tolerance `tol`.
    pub fn new(mu0: f64, tol: f64) -> Self {
        Self {
            mu: mu0,
            damping: Damping::default(),
            tol,
            max_trials: 12,
            bounds: None,
            converged: false,
            stalled: false,
        }
    }
}

/// What the Gauss–Newton model expects of a round of trial points: the
/// residuals `r` at the current point and, for each trial `p + δ`, the
/// linearized residuals `r + J δ` (the model whose decrease the gain ratio
/// compares with the actual one).
#[derive(Debug, Clone, Copy)]
pub struct Forecast<'a> {
    /// `r` at the current point.
    pub current: &'a DVector<f64>,
    /// `r + J δ`, one per trial point, in order.
    pub models: &'a [DVector<f64>],
}

/// A problem whose trial cost may stop early once it is certain to exceed
/// the cost to beat (a rollout whose steps so far already cost more) or,
/// given a [`Forecast`], once it could beat it only by beating the model,
/// and that may evaluate several trials at once.
pub trait TrialCost {
    /// `Some(½‖r(p)‖²)` when it is below `bound`, `None` otherwise.
    fn trial_cost(&self, p: &DVector<f64>, bound: f64) -> Result<Option<f64>, Error>;
    /// How many trials [`TrialCost::trial_costs`] evaluates concurrently
    /// (1: one after the other).
    fn concurrent_trials(&self) -> usize {
        1
    }
    /// [`TrialCost::trial_cost`] of each point, in order.
    fn trial_costs(&self, ps: &[DVector<f64>], bound: f64) -> Vec<Result<Option<f64>, Error>> {
        ps.iter().map(|p| self.trial_cost(p, bound)).collect()
    }
    /// [`TrialCost::trial_costs`] with what the model expects of each
    /// point. A problem whose residuals come in the order it computes them
    /// (a rollout's, step by step) may also give up on a trial whose
    /// residuals so far, with the model's cost of the residuals still to
    /// come, already cost `bound` (see [`Shooting`](crate::Shooting)'s
    /// trials); by default the forecast is ignored.
    fn trial_costs_forecast(
        &self,
        ps: &[DVector<f64>],
        bound: f64,
        forecast: Forecast<'_>,
    ) -> Vec<Result<Option<f64>, Error>> {
        let _ = forecast;
        self.trial_costs(ps, bound)
    }
}

fn half_sq(r: &DVector<f64>) -> f64 {
    0.5 * r.norm_squared()
}

impl<O> Solver<O, IterState<DVector<f64>, (), DMatrix<f64>, (), (), f64>> for LevenbergMarquardt
where
    O: Operator<Param = DVector<f64>, Output = DVector<f64>>
        + Jacobian<Param = DVector<f64>, Jacobian = DMatrix<f64>>
        + TrialCost,
{
    fn name(&self) -> &str {
        "Levenberg-Marquardt"
    }

    fn init(
        &mut self,
        problem: &mut Problem<O>,
        state: IterState<DVector<f64>, (), DMatrix<f64>, (), (), f64>,
    ) -> Result<
        (
            IterState<DVector<f64>, (), DMatrix<f64>, (), (), f64>,
            Option<KV>,
        ),
        Error,
    > {
        // The starting objective, so that a zero-iteration run reports it.
        let p = state
            .get_param()
            .cloned()
            .ok_or_else(|| Error::msg("Levenberg-Marquardt needs an initial parameter vector"))?;
        let c = half_sq(&problem.apply(&p)?);
        Ok((state.cost(c), None))
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<O>,
        mut state: IterState<DVector<f64>, (), DMatrix<f64>, (), (), f64>,
    ) -> Result<
        (
            IterState<DVector<f64>, (), DMatrix<f64>, (), (), f64>,
            Option<KV>,
        ),
        Error,
    > {
        let p = state
            .take_param()
            .ok_or_else(|| Error::msg("Levenberg-Marquardt needs an initial parameter vector"))?;
        let r = problem.apply(&p)?;
        let j = problem.jacobian(&p)?;
        let c0 = half_sq(&r);
        let jt = j.transpose();
        let jtj = &jt * &j;
        let g = &jt * &r;
        let dmax = jtj.diagonal().max().max(f64::MIN_POSITIVE);
        let d: Vec<f64> = jtj.diagonal().iter().map(|v| v.max(1e-12 * dmax)).collect();
        // Active bounds: on the box face with the descent direction pointing out.
        let active: Vec<bool> = (0..p.len())
            .map(|i| match self.bounds {
                None => false,
                Some((lo, hi)) => {
                    let tol = 1e-12 * (hi - lo);
                    (p[i] <= lo + tol && g[i] > 0.0) || (p[i] >= hi - tol && g[i] < 0.0)
                }
            })
            .collect();
        // Trial `j` uses damping `Damping::trial(μ, j)`; a batch of
        // `concurrent_trials` consecutive ones is evaluated at once, and the
        // first (lowest `j`) that decreases the objective is taken.
        let batch = problem
            .problem
            .as_ref()
            .map_or(1, |o| o.concurrent_trials())
            .max(1);
        let mut trials = 0;
        let mut accepted: Option<(DVector<f64>, f64)> = None;
        let mu0 = self.mu;
        'search: while trials < self.max_trials {
            let n = batch.min(self.max_trials - trials);
            // `(j, trial point)` for the trials whose system is solvable.
            let mut points: Vec<(usize, DVector<f64>)> = Vec::with_capacity(n);
            for j in trials..trials + n {
                let mu = self.damping.trial(mu0, j);
                let mut a = jtj.clone();
                let mut rhs = -&g;
                for i in 0..d.len() {
                    a[(i, i)] += mu * d[i];
                    if active[i] {
                        a.row_mut(i).fill(0.0);
                        a.column_mut(i).fill(0.0);
                        a[(i, i)] = 1.0;
                        rhs[i] = 0.0;
                    }
                }
                let Some(step) = a.cholesky().map(|c| c.solve(&rhs)) else {
                    continue;
                };
                let mut trial = &p + &step;
                if let Some((lo, hi)) = self.bounds {
                    trial.iter_mut().for_each(|v| *v = v.clamp(lo, hi));
                }
                points.push((j, trial));
            }
            let ps: Vec<DVector<f64>> = points.iter().map(|(_, t)| t.clone()).collect();
            let models: Vec<DVector<f64>> = ps.iter().map(|t| &r + &j * (t - &p)).collect();
            debug_assert_eq!(models.len(), ps.len());
            let forecast = Forecast {
                current: &r,
                models: &models,
            };
            // Only a decrease is accepted, so a trial may stop as soon as it
            // costs more than `c0`.
            let costs = problem.problem("operator_count", |o| {
                Ok(o.trial_costs_forecast(&ps, c0, forecast))
            })?;
            // One evaluation per trial point.
            if let Some(c) = problem.counts.get_mut("operator_count") {
                *c += ps.len().saturating_sub(1) as u64;
            }
            for ((j, trial), ct) in points.into_iter().zip(costs) {
                let ct = match ct {
                    Ok(Some(c)) => c,
                    Ok(None) => f64::INFINITY,
                    Err(e) => {
                        log::info!("Levenberg-Marquardt: trial rejected ({e})");
                        f64::INFINITY
                    }
                };
                if ct.is_finite() && ct < c0 {
                    let delta = &trial - &p;
                    let predicted = -delta.dot(&g) - 0.5 * delta.dot(&(&jtj * &delta));
                    let rho = (c0 - ct) / predicted.max(f64::MIN_POSITIVE);
                    self.mu = self.damping.after(self.damping.trial(mu0, j), rho);
                    trials = j + 1;
                    accepted = Some((trial, ct));
                    break 'search;
                }
            }
            trials += n;
        }
        if accepted.is_none() {
            self.mu = self.damping.trial(mu0, trials);
        }
        let kv = argmin::kv!("mu" => self.mu; "trials" => trials as u64;);
        match accepted {
            Some((trial, ct)) => {
                self.converged = trials == 1 && c0 - ct < self.tol * c0;
                Ok((state.param(trial).cost(ct).jacobian(j), Some(kv)))
            }
            None => {
                self.stalled = true;
                Ok((state.param(p).cost(c0).jacobian(j), Some(kv)))
            }
        }
    }

    fn terminate(
        &mut self,
        _state: &IterState<DVector<f64>, (), DMatrix<f64>, (), (), f64>,
    ) -> TerminationStatus {
        if self.converged {
            TerminationStatus::Terminated(TerminationReason::SolverConverged)
        } else if self.stalled {
            TerminationStatus::Terminated(TerminationReason::SolverExit(
                "no decrease within the trial budget".into(),
            ))
        } else {
            TerminationStatus::NotTerminated
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A round's forecast as handed over: `r`, then each trial point with
    /// its model residuals.
    type Round = (DVector<f64>, Vec<(DVector<f64>, DVector<f64>)>);

    /// Rosenbrock's valley as residuals, `r = (10 (y − x²), 1 − x)`, with
    /// `n` trials evaluated per batch; counts the trials.
    struct Valley {
        batch: usize,
        trials: std::cell::Cell<usize>,
        /// Every forecast handed to a round of trials.
        forecasts: std::cell::RefCell<Vec<Round>>,
    }
    impl Operator for Valley {
        type Param = DVector<f64>;
        type Output = DVector<f64>;
        fn apply(&self, p: &DVector<f64>) -> Result<DVector<f64>, Error> {
            Ok(DVector::from_vec(vec![
                10.0 * (p[1] - p[0] * p[0]),
                1.0 - p[0],
            ]))
        }
    }
    impl Jacobian for Valley {
        type Param = DVector<f64>;
        type Jacobian = DMatrix<f64>;
        fn jacobian(&self, p: &DVector<f64>) -> Result<DMatrix<f64>, Error> {
            Ok(DMatrix::from_row_slice(
                2,
                2,
                &[-20.0 * p[0], 10.0, -1.0, 0.0],
            ))
        }
    }
    impl TrialCost for Valley {
        fn trial_cost(&self, p: &DVector<f64>, bound: f64) -> Result<Option<f64>, Error> {
            self.trials.set(self.trials.get() + 1);
            let c = half_sq(&self.apply(p)?);
            Ok((c < bound).then_some(c))
        }
        fn concurrent_trials(&self) -> usize {
            self.batch
        }
        fn trial_costs_forecast(
            &self,
            ps: &[DVector<f64>],
            bound: f64,
            forecast: Forecast<'_>,
        ) -> Vec<Result<Option<f64>, Error>> {
            let trials = ps.iter().cloned().zip(forecast.models.iter().cloned());
            self.forecasts
                .borrow_mut()
                .push((forecast.current.clone(), trials.collect()));
            self.trial_costs(ps, bound)
        }
    }

    /// The iterates (parameters after each iteration) and the trials taken.
    fn run(damping: Damping, batch: usize, iters: u64) -> (Vec<DVector<f64>>, Vec<f64>, usize) {
        let (path, costs, valley) = run_valley(damping, batch, iters);
        (path, costs, valley.trials.get())
    }

    /// [`run`], with the problem as it ended.
    fn run_valley(
        damping: Damping,
        batch: usize,
        iters: u64,
    ) -> (Vec<DVector<f64>>, Vec<f64>, Valley) {
        let mut problem = Problem::new(Valley {
            batch,
            trials: std::cell::Cell::new(0),
            forecasts: Default::default(),
        });
        let mut solver = LevenbergMarquardt::new(1.0, 1e-14).with_damping(damping);
        let start: IterState<DVector<f64>, (), DMatrix<f64>, (), (), f64> =
            IterState::new().param(DVector::from_vec(vec![-1.2, 1.0]));
        let (mut state, _) = solver.init(&mut problem, start).unwrap();
        let (mut path, mut costs) = (Vec::new(), Vec::new());
        for _ in 0..iters {
            (state, _) = solver.next_iter(&mut problem, state).unwrap();
            path.push(state.get_param().unwrap().clone());
            costs.push(state.get_cost());
            if solver.converged || solver.stalled {
                break;
            }
        }
        (path, costs, problem.take_problem().unwrap())
    }

    #[test]
    fn each_trial_is_handed_its_gauss_newton_model() {
        let (_, _, valley) = run_valley(Damping::Nielsen, 2, 10);
        let forecasts = valley.forecasts.into_inner();
        assert!(forecasts.len() >= 10, "{} rounds", forecasts.len());
        let mut checked = 0;
        for (r, trials) in &forecasts {
            // The current point, recovered from `r = (10 (y − x²), 1 − x)`.
            let x = 1.0 - r[1];
            let p = DVector::from_vec(vec![x, r[0] / 10.0 + x * x]);
            let j = DMatrix::from_row_slice(2, 2, &[-20.0 * x, 10.0, -1.0, 0.0]);
            for (trial, model) in trials {
                let want = r + &j * (trial - &p);
                assert!(
                    (model - &want).norm() <= 1e-9 * (1.0 + want.norm()),
                    "model {model} against r + J δ = {want}"
                );
                checked += 1;
            }
        }
        assert!(checked >= 20, "{checked} trials checked");
    }

    #[test]
    fn both_dampings_walk_the_valley_to_its_minimum_monotonically() {
        for damping in [Damping::Marquardt, Damping::Nielsen] {
            let (path, costs, _) = run(damping, 1, 200);
            let end = path.last().unwrap();
            assert!(
                (end[0] - 1.0).abs() < 1e-6 && (end[1] - 1.0).abs() < 1e-6,
                "{damping:?} ended at {end}"
            );
            // Only decreases are accepted.
            let start = 0.5 * (100.0 * (1.0f64 - 1.44).powi(2) + 2.2f64.powi(2));
            let mut last = start;
            for c in &costs {
                assert!(*c <= last, "{damping:?}: the cost rose from {last} to {c}");
                last = *c;
            }
        }
    }

    #[test]
    fn concurrent_trials_give_the_iterates_of_trials_in_turn() {
        for damping in [Damping::Marquardt, Damping::Nielsen] {
            let (one, _, trials) = run(damping, 1, 40);
            // Some iteration needed more than one trial, so batches matter.
            assert!(trials > one.len(), "{damping:?}: no trial was rejected");
            for batch in [2, 3] {
                let (many, _, _) = run(damping, batch, 40);
                assert_eq!(one, many, "{damping:?}, {batch} trials at once");
            }
        }
    }

    #[test]
    fn nielsen_follows_the_gain_ratio() {
        let d = Damping::Nielsen;
        let mu = 6.0;
        // Trials of one iteration: μ, 2μ, 8μ, 64μ.
        let seq: Vec<f64> = (0..4).map(|j| d.trial(mu, j)).collect();
        assert_eq!(seq, vec![6.0, 12.0, 48.0, 384.0]);
        // A perfect model divides by 3; ρ = ½ keeps μ; a barely accepted
        // trial doubles it.
        assert_eq!(d.after(mu, 1.0), 2.0);
        assert_eq!(d.after(mu, 0.5), 6.0);
        assert!((d.after(mu, 1e-12) - 12.0).abs() < 1e-9);
        assert!((d.after(mu, 0.75) - 6.0 * 0.875).abs() < 1e-12);
        // Marquardt's steps, for comparison.
        let m = Damping::Marquardt;
        assert_eq!(
            (0..3).map(|j| m.trial(mu, j)).collect::<Vec<_>>(),
            vec![6.0, 24.0, 96.0]
        );
        assert_eq!(m.after(mu, 0.9), 2.0);
        assert_eq!(m.after(mu, 0.5), 6.0);
        assert_eq!(m.after(mu, 0.1), 12.0);
    }
}
