//! Contractile actuators between two membrane nodes (scene type
//! `"cell_actuator"`; Germann et al. §III-C): the controlled quantity is
//! the actuator's length. Each actuator is a stiff spring whose rest length
//! follows the control,
//!
//! `E = k/2 (‖x_b − x_a‖ − L)²` (J),
//!
//! `k` in N/m, `L` in m — a number or a control channel (differentiable),
//! default the initial distance (a passive tie). With `L` below the
//! distance the actuator pulls the two membrane points together, as the
//! paper's muscles between membrane bodies do. Works in 2-D and 3-D models.

use crate::error::{CellError, positive};
use pliant_core::geometry::{CellKind, Drawing};
use pliant_core::quantity::{Bound, Quantity};
use pliant_core::vec3::{norm, sub};
use pliant_core::{
    BindInfo, Ctx, Element, Elements, Energy, EnergySpec, Local, Result, Scalar, Stencil,
};
use serde::{Deserialize, Serialize};

/// One actuator as written in a scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Actuator {
    /// The two membrane nodes it connects.
    pub nodes: [usize; 2],
    /// Length `L`, m (number or channel); default the initial distance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<Quantity>,
}

/// A set of contractile actuators of one stiffness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Actuators {
    /// The actuators.
    pub actuators: Vec<Actuator>,
    /// Stiffness `k`, N/m.
    pub stiffness: f64,
}

#[derive(Debug, Clone)]
struct ActuatorEl {
    nodes: [usize; 2],
    length: Bound,
    k: f64,
}

impl ActuatorEl {
    fn geometry(&self, x: &[f64]) -> ([f64; 3], f64) {
        let d = sub(&[x[3], x[4], x[5]], &[x[0], x[1], x[2]]);
        (d, norm(&d))
    }
}

impl Element for ActuatorEl {
    type Size = Stencil<6, 1, 3>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [self.length.channel()]
    }
    fn map(&self, b: &mut [f64]) -> bool {
        for a in 0..3 {
            b[a * 6 + a] = -1.0;
            b[a * 6 + 3 + a] = 1.0;
        }
        true
    }
    fn reduce(&self, x: &[f64], r: &mut [f64]) -> bool {
        r[..3].copy_from_slice(&self.geometry(x).0);
        true
    }
    fn energy<D: Scalar>(&self, r: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let l = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
        let u = l - self.length.of(p);
        u * u * (0.5 * self.k)
    }
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let (d, len) = self.geometry(l.x);
        let f = self.k * (len - self.length.of(l.p)) / len;
        for a in 0..3 {
            g[a] = -f * d[a];
            g[3 + a] = f * d[a];
        }
        true
    }
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        let (d, len) = self.geometry(l.x);
        let t = self.k * (len - self.length.of(l.p)) / len;
        for a in 0..3 {
            for b in 0..3 {
                let id = if a == b { 1.0 } else { 0.0 };
                let v = self.k * d[a] * d[b] / (len * len) + t * (id - d[a] * d[b] / (len * len));
                h[a * 6 + b] = v;
                h[(a + 3) * 6 + b + 3] = v;
                h[a * 6 + b + 3] = -v;
                h[(a + 3) * 6 + b] = -v;
            }
        }
        true
    }
    fn param_block(&self, l: &Local, b: &mut [f64]) -> bool {
        let (d, len) = self.geometry(l.x);
        let f = match self.length {
            Bound::Constant(_) => 0.0,
            Bound::Channel(_) => -self.k / len,
        };
        for a in 0..3 {
            b[a] = -f * d[a];
            b[3 + a] = f * d[a];
        }
        true
    }
    fn param_gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let (_, len) = self.geometry(l.x);
        g[0] = match self.length {
            Bound::Constant(_) => 0.0,
            Bound::Channel(_) => -self.k * (len - l.p[0]),
        };
        true
    }
}

impl EnergySpec for Actuators {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        positive("stiffness", self.stiffness, "N/m")?;
        let count = info.layout.n_nodes();
        let mut items = Vec::with_capacity(self.actuators.len());
        for (i, a) in self.actuators.iter().enumerate() {
            let field = format!("actuators[{i}]");
            for &node in &a.nodes {
                if node >= count {
                    return Err(CellError::MissingNode {
                        what: field,
                        node,
                        count,
                    }
                    .into());
                }
            }
            let d = norm(&sub(
                &info.node_position(a.nodes[1], &field)?,
                &info.node_position(a.nodes[0], &field)?,
            ));
            positive(&format!("{field}: distance between its nodes"), d, "m")?;
            let length = match &a.length {
                None => Bound::Constant(d),
                Some(q) => {
                    // A number, or the lowest value of the channel's schedule.
                    if let Some(v) = q.lowest(info) {
                        positive(&format!("{field}.length"), v, "m")?;
                    }
                    q.bound()
                }
            };
            items.push(ActuatorEl {
                nodes: a.nodes,
                length,
                k: self.stiffness,
            });
        }
        let drawing = Drawing::Elements {
            name: "actuators".into(),
            kind: CellKind::Line,
            measures: None,
        };
        Ok(Box::new(
            Elements::bind(items, info, "actuators")?.drawn_as(drawing),
        ))
    }
}

pliant_core::register_energy!(
    Actuators = "cell_actuator",
    "contractile actuators between membrane nodes (Germann et al. §III-C): spring of `stiffness` k (N/m) whose rest `length` L (m, number or control channel; default the initial distance) is the controlled quantity",
    r#"{"type": "cell_actuator", "stiffness": 500.0, "actuators": [{"nodes": [0, 1], "length": 0.05}]}"#
);
