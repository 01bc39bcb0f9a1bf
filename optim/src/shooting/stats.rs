//! Counters of the work a shooting problem did.

/// Counters of the work a shooting problem did.
#[derive(Debug, Clone, Default)]
pub struct ShootingStats {
    /// Rollouts run.
    pub rollouts: usize,
    /// Steps simulated.
    pub steps: usize,
    /// Newton iterations over all steps.
    pub newton_iterations: usize,
    /// Jacobians (forward sensitivity) computed.
    pub jacobians: usize,
    /// Gradients (adjoint) computed.
    pub gradients: usize,
    /// Trial rollouts stopped early, because their cost already exceeded
    /// the bound they had to beat or because they fell short of the
    /// model's forecast (counted in `rollouts` too).
    pub rollouts_cut_short: usize,
    /// Of those, the trials given up because they fell short of the
    /// model's forecast before their cost passed the bound
    /// ([`Shooting::with_forecast_cuts`](super::Shooting::with_forecast_cuts)).
    pub rollouts_cut_by_forecast: usize,
    /// Trial rollouts run alongside another on a spare simulator
    /// ([`Shooting::with_spare_simulators`](super::Shooting::with_spare_simulators); counted in `rollouts` too).
    pub rollouts_in_parallel: usize,
    /// Wall time in rollouts, s.
    pub rollout_seconds: f64,
    /// Wall time in sensitivity/adjoint sweeps, s.
    pub derivative_seconds: f64,
    /// CPU time other processes took during the last rollout, round of
    /// trials or derivative sweep, in cores (Linux; `None` where unknown;
    /// see [`Shooting::with_load_check`](super::Shooting::with_load_check)).
    pub others_cores: Option<f64>,
    /// Times [`Shooting::concurrent_trials`](super::Shooting::concurrent_trials) asked for fewer trials than
    /// there are simulators because other processes held the cores.
    pub busy_machine_batches: usize,
    /// Norm of the last gradient `Jᵀr` or adjoint gradient, w.r.t. the
    /// solver variable `w` (regularization included).
    pub last_gradient_norm: f64,
}
