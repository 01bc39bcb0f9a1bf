//! A scalar an energy reads: a fixed number or a parameter channel (a
//! control such as a pressure schedule, or a design parameter), so
//! rollouts are differentiable with respect to it. Actuators of several
//! plugins (pneumatic pressures, cell pressure constants, actuator lengths)
//! share it.

use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A number, or the name of the parameter channel holding it (units of
/// the field that holds it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Quantity {
    /// Fixed value.
    Value(f64),
    /// Parameter channel holding the value.
    Channel(String),
}

impl From<f64> for Quantity {
    fn from(v: f64) -> Self {
        Quantity::Value(v)
    }
}

impl From<&str> for Quantity {
    fn from(c: &str) -> Self {
        Quantity::Channel(c.into())
    }
}

impl Quantity {
    /// The bound form: a constant, or a channel read from parameter slot 0.
    pub fn bound(&self) -> Bound {
        match self {
            Quantity::Value(v) => Bound::Constant(*v),
            Quantity::Channel(c) => Bound::Channel(Arc::from(c.as_str())),
        }
    }
    /// The lowest value the quantity takes as written (its value, or its
    /// channel's schedule); `None` for an unknown channel.
    pub fn lowest(&self, info: &crate::BindInfo) -> Option<f64> {
        match self {
            Quantity::Value(v) => Some(*v),
            Quantity::Channel(c) => info.channel_range(c).map(|r| r.0),
        }
    }
}

/// A [`Quantity`] as elements carry it.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// Fixed value.
    Constant(f64),
    /// Read from the element's parameter slot 0.
    Channel(Arc<str>),
}

impl Bound {
    /// The value from the element's parameter slot 0.
    pub fn of<D: crate::Scalar>(&self, p: &[D]) -> D {
        match self {
            Bound::Constant(v) => D::from(*v),
            Bound::Channel(_) => p[0],
        }
    }
    /// The channel slot 0 reads, if any.
    pub fn channel(&self) -> Option<&str> {
        match self {
            Bound::Constant(_) => None,
            Bound::Channel(c) => Some(c),
        }
    }
}
