//! Typed errors of pneumatic actuators. Each names the triangle, edge,
//! muscle or field at fault; `?` turns them into
//! [`pliant_core::CoreError::Other`] (downcast to [`PneumaticError`] to
//! inspect; the model builder prefixes the energy).

use thiserror::Error;

/// Everything that makes a cavity or a muscle unusable.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PneumaticError {
    /// The cavity surface has no triangle.
    #[error("`triangles` is empty: a cavity needs a closed surface")]
    NoTriangles,
    /// A triangle refers to a node the model does not have.
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
    /// An edge is used by a number of triangles other than two: the surface
    /// has a hole (one) or is not a manifold (three or more).
    #[error(
        "edge {edge:?} is used by {} triangle(s) {triangles:?}: a cavity must be a closed surface (every edge in exactly two triangles)",
        triangles.len()
    )]
    OpenSurface {
        /// The edge's two nodes (smaller first).
        edge: [usize; 2],
        /// The triangles using it.
        triangles: Vec<usize>,
    },
    /// Two triangles traverse their shared edge in the same direction.
    #[error(
        "triangles {triangles:?} both run along edge {edge:?} in the same direction: the surface is not consistently oriented"
    )]
    InconsistentOrientation {
        /// The directed edge.
        edge: [usize; 2],
        /// The two triangles.
        triangles: [usize; 2],
    },
    /// The enclosed volume in the initial state is not positive.
    #[error(
        "cavity `{cavity}`: the enclosed volume is {volume:.4e} m³ in the initial state: a cavity's triangles must be oriented with normals pointing out of the gas (reverse them if the volume is negative)"
    )]
    NonPositiveVolume {
        /// The cavity's name.
        cavity: String,
        /// The volume, m³.
        volume: f64,
    },
    /// A gauge pressure below vacuum.
    #[error(
        "`{field}` reaches {pressure} Pa gauge, below vacuum (−{ambient} Pa with ambient pressure {ambient} Pa)"
    )]
    BeyondVacuum {
        /// Where it was written.
        field: String,
        /// The lowest gauge pressure, Pa.
        pressure: f64,
        /// Ambient (absolute) pressure, Pa.
        ambient: f64,
    },
    /// A muscle whose anchors coincide.
    #[error(
        "muscle {muscle}: its anchors {anchors:?} (positions in its anchor list) coincide in the initial state (length {length:.3e} m)"
    )]
    CoincidentAnchors {
        /// Muscle index.
        muscle: usize,
        /// The two anchors, as positions in the muscle's anchor list.
        anchors: [usize; 2],
        /// Their distance, m.
        length: f64,
    },
    /// An anchor on a rod names an edge the rod does not have.
    #[error("`{field}`: rod `{rod}` has {count} edges, no edge {edge}")]
    RodEdge {
        /// Where it was written.
        field: String,
        /// The rod.
        rod: String,
        /// The edge asked for.
        edge: usize,
        /// How many edges the rod has.
        count: usize,
    },
    /// An anchor on a rod edge lies beyond the planes through the edge's
    /// nodes.
    #[error(
        "`{field}`: the point projects onto rod `{rod}` edge {edge} at {along:.4} of its length (from its first node), outside [0, 1]: anchor it to the edge whose cross-section it lies on"
    )]
    OffEdge {
        /// Where it was written.
        field: String,
        /// The rod.
        rod: String,
        /// The edge.
        edge: usize,
        /// The projection's fraction along the edge.
        along: f64,
    },
    /// A scalar field outside its range.
    #[error("`{field}` = {value} is invalid: expected {expected}")]
    Field {
        /// Field name.
        field: String,
        /// Expected range and units.
        expected: String,
        /// The value given.
        value: f64,
    },
    /// Fields that cannot go together (or a required one that is missing).
    #[error("`{field}`: {problem}")]
    Inconsistent {
        /// Field name.
        field: String,
        /// What is wrong.
        problem: String,
    },
}

impl PneumaticError {
    pub(crate) fn field(field: &str, expected: &str, value: f64) -> Self {
        Self::Field {
            field: field.into(),
            expected: expected.into(),
            value,
        }
    }
}

impl From<PneumaticError> for pliant_core::CoreError {
    fn from(e: PneumaticError) -> Self {
        pliant_core::CoreError::Other(Box::new(e))
    }
}

/// `Ok` when `value` is finite and `> 0`.
pub(crate) fn positive(field: &str, value: f64, units: &str) -> Result<(), PneumaticError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(PneumaticError::field(
            field,
            &format!("> 0 ({units})"),
            value,
        ))
    }
}

/// `Ok` when `value` is finite and `≥ 0`.
pub(crate) fn non_negative(field: &str, value: f64, units: &str) -> Result<(), PneumaticError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(PneumaticError::field(
            field,
            &format!("≥ 0 ({units})"),
            value,
        ))
    }
}
