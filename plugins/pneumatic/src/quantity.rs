//! A scalar an actuator reads: a fixed number or a parameter channel (a
//! control such as a pressure schedule, or a design parameter), so
//! rollouts are differentiable with respect to it.

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
    pub(crate) fn bound(&self) -> Bound {
        match self {
            Quantity::Value(v) => Bound::Constant(*v),
            Quantity::Channel(c) => Bound::Channel(Arc::from(c.as_str())),
        }
    }
    /// The lowest value the quantity takes as written (its value, or its
    /// channel's schedule); `None` for an unknown channel.
    pub(crate) fn lowest(&self, info: &pliant_core::BindInfo) -> Option<f64> {
        match self {
            Quantity::Value(v) => Some(*v),
            Quantity::Channel(c) => info.channel_range(c).map(|r| r.0),
        }
    }
}

/// A [`Quantity`] as elements carry it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Bound {
    Constant(f64),
    Channel(Arc<str>),
}

impl Bound {
    /// The value from the element's parameter slot 0.
    pub fn of<D: pliant_core::Scalar>(&self, p: &[D]) -> D {
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
