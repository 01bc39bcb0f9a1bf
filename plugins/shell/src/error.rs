//! Typed errors of shell meshes and shell energies. Each names the triangle,
//! edge, node or field at fault; `?` turns them into
//! [`pliant_core::CoreError::Other`] (downcast to [`ShellError`] to inspect;
//! the model builder prefixes the energy).

use thiserror::Error;

/// Everything that makes a shell description unusable.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ShellError {
    /// The mesh has no triangle.
    #[error("`triangles` is empty: a shell needs at least one triangle")]
    NoTriangles,
    /// A triangle refers to a node the mesh or model does not have.
    #[error("triangle {triangle} refers to node {node}, but there are {count} nodes")]
    MissingNode {
        /// Triangle index.
        triangle: usize,
        /// The missing node.
        node: usize,
        /// How many nodes exist.
        count: usize,
    },
    /// A triangle repeats a node.
    #[error("triangle {triangle} repeats a node: {nodes:?}")]
    RepeatedNode {
        /// Triangle index.
        triangle: usize,
        /// Its nodes.
        nodes: [usize; 3],
    },
    /// A triangle has (almost) zero area in the initial state.
    #[error(
        "triangle {triangle} (nodes {nodes:?}) is degenerate: area {area:.3e} m² against edges up to {longest:.3e} m"
    )]
    Degenerate {
        /// Triangle index.
        triangle: usize,
        /// Its nodes.
        nodes: [usize; 3],
        /// Its area, m².
        area: f64,
        /// Its longest edge, m.
        longest: f64,
    },
    /// More than two triangles share an edge.
    #[error("edge between nodes {} and {} is shared by {} triangles {triangles:?}: the mesh is not a manifold", nodes[0], nodes[1], triangles.len())]
    NonManifold {
        /// The edge's nodes.
        nodes: [usize; 2],
        /// The triangles sharing it.
        triangles: Vec<usize>,
    },
    /// Two triangles traverse their shared edge in the same direction.
    #[error(
        "triangles {first} and {second} traverse their shared edge {} → {} in the same direction: orient every triangle consistently (all counter-clockwise seen from the same side)",
        nodes[0], nodes[1]
    )]
    Orientation {
        /// The edge's nodes, in the direction both use.
        nodes: [usize; 2],
        /// First triangle.
        first: usize,
        /// Second triangle.
        second: usize,
    },
    /// The same triangle appears twice.
    #[error("triangles {first} and {second} have the same nodes")]
    DuplicateTriangle {
        /// First triangle.
        first: usize,
        /// Second triangle.
        second: usize,
    },
    /// A scalar field is out of its range.
    #[error("`{field}` must be {expected}, got {value}")]
    Field {
        /// Field name (`thickness`, `youngs_modulus`, …).
        field: String,
        /// The accepted range, in words with units.
        expected: &'static str,
        /// The value found.
        value: f64,
    },
    /// Two triangles sharing an edge are folded flat onto each other in the
    /// initial state (opposite normals): the mid-edge frame is undefined.
    #[error("the triangles {triangles:?} on the edge between nodes {} and {} are folded onto each other (opposite normals) in the initial state: unfold the mesh or flip its orientation", nodes[0], nodes[1])]
    Folded {
        /// The edge's nodes.
        nodes: [usize; 2],
        /// Its triangles.
        triangles: Vec<usize>,
    },
    /// A mesh would be too large to build.
    #[error("`{field}` asks for {count} {what}; at most {max} are built (coarsen the mesh)")]
    TooLarge {
        /// Field name.
        field: &'static str,
        /// What is counted.
        what: &'static str,
        /// How many were asked for.
        count: f64,
        /// The limit.
        max: usize,
    },
    /// A field that does not fit with another.
    #[error("`{field}`: {problem}")]
    Inconsistent {
        /// Field name.
        field: String,
        /// What does not fit.
        problem: &'static str,
    },
    /// A list has the wrong length.
    #[error("`{field}` has {found} entries, expected {expected}")]
    Count {
        /// Field name.
        field: String,
        /// Entries found.
        found: usize,
        /// Entries expected.
        expected: usize,
    },
    /// A node pair that should name a hinge is not an interior edge.
    #[error("`{field}`: nodes {} and {} are not the two ends of an interior edge (a hinge) of this shell", nodes[0], nodes[1])]
    NotAHinge {
        /// Field name.
        field: String,
        /// The node pair given.
        nodes: [usize; 2],
    },
    /// A mesh file cannot be used.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What was wrong, and where in the file.
        message: String,
    },
    /// A point to be placed on a mesh is not on it (see
    /// [`crate::transfer`]).
    #[error(
        "point {point} at {at:?} m lies {distance:.3e} m from the mesh, farther than its mean edge length {within:.3e} m: the two meshes do not describe the same surface"
    )]
    OffMesh {
        /// The point's index.
        point: usize,
        /// The point, m.
        at: [f64; 3],
        /// Its distance from the closest triangle, m (∞ when none is
        /// near, NaN for a non-finite point).
        distance: f64,
        /// The largest distance accepted, m.
        within: f64,
    },
    /// Shells live in 3-D models.
    #[error("shells need a 3-D model, this one is {dim}-D")]
    Dimension {
        /// The model's dimension.
        dim: usize,
    },
}

impl ShellError {
    pub(crate) fn field(field: impl Into<String>, expected: &'static str, value: f64) -> Self {
        ShellError::Field {
            field: field.into(),
            expected,
            value,
        }
    }
}

impl From<ShellError> for pliant_core::CoreError {
    fn from(e: ShellError) -> Self {
        pliant_core::CoreError::Other(Box::new(e))
    }
}

/// `Ok` when `value` is finite and `> 0`.
pub(crate) fn positive(field: &str, value: f64, units: &'static str) -> Result<(), ShellError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(ShellError::field(field, units, value))
    }
}
