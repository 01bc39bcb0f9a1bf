//! Time integrators as incremental potentials; see [`Integrator`].

use serde::{Deserialize, Serialize};

/// Choice of time integrator, each written as the minimization of an incremental
/// potential over the new positions `x = x_k` given the state
/// `(x_{k−1}, v_{k−1})` and the parameters `p_k`:
///
/// `Φ(x) = c_M · ½ (x − x̃)ᵀ M (x − x̃) + c_E · E(y(x); x_{k−1}, p_k)`,
/// `x̃ = x_{k−1} + h v_{k−1}`, `y = a_y x + b_y x_{k−1}`,
///
/// with residual `g_k = ∇Φ(x_k) = 0`:
///
/// | integrator | c_M | c_E | a_y | b_y | E sees `h` as | `v_k` |
/// |---|---|---|---|---|---|---|
/// | BDF1 (cable paper eq. 4, §II-D) | 1 | h² | 1 | 0 | h | (x_k − x_{k−1})/h |
/// | implicit Euler (MAT-DiSMech eqs. 4–5) | 1 | h² | 1 | 0 | h | (x_k − x_{k−1})/h |
/// | implicit midpoint | 1 | h² | ½ | ½ | h/2 | 2(x_k − x_{k−1})/h − v_{k−1} |
/// | static equilibrium | 0 | 1 | 1 | 0 | h | 0 |
///
/// BDF1 and implicit Euler are the same scheme: with `v_{k−1} = (x_{k−1} −
/// x_{k−2})/h`, `M(x − x̃) = M(x_k − 2x_{k−1} + x_{k−2}) = h² M a_k`, so the
/// residual is `−h²` times the cable paper's `g_k = f_k − M a_k`. BDF1 carries
/// its history as two positions and offers the derivative blocks in the
/// paper's three-term form (`∂g/∂x_{k−2}`, eq. 10); implicit Euler carries
/// `(x, v)` as MAT-DiSMech does.
///
/// Symplectic (semi-implicit) Euler is explicit: `v_k = v_{k−1} − h M⁻¹ ∇E(x_{k−1};
/// x_{k−1} − h v_{k−1})`, `x_k = x_{k−1} + h v_k`; its residual is
/// `g = M(x − x̃) + h² ∇E(x_{k−1}; …)`, so `∂g/∂x_k = M`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    /// First-order backward differences in positions (cable paper §II-D).
    Bdf1,
    /// Implicit (backward) Euler in velocity form (MAT-DiSMech eqs. 4–5).
    ImplicitEuler,
    /// Implicit midpoint: second order, no numerical damping of oscillations.
    ImplicitMidpoint,
    /// Explicit symplectic Euler (for tiny soft systems and comparison).
    SymplecticEuler,
    /// Quasi-static equilibrium `∇E = 0` (load stepping; no inertia).
    Static,
}

impl Integrator {
    /// Its name in scene files.
    pub fn name(&self) -> &'static str {
        match self {
            Integrator::Bdf1 => "bdf1",
            Integrator::ImplicitEuler => "implicit_euler",
            Integrator::ImplicitMidpoint => "implicit_midpoint",
            Integrator::SymplecticEuler => "symplectic_euler",
            Integrator::Static => "static",
        }
    }
}

/// The coefficients of the table in the module documentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StepForm {
    /// Weight of the inertia term.
    pub c_m: f64,
    /// Weight of the energy term.
    pub c_e: f64,
    /// `∂y/∂x_k`.
    pub a_y: f64,
    /// `∂y/∂x_{k−1}`.
    pub b_y: f64,
    /// Time between previous state and evaluation point, s.
    pub h_eval: f64,
    /// The step size `h`, s.
    pub step: f64,
    /// Velocity update `v_k = vx·x_k + vxp·x_{k−1} + vv·v_{k−1}`.
    pub vx: f64,
    /// See `vx`.
    pub vxp: f64,
    /// See `vx`.
    pub vv: f64,
}

impl Integrator {
    /// Whether the integrator solves a nonlinear system (Newton).
    pub fn is_implicit(self) -> bool {
        !matches!(self, Integrator::SymplecticEuler)
    }
    /// Coefficients for step size `h` (s).
    pub(crate) fn form(self, h: f64) -> StepForm {
        match self {
            Integrator::Bdf1 | Integrator::ImplicitEuler | Integrator::SymplecticEuler => {
                StepForm {
                    c_m: 1.0,
                    c_e: h * h,
                    a_y: 1.0,
                    b_y: 0.0,
                    h_eval: h,
                    step: h,
                    vx: 1.0 / h,
                    vxp: -1.0 / h,
                    vv: 0.0,
                }
            }
            Integrator::ImplicitMidpoint => StepForm {
                c_m: 1.0,
                c_e: h * h,
                a_y: 0.5,
                b_y: 0.5,
                h_eval: 0.5 * h,
                step: h,
                vx: 2.0 / h,
                vxp: -2.0 / h,
                vv: -1.0,
            },
            Integrator::Static => StepForm {
                c_m: 0.0,
                c_e: 1.0,
                a_y: 1.0,
                b_y: 0.0,
                h_eval: h,
                step: h,
                vx: 0.0,
                vxp: 0.0,
                vv: 0.0,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Integrator;

    #[test]
    fn an_integrators_name_is_its_scene_file_name() {
        for i in [
            Integrator::Bdf1,
            Integrator::ImplicitEuler,
            Integrator::ImplicitMidpoint,
            Integrator::SymplecticEuler,
            Integrator::Static,
        ] {
            assert_eq!(
                serde_json::to_string(&i).unwrap(),
                format!("\"{}\"", i.name())
            );
        }
    }
}
