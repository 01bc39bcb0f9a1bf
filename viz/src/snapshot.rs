//! A drawable picture of a model at one state: every energy's shapes
//! ([`pliant_core::geometry`]) with their points resolved to positions (m),
//! per-point velocities (m/s), the forces of the energies that have no
//! shape of their own (ground contact, friction, gravity, drag, …; N per
//! node), and the centre of mass.

use crate::error::VizError;
use pliant_core::geometry::{CellKind, Field, Point, Shape};
use pliant_core::{Block, EvalState, Model};

/// One energy's cells with resolved points.
#[derive(Debug, Clone)]
pub struct Part {
    /// `"<entry>_<shape name>"`, unique within the model, for file names
    /// and legends.
    pub name: String,
    /// Cell kind.
    pub kind: CellKind,
    /// Point positions, m (z = 0 in a 2-D model).
    pub points: Vec<[f64; 3]>,
    /// Model node of each point, if it is one.
    pub nodes: Vec<Option<usize>>,
    /// `arity × cells` point indices.
    pub connectivity: Vec<usize>,
    /// Per-point velocity, m/s (zero for points that are not nodes).
    pub velocity: Vec<[f64; 3]>,
    /// Scalar fields the energy offered.
    pub fields: Vec<Field>,
    /// Per-point vector fields: the force of each shapeless energy on the
    /// part's nodes, N (`"force_ground"`, …).
    pub forces: Vec<(String, Vec<[f64; 3]>)>,
}

impl Part {
    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.connectivity.len() / self.kind.arity()
    }
}

/// Everything drawable at one state.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Time, s.
    pub time: f64,
    /// Cells of the energies with shapes, in model order.
    pub parts: Vec<Part>,
    /// Fixed planes and spheres ([`Shape::Plane`], [`Shape::Sphere`]),
    /// named `"<entry>_<name>"`.
    pub fixed: Vec<Shape>,
    /// Centre of mass, m (3 components; z = 0 in 2-D).
    pub com: [f64; 3],
}

/// The state a snapshot is taken of.
#[derive(Debug, Clone, Copy)]
pub struct StateView<'a> {
    /// Positions and extra DOFs (m, rad).
    pub q: &'a [f64],
    /// Velocities (m/s, rad/s).
    pub v: &'a [f64],
    /// Parameter channel values.
    pub p: &'a [f64],
    /// Time, s.
    pub t: f64,
    /// Step size, s (history energies see `q_prev = q − v·dt`).
    pub dt: f64,
}

fn embed(model: &Model, q: &[f64], n: usize) -> [f64; 3] {
    let x = model.node_position(q, n);
    std::array::from_fn(|a| x.get(a).copied().unwrap_or(0.0))
}

/// The forces `−∂E_k/∂q` (N on position DOFs) of energy `k` at `s`.
fn energy_force(model: &Model, k: usize, s: &EvalState) -> Vec<f64> {
    let set = model.energies()[k].elements();
    let (ns, np) = (set.stencil_size(), set.param_size());
    let stride = Block::Gradient.stride(ns, np);
    let mut blocks = vec![0.0; set.len() * stride];
    set.blocks(s, Block::Gradient, &mut blocks);
    let mut f = vec![0.0; s.q.len()];
    let mut dofs = vec![0; ns];
    for i in 0..set.len() {
        set.dofs(i, &mut dofs);
        for (a, &d) in dofs.iter().enumerate() {
            if let Some(fd) = f.get_mut(d) {
                *fd -= blocks[i * stride + a];
            }
        }
    }
    f
}

impl Snapshot {
    /// Takes the snapshot of `model` at `state`. An energy that reports a
    /// malformed shape is an error naming it.
    pub fn take(model: &Model, state: StateView) -> Result<Self, VizError> {
        let q_prev: Vec<f64> = state
            .q
            .iter()
            .zip(state.v)
            .map(|(q, v)| q - v * state.dt)
            .collect();
        let s = EvalState {
            q: state.q,
            q_prev: &q_prev,
            p: state.p,
            h: state.dt,
            dt: state.dt,
            t: state.t,
        };
        let (mut parts, mut fixed) = (Vec::new(), Vec::new());
        // Energies drawn as cells; the others act through the bodies.
        let mut drawn = vec![false; model.energies().len()];
        for (k, e) in model.energies().iter().enumerate() {
            let shapes = e.geometry(&s);
            let entry = model.energy_entry(k);
            for shape in shapes {
                match shape {
                    Shape::Cells(c) => {
                        drawn[k] = true;
                        let n_nodes = model.layout().n_nodes();
                        c.check()
                            .and_then(|_| {
                                match c.points.iter().find_map(|p| match p {
                                    Point::Node(n) if *n >= n_nodes => Some(*n),
                                    _ => None,
                                }) {
                                    Some(n) => Err(format!(
                                        "{}: node {n} of a model of {n_nodes} nodes",
                                        c.name
                                    )),
                                    None => Ok(()),
                                }
                            })
                            .map_err(|problem| VizError::Shape {
                                entry,
                                energy: model.energy_name(k).into(),
                                problem,
                            })?;
                        let points = c
                            .points
                            .iter()
                            .map(|p| match *p {
                                Point::Node(n) => embed(model, state.q, n),
                                Point::At(x) => x,
                            })
                            .collect();
                        let nodes: Vec<Option<usize>> = c
                            .points
                            .iter()
                            .map(|p| match *p {
                                Point::Node(n) => Some(n),
                                Point::At(_) => None,
                            })
                            .collect();
                        let velocity = nodes
                            .iter()
                            .map(|n| n.map_or([0.0; 3], |n| embed(model, state.v, n)))
                            .collect();
                        parts.push(Part {
                            name: format!("{entry}_{}", sanitize(&c.name)),
                            kind: c.kind,
                            points,
                            nodes,
                            connectivity: c.connectivity,
                            velocity,
                            fields: c.fields,
                            forces: Vec::new(),
                        });
                    }
                    Shape::Plane {
                        name,
                        point,
                        normal,
                    } => fixed.push(Shape::Plane {
                        name: format!("{entry}_{}", sanitize(&name)),
                        point,
                        normal,
                    }),
                    Shape::Sphere {
                        name,
                        centre,
                        radius,
                    } => fixed.push(Shape::Sphere {
                        name: format!("{entry}_{}", sanitize(&name)),
                        centre,
                        radius,
                    }),
                }
            }
        }
        // Forces of energies that act through the bodies (contact,
        // friction, gravity) as per-node fields of the parts drawn; the
        // ground's plane is drawn, its force is shown on the bodies too.
        let forceful: Vec<usize> = (0..drawn.len()).filter(|&k| !drawn[k]).collect();
        if parts.iter().any(|p| p.nodes.iter().any(Option::is_some)) {
            let mut seen = std::collections::HashMap::new();
            for k in forceful {
                let f = energy_force(model, k, &s);
                let base = model.energy_name(k);
                let count = seen.entry(base).or_insert(0usize);
                *count += 1;
                let name = if *count == 1 {
                    format!("force_{base}")
                } else {
                    format!("force_{base}_{count}")
                };
                for part in parts
                    .iter_mut()
                    .filter(|p| p.nodes.iter().any(Option::is_some))
                {
                    let values = part
                        .nodes
                        .iter()
                        .map(|n| n.map_or([0.0; 3], |n| embed(model, &f, n)))
                        .collect();
                    part.forces.push((name.clone(), values));
                }
            }
        }
        let c = model.center_of_mass(state.q);
        Ok(Self {
            time: state.t,
            parts,
            fixed,
            com: std::array::from_fn(|a| c.get(a).copied().unwrap_or(0.0)),
        })
    }

    /// Axis-aligned bounds `(min, max)` of every part's points (m); `None`
    /// when nothing is drawn.
    pub fn bounds(&self) -> Option<([f64; 3], [f64; 3])> {
        let mut it = self.parts.iter().flat_map(|p| p.points.iter());
        let first = *it.next()?;
        Some(it.fold((first, first), |(lo, hi), x| {
            (
                std::array::from_fn(|a| lo[a].min(x[a])),
                std::array::from_fn(|a| hi[a].max(x[a])),
            )
        }))
    }
}

/// A name made safe for a file name: letters, digits, `-` and `_`.
pub(crate) fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pliant_core::ModelBuilder;
    use pliant_core::geometry::FieldAt;
    use pliant_environment::{Gravity, Ground, NormalLaw, Spring, Springs};

    /// Two springs in a chain above a ground, node 2 pressed into it.
    fn model() -> Model {
        let mut b = ModelBuilder::new(3).unwrap();
        for x in [[0.0, 0.0, 0.1], [0.1, 0.0, 0.1], [0.2, 0.0, 0.1]] {
            b.add_node(&x, 0.01).unwrap();
        }
        let spring = |a, c, rest| Spring {
            nodes: [a, c],
            stiffness: 100.0,
            rest_length: Some(rest),
        };
        b.add(Springs::new(vec![spring(0, 1, 0.09), spring(1, 2, 0.12)]));
        b.add(Gravity::new(&[0.0, 0.0, -9.81]));
        b.add(Ground::new(
            &[0.0, 0.0, 0.0],
            &[0.0, 0.0, 1.0],
            NormalLaw::Quadratic {
                stiffness: 1e3,
                smoothing: 1e-3,
            },
            None,
        ));
        b.build().unwrap()
    }

    #[test]
    fn springs_are_lines_with_their_energies_and_the_ground_a_plane() {
        let m = model();
        let mut q = m.q0().to_vec();
        q[8] = -0.002; // node 2 into the ground
        let v = vec![0.0; q.len()];
        let snap = Snapshot::take(
            &m,
            StateView {
                q: &q,
                v: &v,
                p: &[],
                t: 0.0,
                dt: 0.01,
            },
        )
        .unwrap();
        assert_eq!(snap.parts.len(), 1);
        let springs = &snap.parts[0];
        assert_eq!((springs.kind, springs.cells()), (CellKind::Line, 2));
        assert_eq!(springs.points.len(), 3);
        assert_eq!(springs.points[2], [0.2, 0.0, -0.002]);
        // Per-cell energies add up to the energy's total.
        let energy = springs.fields.iter().find(|f| f.name == "energy").unwrap();
        assert_eq!(energy.at, FieldAt::Cells);
        let s = EvalState::at_rest(&q, &[], 0.01, 0.0);
        let total = m.energies()[0].elements().value(&s);
        assert!((energy.values.iter().sum::<f64>() - total).abs() < 1e-15 * total.max(1.0));
        assert!(energy.values.iter().all(|&e| e > 0.0));
        // The ground is a plane, and its force acts on node 2 only, upwards,
        // with the contact law's k (d − ε/2) = 1e3 · (0.002 − 0.0005) N.
        assert_eq!(
            snap.fixed,
            vec![Shape::Plane {
                name: "2_ground".into(),
                point: [0.0, 0.0, 0.0],
                normal: [0.0, 0.0, 1.0],
            }]
        );
        let (_, ground) = springs
            .forces
            .iter()
            .find(|(n, _)| n == "force_ground")
            .unwrap();
        assert_eq!(ground[0], [0.0; 3]);
        assert!((ground[2][2] - 1.5).abs() < 1e-9, "{:?}", ground[2]);
        assert_eq!(ground[2][..2], [0.0, 0.0]);
        let (_, gravity) = springs
            .forces
            .iter()
            .find(|(n, _)| n == "force_gravity")
            .unwrap();
        assert!((gravity[1][2] + 0.01 * 9.81).abs() < 1e-12);
        assert_eq!(snap.com[0], 0.1);
    }
}
