//! Gathering a sweep's points into one table (CSV and Parquet) and one
//! picture.

use super::{PointResult, Sweep, SweepError};
use std::path::{Path, PathBuf};

/// What [`Sweep::gather`] found and wrote.
#[derive(Debug, Clone)]
pub struct Gathered {
    /// Each point's result (`None`: not run yet), in design order.
    pub points: Vec<Option<PointResult>>,
    /// `OUT/<name>/results.csv`.
    pub csv: PathBuf,
    /// `OUT/<name>/results.parquet` (the same table, typed).
    pub parquet: PathBuf,
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

/// One row of the gathered table.
pub(crate) struct Row {
    pub(crate) point: usize,
    pub(crate) parameters: Vec<f64>,
    pub(crate) status: &'static str,
    /// One entry per [`Table::values`] column.
    pub(crate) values: Vec<Option<f64>>,
    pub(crate) error: Option<String>,
}

/// The gathered table: parameter and value column names, one row per point.
pub(crate) struct Table {
    pub(crate) parameters: Vec<String>,
    pub(crate) values: Vec<String>,
    pub(crate) rows: Vec<Row>,
}

impl Sweep {
    /// Reads every point's `result.json` under `out/<name>/` and writes
    /// `results.csv` and `results.parquet` (one row per point: index,
    /// parameters, status, every recorded value — in the CSV as shortest
    /// round-trip decimals, so equal numbers print equal — and the error)
    /// and a plot of the objective over the parameters: a heat map for two
    /// grid parameters, a curve for one, one scatter panel per parameter
    /// otherwise.
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
        let table = self.table(&points);
        let csv_path = dir.join("results.csv");
        write_csv(&csv_path, &table).map_err(|source| SweepError::Io {
            path: csv_path.clone(),
            source,
        })?;
        let parquet_path = dir.join("results.parquet");
        super::parquet::write(&parquet_path, &table).map_err(|e| SweepError::Io {
            path: parquet_path.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let plot = self.plot(&dir, &points)?;
        Ok(Gathered {
            points,
            csv: csv_path,
            parquet: parquet_path,
            plot,
        })
    }

    fn table(&self, points: &[Option<PointResult>]) -> Table {
        let mut values: Vec<String> = Vec::new();
        for r in points.iter().flatten() {
            for (n, _) in &r.values {
                if !values.contains(n) {
                    values.push(n.clone());
                }
            }
        }
        let rows = self
            .points
            .iter()
            .zip(points)
            .enumerate()
            .map(|(k, (x, r))| Row {
                point: k,
                parameters: x.clone(),
                status: match r {
                    None => "missing",
                    Some(r) if r.error.is_some() => "failed",
                    Some(_) => "finished",
                },
                values: values
                    .iter()
                    .map(|n| {
                        r.as_ref()
                            .and_then(|r| r.values.iter().find(|(m, _)| m == n))
                            .map(|(_, v)| *v)
                    })
                    .collect(),
                error: r.as_ref().and_then(|r| r.error.clone()),
            })
            .collect();
        Table {
            parameters: self
                .spec
                .parameters
                .iter()
                .map(|p| p.label().to_string())
                .collect(),
            values,
            rows,
        }
    }

    fn plot(
        &self,
        dir: &Path,
        points: &[Option<PointResult>],
    ) -> Result<Option<PathBuf>, SweepError> {
        let objective = self.objective();
        let samples: Vec<(Vec<f64>, f64)> = self
            .points
            .iter()
            .zip(points)
            .filter_map(|(x, r)| {
                let r = r.as_ref()?;
                let v = r.values.iter().find(|(n, _)| n == objective)?.1;
                v.is_finite().then(|| (x.clone(), v))
            })
            .collect();
        if samples.is_empty() {
            return Ok(None);
        }
        let failed: Vec<Vec<f64>> = self
            .points
            .iter()
            .zip(points)
            .filter(|(_, r)| r.as_ref().is_some_and(|r| r.error.is_some()))
            .map(|(x, _)| x.clone())
            .collect();
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
            &failed,
            grid,
        )
        .map_err(|e| SweepError::Io {
            path: path.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        Ok(Some(path))
    }
}

fn write_csv(path: &Path, t: &Table) -> std::io::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    let mut header = vec!["point".to_string()];
    header.extend(t.parameters.iter().cloned());
    header.push("status".into());
    header.extend(t.values.iter().cloned());
    header.push("error".into());
    w.write_record(&header)?;
    for r in &t.rows {
        let mut row = vec![r.point.to_string()];
        row.extend(r.parameters.iter().map(|v| v.to_string()));
        row.push(r.status.into());
        row.extend(
            r.values
                .iter()
                .map(|v| v.map_or(String::new(), |v| v.to_string())),
        );
        row.push(r.error.clone().unwrap_or_default());
        w.write_record(&row)?;
    }
    w.flush()
}
