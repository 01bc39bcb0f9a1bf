//! A 3-D spring lattice: nodes on a regular grid joined by springs along the
//! grid edges, the face diagonals and the body diagonals (13 springs per
//! interior node), which makes the lattice resist shear. Used by the demo,
//! the tests and the benchmarks.

use pliant_core::{ModelBuilder, Result};
use pliant_environment::{Spring, Springs};

/// Grid size, spacing (m), spring stiffness (N/m) and node mass (kg).
#[derive(Debug, Clone, Copy)]
pub struct SpringLattice {
    /// Nodes along x, y, z.
    pub n: [usize; 3],
    /// Grid spacing, m.
    pub spacing: f64,
    /// Stiffness of the edge springs, N/m; diagonals get `k/√2` and `k/√3`.
    pub stiffness: f64,
    /// Mass of each node, kg.
    pub node_mass: f64,
    /// Position of node (0, 0, 0), m.
    pub origin: [f64; 3],
}

impl SpringLattice {
    /// Number of nodes.
    pub fn n_nodes(&self) -> usize {
        self.n[0] * self.n[1] * self.n[2]
    }
    /// Node index of grid point `(i, j, k)`.
    pub fn node(&self, i: usize, j: usize, k: usize) -> usize {
        (k * self.n[1] + j) * self.n[0] + i
    }
    /// Adds the nodes (indices `first..first + n_nodes()`) and one spring
    /// energy to `b`; returns the index of the first node.
    pub fn add_to(&self, b: &mut ModelBuilder) -> Result<usize> {
        let [nx, ny, nz] = self.n;
        let first = b.layout().n_nodes();
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    let p = [
                        self.origin[0] + i as f64 * self.spacing,
                        self.origin[1] + j as f64 * self.spacing,
                        self.origin[2] + k as f64 * self.spacing,
                    ];
                    b.add_node(&p, self.node_mass)?;
                }
            }
        }
        let mut springs = Vec::with_capacity(13 * self.n_nodes());
        let offsets: Vec<[i64; 3]> = {
            let mut v = Vec::new();
            for dz in -1i64..=1 {
                for dy in -1i64..=1 {
                    for dx in -1i64..=1 {
                        // Keep one of each ± pair: the lexicographically positive half.
                        if (dz, dy, dx) > (0, 0, 0) {
                            v.push([dx, dy, dz]);
                        }
                    }
                }
            }
            v
        };
        for k in 0..nz as i64 {
            for j in 0..ny as i64 {
                for i in 0..nx as i64 {
                    for o in &offsets {
                        let (a, bb, c) = (i + o[0], j + o[1], k + o[2]);
                        if a < 0
                            || bb < 0
                            || c < 0
                            || a >= nx as i64
                            || bb >= ny as i64
                            || c >= nz as i64
                        {
                            continue;
                        }
                        let len2 = (o[0] * o[0] + o[1] * o[1] + o[2] * o[2]) as f64;
                        springs.push(Spring {
                            nodes: [
                                first + self.node(i as usize, j as usize, k as usize),
                                first + self.node(a as usize, bb as usize, c as usize),
                            ],
                            stiffness: self.stiffness / len2.sqrt(),
                            rest_length: None,
                        });
                    }
                }
            }
        }
        b.add_energy(Box::new(Springs::new(springs)));
        Ok(first)
    }
}
