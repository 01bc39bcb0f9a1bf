//! What an energy sees when it is evaluated: the state, the previous state,
//! the parameter values and the step's times.

/// Everything an energy may read when it is evaluated.
#[derive(Debug, Clone, Copy)]
pub struct EvalState<'a> {
    /// Evaluation point, full DOF vector (m, rad).
    pub q: &'a [f64],
    /// Previous state (m, rad): `q_{k−1}` for implicit schemes.
    pub q_prev: &'a [f64],
    /// Parameter channel values at this step.
    pub p: &'a [f64],
    /// Time elapsed between `q_prev` and the evaluation point, in s: velocities
    /// are `(q − q_prev)/h`. For implicit midpoint this is half the step.
    pub h: f64,
    /// The integrator's step size, s.
    pub dt: f64,
    /// Time of the evaluation point, in s.
    pub t: f64,
}

impl<'a> EvalState<'a> {
    /// A state at rest: `q_prev = q`, step `dt` (s) at time `t` (s).
    pub fn at_rest(q: &'a [f64], p: &'a [f64], dt: f64, t: f64) -> Self {
        Self {
            q,
            q_prev: q,
            p,
            h: dt,
            dt,
            t,
        }
    }
}

/// The scalars of an evaluation besides the DOFs: what an element energy
/// may read from the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ctx {
    /// Time between the previous state and the evaluation point, s
    /// (velocities are `(x − x_prev)/h`).
    pub h: f64,
    /// The integrator's step size, s (equal to `h` except for implicit
    /// midpoint, where `h = dt/2`).
    pub dt: f64,
    /// Time of the evaluation point, s.
    pub t: f64,
    /// Whether the Hessian asked for only finds Newton a descent direction,
    /// after its full step was refused (see
    /// [`NewtonSettings::majorize`](crate::NewtonSettings::majorize)). An
    /// energy whose exact Hessian is a poor local model there may then
    /// return a positive semidefinite majorizer of it instead: the ground's
    /// smooth Coulomb friction drops the negative curvature of its
    /// saturating force (the IRLS Hessian, `c/h · f₁ M`). Gradients,
    /// energies, sensitivities and derivative checks never set it; they
    /// always see the exact Hessian.
    pub majorize: bool,
}

impl Ctx {
    /// The scalars of the evaluation state `s` (exact derivatives).
    pub fn of(s: &EvalState) -> Self {
        Self {
            h: s.h,
            dt: s.dt,
            t: s.t,
            majorize: false,
        }
    }
}
