//! Young's modulus of a shell: a constant, or a parameter channel (a
//! design parameter, so rollouts are differentiable with respect to it).
//! Every shell element reads it from its parameter slot 0.

use pliant_core::Scalar;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Young's modulus `E` in a scene: a number (Pa) or the name of a
/// parameter channel holding it (Pa).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Modulus {
    /// Fixed value, Pa.
    Value(f64),
    /// Parameter channel holding the value, Pa.
    Channel(String),
}

impl From<f64> for Modulus {
    fn from(v: f64) -> Self {
        Modulus::Value(v)
    }
}

/// The bound form elements carry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Youngs {
    Constant(f64),
    Channel(Arc<str>),
}

impl Youngs {
    /// E (Pa) from the element's parameter slots.
    pub fn value(&self, p: &[f64]) -> f64 {
        match self {
            Youngs::Constant(v) => *v,
            Youngs::Channel(_) => p[0],
        }
    }
    /// E (Pa) in any scalar type.
    pub fn of<D: Scalar>(&self, p: &[D]) -> D {
        match self {
            Youngs::Constant(v) => D::from(*v),
            Youngs::Channel(_) => p[0],
        }
    }
    /// The channel slot 0 reads, if any.
    pub fn channel(&self) -> Option<&str> {
        match self {
            Youngs::Constant(_) => None,
            Youngs::Channel(c) => Some(c),
        }
    }
}
