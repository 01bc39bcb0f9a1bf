//! Typed errors of the engine. Each variant carries what a caller needs to
//! act on it: the field (as a path such as `springs[3].stiffness`), the
//! value found and what was expected, or the step, time and residual.

use thiserror::Error;

/// A value outside what a field allows (a scalar check an element or a
/// spec makes on its own data).
#[derive(Debug, Clone, PartialEq, Error)]
#[error("`{field}` is {}, expected {expected}", short(*value))]
pub struct Invalid {
    /// The field, relative to what was checked (e.g. `stiffness`).
    pub field: String,
    /// The value found.
    pub value: f64,
    /// What is allowed, with units (e.g. "positive and finite (N/m)").
    pub expected: String,
}

impl Invalid {
    /// `field` holds `value` but must be `expected`.
    pub fn new(field: impl Into<String>, value: f64, expected: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            value,
            expected: expected.into(),
        }
    }
    /// Checks `ok`, else this error.
    pub fn check(
        ok: bool,
        field: impl Into<String>,
        value: f64,
        expected: impl Into<String>,
    ) -> Result<(), Self> {
        if ok {
            Ok(())
        } else {
            Err(Self::new(field, value, expected))
        }
    }
    /// `value` must be positive and finite (`unit` for the message).
    pub fn positive(field: impl Into<String>, value: f64, unit: &str) -> Result<(), Self> {
        Self::check(
            value.is_finite() && value > 0.0,
            field,
            value,
            format!("positive and finite ({unit})"),
        )
    }
    /// `value` must be finite and ≥ 0 (`unit` for the message).
    pub fn non_negative(field: impl Into<String>, value: f64, unit: &str) -> Result<(), Self> {
        Self::check(
            value.is_finite() && value >= 0.0,
            field,
            value,
            format!("finite and ≥ 0 ({unit})"),
        )
    }
    /// The same error with its field prefixed by `prefix` (`springs[3]` +
    /// `stiffness` → `springs[3].stiffness`).
    pub fn within(mut self, prefix: &str) -> Self {
        if !prefix.is_empty() {
            self.field = format!("{prefix}.{}", self.field);
        }
        self
    }
}

/// Everything that can go wrong while building or stepping a model.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CoreError {
    /// Energy `index` (scene `energies[index]`, of type `energy`) could not
    /// be declared or bound.
    #[error("energies[{index}] ({energy}{}): {source}", label.as_ref().map(|l| format!(" `{l}`")).unwrap_or_default())]
    Energy {
        /// Position of the energy in the model.
        index: usize,
        /// Its registered type name.
        energy: String,
        /// Its own name, if it has one.
        label: Option<String>,
        /// What it said.
        source: Box<CoreError>,
    },
    /// A field holds a value it does not allow.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// A list has the wrong number of entries.
    #[error("`{field}` has {found} entries, expected {expected}")]
    Count {
        /// The list.
        field: String,
        /// Entries found.
        found: usize,
        /// Entries expected.
        expected: usize,
    },
    /// A list has fewer entries than it needs.
    #[error("`{field}` has {found} entries, needs at least {min}")]
    TooFew {
        /// The list.
        field: String,
        /// Entries found.
        found: usize,
        /// Entries needed at least.
        min: usize,
    },
    /// Two fields, or a field and the model, do not fit together.
    #[error("`{field}`: {problem}")]
    Inconsistent {
        /// The field.
        field: String,
        /// What does not fit.
        problem: &'static str,
    },
    /// Something degenerate in the initial state: coincident nodes, a
    /// zero-volume element.
    #[error("`{field}`: {problem}")]
    Degenerate {
        /// The element or field.
        field: String,
        /// What is degenerate.
        problem: String,
    },
    /// An energy or setting needs a model of another dimension.
    #[error("{what} needs a {expected}-D model, this one is {found}-D")]
    Dimension {
        /// What needs it.
        what: String,
        /// Dimension needed.
        expected: usize,
        /// Dimension of the model.
        found: usize,
    },
    /// A spatial dimension other than 2 or 3.
    #[error("dimension must be 2 or 3, got {0}")]
    BadDimension(usize),
    /// A node index is outside the model.
    #[error("`{field}`: node index {index} is out of range (the model has {count} nodes)")]
    NodeOutOfRange {
        /// Where the index appeared.
        field: String,
        /// The offending index.
        index: usize,
        /// How many nodes exist.
        count: usize,
    },
    /// A coordinate axis the model does not have.
    #[error("`{field}`: axis {axis} does not exist in a {dim}-D model")]
    AxisOutOfRange {
        /// Where the axis appeared.
        field: String,
        /// The axis (0 = x).
        axis: usize,
        /// The model's dimension.
        dim: usize,
    },
    /// A DOF index is outside the model.
    #[error("`{field}`: DOF {index} is out of range (the model has {count} DOFs)")]
    DofOutOfRange {
        /// Where the index appeared.
        field: String,
        /// The offending index.
        index: usize,
        /// How many DOFs exist.
        count: usize,
    },
    /// A parameter channel name is not defined in the model.
    #[error(
        "`{field}`: unknown parameter channel `{name}` (defined: {})",
        list(known)
    )]
    UnknownParam {
        /// Where the name appeared.
        field: String,
        /// The missing name.
        name: String,
        /// The channels that do exist.
        known: Vec<String>,
    },
    /// A region name is not defined in the model.
    #[error("`{field}`: unknown region `{name}` (defined: {})", list(known))]
    UnknownRegion {
        /// Where the name appeared.
        field: String,
        /// The missing name.
        name: String,
        /// The regions that do exist.
        known: Vec<String>,
    },
    /// No tetrahedral body of that name is in the model.
    #[error(
        "`{field}`: no tetrahedral body named `{name}` (bodies: {})",
        list(known)
    )]
    UnknownBody {
        /// Where the name appeared.
        field: String,
        /// The missing name.
        name: String,
        /// The bodies that do exist.
        known: Vec<String>,
    },
    /// No rod of that name publishes framed edges.
    #[error("`{field}`: no rod named `{name}` (rods: {})", list(known))]
    UnknownRod {
        /// Where the name appeared.
        field: String,
        /// The missing name.
        name: String,
        /// The rods that do exist.
        known: Vec<String>,
    },
    /// Two rods share the name something refers to.
    #[error("`{field}`: two rods are named `{name}`; give them distinct names to refer to one")]
    AmbiguousRod {
        /// Where the name appeared.
        field: String,
        /// The shared name.
        name: String,
    },
    /// Two tetrahedral bodies have the same name.
    #[error("`{field}`: two bodies are named `{name}`")]
    DuplicateBody {
        /// Where the second one is.
        field: String,
        /// The name.
        name: String,
    },
    /// A region is defined twice.
    #[error("`{field}`: region `{name}` is defined twice")]
    DuplicateRegion {
        /// Where the second definition is.
        field: String,
        /// The name.
        name: String,
    },
    /// A selector chose no node.
    #[error(
        "`{field}` selects no node (check its region, box, half-space or sphere against the initial positions)"
    )]
    EmptySelection {
        /// The selector.
        field: String,
    },
    /// A parameter index is outside the model's channels.
    #[error("`{field}`: parameter index {index} is out of range (the model has {count} channels)")]
    ParamOutOfRange {
        /// Where the index appeared.
        field: String,
        /// The offending index.
        index: usize,
        /// How many channels exist.
        count: usize,
    },
    /// A parameter channel is defined twice.
    #[error("parameter channel `{0}` is defined twice")]
    DuplicateParam(String),
    /// An element's stencil does not match its declared size.
    #[error(
        "`{field}`: {nodes} nodes and {extras} extra DOFs make a stencil of {}, but the element type declares {expected}",
        3 * nodes + extras
    )]
    Stencil {
        /// The element.
        field: String,
        /// Nodes it lists.
        nodes: usize,
        /// Extra DOFs it lists.
        extras: usize,
        /// `N` of its `Stencil<N, P, R>`.
        expected: usize,
    },
    /// An energy type declares `R < N` reduced variables without a map.
    #[error(
        "energy element type `{0}` declares fewer reduced variables than stencil DOFs but no map B"
    )]
    MissingMap(&'static str),
    /// A value that must be finite is not (NaN or infinite initial state,
    /// mass, derivative block, ...).
    #[error("{what} is not finite ({}) at index {index}", short(*value))]
    NonFinite {
        /// What quantity.
        what: String,
        /// Index in that quantity.
        index: usize,
        /// The value found.
        value: f64,
    },
    /// Vectors of the wrong length given to the simulator.
    #[error("{what}: {found} values given, expected {expected}")]
    Length {
        /// What was given.
        what: &'static str,
        /// Its length.
        found: usize,
        /// The length expected.
        expected: usize,
    },
    /// A request the chosen integrator or state cannot serve.
    #[error("{0}")]
    Unsupported(&'static str),
    /// Newton did not converge within its iteration budget.
    #[error(
        "Newton did not converge at step {step} (t = {time:.6} s): after {iterations} iterations the free-DOF residual is {residual:.3e} N (tolerance {tolerance:.3e} N); {reason}"
    )]
    NewtonDiverged {
        /// Step index (1-based: the step being computed).
        step: usize,
        /// Time at the end of the step, in s.
        time: f64,
        /// Iterations performed.
        iterations: usize,
        /// Final residual norm (force units, N).
        residual: f64,
        /// Tolerance it had to reach.
        tolerance: f64,
        /// Why it stopped.
        reason: String,
    },
    /// The linear solver failed.
    #[error("linear solve failed ({what}): {detail}")]
    LinearSolve {
        /// Which solve.
        what: &'static str,
        /// The solver's message.
        detail: String,
    },
    /// A scene (or an energy's JSON) could not be read: a JSON or schema
    /// error at `field`.
    #[error("scene {path}: {}{message}", at(field))]
    Scene {
        /// File path (or `<memory>`).
        path: String,
        /// The field path (empty for the document itself).
        field: String,
        /// What was wrong.
        message: String,
    },
    /// A file that cannot be read as asked (too large, a directory, not
    /// text).
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// An I/O error with the file it concerns.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A runtime plugin could not be loaded.
    #[error(transparent)]
    Plugin(#[from] crate::plugin::PluginError),
    /// An error of a plugin crate's own type (downcast it to inspect).
    #[error(transparent)]
    Other(Box<dyn std::error::Error + Send + Sync>),
}

/// A number for a message: as written when short, else in scientific
/// notation (`1e308`, not 309 digits).
pub(crate) fn short(v: f64) -> String {
    let s = v.to_string();
    if s.len() <= 12 { s } else { format!("{v:e}") }
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

fn at(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!("at `{field}`: ")
    }
}

impl CoreError {
    /// The error inside any [`CoreError::Energy`] wrappers.
    pub fn innermost(&self) -> &CoreError {
        match self {
            CoreError::Energy { source, .. } => source.innermost(),
            e => e,
        }
    }
    /// A degenerate `field` (`problem` says what).
    pub fn degenerate(field: impl Into<String>, problem: impl Into<String>) -> Self {
        CoreError::Degenerate {
            field: field.into(),
            problem: problem.into(),
        }
    }
    /// `field` and the model (or another field) do not fit together.
    pub fn inconsistent(field: impl Into<String>, problem: &'static str) -> Self {
        CoreError::Inconsistent {
            field: field.into(),
            problem,
        }
    }
    /// `what` needs a model of dimension `expected`, this one is `found`.
    pub fn dimension(what: impl Into<String>, expected: usize, found: usize) -> Self {
        CoreError::Dimension {
            what: what.into(),
            expected,
            found,
        }
    }
}

/// Result alias of the engine.
pub type Result<T, E = CoreError> = std::result::Result<T, E>;
