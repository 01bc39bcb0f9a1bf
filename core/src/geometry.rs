//! What an energy looks like: the shapes output writers draw.
//!
//! An energy with a shape reports it through [`crate::Energy::geometry`]
//! — tetrahedra, rod and cable polylines, shell triangles, membranes,
//! contact planes and spheres — with the per-point or per-cell quantities
//! it offers (energy density, tension, pressure). Writers (ParaView series,
//! the HTML replay) draw any scene, built-in or plugin, from these shapes
//! alone, without knowing the energies' types. Lengths are in metres; a
//! 2-D model's shapes lie in the plane `z = 0`.
//!
//! Energies that are a bound element set get their shape from
//! [`crate::Elements::drawn_as`] with a [`Drawing`].

/// The cells of a [`Cells`] shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellKind {
    /// Points (a magnetic connector, a point mass), 1 point per cell.
    Vertex,
    /// Segments (rod edges, cable spans, springs), 2 points per cell.
    Line,
    /// Triangles (shells, cavity surfaces), 3 points per cell.
    Triangle,
    /// Tetrahedra (FEM bodies), 4 points per cell.
    Tetra,
}

impl CellKind {
    /// Points per cell.
    pub fn arity(self) -> usize {
        match self {
            CellKind::Vertex => 1,
            CellKind::Line => 2,
            CellKind::Triangle => 3,
            CellKind::Tetra => 4,
        }
    }
    /// The unit of a cell's measure: none, m, m², m³.
    pub fn measure_unit(self) -> &'static str {
        match self {
            CellKind::Vertex => "1",
            CellKind::Line => "m",
            CellKind::Triangle => "m^2",
            CellKind::Tetra => "m^3",
        }
    }
}

/// A point of a shape: a model node (its position and velocity come from
/// the state), or a position the energy computed (a cable's via point
/// bound barycentrically inside a tetrahedron), m.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Point {
    /// Model node index.
    Node(usize),
    /// Position, m.
    At([f64; 3]),
}

/// Where a [`Field`]'s values live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldAt {
    /// One value per point.
    Points,
    /// One value per cell.
    Cells,
}

/// A named scalar quantity over a shape's points or cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Name, e.g. `"energy_density"`, `"tension"`, `"radius"`.
    pub name: String,
    /// SI unit, e.g. `"J/m^3"`, `"N"`, `"m"`.
    pub unit: String,
    /// Per point or per cell.
    pub at: FieldAt,
    /// The values, one per point or cell.
    pub values: Vec<f64>,
}

impl Field {
    /// A per-cell field.
    pub fn cells(name: &str, unit: &str, values: Vec<f64>) -> Self {
        Self {
            name: name.into(),
            unit: unit.into(),
            at: FieldAt::Cells,
            values,
        }
    }
    /// A per-point field.
    pub fn points(name: &str, unit: &str, values: Vec<f64>) -> Self {
        Self {
            name: name.into(),
            unit: unit.into(),
            at: FieldAt::Points,
            values,
        }
    }
}

/// Cells of one kind over a list of points.
#[derive(Debug, Clone, PartialEq)]
pub struct Cells {
    /// What the shape is, e.g. `"body"`, `"cable belly"`.
    pub name: String,
    /// Cell kind.
    pub kind: CellKind,
    /// The points the cells refer to.
    pub points: Vec<Point>,
    /// `arity × cells` point indices, cell by cell.
    pub connectivity: Vec<usize>,
    /// Per-point and per-cell quantities (a `"radius"` field, m, gives
    /// lines and vertices their thickness).
    pub fields: Vec<Field>,
}

impl Cells {
    /// Number of cells.
    pub fn len(&self) -> usize {
        self.connectivity.len() / self.kind.arity()
    }
    /// Whether there is no cell.
    pub fn is_empty(&self) -> bool {
        self.connectivity.is_empty()
    }
    /// Cells of `kind` over model nodes: `cells` lists each cell's nodes
    /// (`arity` per cell); the points are the distinct nodes in order of
    /// first use.
    pub fn over_nodes(name: &str, kind: CellKind, cells: &[usize]) -> Self {
        let mut local = std::collections::HashMap::new();
        let mut points = Vec::new();
        let connectivity = cells
            .iter()
            .map(|&n| {
                *local.entry(n).or_insert_with(|| {
                    points.push(Point::Node(n));
                    points.len() - 1
                })
            })
            .collect();
        Self {
            name: name.into(),
            kind,
            points,
            connectivity,
            fields: Vec::new(),
        }
    }
    /// Adds a field.
    pub fn with(mut self, field: Field) -> Self {
        self.fields.push(field);
        self
    }
    /// Checks sizes and indices; `Err` names what is wrong.
    pub fn check(&self) -> Result<(), String> {
        let a = self.kind.arity();
        if !self.connectivity.len().is_multiple_of(a) {
            return Err(format!(
                "{}: {} point indices are not a whole number of {a}-point cells",
                self.name,
                self.connectivity.len()
            ));
        }
        if let Some(&i) = self.connectivity.iter().find(|&&i| i >= self.points.len()) {
            return Err(format!(
                "{}: a cell refers to point {i} of {}",
                self.name,
                self.points.len()
            ));
        }
        for f in &self.fields {
            let n = match f.at {
                FieldAt::Points => self.points.len(),
                FieldAt::Cells => self.len(),
            };
            if f.values.len() != n {
                return Err(format!(
                    "{}: field `{}` has {} values for {n} {}",
                    self.name,
                    f.name,
                    f.values.len(),
                    if f.at == FieldAt::Points {
                        "points"
                    } else {
                        "cells"
                    }
                ));
            }
        }
        Ok(())
    }
}

/// A shape an energy reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Cells over points.
    Cells(Cells),
    /// An infinite plane (the ground, a wall): the points `x` with
    /// `n · (x − point) = 0`, solid on the side `−n`.
    Plane {
        /// What it is.
        name: String,
        /// A point of the plane, m.
        point: [f64; 3],
        /// Unit normal, pointing out of the solid.
        normal: [f64; 3],
    },
    /// A fixed sphere (an obstacle).
    Sphere {
        /// What it is.
        name: String,
        /// Centre, m.
        centre: [f64; 3],
        /// Radius, m.
        radius: f64,
    },
}

impl Shape {
    /// The shape's name.
    pub fn name(&self) -> &str {
        match self {
            Shape::Cells(c) => &c.name,
            Shape::Plane { name, .. } | Shape::Sphere { name, .. } => name,
        }
    }
}

/// How a bound element set is drawn ([`crate::Elements::drawn_as`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Drawing {
    /// Every element is a cell of `kind` over its first `arity` nodes, with
    /// its energy (J) as the cell field `"energy"`, and, when `measures`
    /// gives each element's rest measure (m, m², m³), the energy density
    /// `"energy_density"` (J/m, J/m², J/m³ = Pa).
    Elements {
        /// Shape name.
        name: String,
        /// Cell kind.
        kind: CellKind,
        /// Rest length, area or volume of every element.
        measures: Option<Vec<f64>>,
    },
    /// Fixed cells over model nodes, drawn for an energy whose elements
    /// are not the cells (a shell's edges drawn as its triangles).
    Cells {
        /// Shape name.
        name: String,
        /// Cell kind.
        kind: CellKind,
        /// `arity × cells` model nodes.
        nodes: Vec<usize>,
    },
    /// A fixed shape (a contact plane or sphere).
    Fixed(Shape),
}
