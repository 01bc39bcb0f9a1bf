//! Trial rollouts: costs that stop as soon as they exceed a bound, or as
//! soon as their cost so far plus the model's forecast of the remaining
//! steps reaches it, rolled out concurrently on the problem's spare
//! simulators.

use super::Shooting;
use crate::error::{OptimError, Result};
use crate::gradient::{cost, residuals, step_residuals};
use crate::machine_load::CpuTicks;
use crate::trajectory::{Reference, Trajectory};
use pliant_core::Simulator;
use std::time::Instant;

/// A trial rollout: the trajectory, residuals and cost when it ran to the
/// end, whether the forecast stopped it, and its wall time.
struct Trial {
    done: Option<(Trajectory, Vec<f64>, f64)>,
    by_forecast: bool,
    seconds: f64,
}

/// The running test of [`Shooting::with_forecast_cuts`]: a trial's model
/// residuals `m = r + J δ` (ordered by step, then objective, the
/// regularization last) and the model's cost of the steps not rolled out
/// yet.
struct ForecastCut<'a> {
    model: &'a [f64],
    /// Residuals rolled out so far.
    at: usize,
    /// Where the regularization's residuals begin.
    end: usize,
    /// Set once a step's residuals overran the forecast's: the test is off.
    lost: bool,
    /// `½‖m_j‖²` summed over every step `j`, and over the steps so far.
    model_steps: f64,
    model_done: f64,
}

impl<'a> ForecastCut<'a> {
    /// `None` when the vectors do not fit (`n_reg` regularization residuals
    /// last) or the model forecasts no decrease from `current`.
    fn new(current: &[f64], model: &'a [f64], n_reg: usize) -> Option<Self> {
        if current.len() != model.len() || n_reg > current.len() {
            return None;
        }
        let end = current.len() - n_reg;
        (cost(current) > cost(model)).then(|| Self {
            model,
            at: 0,
            end,
            lost: false,
            model_steps: cost(&model[..end]),
            model_done: 0.0,
        })
    }
    /// Takes a step's `n` residuals, after which the trial's cost (its
    /// regularization and steps so far) is `trial_cost`: whether that cost
    /// plus the model's cost of the remaining steps reaches `bound`.
    /// `false` from then on when the residuals overrun the forecast's (a
    /// layout it does not know).
    fn give_up(&mut self, n: usize, trial_cost: f64, bound: f64) -> bool {
        let to = self.at + n;
        if self.lost || to > self.end {
            self.lost = true;
            return false;
        }
        self.model_done += cost(&self.model[self.at..to]);
        self.at = to;
        let rest = (self.model_steps - self.model_done).max(0.0);
        trial_cost + rest >= bound
    }
}
impl Shooting {
    /// The cost `½‖r(w)‖²` if it is below `bound`, `None` otherwise. The
    /// rollout stops as soon as the steps done already cost more than
    /// `bound` (every residual is a per-step square, so the cost only grows
    /// along the rollout): a rejected trial costs less than a rollout. A
    /// finished rollout is cached like [`Shooting::residuals`].
    ///
    /// Trials start each step's Newton solve near the trajectory where a
    /// derivative was last taken, linearly predicted for `w` when that was
    /// a Jacobian (see [`Shooting::with_reference_starts`]): their cost
    /// agrees with [`Shooting::residuals`]' within the Newton tolerance,
    /// not bit for bit. [`Shooting::residuals`] always starts where
    /// [`NewtonStart`](pliant_core::NewtonStart) says, so finite
    /// differences of it never see a linear prediction.
    pub fn cost_below(&self, w: &[f64], bound: f64) -> Result<Option<f64>> {
        self.costs_below(&[w.to_vec()], bound)
            .pop()
            .expect("one trial, one result")
    }
    /// [`Shooting::cost_below`] for several points, rolled out concurrently
    /// on the problem's simulator and its spares
    /// ([`Shooting::with_spare_simulators`]; in rounds when there are more
    /// points than simulators). The first point (in order) whose cost is
    /// below `bound` is cached — the one a solver trying them in order
    /// would accept.
    pub fn costs_below(&self, ws: &[Vec<f64>], bound: f64) -> Vec<Result<Option<f64>>> {
        self.costs_below_forecast(ws, bound, None)
    }
    /// [`Shooting::costs_below`], each trial also given up when its cost so
    /// far plus `forecast`'s cost of its remaining steps reaches `bound`
    /// (`forecast`: the current point's residuals and each point's model
    /// residuals; see [`Shooting::with_forecast_cuts`]).
    pub(crate) fn costs_below_forecast(
        &self,
        ws: &[Vec<f64>],
        bound: f64,
        forecast: Option<(&[f64], &[&[f64]])>,
    ) -> Vec<Result<Option<f64>>> {
        let expected = |i: usize| -> Option<(&[f64], &[f64])> {
            let (current, models) = forecast.filter(|_| self.forecast_cuts)?;
            Some((current, models.get(i)?))
        };
        let mut out: Vec<Option<Result<Option<f64>>>> = Vec::with_capacity(ws.len());
        {
            let inner = crate::lock(&self.inner);
            for w in ws {
                out.push(match &inner.cache {
                    Some((cw, _, r)) if cw == w => {
                        let c = cost(r);
                        Some(Ok((c < bound).then_some(c)))
                    }
                    _ => None,
                });
            }
        }
        let todo: Vec<usize> = (0..ws.len()).filter(|&i| out[i].is_none()).collect();
        let mut cache_set = out.iter().any(|o| matches!(o, Some(Ok(Some(_)))));
        for round in todo.chunks(1 + self.spares.len()) {
            let mut inner = crate::lock(&self.inner);
            let reference = self.reference_of(&inner);
            let reference = reference.as_deref();
            let ticks = CpuTicks::now();
            let results: Vec<Result<Trial>> = std::thread::scope(|scope| {
                let handles: Vec<_> = round[1..]
                    .iter()
                    .zip(&self.spares)
                    .map(|(&i, spare)| {
                        let w = &ws[i];
                        let expected = expected(i);
                        scope.spawn(move || {
                            // A simulator whose last rollout panicked is still
                            // usable: every rollout starts with `set_state`.
                            let mut sim = spare.lock().unwrap_or_else(|e| e.into_inner());
                            self.trial_on(&mut sim, w, bound, reference, expected)
                        })
                    })
                    .collect();
                let first = self.trial_on(
                    &mut inner.sim,
                    &ws[round[0]],
                    bound,
                    reference,
                    expected(round[0]),
                );
                std::iter::once(first)
                    .chain(handles.into_iter().map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(OptimError::Solver(
                                "shooting: a trial rollout on a spare simulator panicked".into(),
                            ))
                        })
                    }))
                    .collect()
            });
            inner.note_load(ticks);
            let parallel = round.len() > 1;
            for (&i, res) in round.iter().zip(results) {
                out[i] = Some(res.map(|trial| {
                    let st = &mut inner.stats;
                    st.rollouts += 1;
                    st.rollouts_in_parallel += usize::from(parallel);
                    st.rollout_seconds += trial.seconds;
                    match trial.done {
                        None => {
                            st.rollouts_cut_short += 1;
                            st.rollouts_cut_by_forecast += usize::from(trial.by_forecast);
                            None
                        }
                        Some((tr, r, c)) => {
                            st.steps += tr.steps();
                            st.newton_iterations += tr.newton_iterations.iter().sum::<usize>();
                            let below = c < bound;
                            if !cache_set && (below || ws.len() == 1) {
                                cache_set = below;
                                inner.cache = Some((ws[i].clone(), tr, r));
                            }
                            below.then_some(c)
                        }
                    }
                }));
            }
        }
        out.into_iter()
            .map(|o| o.expect("every point evaluated"))
            .collect()
    }
    /// One trial rollout on `sim` (see [`Shooting::cost_below`]), given up
    /// early also when `expected` (the current point's residuals and the
    /// trial's model residuals) says it cannot end below `bound`.
    fn trial_on(
        &self,
        sim: &mut Simulator,
        w: &[f64],
        bound: f64,
        reference: Option<&Reference>,
        expected: Option<(&[f64], &[f64])>,
    ) -> Result<Trial> {
        let mut reg = Vec::new();
        self.reg_residuals(w, &mut reg);
        let c_reg = cost(&reg);
        let z = self.z_of(w);
        let p = self.map.params(&self.base, &z)?;
        let t0 = Instant::now();
        let mut acc = c_reg;
        let mut cut = expected.and_then(|(r, m)| ForecastCut::new(r, m, reg.len()));
        let mut by_forecast = false;
        let mut step = Vec::new();
        let (base, objectives) = (&self.base, &self.objectives);
        let done = crate::trajectory::rollout_near(
            sim,
            &self.x0,
            &self.v0,
            &p,
            self.memory,
            reference.map(|r| (r, z.as_slice())),
            |tr, k| {
                step.clear();
                acc += step_residuals(tr, base, objectives, k, &mut step);
                if acc >= bound {
                    return false;
                }
                if let Some(cut) = cut.as_mut()
                    && cut.give_up(step.len(), acc, bound)
                {
                    by_forecast = true;
                    return false;
                }
                true
            },
        )?;
        let done = done.map(|tr| {
            let mut r = residuals(&tr, &self.base, &self.objectives);
            r.extend(reg);
            let c = cost(&r);
            (tr, r, c)
        });
        Ok(Trial {
            done,
            by_forecast,
            seconds: t0.elapsed().as_secs_f64(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forecast_cut_adds_the_models_remaining_steps_to_the_cost_so_far() {
        // Two steps of two residuals, one regularization residual last.
        let current = [1.0, 1.0, 2.0, 2.0, 0.5];
        // The model forecasts the first step to vanish, the second to halve.
        let model = [0.0, 0.0, 1.0, 1.0, 0.5];
        assert!(ForecastCut::new(&current, &model[..4], 1).is_none());
        assert!(
            ForecastCut::new(&current, &current, 1).is_none(),
            "no decrease"
        );
        assert!(
            ForecastCut::new(&model, &current, 1).is_none(),
            "an increase"
        );
        let reg = 0.125; // ½ 0.5²
        let bound = reg + 5.0; // the current point's cost
        let mut cut = ForecastCut::new(&current, &model, 1).unwrap();
        assert_eq!(cut.model_steps, 1.0);
        // After the first step the model's second step costs 1: a trial
        // whose first step cost 3.9 may still end below 5.125...
        assert!(!cut.give_up(2, reg + 3.9, bound));
        // ...and one whose first step cost 4 cannot unless it beats the
        // model on the second step.
        let mut cut = ForecastCut::new(&current, &model, 1).unwrap();
        assert!(cut.give_up(2, reg + 4.0, bound));
        // After the last step the test is the bound itself.
        let mut cut = ForecastCut::new(&current, &model, 1).unwrap();
        assert!(!cut.give_up(2, reg, bound));
        assert!(!cut.give_up(2, bound - 1e-9, bound));
        assert!(cut.give_up(0, bound, bound));
        // Residuals beyond the forecast's steps (another layout): never.
        let mut cut = ForecastCut::new(&current, &model, 1).unwrap();
        assert!(!cut.give_up(5, 1e9, bound));
        assert!(!cut.give_up(2, 1e9, bound));
    }
}
