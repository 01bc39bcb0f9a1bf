//! Objectives over whole trajectories, as sums of squared residuals
//! `O = ½ Σ_k Σ_i r_{k,i}(x_k, p_k, p_{k−1})²`.
//!
//! The residual form serves both optimizers: Gauss–Newton uses the residual
//! Jacobian `∂r/∂z` (forward sensitivity), L-BFGS the gradient
//! `Σ r ∂r/∂z` (adjoint). Objectives compose by listing several; each
//! contributes its residual rows at every step.

use crate::error::{OptimError, Result};
use pliant_core::Invalid;
use pliant_core::Model;

/// What a step's residuals may depend on.
#[derive(Debug, Clone, Copy)]
pub struct StepView<'a> {
    /// Step index `k` (1-based).
    pub k: usize,
    /// Steps in the trajectory `K`.
    pub steps: usize,
    /// Time at the end of the step, s.
    pub t: f64,
    /// State `x_k`.
    pub x: &'a [f64],
    /// Initial state `x_0`.
    pub x0: &'a [f64],
    /// Parameters held over step `k`.
    pub p: &'a [f64],
    /// Parameters of step `k − 1` (for `k = 1`, the base parameters, which
    /// do not depend on `z`).
    pub p_prev: &'a [f64],
}

/// Residual rows of one objective at one step, with sparse Jacobians
/// `(row, index, ∂r_row/∂·)` w.r.t. `x_k`, `p_k` and `p_{k−1}`.
#[derive(Debug, Clone, Default)]
pub struct Residuals {
    /// Values.
    pub r: Vec<f64>,
    /// `∂r/∂x_k` entries `(row, dof, value)`.
    pub dx: Vec<(usize, usize, f64)>,
    /// `∂r/∂p_k` entries `(row, parameter, value)`.
    pub dp: Vec<(usize, usize, f64)>,
    /// `∂r/∂p_{k−1}` entries.
    pub dp_prev: Vec<(usize, usize, f64)>,
}

impl Residuals {
    /// Empties the rows, keeping the allocations.
    pub fn clear(&mut self) {
        self.r.clear();
        self.dx.clear();
        self.dp.clear();
        self.dp_prev.clear();
    }
}

/// A trajectory objective in residual form.
pub trait Objective: Send + Sync {
    /// Short name for reports.
    fn name(&self) -> String;
    /// Appends this objective's residuals at step `s.k` to `out` (row
    /// indices local to this call, starting at 0). How many it appends may
    /// depend on the step but not on the state or the controls: the rows of
    /// a residual vector and of its Jacobian must mean the same at every
    /// point, for Gauss–Newton's model `r + J δ` and for the trials that
    /// compare themselves with it step by step
    /// (`Shooting::with_forecast_cuts`).
    fn eval(&self, s: &StepView, out: &mut Residuals);
}

/// Mass-weighted average of node positions: `c = Σ m_n x_n / Σ m_n` (m),
/// with the masses of the model's node DOFs (point masses included).
#[derive(Debug, Clone)]
pub struct CentreOfMass {
    /// `(dof, weight)` per axis, weights `m_n / Σ m`.
    axes: Vec<Vec<(usize, f64)>>,
}

impl CentreOfMass {
    /// The centre of mass of `model` along the given coordinate axes.
    pub fn new(model: &Model, axes: &[usize]) -> Result<Self> {
        let dim = model.layout().dim();
        if let Some(&a) = axes.iter().find(|&&a| a >= dim) {
            return Err(pliant_core::CoreError::AxisOutOfRange {
                field: "centre of mass axes".into(),
                axis: a,
                dim,
            }
            .into());
        }
        let mut out = Vec::new();
        for &a in axes {
            let mut w = Vec::new();
            let mut total = 0.0;
            for node in 0..model.layout().n_nodes() {
                let d = model.layout().node_dof(node, a, "centre of mass")?;
                total += model.mass()[d];
                w.push((d, model.mass()[d]));
            }
            Invalid::positive("total node mass", total, "kg")?;
            w.iter_mut().for_each(|e| e.1 /= total);
            out.push(w);
        }
        Ok(Self { axes: out })
    }
    /// The centre of mass of state `x`.
    pub fn of(&self, x: &[f64]) -> Vec<f64> {
        self.axes
            .iter()
            .map(|w| w.iter().map(|&(d, m)| m * x[d]).sum())
            .collect()
    }
    /// Per axis, the `(dof, m_n / Σ m)` pairs whose sum is that coordinate.
    pub fn rows(&self) -> &[Vec<(usize, f64)>] {
        &self.axes
    }
    /// Number of axes.
    pub fn len(&self) -> usize {
        self.axes.len()
    }
    /// Whether no axis was chosen.
    pub fn is_empty(&self) -> bool {
        self.axes.is_empty()
    }
}

/// Centre-of-mass path tracking (cable paper eq. 5):
/// `r_k = √w (c(x_k) − ĉ_k)` for every step with a target.
#[derive(Debug, Clone)]
pub struct ComPath {
    com: CentreOfMass,
    /// Target per step `1 … K` (m).
    targets: Vec<Vec<f64>>,
    weight: f64,
}

impl ComPath {
    /// Targets `ĉ_1 … ĉ_K` along `axes` (each of length `axes.len()`), weight `w` (1/m²).
    pub fn new(model: &Model, axes: &[usize], targets: Vec<Vec<f64>>, weight: f64) -> Result<Self> {
        let com = CentreOfMass::new(model, axes)?;
        if let Some((k, t)) = targets
            .iter()
            .enumerate()
            .find(|(_, t)| t.len() != axes.len())
        {
            let _ = k + 1;
            return Err(OptimError::Size {
                what: "COM path target components (one per axis)",
                found: t.len(),
                expected: axes.len(),
            });
        }
        if !(weight.is_finite() && weight > 0.0) {
            return Err(Invalid::new("COM path weight", weight, "positive and finite").into());
        }
        Ok(Self {
            com,
            targets,
            weight,
        })
    }
    /// A straight line from the initial centre of mass `c0` at constant
    /// velocity `vel` (m/s, along `axes`) over `steps` steps of `h` s.
    pub fn straight(c0: &[f64], vel: &[f64], steps: usize, h: f64) -> Vec<Vec<f64>> {
        (1..=steps)
            .map(|k| {
                c0.iter()
                    .zip(vel)
                    .map(|(c, v)| c + v * h * k as f64)
                    .collect()
            })
            .collect()
    }
    /// A circular arc in the `(axis 0, axis 1)` plane starting at `c0`
    /// heading along +axis 0 and turning right (negative `radius` turns
    /// left), covering `angle` rad over `steps` steps.
    pub fn arc(c0: &[f64], radius: f64, angle: f64, steps: usize) -> Vec<Vec<f64>> {
        (1..=steps)
            .map(|k| {
                let th = angle * k as f64 / steps as f64;
                vec![
                    c0[0] + radius.abs() * th.sin(),
                    c0[1] - radius * (1.0 - th.cos()),
                ]
            })
            .collect()
    }
}

impl Objective for ComPath {
    fn name(&self) -> String {
        "com_path".into()
    }
    fn eval(&self, s: &StepView, out: &mut Residuals) {
        let Some(target) = self.targets.get(s.k - 1) else {
            return;
        };
        let sw = self.weight.sqrt();
        let c = self.com.of(s.x);
        for (a, w) in self.com.axes.iter().enumerate() {
            out.r.push(sw * (c[a] - target[a]));
            out.dx.extend(w.iter().map(|&(d, m)| (a, d, sw * m)));
        }
    }
}

/// Average velocity of the centre of mass over the whole trajectory —
/// a speed and heading target: `r = √w ((c(x_K) − c(x_0))/t_K − v̂)`.
#[derive(Debug, Clone)]
pub struct AverageVelocity {
    com: CentreOfMass,
    target: Vec<f64>,
    weight: f64,
}

impl AverageVelocity {
    /// Target velocity `v̂` (m/s) along `axes`, weight `w` (s²/m²).
    pub fn new(model: &Model, axes: &[usize], target: Vec<f64>, weight: f64) -> Result<Self> {
        let com = CentreOfMass::new(model, axes)?;
        if target.len() != axes.len() {
            return Err(OptimError::Size {
                what: "average velocity target components (one per axis)",
                found: target.len(),
                expected: axes.len(),
            });
        }
        Ok(Self {
            com,
            target,
            weight,
        })
    }
    /// Planar target from a speed (m/s) and a heading (rad from axis 0
    /// towards axis 1).
    pub fn speed_heading(
        model: &Model,
        axes: [usize; 2],
        speed: f64,
        heading: f64,
        weight: f64,
    ) -> Result<Self> {
        Self::new(
            model,
            &axes,
            vec![speed * heading.cos(), speed * heading.sin()],
            weight,
        )
    }
}

impl Objective for AverageVelocity {
    fn name(&self) -> String {
        "average_velocity".into()
    }
    fn eval(&self, s: &StepView, out: &mut Residuals) {
        if s.k != s.steps || s.t <= 0.0 {
            return;
        }
        let sw = self.weight.sqrt();
        let c = self.com.of(s.x);
        let c0 = self.com.of(s.x0);
        for (a, w) in self.com.axes.iter().enumerate() {
            out.r.push(sw * ((c[a] - c0[a]) / s.t - self.target[a]));
            out.dx.extend(w.iter().map(|&(d, m)| (a, d, sw * m / s.t)));
        }
    }
}

/// Control smoothness: `r = √w (p_k[c] − p_{k−1}[c]) / h` per channel `c`.
#[derive(Debug, Clone)]
pub struct ControlSmoothness {
    channels: Vec<usize>,
    weight: f64,
    h: f64,
}

impl ControlSmoothness {
    /// Penalizes the rate of change of the named channels (weight in s²/unit²).
    pub fn new(model: &Model, channels: &[&str], h: f64, weight: f64) -> Result<Self> {
        let idx = channels
            .iter()
            .map(|c| {
                model
                    .layout()
                    .param(c, "control smoothness objective")
                    .map_err(OptimError::from)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            channels: idx,
            weight,
            h,
        })
    }
}

impl Objective for ControlSmoothness {
    fn name(&self) -> String {
        "control_smoothness".into()
    }
    fn eval(&self, s: &StepView, out: &mut Residuals) {
        let sw = self.weight.sqrt() / self.h;
        for (row, &c) in self.channels.iter().enumerate() {
            out.r.push(sw * (s.p[c] - s.p_prev[c]));
            out.dp.push((row, c, sw));
            out.dp_prev.push((row, c, -sw));
        }
    }
}
