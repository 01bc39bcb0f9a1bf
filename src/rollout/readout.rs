//! Objective terms that read the state linearly — centre of mass, a node's
//! coordinates, an output group's centroid — against constant targets:
//! `r_k = √w (L x_k − t)` at the last step or at every step, so
//! `½ Σ_k ‖r_k‖² = ½ w Σ_k ‖L x_k − t‖²`.

use super::{ObjectiveSpec, RolloutError, When};
use pliant_core::Model;
use pliant_optim::{CentreOfMass, Objective, Residuals, StepView};

/// One linear readout term.
#[derive(Debug, Clone)]
pub(crate) struct Readout {
    label: String,
    /// One row `(dof, coefficient)` per residual.
    rows: Vec<Vec<(usize, f64)>>,
    target: Vec<f64>,
    sqrt_w: f64,
    at: When,
    steps: usize,
}

impl Readout {
    /// The term `spec` (not a COM path) over `steps` steps; `field` names
    /// it in errors.
    pub(crate) fn new(
        model: &Model,
        spec: &ObjectiveSpec,
        steps: usize,
        field: &str,
    ) -> Result<Self, RolloutError> {
        let layout = model.layout();
        let bad = |sub: &str, message: String| RolloutError::Spec {
            field: format!("{field}.{sub}"),
            message,
        };
        let check_target = |axes: &[usize], target: &[f64]| {
            if axes.is_empty() {
                return Err(bad("axes", "give at least one axis".into()));
            }
            if target.len() != axes.len() {
                return Err(bad(
                    "target",
                    format!(
                        "{} values for {} axes: give one per axis",
                        target.len(),
                        axes.len()
                    ),
                ));
            }
            Ok(())
        };
        let (rows, target, weight, at) = match spec {
            ObjectiveSpec::Com {
                axes,
                target,
                at,
                weight,
            } => {
                check_target(axes, target)?;
                let rows = CentreOfMass::new(model, axes)?.rows().to_vec();
                (rows, target.clone(), *weight, *at)
            }
            ObjectiveSpec::Node {
                node,
                axes,
                target,
                at,
                weight,
            } => {
                check_target(axes, target)?;
                if *node >= layout.n_nodes() {
                    return Err(bad(
                        "node",
                        format!(
                            "node {node} does not exist (the scene has {})",
                            layout.n_nodes()
                        ),
                    ));
                }
                let mut rows = Vec::new();
                for &a in axes {
                    rows.push(vec![(layout.node_dof(*node, a, field)?, 1.0)]);
                }
                (rows, target.clone(), *weight, *at)
            }
            ObjectiveSpec::Observable {
                name,
                target,
                at,
                weight,
            } => {
                let known = || {
                    let mut k = Vec::new();
                    for o in layout.outputs() {
                        for a in ["x", "y", "z"].iter().take(layout.dim()) {
                            k.push(format!("{o}.{a}"));
                        }
                    }
                    k
                };
                let unknown = || RolloutError::Unknown {
                    field: format!("{field}.name"),
                    what: "differentiable observable (an output group's centroid)",
                    name: name.clone(),
                    known: known(),
                };
                let (region, axis) = name.rsplit_once('.').ok_or_else(unknown)?;
                let a = ["x", "y", "z"]
                    .iter()
                    .take(layout.dim())
                    .position(|c| *c == axis)
                    .ok_or_else(unknown)?;
                if !layout.outputs().iter().any(|o| o == region) {
                    return Err(unknown());
                }
                let nodes = layout.region(region, field)?;
                let c = 1.0 / nodes.len() as f64;
                let mut row = Vec::with_capacity(nodes.len());
                for &n in nodes {
                    row.push((layout.node_dof(n, a, field)?, c));
                }
                (vec![row], vec![*target], *weight, *at)
            }
            ObjectiveSpec::ComPath { .. } => {
                return Err(bad(
                    "type",
                    "a COM path is not a readout (pliant_optim::ComPath builds it)".into(),
                ));
            }
        };
        if let Some(t) = target.iter().find(|t| !t.is_finite()) {
            return Err(bad("target", format!("{t}: give finite targets")));
        }
        Ok(Self {
            label: spec.label(),
            rows,
            target,
            sqrt_w: weight.sqrt(),
            at,
            steps,
        })
    }
}

impl Objective for Readout {
    fn name(&self) -> String {
        self.label.clone()
    }
    fn eval(&self, s: &StepView, out: &mut Residuals) {
        if self.at == When::Final && s.k != self.steps {
            return;
        }
        for (i, (row, t)) in self.rows.iter().zip(&self.target).enumerate() {
            let v: f64 = row.iter().map(|&(d, c)| c * s.x[d]).sum();
            out.r.push(self.sqrt_w * (v - t));
            out.dx
                .extend(row.iter().map(|&(d, c)| (i, d, self.sqrt_w * c)));
        }
    }
}
