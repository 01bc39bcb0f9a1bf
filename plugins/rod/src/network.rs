//! Rod topology: nodes, edges and the bend–twist springs between them
//! (MAT-DiSMech §2, §3.2 and Fig. 2g).
//!
//! A rod (or a network of rods) is a list of edges, each a pair of model node
//! indices `[m, n]` with the edge vector `eⁱ = x_n − x_m` (m). A single rod is
//! a chain `[0, 1], [1, 2], …`; a network lets several edges meet at a node.
//!
//! **Bend–twist springs.** A spring is a pair of edges sharing a node, the
//! spring's centre `x_n`. Springs are enumerated by centre node in increasing
//! order and, at each node, by every pair `(p, q)`, `p < q`, of the edges
//! incident to it in increasing edge order. For a chain given in order, spring
//! `k` is therefore the one at node `k + 1` between edges `k` and `k + 1`; a
//! junction where `d` edges meet has `d(d − 1)/2` springs (three for a 3-edge
//! junction), as in Fig. 2g.
//!
//! **Orientation signs (Fig. 2g).** Eqs. 11–16 assume that the spring's first
//! edge `i = p` points *into* the centre node and its second edge `j = q`
//! points *away* from it (`x_m → x_n → x_o`). An edge stored the other way
//! round enters the spring negated: its sign is `s_i = +1` if edge `p` ends at
//! the centre node and `−1` otherwise, `s_j = +1` if edge `q` starts at the
//! centre node and `−1` otherwise. A negated edge contributes `s e`, `s t`,
//! `s d₁`, `s m₁` and `s θ` (its `d₂` and `m₂` are unchanged, since
//! `(−t) × (−d₁) = d₂`: the flipped frame is the original rotated by π about
//! `d₂`), and its forces and Jacobian entries are multiplied by `s` on the way
//! back. In terms of node positions the oriented edges are always
//! `s_i eⁱ = x_n − x_m` and `s_j eʲ = x_o − x_n`, with `x_m`, `x_o` the far
//! ends of edges `i`, `j`.

use crate::error::RodError;
use serde::Serialize;
use std::collections::BTreeMap;

/// One bend–twist spring: edges `i`, `j` meeting at node `node`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BendSpring {
    /// The centre node `x_n` where bending and twisting are measured.
    pub node: usize,
    /// Edge indices `[i, j]` (`i < j`).
    pub edges: [usize; 2],
    /// Orientation signs `[s_i, s_j]` (±1, see the module documentation).
    pub signs: [f64; 2],
    /// The far nodes `[x_m, x_o]` of edges `i` and `j`.
    pub outer: [usize; 2],
}

/// What one element of the rod's element set holds: a bend–twist spring and
/// the stretching springs of the edges it owns, or a lone edge's stretching
/// spring (an edge that belongs to no bend–twist spring).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Plan {
    /// Spring index and whether it owns the stretching of edges `i`, `j`.
    Spring { spring: usize, own: [bool; 2] },
    /// A lone edge.
    Edge { edge: usize },
}

/// The validated topology of a rod or rod network.
#[derive(Debug, Clone, PartialEq)]
pub struct RodNetwork {
    edges: Vec<[usize; 2]>,
    springs: Vec<BendSpring>,
    /// Per edge: `(spring, slot)` of every spring it belongs to (slot 0 = `i`, 1 = `j`).
    edge_springs: Vec<Vec<(usize, usize)>>,
}

impl RodNetwork {
    /// Validates `edges` (pairs of node indices) and enumerates the springs.
    pub fn new(edges: Vec<[usize; 2]>) -> Result<Self, RodError> {
        if edges.is_empty() {
            return Err(RodError::NoEdges);
        }
        let mut seen: BTreeMap<[usize; 2], usize> = BTreeMap::new();
        let mut incident: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (k, &[a, b]) in edges.iter().enumerate() {
            if a == b {
                return Err(RodError::RepeatedNode { edge: k, node: a });
            }
            let key = [a.min(b), a.max(b)];
            if let Some(&first) = seen.get(&key) {
                return Err(RodError::DuplicateEdge {
                    edge: k,
                    first,
                    nodes: [a, b],
                });
            }
            seen.insert(key, k);
            incident.entry(a).or_default().push(k);
            incident.entry(b).or_default().push(k);
        }
        let mut springs = Vec::new();
        let mut edge_springs = vec![Vec::new(); edges.len()];
        for (&node, inc) in &incident {
            for (x, &p) in inc.iter().enumerate() {
                for &q in &inc[x + 1..] {
                    let (ep, eq) = (edges[p], edges[q]);
                    let si = if ep[1] == node { 1.0 } else { -1.0 };
                    let sj = if eq[0] == node { 1.0 } else { -1.0 };
                    let m = if ep[1] == node { ep[0] } else { ep[1] };
                    let o = if eq[0] == node { eq[1] } else { eq[0] };
                    edge_springs[p].push((springs.len(), 0));
                    edge_springs[q].push((springs.len(), 1));
                    springs.push(BendSpring {
                        node,
                        edges: [p, q],
                        signs: [si, sj],
                        outer: [m, o],
                    });
                }
            }
        }
        Ok(Self {
            edges,
            springs,
            edge_springs,
        })
    }

    /// [`RodNetwork::new`] with the springs between the first `own` edges
    /// numbered first (in their order in `RodNetwork::new(edges[..own])`),
    /// then the springs that involve a later edge: appending edges (a
    /// rod–shell joint's) keeps the rod's own spring indices.
    pub fn with_own(edges: Vec<[usize; 2]>, own: usize) -> Result<Self, RodError> {
        let net = Self::new(edges)?;
        let is_own = |s: &BendSpring| s.edges[0] < own && s.edges[1] < own;
        let order: Vec<usize> = (0..net.springs.len())
            .filter(|&k| is_own(&net.springs[k]))
            .chain((0..net.springs.len()).filter(|&k| !is_own(&net.springs[k])))
            .collect();
        let mut new_index = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        let springs = order.iter().map(|&k| net.springs[k]).collect();
        let mut edge_springs = net.edge_springs;
        for list in &mut edge_springs {
            for (sp, _) in list.iter_mut() {
                *sp = new_index[*sp];
            }
            list.sort_unstable();
        }
        Ok(Self {
            edges: net.edges,
            springs,
            edge_springs,
        })
    }

    /// A single rod through `nodes` in order (edges `[nodes[k], nodes[k+1]]`).
    pub fn chain(nodes: &[usize]) -> Result<Self, RodError> {
        Self::new(nodes.windows(2).map(|w| [w[0], w[1]]).collect())
    }

    /// Checks that every node index is below `count`.
    pub fn check_nodes(&self, count: usize) -> Result<(), RodError> {
        for (edge, e) in self.edges.iter().enumerate() {
            for &node in e {
                if node >= count {
                    return Err(RodError::MissingNode { edge, node, count });
                }
            }
        }
        Ok(())
    }

    /// The edges `[m, n]` (edge vector `x_n − x_m`).
    pub fn edges(&self) -> &[[usize; 2]] {
        &self.edges
    }
    /// The bend–twist springs, in the documented order.
    pub fn springs(&self) -> &[BendSpring] {
        &self.springs
    }
    /// `(spring, slot)` of every spring edge `e` belongs to (slot 0: the
    /// spring's edge `i`, 1: its edge `j`).
    pub fn springs_of_edge(&self, e: usize) -> &[(usize, usize)] {
        &self.edge_springs[e]
    }
    /// The distinct nodes of the rod, sorted.
    pub fn nodes(&self) -> Vec<usize> {
        let mut n: Vec<usize> = self.edges.iter().flatten().copied().collect();
        n.sort_unstable();
        n.dedup();
        n
    }

    /// The element plan: one element per spring, the stretching of every
    /// edge owned by the first spring (in order) that contains it, and one
    /// stretch-only element per lone edge.
    pub(crate) fn plan(&self) -> Vec<Plan> {
        let mut owned = vec![false; self.edges.len()];
        let mut out = Vec::with_capacity(self.springs.len() + 1);
        for (k, s) in self.springs.iter().enumerate() {
            let own = s.edges.map(|e| {
                let mine = !owned[e];
                owned[e] = true;
                mine
            });
            out.push(Plan::Spring { spring: k, own });
        }
        for (e, o) in owned.iter().enumerate() {
            if !o {
                out.push(Plan::Edge { edge: e });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_has_one_spring_per_interior_node_with_positive_signs() {
        let n = RodNetwork::chain(&[3, 4, 5, 6]).unwrap();
        assert_eq!(n.edges(), &[[3, 4], [4, 5], [5, 6]]);
        assert_eq!(n.springs().len(), 2);
        for (k, s) in n.springs().iter().enumerate() {
            assert_eq!(s.node, 4 + k);
            assert_eq!(s.edges, [k, k + 1]);
            assert_eq!(s.signs, [1.0, 1.0]);
            assert_eq!(s.outer, [3 + k, 5 + k]);
        }
        assert_eq!(
            n.plan(),
            vec![
                Plan::Spring {
                    spring: 0,
                    own: [true, true]
                },
                Plan::Spring {
                    spring: 1,
                    own: [false, true]
                }
            ]
        );
    }

    #[test]
    fn a_three_edge_junction_has_three_springs_with_fig_2g_signs() {
        // Edges 0 and 1 point into node 1, edge 2 points away from it.
        let n = RodNetwork::new(vec![[0, 1], [2, 1], [1, 3]]).unwrap();
        let s = n.springs();
        assert_eq!(s.len(), 3);
        // (0, 1): both point into node 1, so edge j = 1 is negated.
        assert_eq!(
            (s[0].edges, s[0].signs, s[0].outer),
            ([0, 1], [1.0, -1.0], [0, 2])
        );
        // (0, 2): in, then out: no flip.
        assert_eq!(
            (s[1].edges, s[1].signs, s[1].outer),
            ([0, 2], [1.0, 1.0], [0, 3])
        );
        // (1, 2): edge 1 points into node 1 as edge i should.
        assert_eq!(
            (s[2].edges, s[2].signs, s[2].outer),
            ([1, 2], [1.0, 1.0], [2, 3])
        );
        assert_eq!(n.springs_of_edge(0), &[(0, 0), (1, 0)]);
        assert_eq!(n.nodes(), vec![0, 1, 2, 3]);
        // Every edge is owned by exactly one element.
        let mut count = [0; 3];
        for p in n.plan() {
            if let Plan::Spring { spring, own } = p {
                for (slot, o) in own.iter().enumerate() {
                    if *o {
                        count[s[spring].edges[slot]] += 1;
                    }
                }
            }
        }
        assert_eq!(count, [1, 1, 1]);
    }

    #[test]
    fn an_edge_pointing_away_from_the_shared_node_as_first_edge_is_flipped() {
        // Both edges leave node 0.
        // Own edges first: a chain 5 → 6 → 7 welded at node 5 to the
        // triangle (0, 1, 5): the chain's own spring stays spring 0.
        let own = RodNetwork::new(vec![[5, 6], [6, 7]]).unwrap();
        let joint = RodNetwork::with_own(vec![[5, 6], [6, 7], [0, 1], [1, 5], [5, 0]], 2).unwrap();
        assert_eq!(joint.springs()[0], own.springs()[0]);
        assert!(joint.springs()[1..].iter().all(|s| s.edges[1] >= 2));
        for (e, list) in joint.edge_springs.iter().enumerate() {
            for &(sp, slot) in list {
                assert_eq!(joint.springs()[sp].edges[slot], e);
            }
        }
        let n = RodNetwork::new(vec![[0, 1], [0, 2]]).unwrap();
        let s = n.springs()[0];
        assert_eq!((s.node, s.signs, s.outer), (0, [-1.0, 1.0], [1, 2]));
    }

    #[test]
    fn lone_edges_get_stretch_only_elements() {
        let n = RodNetwork::new(vec![[0, 1], [2, 3], [3, 4]]).unwrap();
        assert_eq!(n.springs().len(), 1);
        assert!(n.plan().contains(&Plan::Edge { edge: 0 }));
    }

    #[test]
    fn bad_topologies_are_named() {
        assert_eq!(RodNetwork::new(vec![]), Err(RodError::NoEdges));
        assert_eq!(
            RodNetwork::new(vec![[0, 1], [2, 2]]),
            Err(RodError::RepeatedNode { edge: 1, node: 2 })
        );
        let e = RodNetwork::new(vec![[0, 1], [1, 2], [1, 0]]).unwrap_err();
        assert_eq!(
            e,
            RodError::DuplicateEdge {
                edge: 2,
                first: 0,
                nodes: [1, 0]
            }
        );
        assert!(e.to_string().contains("edges 0 and 2"));
        let n = RodNetwork::chain(&[0, 1, 7]).unwrap();
        let e = n.check_nodes(5).unwrap_err();
        assert_eq!(
            e,
            RodError::MissingNode {
                edge: 1,
                node: 7,
                count: 5
            }
        );
        assert!(e.to_string().contains("edge 1 refers to node 7"));
    }
}
