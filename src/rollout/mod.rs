//! Differentiable rollouts from a JSON spec ([`RolloutSpec`]): a scene,
//! a horizon, the variables `z` (keyframes of control channels, design
//! channels) and an objective `O(z) = ½ Σ_i w_i Σ_k ‖r_{i,k}‖²` whose
//! gradient `∇_z O` comes from the adjoint of the whole rollout (cable
//! paper §III-B, eqs. 9–11; [`pliant_optim::gradient::gradient_adjoint`]).
//! `pliant gradient SPEC` and the Python package's `pliant.Rollout` are
//! this module. SI units: the objective in the units of its residuals
//! squared times its weight (m² · 1/m² for the position terms: unitless).
//!
//! ```no_run
//! # fn main() -> Result<(), pliant::rollout::RolloutError> {
//! pliant::init();
//! let rollout = pliant::rollout::Rollout::from_file("examples/rollouts/pma_reach.json".as_ref())?;
//! let z = rollout.z0().to_vec();
//! let e = rollout.evaluate(&z, true)?;
//! println!("O = {:.4e}, ∇O = {:?}", e.value, e.gradient);
//! # Ok(()) }
//! ```

mod error;
mod readout;
mod spec;

pub use error::RolloutError;
pub use spec::{KeyframedControl, ObjectiveSpec, RolloutSpec, SceneSource, When};

use pliant_core::Simulator;
use pliant_core::scene::Scene;
use pliant_optim::{ComPath, ControlMap, Memory, Objective, gradient};
use readout::Readout;
use std::path::Path;
use std::sync::Mutex;

/// Most entries of the control map `∂p_k/∂z` (steps × channels × variables;
/// 2²⁷ doubles are 1 GiB).
pub const MAX_MAP_ENTRIES: usize = 1 << 27;

/// The objective and its gradient at one `z`.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// `O(z)`.
    pub value: f64,
    /// Each term's `½ w Σ_k ‖r_k‖²`, in the spec's order (they sum to `value`).
    pub terms: Vec<f64>,
    /// `∇_z O` by the adjoint (empty when not asked).
    pub gradient: Vec<f64>,
    /// Each term's gradient, in the spec's order (when asked with
    /// [`Rollout::evaluate_terms`]; they sum to `gradient`).
    pub term_gradients: Vec<Vec<f64>>,
    /// Positions `q_0 … q_K` of the rollout.
    pub states: Vec<Vec<f64>>,
    /// Newton iterations of the rollout.
    pub newton_iterations: usize,
}

/// A differentiable rollout built from a [`RolloutSpec`].
pub struct Rollout {
    sim: Mutex<Simulator>,
    map: ControlMap,
    /// Scheduled parameters of steps `1 … K` (channels outside `z` follow
    /// the scene's schedule).
    schedule: Vec<Vec<f64>>,
    base: Vec<f64>,
    x0: Vec<f64>,
    v0: Vec<f64>,
    z0: Vec<f64>,
    names: Vec<String>,
    objectives: Vec<Box<dyn Objective>>,
    labels: Vec<String>,
    dt: f64,
}

impl std::fmt::Debug for Rollout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rollout")
            .field("steps", &self.map.steps())
            .field("variables", &self.names)
            .field("objectives", &self.labels)
            .finish()
    }
}

impl Rollout {
    /// Reads a spec file (its `scene` path is relative to the file).
    pub fn from_file(path: &Path) -> Result<Self, RolloutError> {
        let text = pliant_core::scene::read_limited(path)?;
        let mut spec = RolloutSpec::from_json(&text, &path.display().to_string())?;
        spec.base_dir = path.parent().map(Path::to_path_buf);
        Self::new(&spec)
    }

    /// Builds the rollout a spec describes.
    pub fn new(spec: &RolloutSpec) -> Result<Self, RolloutError> {
        let scene = match &spec.scene {
            SceneSource::File(p) => {
                let p = match &spec.base_dir {
                    Some(d) if p.is_relative() => d.join(p),
                    _ => p.clone(),
                };
                Scene::from_file(&p)?
            }
            SceneSource::Inline(v) => {
                let mut s = Scene::from_json(&v.to_string(), "<rollout scene>")?;
                s.base_dir = spec.base_dir.clone();
                s
            }
        };
        let prepared = scene.into_simulator()?;
        let sim = prepared.simulator;
        let steps = spec.steps.unwrap_or(prepared.settings.steps);
        if steps == 0 {
            return Err(RolloutError::Spec {
                field: "steps".into(),
                message: "a rollout needs at least one step".into(),
            });
        }
        let model = sim.model();
        let dt = sim.dt();
        let channels: Vec<&str> = model.params().iter().map(|c| c.name.as_str()).collect();
        let find = |name: &str, field: String| {
            channels
                .iter()
                .position(|c| *c == name)
                .ok_or_else(|| RolloutError::Unknown {
                    field,
                    what: "parameter channel",
                    name: name.into(),
                    known: channels.iter().map(|c| c.to_string()).collect(),
                })
        };
        let mut map_channels = Vec::new();
        let mut names = Vec::new();
        let mut z0 = Vec::new();
        let horizon = steps as f64 * dt;
        let nz: usize =
            spec.controls.iter().map(|c| c.keyframes).sum::<usize>() + spec.design.len();
        // J_k rows per channel, filled below: steps × channels × nz.
        let n_ch = spec.controls.len() + spec.design.len();
        let size = steps
            .checked_mul(n_ch)
            .and_then(|v| v.checked_mul(nz))
            .filter(|&v| v <= MAX_MAP_ENTRIES)
            .ok_or_else(|| RolloutError::Spec {
                field: "controls".into(),
                message: format!(
                    "{steps} steps × {n_ch} channels × {nz} variables is more than the {MAX_MAP_ENTRIES} entries a control map may hold: fewer keyframes or steps"
                ),
            })?;
        let mut jac = vec![0.0; size];
        let mut col = 0;
        for (i, c) in spec.controls.iter().enumerate() {
            let ch = find(&c.channel, format!("controls[{i}].channel"))?;
            if map_channels.contains(&ch) {
                return Err(RolloutError::Spec {
                    field: format!("controls[{i}].channel"),
                    message: format!("channel `{}` is driven twice", c.channel),
                });
            }
            if c.keyframes < 2 {
                return Err(RolloutError::Spec {
                    field: format!("controls[{i}].keyframes"),
                    message: format!("{} keyframes: give at least 2", c.keyframes),
                });
            }
            let n = c.keyframes;
            let row = map_channels.len();
            for j in 0..n {
                let tj = horizon * j as f64 / (n - 1) as f64;
                names.push(format!("{}@{}s", c.channel, (tj * 1e9).round() / 1e9));
                z0.push(model.params()[ch].at(tj));
            }
            for k in 1..=steps {
                // Hat functions of the knots at t_k = k dt.
                let s = (k as f64 / steps as f64) * (n - 1) as f64;
                let j = (s.floor() as usize).min(n - 2);
                let f = s - j as f64;
                let at = (k - 1) * n_ch * nz + row * nz + col;
                jac[at + j] += 1.0 - f;
                jac[at + j + 1] += f;
            }
            map_channels.push(ch);
            col += n;
        }
        for (i, d) in spec.design.iter().enumerate() {
            let ch = find(d, format!("design[{i}]"))?;
            if map_channels.contains(&ch) {
                return Err(RolloutError::Spec {
                    field: format!("design[{i}]"),
                    message: format!("channel `{d}` is driven twice"),
                });
            }
            names.push(d.clone());
            z0.push(model.params()[ch].at(0.0));
            let row = map_channels.len();
            for k in 1..=steps {
                jac[(k - 1) * n_ch * nz + row * nz + col] = 1.0;
            }
            map_channels.push(ch);
            col += 1;
        }
        let map = if nz == 0 {
            None
        } else {
            Some(ControlMap::new(steps, map_channels, nz, jac, None)?)
        };
        let mut objectives: Vec<Box<dyn Objective>> = Vec::new();
        let mut labels = Vec::new();
        for (i, o) in spec.objectives.iter().enumerate() {
            let field = format!("objectives[{i}]");
            let w = o.weight();
            if !(w.is_finite() && w > 0.0) {
                return Err(RolloutError::Spec {
                    field: format!("{field}.weight"),
                    message: format!("{w}: a weight is positive and finite"),
                });
            }
            labels.push(o.label());
            objectives.push(match o {
                ObjectiveSpec::ComPath {
                    axes,
                    targets,
                    weight,
                } => {
                    if let Some(t) = targets.iter().flatten().find(|t| !t.is_finite()) {
                        return Err(RolloutError::Spec {
                            field: format!("{field}.targets"),
                            message: format!("{t}: give finite targets"),
                        });
                    }
                    if targets.len() != steps {
                        return Err(RolloutError::Spec {
                            field: format!("{field}.targets"),
                            message: format!(
                                "{} rows: give one target per step ({steps})",
                                targets.len()
                            ),
                        });
                    }
                    Box::new(ComPath::new(model, axes, targets.clone(), *weight)?)
                }
                _ => Box::new(Readout::new(model, o, steps, &field)?),
            });
        }
        let mut x0 = model.q0().to_vec();
        model.apply_constraints(&mut x0, 0.0);
        let v0 = model.v0().to_vec();
        let base = model.params_at(0.0);
        let schedule: Vec<Vec<f64>> = (1..=steps)
            .map(|k| model.params_at(k as f64 * dt))
            .collect();
        // A map with no variable is never asked for its Jacobian; keep a
        // one-column placeholder so the types stay simple.
        let map = match map {
            Some(m) => m,
            None => ControlMap::new(steps, Vec::new(), 1, Vec::new(), None)?,
        };
        Ok(Self {
            sim: Mutex::new(sim),
            map,
            schedule,
            base,
            x0,
            v0,
            z0,
            names,
            objectives,
            labels,
            dt,
        })
    }

    /// The variables' values the scene itself gives (its schedules at the
    /// keyframe times, its design values).
    pub fn z0(&self) -> &[f64] {
        &self.z0
    }
    /// One name per entry of `z`: `channel@t s` for keyframes, the
    /// channel's name for design parameters.
    pub fn variable_names(&self) -> &[String] {
        &self.names
    }
    /// The objective terms' labels, in the spec's order.
    pub fn objective_labels(&self) -> &[String] {
        &self.labels
    }
    /// Steps `K`.
    pub fn steps(&self) -> usize {
        self.schedule.len()
    }
    /// Step size, s.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Parameters of steps `1 … K` for `z`.
    pub fn params(&self, z: &[f64]) -> Result<Vec<Vec<f64>>, RolloutError> {
        if z.len() != self.z0.len() {
            return Err(RolloutError::Size {
                what: "z (one value per variable)",
                found: z.len(),
                expected: self.z0.len(),
            });
        }
        if let Some(i) = z.iter().position(|v| !v.is_finite()) {
            return Err(RolloutError::NonFinite {
                what: format!("z[{i}] ({})", self.names[i]),
                value: z[i],
            });
        }
        if z.is_empty() {
            return Ok(self.schedule.clone());
        }
        let mapped = self.map.params(&self.base, z)?;
        let mut p = self.schedule.clone();
        for (pk, mk) in p.iter_mut().zip(&mapped) {
            for &c in self.map.channels() {
                pk[c] = mk[c];
            }
        }
        Ok(p)
    }

    /// Rolls out from the scene's initial state with `z`; with `gradient`,
    /// also the adjoint gradient `∇_z O`.
    pub fn evaluate(&self, z: &[f64], gradient: bool) -> Result<Evaluation, RolloutError> {
        self.evaluate_with(z, gradient, false)
    }

    /// [`Rollout::evaluate`] with each term's gradient too (one adjoint
    /// pass per term over the same stored rollout; the total gradient is
    /// their sum), so a caller can weigh the terms itself:
    /// `∇(Σ_i m_i O_i) = Σ_i m_i ∇O_i`.
    pub fn evaluate_terms(&self, z: &[f64]) -> Result<Evaluation, RolloutError> {
        self.evaluate_with(z, true, true)
    }

    fn evaluate_with(
        &self,
        z: &[f64],
        gradient: bool,
        per_term: bool,
    ) -> Result<Evaluation, RolloutError> {
        let p = self.params(z)?;
        let mut sim = self.sim.lock().unwrap_or_else(|e| e.into_inner());
        let memory = if gradient {
            Memory::Store
        } else {
            Memory::Recompute
        };
        let tr = pliant_optim::rollout(&mut sim, &self.x0, &self.v0, &p, memory)?;
        let mut terms = Vec::with_capacity(self.objectives.len());
        for o in &self.objectives {
            let r = gradient::residuals(&tr, &self.base, std::slice::from_ref(o));
            terms.push(gradient::cost(&r));
        }
        let value: f64 = terms.iter().sum();
        let differentiable = !self.objectives.is_empty() && !z.is_empty();
        let mut term_gradients = Vec::new();
        if per_term {
            for o in &self.objectives {
                term_gradients.push(if z.is_empty() {
                    Vec::new()
                } else {
                    gradient::gradient_adjoint(
                        &tr,
                        &mut sim,
                        &self.map,
                        &self.base,
                        std::slice::from_ref(o),
                    )?
                    .1
                });
            }
        }
        let grad = if per_term {
            // The terms' gradients sum to the total: no extra adjoint pass.
            let mut g = vec![0.0; z.len()];
            for tg in &term_gradients {
                for (gi, ti) in g.iter_mut().zip(tg) {
                    *gi += ti;
                }
            }
            g
        } else if gradient && differentiable {
            let (_, g) =
                gradient::gradient_adjoint(&tr, &mut sim, &self.map, &self.base, &self.objectives)?;
            g
        } else if gradient {
            vec![0.0; z.len()]
        } else {
            Vec::new()
        };
        Ok(Evaluation {
            value,
            terms,
            gradient: grad,
            term_gradients,
            newton_iterations: tr.newton_iterations.iter().sum(),
            states: tr.x,
        })
    }

    /// `∇_z O` by central differences of whole rollouts with step
    /// `eps · max(1, |z_j|)` (to check the adjoint).
    pub fn gradient_fd(&self, z: &[f64], eps: f64) -> Result<Vec<f64>, RolloutError> {
        if !(eps.is_finite() && eps > 0.0) {
            return Err(RolloutError::NonFinite {
                what: format!("the central-difference step {eps} (it must be positive)"),
                value: eps,
            });
        }
        let mut g = Vec::with_capacity(z.len());
        for j in 0..z.len() {
            let h = eps * z[j].abs().max(1.0);
            let mut zp = z.to_vec();
            zp[j] += h;
            let mut zm = z.to_vec();
            zm[j] -= h;
            g.push(
                (self.evaluate(&zp, false)?.value - self.evaluate(&zm, false)?.value) / (2.0 * h),
            );
        }
        Ok(g)
    }
}
