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
pub(super) struct Row {
    pub(super) point: usize,
    pub(super) parameters: Vec<f64>,
    pub(super) status: &'static str,
    /// One entry per [`Table::values`] column.
    pub(super) values: Vec<Option<f64>>,
    pub(super) error: Option<String>,
}

/// The gathered table: parameter and value column names, one row per point.
pub(super) struct Table {
    pub(super) parameters: Vec<String>,
    pub(super) values: Vec<String>,
    pub(super) rows: Vec<Row>,
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
        // A result written for other inputs (the spec or its documents
        // changed since) is stale: it counts as not run.
        let mut points: Vec<Option<PointResult>> = Vec::with_capacity(self.points.len());
        for (k, values) in self.points.iter().enumerate() {
            let path = self.point_dir(out, k).join("result.json");
            let r = super::point::read_result(&path);
            let current = self.point_inputs(values)?;
            points.push(r.filter(|r| {
                let fresh = r.inputs == current;
                if !fresh {
                    log::warn!(
                        "{}: made for other inputs; point {k} counts as not run",
                        path.display()
                    );
                }
                fresh
            }));
        }
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
