//! Typed errors of magnetic connectors and joints. Each names the
//! connector, joint or field at fault; `?` turns them into
//! [`pliant_core::CoreError::Other`] (downcast to [`MagneticError`] to
//! inspect; the model builder prefixes the energy, `energies[2] (...)`).
//!
//! An unknown activation channel is reported by the engine itself, as
//! [`pliant_core::CoreError::UnknownParam`] naming `connectors[i].channel`.

use thiserror::Error;

/// Everything that makes a set of connectors or joints unusable.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum MagneticError {
    /// A connector, one of its axis nodes or a joint end refers to a node
    /// the model does not have.
    #[error("`{field}` refers to node {node}, but the model has {count} nodes")]
    MissingNode {
        /// Where the node was written (`connectors[3].node`,
        /// `connectors[3].axis`, `joints[1].nodes`).
        field: String,
        /// The missing node.
        node: usize,
        /// How many nodes exist.
        count: usize,
    },
    /// The interaction radius is not positive and finite.
    #[error("`radius` = {value} m is invalid: the interaction radius must be positive and finite")]
    Radius {
        /// The value given, m.
        value: f64,
    },
    /// The core radius is outside `(0, radius)`.
    #[error("`core_radius` = {value} m is invalid: expected 0 < core_radius < radius = {radius} m")]
    CoreRadius {
        /// The value given, m.
        value: f64,
        /// The interaction radius, m.
        radius: f64,
    },
    /// The switch width is outside `(0, radius − core_radius]`.
    #[error(
        "`switch_width` = {value} m is invalid: expected 0 < switch_width ≤ radius − core_radius = {max} m"
    )]
    SwitchWidth {
        /// The value given, m.
        value: f64,
        /// The largest allowed width, m.
        max: f64,
    },
    /// A connector strength that is not a finite number, or a negative
    /// dipole moment (a dipole's sign is its axis direction).
    #[error("connector {connector}: `strength` = {value} is invalid: expected {expected}")]
    Strength {
        /// Connector index.
        connector: usize,
        /// The value given (A·m for poles, A·m² for dipoles).
        value: f64,
        /// What is allowed.
        expected: &'static str,
    },
    /// A dipole connector without a usable axis, or a pole connector with
    /// one.
    #[error("connector {connector}: `axis` {problem}")]
    Axis {
        /// Connector index.
        connector: usize,
        /// What is wrong.
        problem: String,
    },
    /// A joint whose two ends coincide (the same node twice, or two nodes
    /// at the same place in the initial state): its direction is undefined.
    #[error(
        "joint {joint}: nodes {nodes:?} coincide in the initial state (length {length:.3e} m): a joint needs two distinct points"
    )]
    ZeroLengthJoint {
        /// Joint index.
        joint: usize,
        /// Its nodes.
        nodes: [usize; 2],
        /// Their initial distance, m.
        length: f64,
    },
    /// A joint stiffness that is not positive and finite.
    #[error("joint {joint}: `stiffness` = {value} N/m is invalid: expected > 0 and finite")]
    Stiffness {
        /// Joint index.
        joint: usize,
        /// The value given, N/m.
        value: f64,
    },
    /// A break force that is negative or not a number.
    #[error("joint {joint}: `break_force` = {value} N is invalid: expected ≥ 0 and finite")]
    BreakForce {
        /// Joint index.
        joint: usize,
        /// The value given, N.
        value: f64,
    },
    /// Any other scalar field outside its range.
    #[error("`{field}` = {value} is invalid: expected {expected}")]
    Field {
        /// Field name.
        field: String,
        /// The value given.
        value: f64,
        /// Expected range and units.
        expected: &'static str,
    },
}

impl From<MagneticError> for pliant_core::CoreError {
    fn from(e: MagneticError) -> Self {
        pliant_core::CoreError::Other(Box::new(e))
    }
}

/// `Ok` when `node` exists among `count` nodes.
pub(crate) fn node_exists(field: String, node: usize, count: usize) -> Result<(), MagneticError> {
    if node < count {
        Ok(())
    } else {
        Err(MagneticError::MissingNode { field, node, count })
    }
}

/// `Ok` when `value` is finite and `> 0`.
pub(crate) fn positive(
    field: &str,
    value: f64,
    expected: &'static str,
) -> Result<(), MagneticError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(MagneticError::Field {
            field: field.into(),
            value,
            expected,
        })
    }
}
