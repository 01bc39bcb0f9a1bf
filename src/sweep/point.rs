//! Running one point of a sweep into its own directory.

use super::{Kind, Sweep, SweepError};
use crate::provenance::RunRecord;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What a point recorded (`result.json` in its directory).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// The point's index in the design.
    pub index: usize,
    /// `(name, value)` of each parameter, in the spec's order.
    pub parameters: Vec<(String, f64)>,
    /// `(name, value)` of what the point recorded (empty if it failed; a
    /// value that is not finite is written as `null` and read back as NaN).
    #[serde(with = "nullable")]
    pub values: Vec<(String, f64)>,
    /// Why the point failed, if it did (a later run of the sweep retries it).
    pub error: Option<String>,
    /// Fingerprint of everything the point ran: its documents as changed,
    /// the kind, `steps` and `record`. A result whose fingerprint differs
    /// from the spec's now is stale: not skipped, not gathered.
    pub inputs: String,
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
        let (base, scene) = self.documents(values)?;
        let inputs = self.fingerprint(&base, scene.as_ref());
        let result_path = dir.join("result.json");
        if let Some(mut done) = read_result(&result_path)
            && done.error.is_none()
            && done.inputs == inputs
        {
            done.skipped = true;
            return Ok(done);
        }
        std::fs::create_dir_all(&dir).map_err(|source| SweepError::Io {
            path: dir.clone(),
            source,
        })?;
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
            inputs,
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

    /// The fingerprint of point `values` ([`PointResult::inputs`]).
    pub(super) fn point_inputs(&self, values: &[f64]) -> Result<String, SweepError> {
        let (base, scene) = self.documents(values)?;
        Ok(self.fingerprint(&base, scene.as_ref()))
    }

    /// FNV-1a (64 bits) of the canonical JSON of what a point runs (keys
    /// sorted: the same inputs always give the same text).
    fn fingerprint(&self, base: &serde_json::Value, scene: Option<&serde_json::Value>) -> String {
        let doc = serde_json::json!({
            "kind": self.spec.kind,
            "steps": self.spec.steps,
            "record": self.spec.record,
            "base": base,
            "scene": scene,
        });
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in doc.to_string().bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x}")
    }
}

/// A point's `result.json`, if it exists and parses (a file that does
/// not parse is logged and treated as missing).
pub(super) fn read_result(path: &Path) -> Option<PointResult> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text)
        .inspect_err(|e| {
            log::warn!(
                "{}: not a point result ({e}); the point counts as not run",
                path.display()
            )
        })
        .ok()
}

/// Recorded values with non-finite numbers as JSON `null` (read back as NaN).
mod nullable {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer>(v: &[(String, f64)], s: S) -> Result<S::Ok, S::Error> {
        let out: Vec<(&str, Option<f64>)> = v
            .iter()
            .map(|(n, x)| (n.as_str(), x.is_finite().then_some(*x)))
            .collect();
        out.serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<(String, f64)>, D::Error> {
        let v: Vec<(String, Option<f64>)> = Vec::deserialize(d)?;
        Ok(v.into_iter()
            .map(|(n, x)| (n, x.unwrap_or(f64::NAN)))
            .collect())
    }
}
