//! Rollouts that record what differentiation needs.
//!
//! A rollout steps a simulator `K` times from its initial state with one
//! parameter vector `p_k` per step (controls change from step to step). With
//! [`Memory::Store`] it keeps every step's [`StepDerivatives`] (factorized
//! `∂g_k/∂x_k` and the sparse blocks), which is what the sensitivity and
//! adjoint recurrences consume; with [`Memory::Recompute`] it keeps only the
//! states and rebuilds a step's blocks on demand at the stored converged
//! state ([`Simulator::derivatives_at`]: one Hessian assembly and
//! factorization, no Newton solve) — bitwise the same blocks, since what
//! energies carry from step to step (rod frames, [`Energy::carried_state`])
//! is recorded per step and restored first; no memory for factorizations in the
//! forward sweep, and rollouts that only need the objective (line searches)
//! skip the blocks entirely.

use crate::error::{OptimError, Result};
#[cfg(doc)]
use pliant_core::Energy;
use pliant_core::{Simulator, StepDerivatives};

/// What a rollout keeps for differentiation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Memory {
    /// Keep every step's factorization and blocks (fast, memory ∝ K).
    #[default]
    Store,
    /// Keep states only; rebuild a step's blocks when asked (no Newton
    /// solve), so rollouts that only need the objective are cheaper.
    Recompute,
}

/// States of a rollout (index 0 is the initial state) and, optionally, the
/// per-step derivative blocks.
#[derive(Debug, Clone)]
pub struct Trajectory {
    /// Positions `x_0 … x_K` (m, rad).
    pub x: Vec<Vec<f64>>,
    /// Velocities `v_0 … v_K`.
    pub v: Vec<Vec<f64>>,
    /// Parameters of steps `1 … K` (`p[k − 1]` is held over step `k`).
    pub p: Vec<Vec<f64>>,
    /// Times `t_0 … t_K`, s.
    pub t: Vec<f64>,
    /// Newton iterations of each step.
    pub newton_iterations: Vec<usize>,
    /// Sub-steps of each step (more than 1 when the step was halved).
    pub substeps: Vec<usize>,
    derivs: Vec<StepDerivatives>,
    /// What the energies carried at the start of steps `1 … K` (empty when
    /// no energy carries anything).
    carried: Vec<Vec<Vec<f64>>>,
    /// What the energies carried after the last step.
    carried_end: Vec<Vec<f64>>,
    memory: Memory,
}

impl Trajectory {
    /// Number of steps `K`.
    pub fn steps(&self) -> usize {
        self.p.len()
    }
    /// Memory mode it was recorded with.
    pub fn memory(&self) -> Memory {
        self.memory
    }
    /// The derivative blocks of step `k` (1-based). With [`Memory::Recompute`]
    /// they are rebuilt on `sim` at the stored states.
    pub fn derivatives(&self, sim: &mut Simulator, k: usize) -> Result<StepDerivatives> {
        if k == 0 || k > self.steps() {
            return Err(OptimError::Size {
                what: "trajectory step requested (1-based, at most the step count)",
                found: k,
                expected: self.steps(),
            });
        }
        if self.memory == Memory::Store {
            return Ok(self.derivs[k - 1].clone());
        }
        if self.substeps[k - 1] > 1 {
            return Err(OptimError::inconsistent(
                format!("trajectory step {k}"),
                "was split by step halving: its derivative blocks are not those of one step (use smaller steps)",
            ));
        }
        if let Some(c) = self.carried.get(k - 1) {
            sim.restore_carried_state(c)?;
        }
        Ok(sim.derivatives_at(
            &self.x[k],
            &self.x[k - 1],
            &self.v[k - 1],
            self.t[k - 1],
            &self.p[k - 1],
        )?)
    }
    /// Puts back what the energies carried at the end of the rollout (after
    /// [`Trajectory::derivatives`] replayed earlier steps on `sim`), so a
    /// caller that keeps stepping `sim` continues consistently.
    pub fn restore_end(&self, sim: &mut Simulator) -> Result<()> {
        if self.memory == Memory::Recompute && !self.carried_end.is_empty() {
            sim.restore_carried_state(&self.carried_end)?;
        }
        Ok(())
    }
    /// Borrowed blocks of step `k` when stored.
    pub fn stored_derivatives(&self, k: usize) -> Option<&StepDerivatives> {
        if self.memory == Memory::Store && k >= 1 {
            self.derivs.get(k - 1)
        } else {
            None
        }
    }
}

/// Runs `sim` from the given initial state for `p.len()` steps with
/// parameters `p[k − 1]` on step `k`, recording per `memory`. On a failed
/// step the error says which step; the simulator is left at the last
/// converged state.
pub fn rollout(
    sim: &mut Simulator,
    x0: &[f64],
    v0: &[f64],
    p: &[Vec<f64>],
    memory: Memory,
) -> Result<Trajectory> {
    Ok(rollout_while(sim, x0, v0, p, memory, |_, _| true)?.expect("never stopped"))
}

/// [`rollout`] that asks `keep_going(trajectory so far, k)` after each step
/// `k` and returns `None` as soon as it says no (a trial that is already
/// known to be rejected need not be finished).
pub fn rollout_while(
    sim: &mut Simulator,
    x0: &[f64],
    v0: &[f64],
    p: &[Vec<f64>],
    memory: Memory,
    keep_going: impl FnMut(&Trajectory, usize) -> bool,
) -> Result<Option<Trajectory>> {
    rollout_near(sim, x0, v0, p, memory, None, keep_going)
}

/// [`rollout_while`] whose steps start their Newton solves near a
/// reference rollout ([`Reference`]; `z`: this rollout's controls).
pub(crate) fn rollout_near(
    sim: &mut Simulator,
    x0: &[f64],
    v0: &[f64],
    p: &[Vec<f64>],
    memory: Memory,
    near: Option<(&Reference, &[f64])>,
    mut keep_going: impl FnMut(&Trajectory, usize) -> bool,
) -> Result<Option<Trajectory>> {
    sim.set_state(x0, v0, 0.0, 0)?;
    let k_max = p.len();
    let mut tr = Trajectory {
        x: Vec::with_capacity(k_max + 1),
        v: Vec::with_capacity(k_max + 1),
        p: p.to_vec(),
        t: Vec::with_capacity(k_max + 1),
        newton_iterations: Vec::with_capacity(k_max),
        substeps: Vec::with_capacity(k_max),
        derivs: Vec::new(),
        carried: Vec::new(),
        carried_end: Vec::new(),
        memory,
    };
    let carries = memory == Memory::Recompute && sim.carried_state().iter().any(|c| !c.is_empty());
    tr.x.push(x0.to_vec());
    tr.v.push(v0.to_vec());
    tr.t.push(0.0);
    let mut starts = near.and_then(|(r, z)| r.starts_for(z, x0, v0));
    for (k, pk) in p.iter().enumerate() {
        if carries {
            tr.carried.push(sim.carried_state());
        }
        let start = match (&near, &mut starts) {
            (Some((r, _)), Some(st)) => r.start(st, &tr, k + 1, sim.dt()),
            _ => None,
        };
        let (rep, d) = sim
            .step_from(pk, memory == Memory::Store, start.as_deref())
            .map_err(|e| OptimError::Rollout {
                step: k + 1,
                source: e,
            })?;
        if let Some(d) = d {
            tr.derivs.push(d);
        }
        tr.newton_iterations.push(rep.newton.iterations);
        tr.substeps.push(rep.substeps);
        tr.x.push(sim.q().to_vec());
        tr.v.push(sim.v().to_vec());
        tr.t.push(sim.time());
        if !keep_going(&tr, k + 1) {
            return Ok(None);
        }
    }
    if carries {
        tr.carried_end = sim.carried_state();
    }
    Ok(Some(tr))
}

/// A rollout that later rollouts with nearby controls start their steps
/// near: the trajectory at the optimizer's current iterate, with its
/// first-order sensitivities `S_k = ∂x_k/∂z` when they were recorded (the
/// forward-sensitivity sweep computes them anyway).
#[derive(Debug)]
pub(crate) struct Reference {
    /// The reference trajectory's positions `x_0 … x_K`.
    pub(crate) x: Vec<Vec<f64>>,
    /// Its velocities `v_0 … v_K`.
    pub(crate) v: Vec<Vec<f64>>,
    /// Its controls `z`.
    pub(crate) z: Vec<f64>,
    /// `S_k` for `k = 1 … K`, column-major `n × nz`, single precision (a
    /// start guess needs no more); empty when not recorded.
    pub(crate) s: Vec<Vec<f32>>,
    /// The integrator's velocity update `v_k = vx x_k + vxp x_{k−1} + vv v_{k−1}`.
    pub(crate) v_update: [f64; 3],
}

/// The linear prediction `δx_k = S_k Δz`, `δv_k` of one rollout carried from
/// step to step.
#[derive(Debug)]
pub(crate) struct Starts {
    dz: Vec<f64>,
    dx: Vec<f64>,
    dv: Vec<f64>,
    linear: bool,
}

impl Reference {
    /// The per-rollout state of the start guesses for controls `z` from the
    /// initial state `(x0, v0)`; `None` when the reference started elsewhere
    /// or has other sizes.
    fn starts_for(&self, z: &[f64], x0: &[f64], v0: &[f64]) -> Option<Starts> {
        if self.x.first()? != x0 || self.v.first()? != v0 || self.z.len() != z.len() {
            return None;
        }
        let n = x0.len();
        let linear = self.s.len() + 1 == self.x.len();
        Some(Starts {
            dz: z.iter().zip(&self.z).map(|(a, b)| a - b).collect(),
            dx: vec![0.0; n],
            dv: vec![0.0; n],
            linear,
        })
    }

    /// Where step `k` (1-based) of the rollout `tr` may start its Newton
    /// solve: the reference's step, linearly predicted for this rollout's
    /// controls (`x̂_k = x_k^ref + S_k Δz`, `v̂_k` likewise), applied to
    /// where this rollout actually is,
    ///
    /// `x_k ≈ x_{k−1} + (x̂_k − x̂_{k−1}) + h (v_{k−1} − v̂_{k−1})`.
    ///
    /// For implicit Euler that is the inertial predictor plus the predicted
    /// `h² â_k`: its error is `h²` times how far the accelerations are from
    /// their linear prediction, where the predictor's is `h²` times the
    /// acceleration itself. Without sensitivities `Δz` is taken as zero
    /// (the reference's own acceleration).
    fn start(&self, st: &mut Starts, tr: &Trajectory, k: usize, h: f64) -> Option<Vec<f64>> {
        let (xr1, xr0, vr0) = (self.x.get(k)?, self.x.get(k - 1)?, self.v.get(k - 1)?);
        let (x0, v0) = (tr.x.get(k - 1)?, tr.v.get(k - 1)?);
        let n = x0.len();
        if xr1.len() != n {
            return None;
        }
        let mut dx1 = vec![0.0; n];
        if st.linear {
            let s = &self.s[k - 1];
            for (j, &dzj) in st.dz.iter().enumerate() {
                if dzj != 0.0 {
                    for (d, &sij) in dx1.iter_mut().zip(&s[j * n..(j + 1) * n]) {
                        *d += f64::from(sij) * dzj;
                    }
                }
            }
        }
        let guess = (0..n)
            .map(|i| {
                let step_hat = (xr1[i] + dx1[i]) - (xr0[i] + st.dx[i]);
                x0[i] + step_hat + h * (v0[i] - (vr0[i] + st.dv[i]))
            })
            .collect();
        let [vx, vxp, vv] = self.v_update;
        for i in 0..n {
            st.dv[i] = vx * dx1[i] + vxp * st.dx[i] + vv * st.dv[i];
        }
        st.dx = dx1;
        Some(guess)
    }
}
