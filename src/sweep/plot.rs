//! The sweep's picture: the objective over the parameters, failed points
//! marked ([`pliant_viz::plot_sweep`]).

use super::{PointResult, Sweep, SweepError};
use std::path::{Path, PathBuf};

impl Sweep {
    /// Draws `dir/<objective>.svg` from the points' results; `None` when no
    /// point recorded a finite objective.
    pub(super) fn plot(
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
