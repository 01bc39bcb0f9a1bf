//! Gathering a sweep's points into one table and one picture.

use super::{PointResult, Sweep, SweepError};
use std::path::{Path, PathBuf};

/// What [`Sweep::gather`] found and wrote.
#[derive(Debug, Clone)]
pub struct Gathered {
    /// Each point's result (`None`: not run yet), in design order.
    pub points: Vec<Option<PointResult>>,
    /// `OUT/<name>/results.csv`.
    pub csv: PathBuf,
    /// `OUT/<name>/<objective>.svg`, if at least one point finished.
    pub plot: Option<PathBuf>,
}

impl Gathered {
    /// Points finished without error.
    pub fn finished(&self) -> usize {
        self.points
            .iter()
            .filter(|p| p.as_ref().is_some_and(|p| p.error.is_none()))
            .count()
    }
}

impl Sweep {
    /// Reads every point's `result.json` under `out/<name>/` and writes
    /// `results.csv` (one row per point: index, parameters, status, every
    /// recorded value — shortest round-trip decimals, so equal numbers
    /// print equal — and the error) and a plot of the objective over the
    /// parameters: a heat map for two grid parameters, a curve for one,
    /// one scatter panel per parameter otherwise.
    pub fn gather(&self, out: &Path) -> Result<Gathered, SweepError> {
        let dir = self.dir(out);
        std::fs::create_dir_all(&dir).map_err(|source| SweepError::Io {
            path: dir.clone(),
            source,
        })?;
        let points: Vec<Option<PointResult>> = (0..self.points.len())
            .map(|k| {
                let p = self.point_dir(out, k).join("result.json");
                std::fs::read_to_string(p)
                    .ok()
                    .and_then(|t| serde_json::from_str(&t).ok())
            })
            .collect();
        let mut names: Vec<String> = Vec::new();
        for r in points.iter().flatten() {
            for (n, _) in &r.values {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
        let csv_path = dir.join("results.csv");
        let io = |source: std::io::Error| SweepError::Io {
            path: csv_path.clone(),
            source,
        };
        let mut w = csv::Writer::from_path(&csv_path).map_err(|e| io(e.into()))?;
        let mut header = vec!["point".to_string()];
        header.extend(self.spec.parameters.iter().map(|p| p.label().to_string()));
        header.push("status".into());
        header.extend(names.iter().cloned());
        header.push("error".into());
        w.write_record(&header).map_err(|e| io(e.into()))?;
        for (k, (values, r)) in self.points.iter().zip(&points).enumerate() {
            let mut row = vec![k.to_string()];
            row.extend(values.iter().map(|v| v.to_string()));
            let status = match r {
                None => "missing",
                Some(r) if r.error.is_some() => "failed",
                Some(_) => "finished",
            };
            row.push(status.into());
            for n in &names {
                let v = r
                    .as_ref()
                    .and_then(|r| r.values.iter().find(|(m, _)| m == n))
                    .map_or(String::new(), |(_, v)| v.to_string());
                row.push(v);
            }
            row.push(r.as_ref().and_then(|r| r.error.clone()).unwrap_or_default());
            w.write_record(&row).map_err(|e| io(e.into()))?;
        }
        w.flush().map_err(io)?;
        let objective = self.objective();
        let samples: Vec<(Vec<f64>, f64)> = self
            .points
            .iter()
            .zip(&points)
            .filter_map(|(x, r)| {
                let r = r.as_ref()?;
                let v = r.values.iter().find(|(n, _)| n == objective)?.1;
                v.is_finite().then(|| (x.clone(), v))
            })
            .collect();
        let plot = if samples.is_empty() {
            None
        } else {
            let file = objective
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect::<String>();
            let path = dir.join(format!("{file}.svg"));
            let labels: Vec<&str> = self.spec.parameters.iter().map(|p| p.label()).collect();
            let grid = matches!(self.spec.design, super::Design::Grid);
            pliant_viz::plot_sweep(
                &path,
                &format!("{}: {objective}", self.spec.name),
                &labels,
                objective,
                &samples,
                grid,
            )
            .map_err(|e| SweepError::Io {
                path: path.clone(),
                source: std::io::Error::other(e.to_string()),
            })?;
            Some(path)
        };
        Ok(Gathered {
            points,
            csv: csv_path,
            plot,
        })
    }
}
