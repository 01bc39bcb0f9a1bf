//! A plain stretch spring between two nodes:
//! `E = k/2 (‖x_b − x_a‖ − L)²` (J), stiffness `k` in N/m, rest length `L`
//! in m (default: the initial distance). With a `contraction` channel `u`
//! (m), the rest length is `L − u`, a linear actuator.

use pliant_core::geometry::{CellKind, Drawing};
use pliant_core::vec3::{load, norm, sub};
use pliant_core::{
    BindInfo, CoreError, Ctx, Element, Elements, Energy, EnergySpec, Invalid, Local, Result,
    Scalar, Stencil,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One spring of a [`Springs`] energy, as written in a scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spring {
    /// The two node indices.
    pub nodes: [usize; 2],
    /// Stiffness, N/m (> 0).
    pub stiffness: f64,
    /// Rest length, m; default the initial distance.
    #[serde(default)]
    pub rest_length: Option<f64>,
}

/// A set of two-node stretch springs (scene type `"spring"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Springs {
    /// The springs.
    pub springs: Vec<Spring>,
    /// Optional control channel `u` (m) shortening every rest length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contraction: Option<String>,
}

impl Springs {
    /// Springs without a control channel.
    pub fn new(springs: Vec<Spring>) -> Self {
        Self {
            springs,
            contraction: None,
        }
    }
    /// Springs whose rest lengths are shortened by channel `channel` (m).
    pub fn with_contraction(springs: Vec<Spring>, channel: &str) -> Self {
        Self {
            springs,
            contraction: Some(channel.into()),
        }
    }
}

/// A bound spring over the 6 DOFs of its two nodes; its fallback
/// differentiates over the 3 components of the edge vector `x_b − x_a`.
#[derive(Debug, Clone)]
struct SpringEl {
    nodes: [usize; 2],
    contraction: Option<Arc<str>>,
    k: f64,
    rest: f64,
}

impl SpringEl {
    /// Unit direction, length and tension `k(l − L + u)` at the local state.
    // Inlined into each caller so the stencil values stay in registers.
    #[inline(always)]
    fn kinematics(&self, l: &Local) -> ([f64; 3], f64, f64) {
        let e = sub(&load(l.x, 3), &load(l.x, 0));
        let len = norm(&e);
        (
            e.map(|v| v / len),
            len,
            self.k * (len - (self.rest - l.p[0])),
        )
    }
}

impl Element for SpringEl {
    type Size = Stencil<6, 1, 3>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [self.contraction.as_deref()]
    }
    fn map(&self, b: &mut [f64]) -> bool {
        for a in 0..3 {
            b[a * 6 + a] = -1.0;
            b[a * 6 + 3 + a] = 1.0;
        }
        true
    }
    /// `r = x_b − x_a`, without multiplying by `B`.
    #[inline]
    fn reduce(&self, x: &[f64], r: &mut [f64]) -> bool {
        for a in 0..3 {
            r[a] = x[3 + a] - x[a];
        }
        true
    }
    fn energy<D: Scalar>(&self, e: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let mut l2 = D::from(0.0);
        for c in e {
            l2 += *c * *c;
        }
        let s = l2.sqrt() - (-p[0] + self.rest);
        s * s * (0.5 * self.k)
    }
    #[inline]
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let (n, _, f) = self.kinematics(l);
        for a in 0..3 {
            g[a] = -f * n[a];
            g[3 + a] = f * n[a];
        }
        true
    }
    /// `K = k n nᵀ + (f/l)(I − n nᵀ)`, `H = [[K, −K], [−K, K]]`.
    #[inline]
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        let (n, len, f) = self.kinematics(l);
        let t = f / len;
        for a in 0..3 {
            for b in 0..3 {
                let id = if a == b { 1.0 } else { 0.0 };
                let k = self.k * n[a] * n[b] + t * (id - n[a] * n[b]);
                h[a * 6 + b] = k;
                h[(3 + a) * 6 + 3 + b] = k;
                h[a * 6 + 3 + b] = -k;
                h[(3 + a) * 6 + b] = -k;
            }
        }
        true
    }
    /// `∂²E/∂x∂u` with `L = L0 − u`: `∂g_b/∂u = k n`, `∂g_a/∂u = −k n`.
    fn param_block(&self, l: &Local, b: &mut [f64]) -> bool {
        let (n, _, _) = self.kinematics(l);
        for a in 0..3 {
            b[a] = -self.k * n[a];
            b[3 + a] = self.k * n[a];
        }
        true
    }
}

impl EnergySpec for Springs {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        if let Some(c) = &self.contraction {
            info.param(c, "contraction")?;
        }
        let channel: Option<Arc<str>> = self.contraction.as_deref().map(Arc::from);
        let mut items = Vec::with_capacity(self.springs.len());
        for (i, s) in self.springs.iter().enumerate() {
            let at = format!("springs[{i}]");
            if s.nodes[0] == s.nodes[1] {
                return Err(CoreError::degenerate(
                    format!("{at}.nodes"),
                    format!("both ends are node {}", s.nodes[0]),
                ));
            }
            Invalid::positive("stiffness", s.stiffness, "N/m").map_err(|e| e.within(&at))?;
            let xa = info.node_position(s.nodes[0], &format!("{at}.nodes"))?;
            let xb = info.node_position(s.nodes[1], &format!("{at}.nodes"))?;
            let l0 = norm(&sub(&xb, &xa));
            let rest = s.rest_length.unwrap_or(l0);
            Invalid::non_negative("rest_length", rest, "m").map_err(|e| e.within(&at))?;
            if l0 == 0.0 {
                return Err(CoreError::degenerate(
                    at,
                    format!(
                        "nodes {} and {} coincide in the initial state (zero-length spring)",
                        s.nodes[0], s.nodes[1]
                    ),
                ));
            }
            items.push(SpringEl {
                nodes: s.nodes,
                contraction: channel.clone(),
                k: s.stiffness,
                rest,
            });
        }
        let drawing = Drawing::Elements {
            name: "springs".into(),
            kind: CellKind::Line,
            measures: None,
        };
        Ok(Box::new(
            Elements::bind(items, info, "springs")?.drawn_as(drawing),
        ))
    }
}

pliant_core::register_energy!(
    Springs = "spring",
    "two-node stretch springs E = k/2 (|x_b − x_a| − L)²; k in N/m, L in m (default initial length); optional `contraction` channel u: L − u",
    r#"{"type": "spring", "springs": [{"nodes": [0, 1], "stiffness": 100.0}]}"#
);
