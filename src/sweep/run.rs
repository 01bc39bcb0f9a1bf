//! What a point of each kind runs — a simulation, a differentiated
//! rollout, a gait optimization — and the values it records.

use super::{Kind, Sweep};
use pliant_core::scene::Scene;
use std::path::Path;

impl Sweep {
    /// Runs the point's documents into `dir`; the recorded values and the
    /// progress (steps or iterations), or why it failed.
    pub(super) fn run_kind(
        &self,
        dir: &Path,
        base: serde_json::Value,
        scene: Option<serde_json::Value>,
    ) -> Result<(Vec<(String, f64)>, u64), String> {
        let base_dir = self.base_path.parent().map(Path::to_path_buf);
        let origin = self.base_path.display().to_string();
        match self.spec.kind {
            Kind::Simulate => {
                let mut sc =
                    Scene::from_json(&base.to_string(), &origin).map_err(|e| e.to_string())?;
                sc.base_dir = base_dir;
                let prepared = sc.into_simulator().map_err(|e| e.to_string())?;
                let mut sim = prepared.simulator;
                let steps = self.spec.steps.unwrap_or(prepared.settings.steps);
                let stop = std::sync::atomic::AtomicBool::new(false);
                let res =
                    crate::simulate::run(&mut sim, steps, steps.max(1), dir, &stop, false, None)
                        .map_err(|e| e.to_string())?;
                if let Some(e) = res.error {
                    return Err(format!("step {}: {e}", res.last.step + 1));
                }
                let last = &res.last;
                let mut v = vec![("time".to_string(), last.time)];
                for (a, c) in ["x", "y", "z"].iter().zip(&last.com) {
                    v.push((format!("com.{a}"), *c));
                }
                v.push(("kinetic_energy".into(), last.kinetic));
                let p = sim.model().params_at(sim.time());
                v.push(("potential_energy".into(), sim.potential_energy(&p)));
                v.push(("newton_iterations".into(), res.newton_iterations as f64));
                v.extend(last.observables.iter().cloned());
                Ok((v, last.step as u64))
            }
            Kind::Gradient => {
                let mut spec = crate::rollout::RolloutSpec::from_json(&base.to_string(), &origin)
                    .map_err(|e| e.to_string())?;
                spec.base_dir = base_dir;
                if let Some(n) = self.spec.steps {
                    spec.steps = Some(n);
                }
                if let (Some(s), Some((path, _))) = (scene, &self.scene) {
                    // The changed scene goes inline; its own relative paths
                    // stay relative to the scene file's directory.
                    spec.scene = crate::rollout::SceneSource::Inline(s);
                    spec.base_dir = path.parent().map(Path::to_path_buf);
                }
                let r = crate::rollout::Rollout::new(&spec).map_err(|e| e.to_string())?;
                let e = r.evaluate(r.z0(), true).map_err(|e| e.to_string())?;
                let mut v = vec![("objective".to_string(), e.value)];
                for (l, t) in r.objective_labels().iter().zip(&e.terms) {
                    v.push((format!("objective.{l}"), *t));
                }
                for (n, g) in r.variable_names().iter().zip(&e.gradient) {
                    v.push((format!("dO/d{n}"), *g));
                }
                v.push(("newton_iterations".into(), e.newton_iterations as f64));
                Ok((v, r.steps() as u64))
            }
            Kind::Optimize => {
                let mut spec = crate::gait::OptimizeSpec::from_json(&base.to_string(), &origin)
                    .map_err(|e| e.to_string())?;
                spec.base_dir = base_dir;
                spec.scene_text = scene.map(|s| s.to_string());
                if let Some(n) = self.spec.steps {
                    spec.iterations = n as u64;
                }
                let run = spec
                    .optimize(dir, crate::gait::Checkpoints::Resume, None)
                    .map_err(|e| e.to_string())?;
                let (r, s) = (&run.result, &run.summary);
                let v = vec![
                    ("objective".to_string(), r.objective),
                    ("initial_objective".into(), r.initial_objective),
                    ("body_lengths_per_minute".into(), s.body_lengths_per_minute),
                    ("displacement.x".into(), s.displacement[0]),
                    ("displacement.y".into(), s.displacement[1]),
                    ("heading_change_degrees".into(), s.heading_change_degrees),
                    ("com_drop".into(), s.com_drop),
                    ("newton_per_step".into(), s.newton_per_step),
                    ("iterations".into(), r.iterations as f64),
                ];
                Ok((v, r.iterations))
            }
        }
    }
}
