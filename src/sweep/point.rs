//! Running one point of a sweep into its own directory.

use super::{Kind, Sweep, SweepError};
use crate::provenance::RunRecord;
use pliant_core::scene::Scene;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What a point recorded (`result.json` in its directory).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// The point's index in the design.
    pub index: usize,
    /// `(name, value)` of each parameter, in the spec's order.
    pub parameters: Vec<(String, f64)>,
    /// `(name, value)` of what the point recorded (empty if it failed).
    pub values: Vec<(String, f64)>,
    /// Why the point failed, if it did (a later run of the sweep retries it).
    pub error: Option<String>,
    /// The point was already finished in its directory and not run again.
    #[serde(skip)]
    pub skipped: bool,
}

impl Sweep {
    /// Runs point `k` into [`Sweep::point_dir`], or reads its result if a
    /// run with the same parameter values finished there before. A point
    /// whose simulation or optimization fails returns (and writes) a
    /// result with its `error`; `Err` is for what stops the sweep itself
    /// (no such point, a directory that cannot be written).
    pub fn run_point(&self, out: &Path, k: usize) -> Result<PointResult, SweepError> {
        let values = self.points.get(k).ok_or_else(|| SweepError::NoSuchPoint {
            sweep: self.spec.name.clone(),
            index: k,
            points: self.points.len(),
        })?;
        let dir = self.point_dir(out, k);
        let parameters: Vec<(String, f64)> = self
            .spec
            .parameters
            .iter()
            .zip(values)
            .map(|(p, &v)| (p.label().to_string(), v))
            .collect();
        let result_path = dir.join("result.json");
        if let Ok(text) = std::fs::read_to_string(&result_path)
            && let Ok(mut done) = serde_json::from_str::<PointResult>(&text)
            && done.error.is_none()
            && done.parameters == parameters
        {
            done.skipped = true;
            return Ok(done);
        }
        std::fs::create_dir_all(&dir).map_err(|source| SweepError::Io {
            path: dir.clone(),
            source,
        })?;
        let (base, scene) = self.documents(values)?;
        let input = serde_json::json!({ "base": base, "scene": scene });
        let unit = match self.spec.kind {
            Kind::Optimize => "iterations",
            _ => "steps",
        };
        let record = RunRecord::start(
            Some(&self.base_path),
            Some(&input.to_string()),
            Vec::new(),
            unit,
        );
        let started = std::time::Instant::now();
        let (outcome, progress) = match self.run_kind(&dir, base, scene) {
            Ok((v, n)) => (Ok(self.keep(v)), n),
            Err(e) => (Err(e), 0),
        };
        let result = PointResult {
            index: k,
            parameters,
            error: outcome.as_ref().err().cloned(),
            values: outcome.unwrap_or_default(),
            skipped: false,
        };
        let stopped = match &result.error {
            None => "finished".to_string(),
            Some(e) => format!("error: {e}"),
        };
        if let Err(e) = record.finish(&dir, started, progress, stopped) {
            log::warn!("{}: run.json not written: {e}", dir.display());
        }
        let text = serde_json::to_string_pretty(&result).unwrap_or_default() + "\n";
        std::fs::write(&result_path, text).map_err(|source| SweepError::Io {
            path: result_path.clone(),
            source,
        })?;
        Ok(result)
    }

    /// The recorded values the spec asks for.
    fn keep(&self, values: Vec<(String, f64)>) -> Vec<(String, f64)> {
        match &self.spec.record {
            None => values,
            Some(names) => values
                .into_iter()
                .filter(|(n, _)| names.iter().any(|m| m == n))
                .collect(),
        }
    }

    /// Runs the point's documents; the recorded values and the progress
    /// (steps or iterations), or why it failed.
    fn run_kind(
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
                let setup = spec.setup().map_err(|e| e.to_string())?;
                let z0 = spec.z0(&setup).map_err(|e| e.to_string())?;
                let run = crate::gait::optimize_gait(
                    &setup,
                    &z0,
                    spec.method(),
                    spec.iterations,
                    dir,
                    crate::gait::Checkpoints::Resume,
                    None,
                )
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
