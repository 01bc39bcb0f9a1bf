//! argmin's `Operator` + `Jacobian` (Gauss–Newton, Levenberg–Marquardt)
//! and `CostFunction` + `Gradient` (L-BFGS and friends) on a [`Shooting`]
//! problem, and pliant's own trial-cost interface for its
//! Levenberg–Marquardt.

use super::Shooting;
use crate::error::OptimError;
use crate::gradient::cost;
use argmin::core::{CostFunction, Error as ArgminError, Gradient, Jacobian, Operator};
use nalgebra::{DMatrix, DVector};

fn to_argmin(e: OptimError) -> ArgminError {
    ArgminError::msg(e.to_string())
}

impl Operator for Shooting {
    type Param = DVector<f64>;
    type Output = DVector<f64>;
    fn apply(&self, w: &Self::Param) -> std::result::Result<Self::Output, ArgminError> {
        let r = self.residuals(w.as_slice()).map_err(to_argmin)?;
        Ok(DVector::from_vec(r))
    }
}

impl crate::levenberg_marquardt::TrialCost for Shooting {
    fn trial_cost(
        &self,
        w: &DVector<f64>,
        bound: f64,
    ) -> std::result::Result<Option<f64>, ArgminError> {
        self.cost_below(w.as_slice(), bound).map_err(to_argmin)
    }
    fn concurrent_trials(&self) -> usize {
        Shooting::concurrent_trials(self)
    }
    fn trial_costs(
        &self,
        ws: &[DVector<f64>],
        bound: f64,
    ) -> Vec<std::result::Result<Option<f64>, ArgminError>> {
        trials(self, ws, bound, None)
    }
    fn trial_costs_forecast(
        &self,
        ws: &[DVector<f64>],
        bound: f64,
        forecast: crate::levenberg_marquardt::Forecast<'_>,
    ) -> Vec<std::result::Result<Option<f64>, ArgminError>> {
        let models: Vec<&[f64]> = forecast.models.iter().map(|m| m.as_slice()).collect();
        trials(
            self,
            ws,
            bound,
            Some((forecast.current.as_slice(), &models)),
        )
    }
}

/// [`Shooting::costs_below_forecast`] for argmin's parameter vectors.
fn trials(
    s: &Shooting,
    ws: &[DVector<f64>],
    bound: f64,
    forecast: Option<(&[f64], &[&[f64]])>,
) -> Vec<std::result::Result<Option<f64>, ArgminError>> {
    let ws: Vec<Vec<f64>> = ws.iter().map(|w| w.as_slice().to_vec()).collect();
    s.costs_below_forecast(&ws, bound, forecast)
        .into_iter()
        .map(|r| r.map_err(to_argmin))
        .collect()
}

impl Jacobian for Shooting {
    type Param = DVector<f64>;
    type Jacobian = DMatrix<f64>;
    fn jacobian(&self, w: &Self::Param) -> std::result::Result<Self::Jacobian, ArgminError> {
        let (r, jac) = Shooting::jacobian(self, w.as_slice()).map_err(to_argmin)?;
        Ok(DMatrix::from_row_slice(r.len(), self.map.nz(), &jac))
    }
}

impl CostFunction for Shooting {
    type Param = DVector<f64>;
    type Output = f64;
    fn cost(&self, w: &Self::Param) -> std::result::Result<f64, ArgminError> {
        let r = self.residuals(w.as_slice()).map_err(to_argmin)?;
        Ok(cost(&r))
    }
}

impl Gradient for Shooting {
    type Param = DVector<f64>;
    type Gradient = DVector<f64>;
    fn gradient(&self, w: &Self::Param) -> std::result::Result<Self::Gradient, ArgminError> {
        let (_, g) = Shooting::gradient(self, w.as_slice()).map_err(to_argmin)?;
        Ok(DVector::from_vec(g))
    }
}
