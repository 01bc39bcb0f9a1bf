//! Named regions and selectors: sets of nodes chosen by name (a body's
//! mesh groups, `"foam.surface"`), by geometry in the initial state (a box,
//! a half-space, a sphere; m) or by index, for constraints, point masses
//! and anything else that acts on a part of a body.
//!
//! A [`Selector`] is the intersection of every criterion it gives:
//! `{"region": "foam", "box": {"min": [0, 0, 0], "max": [0.02, 0.1, 0.005]}}`
//! is the foam body's nodes in that box. Selecting nothing is an error, so
//! a box that misses the body is caught when the model is built.

use crate::error::{CoreError, Result};
use crate::layout::Layout;
use serde::{Deserialize, Serialize};

/// An axis-aligned box, m (bounds inclusive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxSelector {
    /// Lower corner, m.
    pub min: Vec<f64>,
    /// Upper corner, m.
    pub max: Vec<f64>,
}

/// The closed half-space `n · (x − point) ≤ 0`: the side the normal points
/// away from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HalfSpaceSelector {
    /// A point of the bounding plane, m.
    pub point: Vec<f64>,
    /// Outward normal of the selected side (any length > 0).
    pub normal: Vec<f64>,
}

/// A closed ball.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SphereSelector {
    /// Centre, m.
    pub centre: Vec<f64>,
    /// Radius, m.
    pub radius: f64,
}

/// Nodes chosen by the intersection of the criteria given (at least one).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selector {
    /// A named region (a body's, or one the scene defines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Node indices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<usize>>,
    /// Nodes inside a box.
    #[serde(default, rename = "box", skip_serializing_if = "Option::is_none")]
    pub aabb: Option<BoxSelector>,
    /// Nodes on one side of a plane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_space: Option<HalfSpaceSelector>,
    /// Nodes inside a ball.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sphere: Option<SphereSelector>,
}

/// A tolerance for "on the boundary": 1e-9 of the coordinate's size, at
/// least 1e-12 m, so nodes placed exactly on a box face are inside.
fn slack(x: f64) -> f64 {
    1e-12_f64.max(1e-9 * x.abs())
}

fn vector(v: &[f64], dim: usize, field: String) -> Result<[f64; 3]> {
    if v.len() != dim {
        return Err(CoreError::Count {
            field,
            found: v.len(),
            expected: dim,
        });
    }
    if let Some(k) = v.iter().position(|x| !x.is_finite()) {
        return Err(CoreError::NonFinite {
            what: field,
            index: k,
            value: v[k],
        });
    }
    let mut out = [0.0; 3];
    out[..dim].copy_from_slice(v);
    Ok(out)
}

impl Selector {
    /// The nodes selected in `layout` at positions `q0` (m), in increasing
    /// order; `field` names the selector in errors.
    pub fn resolve(&self, layout: &Layout, q0: &[f64], field: &str) -> Result<Vec<usize>> {
        let dim = layout.dim();
        let n_nodes = layout.n_nodes();
        let mut nodes: Vec<usize> = match (&self.region, &self.nodes) {
            (Some(r), _) => layout.region(r, &format!("{field}.region"))?.to_vec(),
            (None, Some(list)) => {
                if let Some(&n) = list.iter().find(|&&n| n >= n_nodes) {
                    return Err(CoreError::NodeOutOfRange {
                        field: format!("{field}.nodes"),
                        index: n,
                        count: n_nodes,
                    });
                }
                list.clone()
            }
            (None, None) => (0..n_nodes).collect(),
        };
        if let (Some(_), Some(list)) = (&self.region, &self.nodes) {
            nodes.retain(|n| list.contains(n));
        }
        if self.region.is_none()
            && self.nodes.is_none()
            && self.aabb.is_none()
            && self.half_space.is_none()
            && self.sphere.is_none()
        {
            return Err(CoreError::inconsistent(
                field,
                "a selector needs at least one of `region`, `nodes`, `box`, `half_space`, `sphere`",
            ));
        }
        let pos = |n: usize| -> [f64; 3] {
            let b = layout.node_base()[n];
            std::array::from_fn(|a| if a < dim { q0[b + a] } else { 0.0 })
        };
        if let Some(b) = &self.aabb {
            let lo = vector(&b.min, dim, format!("{field}.box.min"))?;
            let hi = vector(&b.max, dim, format!("{field}.box.max"))?;
            nodes.retain(|&n| {
                let x = pos(n);
                (0..dim).all(|a| x[a] >= lo[a] - slack(lo[a]) && x[a] <= hi[a] + slack(hi[a]))
            });
        }
        if let Some(h) = &self.half_space {
            let p = vector(&h.point, dim, format!("{field}.half_space.point"))?;
            let nv = vector(&h.normal, dim, format!("{field}.half_space.normal"))?;
            let len = nv.iter().map(|v| v * v).sum::<f64>().sqrt();
            if len == 0.0 {
                return Err(CoreError::inconsistent(
                    format!("{field}.half_space.normal"),
                    "the normal is zero",
                ));
            }
            let scale = p.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            nodes.retain(|&n| {
                let x = pos(n);
                let d: f64 = (0..3).map(|a| nv[a] / len * (x[a] - p[a])).sum();
                d <= slack(scale)
            });
        }
        if let Some(s) = &self.sphere {
            let c = vector(&s.centre, dim, format!("{field}.sphere.centre"))?;
            if !(s.radius.is_finite() && s.radius >= 0.0) {
                return Err(crate::Invalid::new(
                    format!("{field}.sphere.radius"),
                    s.radius,
                    "≥ 0 (m)",
                )
                .into());
            }
            nodes.retain(|&n| {
                let x = pos(n);
                let d2: f64 = (0..3).map(|a| (x[a] - c[a]).powi(2)).sum();
                d2.sqrt() <= s.radius + slack(s.radius)
            });
        }
        nodes.sort_unstable();
        nodes.dedup();
        if nodes.is_empty() {
            return Err(CoreError::EmptySelection {
                field: field.to_string(),
            });
        }
        Ok(nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ModelBuilder;

    /// A 3 × 3 grid of nodes in the plane z = 0, spacing 1 cm.
    fn grid() -> ModelBuilder {
        let mut b = ModelBuilder::new(3).unwrap();
        for j in 0..3 {
            for i in 0..3 {
                b.add_node(&[0.01 * i as f64, 0.01 * j as f64, 0.0], 0.001)
                    .unwrap();
            }
        }
        b
    }

    fn sel(json: &str) -> Selector {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn criteria_intersect_and_boundaries_are_inside() {
        let b = grid();
        let r = |json: &str| sel(json).resolve(b.layout(), b.q0(), "s");
        // A box whose faces pass through nodes keeps them.
        assert_eq!(
            r(r#"{"box": {"min": [0, 0, 0], "max": [0.01, 0.01, 0]}}"#).unwrap(),
            [0, 1, 3, 4]
        );
        // x ≥ 0.02: the half-space whose normal points towards −x.
        assert_eq!(
            r(r#"{"half_space": {"point": [0.02, 0, 0], "normal": [-1, 0, 0]}}"#).unwrap(),
            [2, 5, 8]
        );
        // A ball around the centre node, then only those also listed.
        assert_eq!(
            r(r#"{"sphere": {"centre": [0.01, 0.01, 0], "radius": 0.01}}"#).unwrap(),
            [1, 3, 4, 5, 7]
        );
        assert_eq!(
            r(r#"{"sphere": {"centre": [0.01, 0.01, 0], "radius": 0.01}, "nodes": [0, 4, 8]}"#)
                .unwrap(),
            [4]
        );
    }

    #[test]
    fn bad_selectors_say_what_is_wrong() {
        let b = grid();
        let e = |json: &str, b: &ModelBuilder| {
            sel(json)
                .resolve(b.layout(), b.q0(), "constraints[2].select")
                .unwrap_err()
                .to_string()
        };
        assert!(e("{}", &b).contains("at least one"));
        assert!(
            e(r#"{"box": {"min": [1, 1, 1], "max": [2, 2, 2]}}"#, &b).contains("selects no node")
        );
        assert!(e(r#"{"box": {"min": [0, 0], "max": [1, 1]}}"#, &b).contains("box.min"));
        assert!(e(r#"{"nodes": [9]}"#, &b).contains("constraints[2].select.nodes"));
        let msg = e(r#"{"region": "feet"}"#, &b);
        assert!(msg.contains("unknown region `feet`"), "{msg}");
        let mut layout = b.layout().clone();
        layout.add_region("feet", vec![1, 0], "test").unwrap();
        let msg = layout
            .add_region("feet", vec![2], "regions[1]")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("defined twice"), "{msg}");
        assert_eq!(
            sel(r#"{"region": "feet"}"#)
                .resolve(&layout, b.q0(), "s")
                .unwrap(),
            [0, 1]
        );
    }
}
