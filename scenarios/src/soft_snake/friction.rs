//! How the snake's ground friction combines its two coefficients and
//! along which axis.

/// How the snake's friction combines its two coefficients (eq. 4,
/// `F = −F_z (μ_x sign ẋ, μ_y sign ẏ)`), each smoothed over the slip
/// velocity ([`pliant_environment::Friction`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SnakeFriction {
    /// Eq. 4 as written — each tangential component saturates on its own
    /// (`per_axis_coulomb`) — in the robot's frame: `μ_x` along the chord
    /// from the tail's hub to the head's (the snake's long axis, turning
    /// with it), `μ_y` across. Every contact element then reads the two
    /// end hubs, which couples them to all 310 skin points in the
    /// Hessian's pattern: 2.29 against 2.21 s per simulated second for
    /// [`SnakeFriction::PerAxisWorld`] on the planar gait (one run each,
    /// 2026-11-28, before the snake's Newton solves started from the
    /// predictor).
    #[default]
    PerAxisRobot,
    /// Eq. 4 in the ground's frame: the per-axis law along the world's X
    /// (the snake's long axis at release) and Y, whichever way the body
    /// turns later.
    PerAxisWorld,
    /// The per-axis law along each ring's own axis (the centre line's
    /// tangent there) and across it.
    PerAxisLocal,
    /// An anisotropic Coulomb cone (`smooth_coulomb`) along each ring's
    /// own axis: the force opposes the μ-weighted slip with total `μ N`,
    /// so sliding along the body takes traction away from across it.
    Elliptic,
}
