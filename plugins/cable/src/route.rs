//! A cable route given in space rather than as bound vertices: points at
//! rest (m), or the centroid of a named region or other selection (a
//! cable anchored "at the foot" by the mesh's physical group), bound
//! barycentrically to the tetrahedra of a body when the model is built.
//!
//! ```json
//! {"type": "cable", "name": "flexor", "stiffness": 2000,
//!  "control": {"type": "length", "channel": "u"},
//!  "route": {"body": "finger", "points": [{"region": "finger.tip"}, [0.005, 0.005, 0.04], [0.005, 0.005, 0.079]]}}
//! ```

use crate::vertex::{CableVertex, bind_points_in_tets};
use pliant_core::region::Selector;
use pliant_core::{BindInfo, CoreError, Result};
use serde::{Deserialize, Serialize};

/// One point of a route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "a point [x, y, z] (m) or a selector such as {\"region\": \"foot\"}"
)]
pub enum RoutePoint {
    /// A point in the initial configuration, m.
    At([f64; 3]),
    /// The centroid of the selected nodes in the initial configuration
    /// (a region, a box, …).
    Centroid(Selector),
}

/// A polyline through a tetrahedral body (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CableRoute {
    /// The body the route runs through (a `tet_body`'s name).
    pub body: String,
    /// The points, in order along the cable (at least two).
    pub points: Vec<RoutePoint>,
    /// How far outside a tetrahedron, in barycentric coordinates, a point
    /// may lie and still bind to it (default 1e-9, at most 0.1): points on
    /// the surface bind to the face they lie on.
    #[serde(default = "default_tol")]
    pub tolerance: f64,
}

fn default_tol() -> f64 {
    1e-9
}

impl CableRoute {
    /// The points at rest (m), selectors resolved to their centroids.
    pub fn positions(&self, info: &BindInfo) -> Result<Vec<[f64; 3]>> {
        let layout = info.layout;
        self.points
            .iter()
            .enumerate()
            .map(|(i, p)| match p {
                RoutePoint::At(x) => Ok(*x),
                RoutePoint::Centroid(sel) => {
                    let field = format!("route.points[{i}]");
                    let nodes = sel.resolve(layout, info.q0, &field)?;
                    Ok(layout.centroid(&nodes, info.q0))
                }
            })
            .collect()
    }

    /// The route's vertices bound in the body's tetrahedra (weights of the
    /// containing tetrahedron's nodes, model node indices).
    pub fn bind(&self, info: &BindInfo) -> Result<Vec<CableVertex>> {
        let layout = info.layout;
        pliant_core::Invalid::check(
            self.tolerance.is_finite() && (0.0..=0.1).contains(&self.tolerance),
            "route.tolerance",
            self.tolerance,
            "a barycentric tolerance in [0, 0.1]",
        )?;
        let tets = layout.volume(&self.body, "route.body")?;
        let points = self.positions(info)?;
        // Node positions of the whole model (bind_points_in_tets indexes
        // them by the tetrahedra's node numbers).
        let mut nodes = vec![[0.0; 3]; layout.n_nodes()];
        for tet in tets {
            for &n in tet {
                for a in 0..3 {
                    nodes[n][a] = info.q0[layout.node_dof(n, a, "route.body")?];
                }
            }
        }
        bind_points_in_tets(&points, &nodes, tets, self.tolerance).map_err(|e| {
            CoreError::degenerate(
                "route.points",
                format!("cannot bind the route in body `{}`: {e}", self.body),
            )
        })
    }
}
