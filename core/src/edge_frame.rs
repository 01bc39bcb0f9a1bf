//! Lagged edge frames: what a rod's cross-section turns with, shared by
//! every energy that rides on it (MAT-DiSMech §3.2; Bergou et al. 2010).
//!
//! A *framed edge* is an edge between two nodes with a twist angle DOF θ
//! (rad) about its unit tangent `t = (x_b − x_a)/|x_b − x_a|`. It carries a
//! lagged frame: a committed tangent `a` and a unit director `u ⊥ a`. At the
//! start of every step the frame is moved to the tangent of the previous
//! state by **time-parallel transport** ([`EdgeFrame::transported`]); within
//! a step the reference director at a state `x` is `d₁(x) = P(a → t(x)) u`,
//! a pure function of `x`, and the cross-section has turned by θ about `t`
//! from it.
//!
//! **Parallel transport** of a vector `v ⊥ a` from the unit vector `a` to
//! the unit vector `b` is the rotation about `a × b` taking `a` to `b`:
//!
//! `P(a → b) v = v − (b·v)/(1 + a·b) (a + b)`.
//!
//! It preserves lengths and cross products and commutes with rotations
//! about the tangent: two directors of one edge transported along the same
//! tangents keep the angle between them. That is what lets another energy
//! follow a rod's cross-section without reading the rod's frames: it
//! carries its own director of the edge, transported along the same
//! tangents by these same functions, and it stays at a constant angle to
//! the rod's reference director (`pliant-pneumatic`'s muscle anchors on a
//! rod's surface). Rods publish their framed edges by name
//! ([`crate::Declare::add_framed_edges`], [`crate::Layout::framed_edges`]).

use crate::scalar::Scalar;
use crate::vec3::{V3, add, dot, norm, perp_unit, scale, sub};
use serde::{Deserialize, Serialize};

/// `P(a → b) v` for unit `a`, `b` and `v ⊥ a` (see the module
/// documentation).
#[inline]
pub fn transport<D: Scalar>(a: &V3<D>, b: &V3<D>, v: &V3<D>) -> V3<D> {
    let c = dot(b, v) / (dot(a, b) + 1.0);
    sub(v, &scale(c, &add(a, b)))
}

/// An edge with a twist DOF: its two nodes (from `x_a` to `x_b`, the
/// tangent's direction) and the index of its θ DOF (rad).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FramedEdge {
    /// The nodes `[a, b]`.
    pub nodes: [usize; 2],
    /// The twist angle's DOF index.
    pub twist: usize,
}

/// The lagged frame of one edge, in the edge's own orientation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EdgeFrame {
    /// Committed unit tangent `a`.
    pub tangent: [f64; 3],
    /// Committed reference director `u ⊥ a` (unit).
    pub director: [f64; 3],
}

impl EdgeFrame {
    /// The frame as seen along the edge taken with sign `s` (±1).
    pub fn oriented(&self, s: f64) -> EdgeFrame {
        EdgeFrame {
            tangent: self.tangent.map(|c| s * c),
            director: self.director.map(|c| s * c),
        }
    }

    /// Reference director transported to the unit tangent `t`: `P(a → t) u`.
    pub fn director_at(&self, t: &[f64; 3]) -> [f64; 3] {
        transport(&self.tangent, t, &self.director)
    }

    /// The step's time-parallel transport to the unit tangent `t`:
    /// `a' = t`, `u' = ⊥(t, P(a → t) u)` (the projection keeps round-off
    /// from accumulating). `None` when nothing moves: `t` equals the
    /// committed tangent bit for bit (so a second call changes nothing), or
    /// `t` or the result is not finite (a collapsed edge keeps its frame).
    pub fn transported(&self, t: &[f64; 3]) -> Option<EdgeFrame> {
        if !t.iter().all(|c| c.is_finite()) || self.tangent == *t {
            return None;
        }
        let u = perp_unit(t, &self.director_at(t));
        u.iter().all(|c| c.is_finite()).then_some(EdgeFrame {
            tangent: *t,
            director: u,
        })
    }
}

/// The unit tangent `(x_b − x_a)/|x_b − x_a|` of an edge (m), divided
/// as written: rods and what rides on them commit bitwise-equal tangents.
pub fn unit_tangent(xa: &[f64; 3], xb: &[f64; 3]) -> [f64; 3] {
    let e = sub(xb, xa);
    let l = norm(&e);
    e.map(|c| c / l)
}

/// The coordinate axis least aligned with `t` (a unit vector along x, y
/// or z), from which a direction perpendicular to `t` is made when none is
/// given.
pub fn least_aligned_axis(t: &[f64; 3]) -> [f64; 3] {
    let k = (0..3)
        .min_by(|&i, &j| t[i].abs().total_cmp(&t[j].abs()))
        .unwrap_or(0);
    std::array::from_fn(|i| if i == k { 1.0 } else { 0.0 })
}

/// The Jacobian of one step's transport of `frame` to the edge from `x_a`
/// to `x_b` (m): `a' = t = (x_b − x_a)/|x_b − x_a|`, `u' = ⊥(t, P(a → t) u)`,
/// over `(a, u, x_a, x_b)` — 6 rows `(a', u')`, 12 columns (dual numbers of
/// the formula [`EdgeFrame::transported`] evaluates, so rollout derivatives
/// through a carried frame are exact).
pub fn transport_jacobian(frame: &EdgeFrame, xa: &[f64; 3], xb: &[f64; 3]) -> [[f64; 12]; 6] {
    use nalgebra::SVector;
    use num_dual::{DualSVec64, jacobian};
    let mut inp = [0.0; 12];
    inp[..3].copy_from_slice(&frame.tangent);
    inp[3..6].copy_from_slice(&frame.director);
    inp[6..9].copy_from_slice(xa);
    inp[9..].copy_from_slice(xb);
    let (_, jac) = jacobian(
        |v: SVector<DualSVec64<12>, 12>| {
            let v = v.as_slice();
            let at = |k: usize| [v[k], v[k + 1], v[k + 2]];
            let t = crate::vec3::unit(&sub(&at(9), &at(6)));
            let u = perp_unit(&t, &transport(&at(0), &t, &at(3)));
            SVector::from([t[0], t[1], t[2], u[0], u[1], u[2]])
        },
        &SVector::from(inp),
    );
    std::array::from_fn(|r| std::array::from_fn(|c| jac[(r, c)]))
}

/// Where a frame committed at the unit tangent `a` stops on its way to the
/// unit tangent `t` when a run restarts from a new state: `t` itself within
/// 120° (one transport), otherwise the bisecting tangent (two transports,
/// so an edge that points opposite to its committed tangent stays well
/// defined), or any direction perpendicular to `a` when `t = −a`.
pub fn reset_waypoint(a: &[f64; 3], t: &[f64; 3]) -> [f64; 3] {
    if dot(a, t) > -0.5 {
        return *t;
    }
    let m = add(a, t);
    let l = norm(&m);
    if l > 1e-3 {
        return m.map(|c| c / l);
    }
    let p = crate::vec3::cross(a, &least_aligned_axis(a));
    let lp = norm(&p);
    p.map(|c| c / lp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vec3::{cross, unit};

    fn angle_about(t: &[f64; 3], u: &[f64; 3], v: &[f64; 3]) -> f64 {
        dot(&cross(u, v), t).atan2(dot(u, v))
    }

    #[test]
    fn two_directors_transported_along_the_same_tangents_keep_their_angle() {
        let mut f = EdgeFrame {
            tangent: [1.0, 0.0, 0.0],
            director: [0.0, 1.0, 0.0],
        };
        let beta: f64 = 1.1;
        let mut g = EdgeFrame {
            tangent: f.tangent,
            director: [0.0, beta.cos(), beta.sin()],
        };
        // A path of tangents out of any one plane.
        for k in 1..40 {
            let s = k as f64 * 0.2;
            let t = unit(&[s.cos(), s.sin() * 0.8, (0.7 * s).sin()]);
            f = f.transported(&t).unwrap();
            g = g.transported(&t).unwrap();
            assert!(dot(&f.director, &t).abs() < 1e-14);
            let got = angle_about(&t, &f.director, &g.director);
            assert!((got - beta).abs() < 1e-13, "step {k}: {got} against {beta}");
        }
        // The same tangent again moves nothing.
        assert!(f.transported(&f.tangent.clone()).is_none());
        assert!(f.transported(&[f64::NAN, 0.0, 1.0]).is_none());
    }

    #[test]
    fn the_waypoint_is_the_tangent_within_120_degrees_and_between_otherwise() {
        let a = [1.0, 0.0, 0.0];
        let near = unit(&[0.2, 1.0, 0.0]);
        assert_eq!(reset_waypoint(&a, &near), near);
        let far = unit(&[-0.9, 0.3, 0.0]);
        let w = reset_waypoint(&a, &far);
        assert!((dot(&w, &a) - dot(&w, &far)).abs() < 1e-12);
        let w = reset_waypoint(&a, &[-1.0, 0.0, 0.0]);
        assert!(dot(&w, &a).abs() < 1e-12 && (norm(&w) - 1.0).abs() < 1e-12);
    }
}
