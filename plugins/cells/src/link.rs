//! Free joints between cells (scene type `"cell_link"`; Germann et al.
//! §V-D, "subunits connected through permanent free joints: they must
//! remain attached but are free to move about the joint"): a stiff bond
//! between the centroids of two membranes,
//!
//! `E = k/2 (‖c_b − c_a‖ − L)²`, `c = (1/n) Σ xᵢ` over a membrane's nodes,
//!
//! `k` in N/m, `L` in m (default the initial distance). Pinned at their
//! centres, linked cells keep their distance but turn freely about each
//! other and about themselves — a pin at a membrane point would make one
//! cell roll over the other's membrane and squash it. The centroid is a
//! linear map of the nodes, so the Hessian is `Bᵀ K B` with the 2 × 2 bond
//! stiffness `K` spread evenly over both membranes (a dense block over the
//! two rings, written analytically).

use crate::error::{CellError, positive};
use pliant_core::element::{Block, VariableStencil, variable_fallback};
use pliant_core::{BindInfo, ElementSet, Energy, EnergySpec, EvalState, Result, Scalar};
use serde::{Deserialize, Serialize};

/// One free joint: the two membranes it links, and its rest length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellLink {
    /// The two membranes (rings of nodes).
    pub rings: [Vec<usize>; 2],
    /// Rest length `L` between the centroids, m; default the initial one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest_length: Option<f64>,
}

/// Free joints of one stiffness (scene type `"cell_link"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellLinks {
    /// The joints; every ring of the set has the same number of nodes.
    pub links: Vec<CellLink>,
    /// Bond stiffness `k`, N/m.
    pub stiffness: f64,
}

#[derive(Debug, Clone)]
struct LinkEl {
    /// DOFs `x y` of ring a's nodes, then ring b's.
    dofs: Vec<usize>,
    n: usize,
    rest: f64,
    k: f64,
}

impl LinkEl {
    /// `c_b − c_a` over local coordinates.
    fn vector(&self, x: &[f64]) -> [f64; 2] {
        let mut d = [0.0; 2];
        let w = 1.0 / self.n as f64;
        for i in 0..self.n {
            for a in 0..2 {
                d[a] += w * (x[2 * (self.n + i) + a] - x[2 * i + a]);
            }
        }
        d
    }
    /// Weight of local node `i` in `c_b − c_a`.
    fn weight(&self, i: usize) -> f64 {
        if i < self.n {
            -1.0 / self.n as f64
        } else {
            1.0 / self.n as f64
        }
    }
}

impl VariableStencil for LinkEl {
    fn energy<D: Scalar>(&self, x: &[D], _: &[D]) -> D {
        let w = 1.0 / self.n as f64;
        let mut d = [D::from(0.0), D::from(0.0)];
        for i in 0..self.n {
            for a in 0..2 {
                d[a] += (x[2 * (self.n + i) + a] - x[2 * i + a]) * w;
            }
        }
        let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
        (l - self.rest) * (l - self.rest) * (0.5 * self.k)
    }
}

/// The bound free joints.
#[derive(Debug)]
struct LinkSet {
    links: Vec<LinkEl>,
}

impl ElementSet for LinkSet {
    fn len(&self) -> usize {
        self.links.len()
    }
    fn stencil_size(&self) -> usize {
        self.links.first().map_or(0, |l| l.dofs.len())
    }
    fn param_size(&self) -> usize {
        0
    }
    fn uses_history(&self) -> bool {
        false
    }
    fn dofs(&self, i: usize, out: &mut [usize]) {
        out[..self.links[i].dofs.len()].copy_from_slice(&self.links[i].dofs);
    }
    fn params(&self, _: usize, _: &mut [usize]) {}
    fn value(&self, s: &EvalState) -> f64 {
        self.links
            .iter()
            .map(|l| {
                let x: Vec<f64> = l.dofs.iter().map(|&d| s.q[d]).collect();
                let d = l.vector(&x);
                0.5 * l.k * (d[0].hypot(d[1]) - l.rest).powi(2)
            })
            .sum()
    }
    fn blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        let m = self.stencil_size();
        let stride = kind.stride(m, 0);
        for (l, o) in self.links.iter().zip(out.chunks_mut(stride.max(1))) {
            let x: Vec<f64> = l.dofs.iter().map(|&d| s.q[d]).collect();
            let d = l.vector(&x);
            let len = d[0].hypot(d[1]);
            let u = [d[0] / len, d[1] / len];
            let f = l.k * (len - l.rest);
            match kind {
                Block::Gradient => {
                    for i in 0..2 * l.n {
                        let w = l.weight(i);
                        o[2 * i] = w * f * u[0];
                        o[2 * i + 1] = w * f * u[1];
                    }
                }
                Block::Hessian => {
                    let t = f / len;
                    let kk: [f64; 4] = std::array::from_fn(|rs| {
                        let (r, c) = (rs / 2, rs % 2);
                        let id = if r == c { 1.0 } else { 0.0 };
                        l.k * u[r] * u[c] + t * (id - u[r] * u[c])
                    });
                    for i in 0..2 * l.n {
                        for j in 0..2 * l.n {
                            let w = l.weight(i) * l.weight(j);
                            for r in 0..2 {
                                for c in 0..2 {
                                    o[(2 * i + r) * m + 2 * j + c] = w * kk[2 * r + c];
                                }
                            }
                        }
                    }
                }
                _ => o[..stride].fill(0.0),
            }
        }
    }
    fn fallback_blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        let stride = kind.stride(self.stencil_size(), 0);
        for (l, o) in self.links.iter().zip(out.chunks_mut(stride.max(1))) {
            let x: Vec<f64> = l.dofs.iter().map(|&d| s.q[d]).collect();
            variable_fallback(l, &x, &[], kind, o);
        }
    }
}

impl Energy for LinkSet {
    fn elements(&self) -> &dyn ElementSet {
        self
    }
}

impl EnergySpec for CellLinks {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        info.require_dim("cell_link", 2)?;
        positive("stiffness", self.stiffness, "N/m")?;
        let count = info.layout.n_nodes();
        let n = self.links.first().map_or(0, |l| l.rings[0].len());
        let mut links = Vec::with_capacity(self.links.len());
        for (li, link) in self.links.iter().enumerate() {
            let mut dofs = Vec::with_capacity(4 * n);
            for (side, ring) in link.rings.iter().enumerate() {
                if ring.len() != n || n == 0 {
                    return Err(CellError::LinkRingSize {
                        link: li,
                        found: ring.len(),
                        expected: n,
                    }
                    .into());
                }
                for &node in ring {
                    let base = *info.layout.node_base().get(node).ok_or_else(|| {
                        CellError::MissingNode {
                            what: format!("links[{li}].rings[{side}]"),
                            node,
                            count,
                        }
                    })?;
                    dofs.extend([base, base + 1]);
                }
            }
            let mut el = LinkEl {
                dofs,
                n,
                rest: 0.0,
                k: self.stiffness,
            };
            let x: Vec<f64> = el.dofs.iter().map(|&d| info.q0[d]).collect();
            let d = el.vector(&x);
            let initial = d[0].hypot(d[1]);
            positive(
                &format!("links[{li}]: distance between the centroids"),
                initial,
                "m",
            )?;
            el.rest = match link.rest_length {
                Some(l) => {
                    positive(&format!("links[{li}].rest_length"), l, "m")?;
                    l
                }
                None => initial,
            };
            links.push(el);
        }
        Ok(Box::new(LinkSet { links }))
    }
}

pliant_core::register_energy!(
    CellLinks = "cell_link",
    "free joints between cells (Germann et al. §V-D): a bond of `stiffness` k (N/m) between the centroids of two membranes (`rings`), rest length default the initial distance; the cells turn freely about it",
    r#"{"type": "cell_link", "stiffness": 1000.0, "links": [{"rings": [[0, 1, 2], [3, 4, 5]]}]}"#
);
