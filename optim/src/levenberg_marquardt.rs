//! Levenberg–Marquardt as an argmin solver: Gauss–Newton with an adaptive
//! trust region, for shooting problems whose residuals are far from linear
//! (contact and friction make a full Gauss–Newton step overshoot).
//!
//! Each iteration solves `(JᵀJ + μ D) δ = −Jᵀr` with `D = diag(JᵀJ)`
//! (floored at `1e-12 · max D`), tries `p + δ` and accepts it only if
//! `½‖r‖²` decreases (so the objective decreases monotonically). The gain
//! ratio `ρ` = actual / predicted decrease (predicted
//! `−δᵀJᵀr − ½δᵀJᵀJδ`) steers `μ`: divided by 3 when `ρ > 0.75`, doubled
//! when `ρ < 0.25`; a rejected trial multiplies `μ` by 4 and solves again.
//! A trial whose rollout fails (Newton does not converge) counts as no
//! decrease. With bounds, variables on a bound whose gradient pushes
//! outward are held fixed and every trial is projected onto the box, so all
//! iterates are feasible.
//! When the problem evaluates several trials at once
//! ([`TrialCost::concurrent_trials`] > 1), the trials at `μ, 4μ, 16μ, …` are
//! rolled out together and the first that decreases the objective is
//! accepted — the one trying them in turn would accept — so the iterates do
//! not depend on how many run at once; a rejected first trial then costs no
//! extra wall time when a core is free.
//! It stops when a step accepted at the first trial (the model is trusted,
//! the damping did not have to grow) lowers the objective by less than
//! `tol · objective`, or when no trial in `max_trials` decreases it.

use argmin::core::{
    Error, IterState, Jacobian, KV, Operator, Problem, Solver, State, TerminationReason,
    TerminationStatus,
};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

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
}

impl LevenbergMarquardt {
    /// Keeps every parameter in `[lo, hi]`.
    pub fn with_bounds(mut self, lo: f64, hi: f64) -> Self {
        self.bounds = Some((lo, hi));
        self
    }
    /// Initial damping `mu0`, relative tolerance `tol`.
    pub fn new(mu0: f64, tol: f64) -> Self {
        Self {
            mu: mu0,
            tol,
            max_trials: 12,
            bounds: None,
            converged: false,
            stalled: false,
        }
    }
}

/// A problem whose trial cost may stop early once it is certain to exceed
/// the cost to beat (a rollout whose steps so far already cost more), and
/// that may evaluate several trials at once.
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
        // Trial `j` uses damping `μ 4^j`; a batch of `concurrent_trials`
        // consecutive ones is evaluated at once, and the first (lowest `j`)
        // that decreases the objective is taken.
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
                let mu = mu0 * 4f64.powi(j as i32);
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
            // Only a decrease is accepted, so a trial may stop as soon as it
            // costs more than `c0`.
            let costs = problem.problem("operator_count", |o| Ok(o.trial_costs(&ps, c0)))?;
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
                    self.mu = mu0 * 4f64.powi(j as i32);
                    if rho > 0.75 {
                        self.mu = (self.mu / 3.0).max(1e-12);
                    } else if rho < 0.25 {
                        self.mu *= 2.0;
                    }
                    trials = j + 1;
                    accepted = Some((trial, ct));
                    break 'search;
                }
            }
            trials += n;
        }
        if accepted.is_none() {
            self.mu = mu0 * 4f64.powi(trials as i32);
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
