//! Heading (yaw) tracking: the direction a body faces in the ground plane,
//! for gaits that must turn (cable paper §IV-B: the Puppy turning along a
//! quarter circle) or keep straight.
//!
//! The body axis is `a(x) = c_F(x) − c_R(x)`, the difference of the plain
//! centroids of a front and a rear node set, in the plane of two coordinate
//! axes. With `â = a/|a|` and the target direction
//! `t̂_k = (cos θ̂_k, sin θ̂_k)`, the residual of step `k` is
//!
//! `r_k = √w (â(x_k) − t̂_k)`  (two rows), so `½|r_k|² = w (1 − cos(θ_k − θ̂_k))`,
//!
//! which is `≈ ½ w (θ_k − θ̂_k)²` near the target, smooth everywhere and
//! needs no angle unwrapping. `∂â/∂a = (I − â âᵀ)/|a|`. Angles in rad,
//! measured from axis 0 towards axis 1; `w` in 1/rad².

use crate::error::{OptimError, Result};
use crate::objective::{Objective, Residuals, StepView};
use pliant_core::Invalid;
use pliant_core::Model;

/// Heading tracking objective (see the module docs).
#[derive(Debug, Clone)]
pub struct Heading {
    /// DOFs of the front set along the two axes.
    front: [Vec<usize>; 2],
    /// DOFs of the rear set along the two axes.
    rear: [Vec<usize>; 2],
    /// Target heading per step `1 … K`, rad.
    targets: Vec<f64>,
    weight: f64,
}

fn dofs(model: &Model, nodes: &[usize], axes: [usize; 2], what: &str) -> Result<[Vec<usize>; 2]> {
    if nodes.is_empty() {
        return Err(OptimError::Inconsistent {
            what: format!("heading: the {what} node set"),
            problem: "is empty",
        });
    }
    let mut out = [
        Vec::with_capacity(nodes.len()),
        Vec::with_capacity(nodes.len()),
    ];
    for (a, axis) in axes.into_iter().enumerate() {
        for &n in nodes {
            out[a].push(model.layout().node_dof(n, axis, "heading objective")?);
        }
    }
    Ok(out)
}

impl Heading {
    /// The axis from the centroid of `rear` to that of `front` (model node
    /// indices) in the plane of `axes`, tracking `targets` (rad, steps
    /// `1 … K`; steps beyond the list have no residual) with weight `w`
    /// (1/rad²).
    pub fn new(
        model: &Model,
        axes: [usize; 2],
        rear: &[usize],
        front: &[usize],
        targets: Vec<f64>,
        weight: f64,
    ) -> Result<Self> {
        if axes[0] == axes[1] {
            return Err(OptimError::inconsistent(
                format!("heading: axes {axes:?}"),
                "the two axes must differ",
            ));
        }
        if !(weight.is_finite() && weight > 0.0) {
            return Err(Invalid::new("heading weight", weight, "positive and finite").into());
        }
        if let Some((k, t)) = targets.iter().enumerate().find(|(_, t)| !t.is_finite()) {
            return Err(Invalid::new(
                format!("heading target of step {}", k + 1),
                *t,
                "finite (rad)",
            )
            .into());
        }
        Ok(Self {
            front: dofs(model, front, axes, "front")?,
            rear: dofs(model, rear, axes, "rear")?,
            targets,
            weight,
        })
    }
    /// The body axis `a(x)` (m).
    fn axis(&self, x: &[f64]) -> [f64; 2] {
        let mean = |d: &[usize]| d.iter().map(|&i| x[i]).sum::<f64>() / d.len() as f64;
        [
            mean(&self.front[0]) - mean(&self.rear[0]),
            mean(&self.front[1]) - mean(&self.rear[1]),
        ]
    }
    /// Heading of state `x`, rad in `(−π, π]`.
    pub fn angle_of(&self, x: &[f64]) -> f64 {
        let a = self.axis(x);
        a[1].atan2(a[0])
    }
}

impl Objective for Heading {
    fn name(&self) -> String {
        "heading".into()
    }
    fn eval(&self, s: &StepView, out: &mut Residuals) {
        let Some(&target) = self.targets.get(s.k - 1) else {
            return;
        };
        let sw = self.weight.sqrt();
        let a = self.axis(s.x);
        let len = a[0].hypot(a[1]);
        let t = [target.cos(), target.sin()];
        if len <= 0.0 {
            // Front and rear centroids coincide: no direction, no gradient.
            out.r.extend([sw * -t[0], sw * -t[1]]);
            return;
        }
        let u = [a[0] / len, a[1] / len];
        out.r.extend([sw * (u[0] - t[0]), sw * (u[1] - t[1])]);
        for row in 0..2 {
            for col in 0..2 {
                let p = (if row == col { 1.0 } else { 0.0 }) - u[row] * u[col];
                let d = sw * p / len;
                if d == 0.0 {
                    continue;
                }
                let nf = self.front[col].len() as f64;
                let nr = self.rear[col].len() as f64;
                out.dx
                    .extend(self.front[col].iter().map(|&i| (row, i, d / nf)));
                out.dx
                    .extend(self.rear[col].iter().map(|&i| (row, i, -d / nr)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pliant_core::ModelBuilder;

    fn model() -> Model {
        let mut b = ModelBuilder::new(3).unwrap();
        for p in [
            [0.0, 0.0, 0.0],
            [0.0, 0.1, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 0.1, 0.2],
        ] {
            b.add_node(&p, 1.0).unwrap();
        }
        b.build().unwrap()
    }

    fn view<'a>(x: &'a [f64], p: &'a [f64]) -> StepView<'a> {
        StepView {
            k: 1,
            steps: 1,
            t: 0.1,
            x,
            x0: x,
            p,
            p_prev: p,
        }
    }

    #[test]
    fn angle_and_residual_match_the_definition() {
        let m = model();
        let h = Heading::new(&m, [0, 1], &[0, 1], &[2, 3], vec![0.3], 2.0).unwrap();
        let mut x = m.q0().to_vec();
        // Rotate the front nodes' centroid to 45°.
        x[6] = 0.5;
        x[7] = 0.5;
        x[9] = 0.5;
        x[10] = 0.6;
        let th = h.angle_of(&x);
        assert!((th - std::f64::consts::FRAC_PI_4).abs() < 1e-12, "{th}");
        let mut out = Residuals::default();
        h.eval(&view(&x, &[]), &mut out);
        let half = 0.5 * (out.r[0] * out.r[0] + out.r[1] * out.r[1]);
        assert!((half - 2.0 * (1.0 - (th - 0.3).cos())).abs() < 1e-12);
    }

    #[test]
    fn jacobian_matches_central_differences() {
        let m = model();
        let h = Heading::new(&m, [0, 1], &[0, 1], &[2, 3], vec![-0.7], 3.0).unwrap();
        let x: Vec<f64> = m
            .q0()
            .iter()
            .enumerate()
            .map(|(i, v)| v + 0.05 * ((i * 7 % 5) as f64 - 2.0))
            .collect();
        let mut out = Residuals::default();
        h.eval(&view(&x, &[]), &mut out);
        let mut jac = vec![[0.0; 2]; x.len()];
        for &(row, i, v) in &out.dx {
            jac[i][row] += v;
        }
        let eps = 1e-6;
        for i in 0..x.len() {
            let (mut xp, mut xm) = (x.clone(), x.clone());
            xp[i] += eps;
            xm[i] -= eps;
            let (mut rp, mut rm) = (Residuals::default(), Residuals::default());
            h.eval(&view(&xp, &[]), &mut rp);
            h.eval(&view(&xm, &[]), &mut rm);
            for row in 0..2 {
                let fd = (rp.r[row] - rm.r[row]) / (2.0 * eps);
                assert!(
                    (fd - jac[i][row]).abs() < 1e-8,
                    "dof {i} row {row}: {fd} vs {}",
                    jac[i][row]
                );
            }
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        let m = model();
        assert!(Heading::new(&m, [0, 0], &[0], &[2], vec![0.0], 1.0).is_err());
        assert!(Heading::new(&m, [0, 1], &[], &[2], vec![0.0], 1.0).is_err());
        assert!(Heading::new(&m, [0, 1], &[0], &[9], vec![0.0], 1.0).is_err());
        assert!(Heading::new(&m, [0, 1], &[0], &[2], vec![f64::NAN], 1.0).is_err());
        assert!(Heading::new(&m, [0, 1], &[0], &[2], vec![0.0], 0.0).is_err());
    }
}
