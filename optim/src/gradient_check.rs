//! Checking a shooting problem's derivatives (the standard every gradient
//! in pliant meets): the forward-sensitivity gradient `Jᵀr`, the adjoint
//! gradient, and central differences of the cost over complete rollouts,
//! compared component by component relative to the largest forward
//! component.

use crate::error::Result;
use crate::gradient::{cost, jt_r};
use crate::shooting::Shooting;

/// The three gradients of `½‖r(w)‖²` at one point, and how far apart they
/// are.
#[derive(Debug, Clone)]
pub struct GradientCheck {
    /// The cost at the point.
    pub cost: f64,
    /// `Jᵀr` from forward sensitivity.
    pub forward: Vec<f64>,
    /// The adjoint gradient.
    pub adjoint: Vec<f64>,
    /// Central differences of whole rollouts.
    pub finite_difference: Vec<f64>,
    /// `max |forward|`, the scale of the relative errors.
    pub scale: f64,
    /// `max |forward − finite difference| / scale`.
    pub forward_vs_fd: f64,
    /// `max |adjoint − forward| / scale`.
    pub adjoint_vs_forward: f64,
}

impl std::fmt::Display for GradientCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for j in 0..self.forward.len() {
            writeln!(
                f,
                "w{j}: forward {:.9e}, adjoint {:.9e}, FD {:.9e}",
                self.forward[j], self.adjoint[j], self.finite_difference[j]
            )?;
        }
        write!(
            f,
            "cost {:.6e}, |g|max {:.3e}: forward vs FD {:.2e}, adjoint vs forward {:.2e}",
            self.cost, self.scale, self.forward_vs_fd, self.adjoint_vs_forward
        )
    }
}

impl Shooting {
    /// Central finite differences of the cost `½‖r(w)‖²` over complete
    /// rollouts, step `eps` in each component of `w`: the reference a
    /// gradient (forward sensitivity or adjoint) is checked against.
    /// Costs `2·len(w)` rollouts.
    pub fn cost_gradient_fd(&self, w: &[f64], eps: f64) -> Result<Vec<f64>> {
        (0..w.len())
            .map(|j| {
                let (mut wp, mut wm) = (w.to_vec(), w.to_vec());
                wp[j] += eps;
                wm[j] -= eps;
                let cp = cost(&self.residuals(&wp)?);
                let cm = cost(&self.residuals(&wm)?);
                Ok((cp - cm) / (2.0 * eps))
            })
            .collect()
    }
    /// The forward, adjoint and finite-difference gradients at `w` (FD step
    /// `eps` in each component) and their relative differences. Costs
    /// `2·len(w) + 1` rollouts and both sweeps.
    pub fn check_gradient(&self, w: &[f64], eps: f64) -> Result<GradientCheck> {
        let (r, jac) = self.jacobian(w)?;
        let forward = jt_r(&jac, &r, w.len());
        let (c, adjoint) = self.gradient(w)?;
        let finite_difference = self.cost_gradient_fd(w, eps)?;
        let scale = forward.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let worst = |a: &[f64]| {
            a.iter()
                .zip(&forward)
                .map(|(a, f)| (a - f).abs() / scale)
                .fold(0.0f64, f64::max)
        };
        Ok(GradientCheck {
            cost: c,
            forward_vs_fd: worst(&finite_difference),
            adjoint_vs_forward: worst(&adjoint),
            forward,
            adjoint,
            finite_difference,
            scale,
        })
    }
}
