//! Trial rollouts: costs that stop as soon as they exceed a bound, rolled
//! out concurrently on the problem's spare simulators.

use super::Shooting;
use crate::error::{OptimError, Result};
use crate::gradient::{cost, residuals};
use crate::machine_load::CpuTicks;
use crate::trajectory::{Reference, Trajectory};
use pliant_core::Simulator;
use std::time::Instant;

/// A trial rollout: the trajectory, residuals and cost when it ran to the
/// end, and its wall time.
struct Trial {
    done: Option<(Trajectory, Vec<f64>, f64)>,
    seconds: f64,
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
                        scope.spawn(move || {
                            // A simulator whose last rollout panicked is still
                            // usable: every rollout starts with `set_state`.
                            let mut sim = spare.lock().unwrap_or_else(|e| e.into_inner());
                            self.trial_on(&mut sim, w, bound, reference)
                        })
                    })
                    .collect();
                let first = self.trial_on(&mut inner.sim, &ws[round[0]], bound, reference);
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
    /// One trial rollout on `sim` (see [`Shooting::cost_below`]).
    fn trial_on(
        &self,
        sim: &mut Simulator,
        w: &[f64],
        bound: f64,
        reference: Option<&Reference>,
    ) -> Result<Trial> {
        let mut reg = Vec::new();
        self.reg_residuals(w, &mut reg);
        let c_reg = cost(&reg);
        let z = self.z_of(w);
        let p = self.map.params(&self.base, &z)?;
        let t0 = Instant::now();
        let mut acc = c_reg;
        let (base, objectives) = (&self.base, &self.objectives);
        let done = crate::trajectory::rollout_near(
            sim,
            &self.x0,
            &self.v0,
            &p,
            self.memory,
            reference.map(|r| (r, z.as_slice())),
            |tr, k| {
                acc += crate::gradient::step_cost(tr, base, objectives, k);
                acc < bound
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
            seconds: t0.elapsed().as_secs_f64(),
        })
    }
}
