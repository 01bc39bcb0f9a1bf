//! Prescribed motions; see [`Motion`].

use crate::error::Invalid;
use serde::{Deserialize, Serialize};

/// The value of a constrained DOF as a function of time `t` (s).
///
/// Prescribed motions of DOFs (Dirichlet conditions). A constrained DOF is
/// removed from the solve and set from its motion at every step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Motion {
    /// Held at its initial value.
    Fixed,
    /// `q0 + velocity·t` (velocity in m/s or rad/s).
    Linear {
        /// Rate of change.
        velocity: f64,
    },
    /// `q0 + amplitude·sin(2π·frequency·t + phase)`.
    Sine {
        /// Amplitude (m or rad).
        amplitude: f64,
        /// Frequency, Hz.
        frequency: f64,
        /// Phase, rad.
        #[serde(default)]
        phase: f64,
    },
    /// `q0 +` piecewise-linear offset through `(t, offset)` keyframes, held
    /// constant outside.
    Keyframes {
        /// Time-sorted keyframes.
        keys: Vec<(f64, f64)>,
    },
}

impl Motion {
    /// Checks that the motion's numbers are finite and keyframes sorted
    /// (the field names the offending number: `amplitude`, `keys[2]`).
    pub fn validate(&self) -> Result<(), Invalid> {
        let finite = |name: String, v: f64| Invalid::check(v.is_finite(), name, v, "finite");
        match self {
            Motion::Fixed => Ok(()),
            Motion::Linear { velocity } => finite("velocity".into(), *velocity),
            Motion::Sine {
                amplitude,
                frequency,
                phase,
            } => {
                finite("amplitude".into(), *amplitude)?;
                finite("frequency".into(), *frequency)?;
                finite("phase".into(), *phase)
            }
            Motion::Keyframes { keys } => {
                for (i, (t, v)) in keys.iter().enumerate() {
                    finite(format!("keys[{i}][0]"), *t)?;
                    finite(format!("keys[{i}][1]"), *v)?;
                    if i > 0 && *t < keys[i - 1].0 {
                        return Err(Invalid::new(
                            format!("keys[{i}][0]"),
                            *t,
                            format!("≥ the previous keyframe time {} s", keys[i - 1].0),
                        ));
                    }
                }
                Ok(())
            }
        }
    }

    /// Value at time `t` for a DOF whose initial value is `q0`.
    pub fn value(&self, q0: f64, t: f64) -> f64 {
        match self {
            Motion::Fixed => q0,
            Motion::Linear { velocity } => q0 + velocity * t,
            Motion::Sine {
                amplitude,
                frequency,
                phase,
            } => q0 + amplitude * (2.0 * std::f64::consts::PI * frequency * t + phase).sin(),
            Motion::Keyframes { keys } => q0 + piecewise_linear(keys, t),
        }
    }
}

/// Piecewise-linear interpolation through time-sorted `(t, value)` keys,
/// constant outside; 0 when there is no key.
pub(crate) fn piecewise_linear(keys: &[(f64, f64)], t: f64) -> f64 {
    match keys {
        [] => 0.0,
        [(_, v)] => *v,
        _ => {
            if t <= keys[0].0 {
                return keys[0].1;
            }
            // First keyframe at or after t (binary search: long schedules
            // such as a travelling wave have thousands of keyframes).
            let i = 1 + keys[1..].partition_point(|k| k.0 < t);
            if i == keys.len() {
                return keys[keys.len() - 1].1;
            }
            let ((t0, v0), (t1, v1)) = (keys[i - 1], keys[i]);
            let s = if t1 > t0 { (t - t0) / (t1 - t0) } else { 1.0 };
            v0 + s * (v1 - v0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn keyframes_interpolate_and_clamp() {
        let k = vec![(0.0, 0.0), (1.0, 2.0), (3.0, 0.0)];
        assert_eq!(piecewise_linear(&k, -1.0), 0.0);
        assert_eq!(piecewise_linear(&k, 0.5), 1.0);
        assert_eq!(piecewise_linear(&k, 2.0), 1.0);
        assert_eq!(piecewise_linear(&k, 5.0), 0.0);
        assert_eq!(Motion::Linear { velocity: 2.0 }.value(1.0, 0.5), 2.0);
    }
}
