//! The slack-eating regularizer (cable paper appendix B) and slack removal
//! before export (§III-B.2). Lengths in m.

use pliant_cable::CableEnergy;
use pliant_core::penalty::one_sided_quadratic_d;
use pliant_core::{Invalid, Model};
use pliant_optim::{Motor, Objective, OptimError, Residuals, StepView, Trajectory};

/// The slack-eating regularizer (cable paper eq. 13): `w Q(ε − Γ)` per
/// cable and step, written as the residual `r = √(2 w Q(ε − Γ))` so that
/// `½ r² = w Q`. It is zero once every cable is taut by at least `ε`, and
/// removes the flat regions a slack cable puts in the objective.
#[derive(Debug)]
pub struct SlackRegularizer {
    cables: Vec<CableEnergy>,
    epsilon: f64,
    weight: f64,
}

impl SlackRegularizer {
    /// `cables` bound to the model; `epsilon` (m) the tautness aimed for,
    /// also the smoothing width of `Q`; `weight` in J/m².
    pub fn new(cables: Vec<CableEnergy>, epsilon: f64, weight: f64) -> pliant_optim::Result<Self> {
        Invalid::positive("slack regularizer epsilon", epsilon, "m")?;
        Invalid::positive("slack regularizer weight", weight, "J/m²")?;
        Ok(Self {
            cables,
            epsilon,
            weight,
        })
    }
}

impl Objective for SlackRegularizer {
    fn name(&self) -> String {
        "slack".into()
    }
    fn eval(&self, s: &StepView, out: &mut Residuals) {
        for (row, c) in self.cables.iter().enumerate() {
            let d = c.deformation(s.x, s.p);
            let (q, dq, _) = one_sided_quadratic_d(self.epsilon - d.gamma, self.epsilon);
            let r = (2.0 * self.weight * q).sqrt();
            out.r.push(r);
            if r > 0.0 {
                // dr/ds = w Q'(s)/r, s = ε − Γ.
                let drs = self.weight * dq / r;
                out.dx.extend(d.dq.iter().map(|&(i, v)| (row, i, -drs * v)));
                out.dp.extend(d.dp.iter().map(|&(i, v)| (row, i, -drs * v)));
            }
        }
    }
}

/// Slack post-processing (§III-B.2): per step, each motor takes in the
/// smallest slack `s = max(0, −Γ)` of the cables on its channels,
/// `u_post = u + s`, which leaves every cable's tension, hence the motion,
/// unchanged. Returns `u_post[k][motor]` for steps `1 … K`.
pub fn remove_slack(
    tr: &Trajectory,
    cables: &[CableEnergy],
    model: &Model,
    motors: &[Motor],
) -> pliant_optim::Result<Vec<Vec<f64>>> {
    // Parameter indices of each motor's channels.
    let idx: Vec<Vec<usize>> = motors
        .iter()
        .map(|m| {
            m.channels
                .iter()
                .map(|c| {
                    model
                        .layout()
                        .param(c, "slack removal")
                        .map_err(OptimError::from)
                })
                .collect()
        })
        .collect::<pliant_optim::Result<_>>()?;
    let mut out = Vec::with_capacity(tr.steps());
    for k in 1..=tr.steps() {
        let p = &tr.p[k - 1];
        let gammas: Vec<(f64, Vec<usize>)> = cables
            .iter()
            .map(|c| {
                let d = c.deformation(&tr.x[k], p);
                (d.gamma, d.dp.iter().map(|&(i, _)| i).collect())
            })
            .collect();
        let row = idx
            .iter()
            .map(|chs| {
                let slack = gammas
                    .iter()
                    .filter(|(_, ps)| ps.iter().any(|i| chs.contains(i)))
                    .map(|(g, _)| (-g).max(0.0))
                    .fold(f64::INFINITY, f64::min);
                p[chs[0]] + if slack.is_finite() { slack } else { 0.0 }
            })
            .collect();
        out.push(row);
    }
    Ok(out)
}
