//! Design sweeps: one base document (a scene, a rollout spec or a gait
//! spec), parameters changed by JSON pointer, a grid, random or
//! Latin-hypercube design, and what each point records. Every point runs
//! on its own — `pliant sweep SPEC --jobs N` runs them here, `--task-id K`
//! runs point `K` alone (a Slurm job array), and the Python package's
//! `pliant.sweep(spec, backend="ray")` makes each a Ray task — and writes
//! `OUT/<name>/point_KKKK/` with its `result.json` and `run.json`, so a
//! re-run skips the points that finished. [`Sweep::gather`] collects them
//! into `results.csv` and a plot of the objective over the parameters.
//!
//! ```no_run
//! # fn main() -> Result<(), pliant::sweep::SweepError> {
//! pliant::init();
//! let sweep = pliant::sweep::Sweep::from_file("examples/sweeps/pma_pressure.json".as_ref())?;
//! let out = std::path::Path::new("out/sweeps");
//! for k in 0..sweep.points().len() {
//!     let r = sweep.run_point(out, k)?;
//!     println!("{k}: {:?}", r.values);
//! }
//! sweep.gather(out)?;
//! # Ok(()) }
//! ```

mod design;
mod error;
mod gather;
mod parquet;
mod plot;
mod point;
mod run;
mod spec;

pub use error::SweepError;
pub use gather::Gathered;
pub use point::PointResult;
pub use spec::{Design, Kind, Parameter, SweepSpec, Target};

use std::path::{Path, PathBuf};

/// Most points a design may have (a grid's product of levels, or a
/// sampled design's `points`).
pub const MAX_POINTS: usize = 1_000_000;

/// A sweep read from its spec, its points laid out.
#[derive(Debug, Clone)]
pub struct Sweep {
    spec: SweepSpec,
    /// The base document's path (resolved) and content.
    base_path: PathBuf,
    base: serde_json::Value,
    /// The scene a rollout or gait spec names, if a parameter changes it.
    scene: Option<(PathBuf, serde_json::Value)>,
    points: Vec<Vec<f64>>,
}

impl Sweep {
    /// Reads a sweep spec file (`base` is relative to it).
    pub fn from_file(path: &Path) -> Result<Self, SweepError> {
        let text = pliant_core::scene::read_limited(path)?;
        Self::from_json(&text, &path.display().to_string(), path.parent())
    }

    /// Parses a sweep spec; `origin` names it in errors and `dir` is where
    /// `base` is relative to.
    pub fn from_json(text: &str, origin: &str, dir: Option<&Path>) -> Result<Self, SweepError> {
        let spec: SweepSpec =
            pliant_core::json::from_str(text, "sweep").map_err(|e| SweepError::Parse {
                origin: origin.into(),
                field: e.field,
                message: e.message,
            })?;
        let bad = |field: String, message: String| SweepError::Spec {
            sweep: spec.name.clone(),
            field,
            message,
        };
        if spec.name.is_empty()
            || spec
                .name
                .chars()
                .any(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        {
            return Err(bad(
                "name".into(),
                format!(
                    "`{}`: a sweep's name names its output directory: letters, digits, `_` and `-`",
                    spec.name
                ),
            ));
        }
        if spec.parameters.is_empty() {
            return Err(bad("parameters".into(), "give at least one".into()));
        }
        for (i, p) in spec.parameters.iter().enumerate() {
            let field = format!("parameters[{i}]");
            let ranged = matches!(
                spec.design,
                Design::Random { .. } | Design::LatinHypercube { .. }
            );
            if let Some([lo, hi]) = p.range
                && (!(lo.is_finite() && hi.is_finite() && lo < hi) || (p.log && lo <= 0.0))
            {
                return Err(bad(
                    format!("{field}.range"),
                    format!(
                        "[{lo}, {hi}]: give finite low < high{}",
                        if p.log { ", both positive for log" } else { "" }
                    ),
                ));
            }
            if ranged && p.range.is_none() {
                return Err(bad(
                    format!("{field}.range"),
                    "a random or Latin-hypercube design samples `range`: give [low, high]".into(),
                ));
            }
            if !ranged {
                match (&p.values, p.range, p.levels) {
                    (Some(v), _, _) if !v.is_empty() && v.iter().all(|x| x.is_finite()) => {}
                    (None, Some(_), Some(n)) if n >= 2 => {}
                    _ => {
                        return Err(bad(
                            field,
                            "a grid needs finite `values`, or a `range` with `levels` ≥ 2".into(),
                        ));
                    }
                }
            }
            if p.target == Target::Scene && spec.kind == Kind::Simulate {
                return Err(bad(
                    format!("{field}.in"),
                    "a simulate sweep's base is the scene: use \"in\": \"base\"".into(),
                ));
            }
        }
        if let Design::Random { points, .. } | Design::LatinHypercube { points, .. } = spec.design
            && !(1..=MAX_POINTS).contains(&points)
        {
            return Err(bad(
                "design.points".into(),
                format!("{points}: give 1 to {MAX_POINTS}"),
            ));
        }
        if spec.design == Design::Grid {
            let mut n: usize = 1;
            for (i, p) in spec.parameters.iter().enumerate() {
                let levels = p.values.as_ref().map_or(p.levels.unwrap_or(0), Vec::len);
                n = n.saturating_mul(levels);
                if n > MAX_POINTS {
                    return Err(bad(
                        format!("parameters[{i}]"),
                        format!("the grid would have more than {MAX_POINTS} points"),
                    ));
                }
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        for (i, p) in spec.parameters.iter().enumerate() {
            let l = p.label();
            if ["point", "status", "error"].contains(&l) || seen.contains(&l) {
                return Err(bad(
                    format!("parameters[{i}].name"),
                    format!(
                        "`{l}` names another column of the results: give each parameter its own name"
                    ),
                ));
            }
            seen.push(l);
        }
        if let (Some(record), Some(objective)) = (&spec.record, &spec.objective)
            && !record.contains(objective)
        {
            return Err(bad(
                "objective".into(),
                format!("`{objective}` is not among the recorded values (`record`)"),
            ));
        }
        let base_path = match dir {
            Some(d) if spec.base.is_relative() => d.join(&spec.base),
            _ => spec.base.clone(),
        };
        let base = read_json(&base_path)?;
        let scene = if spec.parameters.iter().any(|p| p.target == Target::Scene) {
            let rel = base.get("scene").and_then(|s| s.as_str()).ok_or_else(|| {
                bad(
                    "parameters".into(),
                    format!(
                        "a parameter is \"in\": \"scene\" but {} names no scene file in `scene`",
                        base_path.display()
                    ),
                )
            })?;
            let p = match base_path.parent() {
                Some(d) if Path::new(rel).is_relative() => d.join(rel),
                _ => PathBuf::from(rel),
            };
            let v = read_json(&p)?;
            Some((p, v))
        } else {
            None
        };
        let points = design::points(&spec.design, &spec.parameters);
        let sweep = Self {
            spec,
            base_path,
            base,
            scene,
            points,
        };
        // Every pointer must address a number before any point runs.
        if let Some(p) = sweep.points.first() {
            sweep.documents(p)?;
        }
        Ok(sweep)
    }

    /// The spec.
    pub fn spec(&self) -> &SweepSpec {
        &self.spec
    }
    /// The points: one value per parameter each, in the spec's order.
    pub fn points(&self) -> &[Vec<f64>] {
        &self.points
    }
    /// Where point `k` writes: `out/<name>/point_KKKK`.
    pub fn point_dir(&self, out: &Path, k: usize) -> PathBuf {
        self.dir(out).join(format!("point_{k:04}"))
    }
    /// The sweep's output directory `out/<name>`.
    pub fn dir(&self, out: &Path) -> PathBuf {
        out.join(&self.spec.name)
    }
    /// The plotted value's name.
    pub fn objective(&self) -> &str {
        self.spec
            .objective
            .as_deref()
            .unwrap_or(match self.spec.kind {
                Kind::Simulate => "com.x",
                Kind::Gradient => "objective",
                Kind::Optimize => "body_lengths_per_minute",
            })
    }

    /// The base document and the scene of point `values`, changed.
    fn documents(
        &self,
        values: &[f64],
    ) -> Result<(serde_json::Value, Option<serde_json::Value>), SweepError> {
        let mut base = self.base.clone();
        let mut scene = self.scene.as_ref().map(|s| s.1.clone());
        for (i, (p, &v)) in self.spec.parameters.iter().zip(values).enumerate() {
            let (doc, path) = match (p.target, &mut scene, &self.scene) {
                (Target::Scene, Some(s), Some((path, _))) => (s, path),
                _ => (&mut base, &self.base_path),
            };
            let err = |message: &str| SweepError::Pointer {
                sweep: self.spec.name.clone(),
                index: i,
                pointer: p.path.clone(),
                document: path.display().to_string(),
                message: message.into(),
            };
            let slot = doc
                .pointer_mut(&p.path)
                .ok_or_else(|| err("no such field (a JSON pointer starts with `/`; array entries are numbers: /energies/0/stiffness)"))?;
            if !slot.is_number() {
                return Err(err(&format!("the field holds {slot}, not a number")));
            }
            *slot = serde_json::json!(v);
        }
        Ok((base, scene))
    }
}

fn read_json(path: &Path) -> Result<serde_json::Value, SweepError> {
    let text = pliant_core::scene::read_limited(path)?;
    serde_json::from_str(&text).map_err(|e| SweepError::Parse {
        origin: path.display().to_string(),
        field: String::new(),
        message: e.to_string(),
    })
}
