//! Typed errors of soft cells. Each names the cell, node, segment or field
//! at fault; `?` turns them into [`pliant_core::CoreError::Other`]
//! (downcast to [`CellError`] to inspect; the model builder prefixes the
//! energy).

use thiserror::Error;

/// Everything that makes a cell, an actuator or a contact set unusable.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CellError {
    /// A membrane needs at least three nodes to enclose an area.
    #[error("cell {cell}: a membrane ring needs at least 3 nodes, found {found}")]
    TooFewNodes {
        /// Cell index.
        cell: usize,
        /// Its node count.
        found: usize,
    },
    /// A membrane lists the same node twice.
    #[error("cell {cell}: node {node} appears twice in the membrane ring")]
    RepeatedNode {
        /// Cell index.
        cell: usize,
        /// The repeated node.
        node: usize,
    },
    /// A node index the model does not have.
    #[error("{what}: node {node} does not exist (the model has {count} nodes)")]
    MissingNode {
        /// Which list and entry (`cells[2]`, `actuators[0]`).
        what: String,
        /// The missing node.
        node: usize,
        /// How many nodes exist.
        count: usize,
    },
    /// The ring crosses itself in the initial state.
    #[error(
        "cell {cell}: the membrane intersects itself (segments {first} and {second} cross) in the initial state"
    )]
    SelfIntersecting {
        /// Cell index.
        cell: usize,
        /// First crossing segment (from node `first` to the next).
        first: usize,
        /// Second crossing segment.
        second: usize,
    },
    /// The enclosed area is zero or negative (nodes listed clockwise, or a
    /// collapsed ring).
    #[error(
        "cell {cell}: the enclosed area is {area:.4e} m² in the initial state; a membrane must enclose a positive area with its nodes listed counter-clockwise (reverse them if the area is negative)"
    )]
    NonPositiveArea {
        /// Cell index.
        cell: usize,
        /// The signed area, m².
        area: f64,
    },
    /// Two consecutive membrane nodes coincide.
    #[error("cell {cell}: membrane segment {segment} has zero length")]
    ZeroLengthSegment {
        /// Cell index.
        cell: usize,
        /// Segment index (from node `segment` of the ring to the next).
        segment: usize,
    },
    /// Cells of one energy must have the same number of membrane nodes.
    #[error(
        "cell {cell} has {found} membrane nodes but cell 0 has {expected}: one `cells` energy holds cells of one size (add another energy for another size)"
    )]
    MixedSizes {
        /// Cell index.
        cell: usize,
        /// Its node count.
        found: usize,
        /// Cell 0's node count.
        expected: usize,
    },
    /// A free joint's rings differ in size from the set's first ring (one
    /// `cell_link` energy links rings of one size), or are empty.
    #[error(
        "links[{link}]: a ring has {found} nodes but the first link's rings have {expected}: one `cell_link` energy links rings of one size, with at least one node"
    )]
    LinkRingSize {
        /// Link index.
        link: usize,
        /// The ring's node count.
        found: usize,
        /// The first ring's node count.
        expected: usize,
    },
    /// A numeric field out of range.
    #[error("`{field}` must be {expected}, got {value}")]
    Field {
        /// Field path (`cells[3].pressure`).
        field: String,
        /// What it must be, with units.
        expected: String,
        /// The value found.
        value: f64,
    },
}

impl From<CellError> for pliant_core::CoreError {
    fn from(e: CellError) -> Self {
        pliant_core::CoreError::Other(Box::new(e))
    }
}

/// `Ok` when `value` is finite and `> 0`.
pub(crate) fn positive(field: &str, value: f64, units: &str) -> Result<(), CellError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(CellError::Field {
            field: field.into(),
            expected: format!("> 0 ({units})"),
            value,
        })
    }
}

/// `Ok` when `value` is finite and `≥ 0`.
pub(crate) fn non_negative(field: &str, value: f64, units: &str) -> Result<(), CellError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(CellError::Field {
            field: field.into(),
            expected: format!("≥ 0 ({units})"),
            value,
        })
    }
}
