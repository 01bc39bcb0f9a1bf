//! Differentiable self-folding — beyond the paper, which had no gradients:
//! the shape of the folded chain at a time `T` as a function of the
//! connectors' activation schedules, with exact gradients of whole
//! rollouts (forward sensitivity and adjoint, `pliant_optim`).
//!
//! - [`LetterShape`]: residuals `√w (‖c_i − c_j‖ − ‖g_i − g_j‖)` over every
//!   pair of cells at the last step — the centroids' distance matrix
//!   against the letter's, so the objective ignores where the chain
//!   floats and how it is turned (m).
//! - [`Effort`]: `√(w h) a_k` per activation channel and step, so the
//!   cost grows with `½ w ∫ a² dt` — magnets are not free.
//! - [`fold_problem`]: the shooting problem over piecewise-constant
//!   activations (`blocks` values per channel over the horizon, bounded).

use super::folding::{Chain, FoldingDesign, Letter, chain};
use crate::Result;
use pliant_core::{Integrator, Model, Simulator};
use pliant_optim::{ControlMap, Objective, Residuals, Shooting, StepView};

/// The centroids' distance matrix against the letter's at the last step.
#[derive(Debug, Clone)]
pub struct LetterShape {
    /// Per cell, the `(x, y)` DOFs of its membrane nodes.
    rings: Vec<Vec<[usize; 2]>>,
    /// `(i, j, target distance)`, m.
    pairs: Vec<(usize, usize, f64)>,
    weight: f64,
}

impl LetterShape {
    /// For `chain` (built into `model`), weight `w` (1/m²).
    pub fn new(model: &Model, chain: &Chain, weight: f64) -> Result<Self> {
        let layout = model.layout();
        let rings = chain
            .rings
            .iter()
            .map(|r| {
                r.iter()
                    .map(|&n| {
                        Ok([
                            layout.node_dof(n, 0, "letter shape")?,
                            layout.node_dof(n, 1, "letter shape")?,
                        ])
                    })
                    .collect::<Result<Vec<_>>>()
            })
            .collect::<Result<Vec<_>>>()?;
        let g = chain.letter.path();
        let mut pairs = Vec::new();
        for i in 0..g.len() {
            for j in i + 1..g.len() {
                let d = (((g[i].0 - g[j].0).pow(2) + (g[i].1 - g[j].1).pow(2)) as f64).sqrt();
                pairs.push((i, j, d * chain.pitch));
            }
        }
        Ok(Self {
            rings,
            pairs,
            weight,
        })
    }

    fn centroid(&self, i: usize, x: &[f64]) -> [f64; 2] {
        let n = self.rings[i].len() as f64;
        let s = self.rings[i]
            .iter()
            .fold([0.0, 0.0], |s, d| [s[0] + x[d[0]], s[1] + x[d[1]]]);
        [s[0] / n, s[1] / n]
    }

    /// `½ Σ w (‖c_i − c_j‖ − L_ij)²` at state `x` (m²·w).
    pub fn cost(&self, x: &[f64]) -> f64 {
        let mut out = Residuals::default();
        self.residuals(x, &mut out);
        0.5 * out.r.iter().map(|r| r * r).sum::<f64>()
    }

    fn residuals(&self, x: &[f64], out: &mut Residuals) {
        let sw = self.weight.sqrt();
        let c: Vec<[f64; 2]> = (0..self.rings.len()).map(|i| self.centroid(i, x)).collect();
        for (row, &(i, j, l)) in self.pairs.iter().enumerate() {
            let d = [c[j][0] - c[i][0], c[j][1] - c[i][1]];
            let len = d[0].hypot(d[1]);
            out.r.push(sw * (len - l));
            let u = [d[0] / len, d[1] / len];
            for (cell, sign) in [(i, -1.0), (j, 1.0)] {
                let w = sign * sw / self.rings[cell].len() as f64;
                for dof in &self.rings[cell] {
                    out.dx.push((row, dof[0], w * u[0]));
                    out.dx.push((row, dof[1], w * u[1]));
                }
            }
        }
    }
}

impl Objective for LetterShape {
    fn name(&self) -> String {
        "letter_shape".into()
    }
    fn eval(&self, s: &StepView, out: &mut Residuals) {
        if s.k == s.steps {
            self.residuals(s.x, out);
        }
    }
}

/// Activation effort `√(w h) a` per controlled channel and step.
#[derive(Debug, Clone)]
pub struct Effort {
    channels: Vec<usize>,
    scale: f64,
}

impl Effort {
    /// Over parameter indices `channels`, weight `w` (1/s), step `h` (s).
    pub fn new(channels: Vec<usize>, weight: f64, h: f64) -> Self {
        Self {
            channels,
            scale: (weight * h).sqrt(),
        }
    }
}

impl Objective for Effort {
    fn name(&self) -> String {
        "effort".into()
    }
    fn eval(&self, s: &StepView, out: &mut Residuals) {
        for (row, &c) in self.channels.iter().enumerate() {
            out.r.push(self.scale * s.p[c]);
            out.dp.push((row, c, self.scale));
        }
    }
}

/// A folding problem: the shooting problem and its starting values (every
/// activation 1, the paper's all-on schedule).
#[derive(Debug)]
pub struct FoldProblem {
    /// The problem over `z` (activation per channel and block).
    pub shooting: Shooting,
    /// All ones.
    pub z0: Vec<f64>,
    /// The chain.
    pub chain: Chain,
}

/// The shooting problem of folding `letter` within `seconds`: the
/// activation of each of its channels piecewise constant over `blocks`
/// equal parts of the horizon, in `[0, max_activation]` (above 1: magnets
/// stronger than the design's, as an electromagnet driven harder); the
/// [`LetterShape`] at the end (weight `shape_weight`, 1/m²) and the
/// [`Effort`] (weight `effort`, 1/s).
pub fn fold_problem(
    letter: Letter,
    d: &FoldingDesign,
    seconds: f64,
    blocks: usize,
    max_activation: f64,
    shape_weight: f64,
    effort: f64,
) -> Result<FoldProblem> {
    let (model, chain) = chain(letter, d)?;
    let steps = (seconds / d.dt).round() as usize;
    if blocks == 0 || steps < blocks {
        return Err(pliant_core::CoreError::degenerate(
            "blocks",
            format!("{blocks} blocks over {steps} steps: need 1 ≤ blocks ≤ steps"),
        )
        .into());
    }
    let layout = model.layout();
    let channels: Vec<usize> = chain
        .channels
        .iter()
        .map(|(_, name)| layout.param(name, "fold channel"))
        .collect::<pliant_core::Result<_>>()?;
    let nc = channels.len();
    let nz = nc * blocks;
    let mut jac = vec![0.0; steps * nc * nz];
    for k in 0..steps {
        let b = (k * blocks / steps).min(blocks - 1);
        for c in 0..nc {
            jac[k * nc * nz + c * nz + c * blocks + b] = 1.0;
        }
    }
    let map = ControlMap::new(
        steps,
        channels.clone(),
        nz,
        jac,
        Some((0.0, max_activation)),
    )?;
    let shape = LetterShape::new(&model, &chain, shape_weight)?;
    let sim = Simulator::new(model, Integrator::ImplicitEuler, d.dt, super::newton())?;
    let shooting = Shooting::new(
        sim,
        map,
        vec![
            Box::new(shape),
            Box::new(Effort::new(channels, effort, d.dt)),
        ],
    )?;
    Ok(FoldProblem {
        shooting,
        z0: vec![1.0; nz],
        chain,
    })
}
