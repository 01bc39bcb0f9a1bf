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
    for (k, pk) in p.iter().enumerate() {
        if carries {
            tr.carried.push(sim.carried_state());
        }
        let (rep, d) =
            sim.step_with(pk, memory == Memory::Store)
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
