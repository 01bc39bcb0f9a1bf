//! The pressure laws of a McKibben muscle ([`MuscleModel`]) and the
//! §IV-D length-to-pressure map of a free muscle, both ways.

use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// How pressure acts along a muscle.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum MuscleModel {
    /// Force `p A` along the axis; `area` A in m².
    Linear {
        /// Effective area, m².
        area: f64,
    },
    /// The braid law: rest braid angle from the axis (rad) and rest
    /// diameter (m).
    McKibben {
        /// Braid angle at rest, rad, measured from the muscle's axis
        /// (> 54.7° extends under pressure).
        braid_angle: f64,
        /// Diameter at rest, m.
        diameter: f64,
    },
}

impl MuscleModel {
    /// The linear model of a muscle of rest length `length` (m) and
    /// stiffness `stiffness` (N/m) that extends freely by `strain` (0.5 for
    /// 50 %) at gauge pressure `pressure` (Pa): `A = K ε L / p`. For the
    /// paper's PMA (`K = 1900 N/m`, `L = 0.15 m`, 50 % at 4 bar) this is
    /// `A = 3.5625 cm²`.
    pub fn linear_from_free_extension(
        strain: f64,
        pressure: f64,
        stiffness: f64,
        length: f64,
    ) -> Self {
        MuscleModel::Linear {
            area: stiffness * strain * length / pressure,
        }
    }

    /// Braid fibre length `b` and turns `n` for a muscle of rest length
    /// `length` (McKibben only).
    pub(crate) fn braid(&self, length: f64) -> Option<(f64, f64)> {
        match *self {
            MuscleModel::Linear { .. } => None,
            MuscleModel::McKibben {
                braid_angle,
                diameter,
            } => {
                let b = length / braid_angle.cos();
                Some((b, b * braid_angle.sin() / (PI * diameter)))
            }
        }
    }

    /// `W'(l)` for a whole muscle of rest length `length` at length `l`:
    /// the force per unit pressure, m².
    pub fn force_per_pressure(&self, length: f64, l: f64) -> f64 {
        match (*self, self.braid(length)) {
            (MuscleModel::Linear { area }, _) => area,
            (_, Some((b, n))) => (b * b - 3.0 * l * l) / (4.0 * PI * n * n),
            _ => unreachable!("a McKibben model has a braid"),
        }
    }

    /// The §IV-D length-to-pressure map of a free muscle of rest length
    /// `length` (m) and stiffness `stiffness` (N/m): the gauge pressure
    /// (Pa) at which it rests at length `length + extension`,
    /// `p = K Δl / W'(L + Δl)`; `None` where no pressure holds it there
    /// (`W' = 0`: the braid's neutral angle).
    pub fn pressure_for_extension(
        &self,
        extension: f64,
        stiffness: f64,
        length: f64,
    ) -> Option<f64> {
        let p = stiffness * extension / self.force_per_pressure(length, length + extension);
        p.is_finite().then_some(p)
    }

    /// The inverse map: the free extension (m) at gauge pressure `pressure`
    /// (Pa), solving `K Δl = p W'(L + Δl)`; `None` when no equilibrium of
    /// positive length exists (a strong vacuum).
    pub fn free_extension(&self, pressure: f64, stiffness: f64, length: f64) -> Option<f64> {
        let l = match (*self, self.braid(length)) {
            (MuscleModel::Linear { area }, _) => pressure * area / stiffness,
            (_, Some((b, n))) => {
                if pressure == 0.0 {
                    return Some(0.0);
                }
                // 3p l² + c l − (c L + p b²) = 0 with c = 4π n² K.
                let c = 4.0 * PI * n * n * stiffness;
                let (qa, qb, qc) = (3.0 * pressure, c, -(c * length + pressure * b * b));
                let disc = (qb * qb - 4.0 * qa * qc).sqrt();
                // The root continuous with l = L at p = 0 (stable form).
                let l = if qb >= 0.0 {
                    2.0 * qc / (-qb - disc)
                } else {
                    (-qb + disc) / (2.0 * qa)
                };
                l - length
            }
            _ => unreachable!("a McKibben model has a braid"),
        };
        (l.is_finite() && length + l > 0.0).then_some(l)
    }
}
