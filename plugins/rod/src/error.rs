//! Typed validation errors of rods. Each names the edge, node, spring or
//! field at fault; `?` turns them into [`pliant_core::CoreError::Other`]
//! (downcast to [`RodError`] to inspect; the model builder prefixes the
//! energy and the rod's name).

use thiserror::Error;

/// Everything that makes a rod description unusable.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum RodError {
    /// The rod has no edge.
    #[error("`edges` is empty: a rod needs at least one edge")]
    NoEdges,
    /// Both ends of an edge are the same node.
    #[error("edge {edge} repeats node {node} (both ends are the same node)")]
    RepeatedNode {
        /// Edge index.
        edge: usize,
        /// The node.
        node: usize,
    },
    /// Two edges join the same pair of nodes.
    #[error("edges {first} and {edge} both join nodes {} and {}", nodes[0], nodes[1])]
    DuplicateEdge {
        /// The later edge.
        edge: usize,
        /// The earlier edge with the same nodes.
        first: usize,
        /// The two nodes.
        nodes: [usize; 2],
    },
    /// An edge refers to a node the model does not have.
    #[error("edge {edge} refers to node {node}, but the model has {count} nodes")]
    MissingNode {
        /// Edge index.
        edge: usize,
        /// The missing node.
        node: usize,
        /// How many nodes the model has.
        count: usize,
    },
    /// An edge has zero length in the initial state.
    #[error(
        "edge {edge} (nodes {} and {}) has zero length in the initial state",
        nodes[0], nodes[1]
    )]
    ZeroLengthEdge {
        /// Edge index.
        edge: usize,
        /// Its nodes.
        nodes: [usize; 2],
    },
    /// A scalar material or section field is out of its range.
    #[error("`{field}` must be {expected}, got {value}")]
    Field {
        /// Field name (`radius`, `youngs_modulus`, `poisson_ratio`, `density`).
        field: &'static str,
        /// The accepted range, in words with units.
        expected: &'static str,
        /// The value found.
        value: f64,
    },
    /// `rest_lengths` has the wrong number of entries.
    #[error("`rest_lengths` has {got} entries for {expected} edges")]
    RestLengthCount {
        /// Entries given.
        got: usize,
        /// Number of edges.
        expected: usize,
    },
    /// A rest length is not positive and finite.
    #[error("`rest_lengths[{edge}]` must be positive and finite, got {value} m")]
    RestLength {
        /// Edge index.
        edge: usize,
        /// The value found, m.
        value: f64,
    },
    /// Rest lengths are needed when the model is built but were not given.
    #[error("`rest_lengths` could not be taken from the initial node positions")]
    RestLengthsRequired,
    /// An override, actuation entry or query names an edge that does not exist.
    #[error("`{field}` names edge {edge}, but the rod has {count} edges")]
    EdgeIndex {
        /// Where (e.g. `edge_overrides[2].edge`).
        field: String,
        /// The index given.
        edge: usize,
        /// Number of edges.
        count: usize,
    },
    /// An override or actuation entry names a spring that does not exist.
    #[error("`{field}` names spring {spring}, but the rod has {count} bend–twist springs")]
    SpringIndex {
        /// Where (e.g. `actuation[0].springs[3]`).
        field: String,
        /// The index given.
        spring: usize,
        /// Number of springs.
        count: usize,
    },
    /// A stiffness override or gain is negative or not finite.
    #[error("`{field}` must be finite and ≥ 0, got {value}")]
    Override {
        /// Where (e.g. `spring_overrides[1].bend_stiffness`).
        field: String,
        /// The value found.
        value: f64,
    },
    /// A natural value (curvature, twist) or gain is not finite.
    #[error("`{field}` must be finite, got {value}")]
    NotFinite {
        /// Where.
        field: String,
        /// The value found.
        value: f64,
    },
    /// A curvature actuation names an axis other than 1 or 2.
    #[error("`{field}` must be 1 (κ̄⁽¹⁾) or 2 (κ̄⁽²⁾), got {value}")]
    Axis {
        /// Where (e.g. `actuation[0].axis`).
        field: String,
        /// The value found.
        value: u8,
    },
    /// The same quantity of a spring or edge is driven by two actuation entries.
    #[error("{what} is driven by both `actuation[{first}]` and `actuation[{second}]`")]
    DoubleActuation {
        /// The spring/edge and quantity.
        what: String,
        /// First entry.
        first: usize,
        /// Second entry.
        second: usize,
    },
    /// The first director is zero, not finite or parallel to the first edge.
    #[error(
        "`first_director` ({:.3}, {:.3}, {:.3}) is zero, not finite or parallel to edge {edge}",
        value[0], value[1], value[2]
    )]
    FirstDirector {
        /// The first edge of the connected component.
        edge: usize,
        /// The director given.
        value: [f64; 3],
    },
    /// A rod–shell joint that cannot be made.
    #[error("`{field}`: node {node} {problem}")]
    Joint {
        /// Where (e.g. `shell_joints.nodes[0]`).
        field: String,
        /// The node.
        node: usize,
        /// What is wrong.
        problem: &'static str,
    },
    /// Rods live in 3-D models.
    #[error("rods need a 3-D model, this one is {dim}-D")]
    Dimension {
        /// The model's dimension.
        dim: usize,
    },
}

impl From<RodError> for pliant_core::CoreError {
    fn from(e: RodError) -> Self {
        pliant_core::CoreError::Other(Box::new(e))
    }
}
