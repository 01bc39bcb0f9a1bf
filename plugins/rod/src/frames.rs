//! Reference frames, their parallel transport, and the reference twist
//! (MAT-DiSMech §3.2; Bergou et al. 2010).
//!
//! Every edge carries a reference frame `(d₁, d₂, t)`, `t = e/|e|`,
//! `d₂ = t × d₁`, and a material frame rotated from it by the edge's twist
//! angle θ (rad) about `t`: `m₁ = cos θ d₁ + sin θ d₂`,
//! `m₂ = −sin θ d₁ + cos θ d₂`.
//!
//! **Parallel transport** of a vector `v ⊥ a` from the unit vector `a` to the
//! unit vector `b` is the rotation about `a × b` taking `a` to `b`
//! ([`pliant_core::edge_frame`], shared with what rides on a rod):
//!
//! `P(a → b) v = v − (b·v)/(1 + a·b) (a + b)`.
//!
//! It preserves lengths and cross products, commutes with rotations about the
//! tangent, and `P(b → a) P(a → b) = I`.
//!
//! **Initial frames** (space-parallel transport): the first edge of every
//! connected component gets `d₁` = the first director (or, by default, the
//! coordinate axis least aligned with `t`) projected perpendicular to `t`;
//! the frame is then transported across springs, edge to edge in breadth-first
//! order, so every spring on that spanning tree starts with zero reference
//! twist.
//!
//! **Anchored frames** (rod–shell joints): an edge given an [`Anchor`] is
//! left out of that sweep and gets `P(s_a t_a → s_e t_e)(s_a d₁ᵃ)`, the
//! frame of its anchor edge `a` (a rod edge or an earlier anchored edge)
//! transported to it in one hop (`s_a`, `s_e` the orientations they are
//! taken in). The shell edges around a joint form loops, around which
//! transport does not return to where it started; a breadth-first sweep
//! picked the path, and so the frames, by the order of the node labels,
//! and a model with a symmetry (the parachute's six welded ropes) lost it
//! at the first step. The joint's anchors fix the path by the geometry and
//! the shell's winding instead (see `Rod::shell_joints`); each hop joins two
//! edges that meet, so the spring between them starts with zero reference
//! twist, as on the sweep's tree.
//!
//! **Time-parallel transport** (lagged frames): each edge stores a committed
//! tangent `a` and director `u ⊥ a`. At the start of every step
//! ([`RodFrames::transport_to`] from `begin_step(q_prev)`) `u ← P(a → t(q_prev)) u`
//! and `a ← t(q_prev)`. Within a step `(a, u)` are constants and the reference
//! director at the evaluation point is `d₁(q) = P(a → t(q)) u`, so the energy
//! is a pure function of `(x, θ)`.
//!
//! **Reference twist** (eq. 15): `Δm_ref` is the signed angle about `t_j` from
//! `P(t_i → t_j) d₁ⁱ` to `d₁ʲ`, defined modulo 2π. Composing transports around
//! the spherical polygon `a_i → t_i → t_j → a_j` gives the closed form used by
//! the analytic derivatives,
//!
//! `Δm_ref(t_i, t_j) = ψ₀ − Ω(a_i, t_i, t_j) − Ω(a_i, t_j, a_j)`,
//!
//! where `ψ₀` is the reference twist at the lagged tangents and
//! `Ω(a, b, c) = 2 atan2(a·(b × c), 1 + a·b + b·c + c·a)` is the signed solid
//! angle of the geodesic triangle `abc` (the holonomy
//! `P(b → c) P(a → b) = R_c(Ω) P(a → c)`, with `R_c(α)` the rotation by α
//! about `c`). The value is continuous in time: `ψ₀` is the unwrapped lagged
//! value, updated by the same formula in every transport, so the reference
//! twist can exceed π.

use crate::error::RodError;
use crate::network::{BendSpring, RodNetwork};
use pliant_core::edge_frame::least_aligned_axis;
pub use pliant_core::edge_frame::{EdgeFrame, transport};
use pliant_core::vec3::{V3, cross, dot, lift, perp_unit, scale, sub};
use pliant_core::{Scalar, atan2};
use std::collections::VecDeque;

/// Signed solid angle `Ω(a, b, c)` (sr) of the geodesic triangle of the unit
/// vectors `a, b, c`: `2 atan2(a·(b × c), 1 + a·b + b·c + c·a)`.
#[inline]
pub fn solid_angle<D: Scalar>(a: &V3<D>, b: &V3<D>, c: &V3<D>) -> D {
    let n = dot(a, &cross(b, c));
    let d = dot(a, b) + dot(b, c) + dot(c, a) + 1.0;
    atan2(n, d) * 2.0
}

/// Signed angle (rad, in (−π, π]) about the unit axis `t` from `u` to `v`
/// (both ⊥ `t`).
#[inline]
pub fn signed_angle<D: Scalar>(t: &V3<D>, u: &V3<D>, v: &V3<D>) -> D {
    atan2(dot(&cross(u, v), t), dot(u, v))
}

/// The reference twist by its definition (eq. 15): the signed angle about
/// `t_j` from `P(t_i → t_j) d1_i` to `d1_j`, moved by a multiple of 2π to the
/// branch nearest `near` (rad).
pub fn reference_twist_direct<D: Scalar>(
    ti: &V3<D>,
    d1i: &V3<D>,
    tj: &V3<D>,
    d1j: &V3<D>,
    near: f64,
) -> D {
    let w = transport(ti, tj, d1i);
    let raw = signed_angle(tj, &w, d1j);
    let k = ((near - raw.re()) / std::f64::consts::TAU).round();
    raw + k * std::f64::consts::TAU
}

/// The reference twist from the lagged tangents `a_i`, `a_j` and lagged
/// value `psi0` by the holonomy formula of the module documentation.
pub fn reference_twist_holonomy<D: Scalar>(
    ai: &[f64; 3],
    aj: &[f64; 3],
    psi0: f64,
    ti: &V3<D>,
    tj: &V3<D>,
) -> D {
    let (ai, aj) = (lift::<D>(ai), lift::<D>(aj));
    -solid_angle(&ai, ti, tj) - solid_angle(&ai, tj, &aj) + psi0
}

/// Lagged frames of every edge and lagged reference twists of every spring.
#[derive(Debug, Clone, PartialEq)]
pub struct RodFrames {
    /// Per edge.
    pub edges: Vec<EdgeFrame>,
    /// Per spring: reference twist `ψ₀` (rad, unwrapped) at the lagged tangents.
    pub ref_twist: Vec<f64>,
}

/// The coordinate axis least aligned with `t`, made perpendicular to it.
fn default_director(t: &[f64; 3]) -> [f64; 3] {
    perp_unit(t, &least_aligned_axis(t))
}

/// Oriented tangents `(s_i t_i, s_j t_j)` of a spring.
fn oriented_tangents(s: &BendSpring, t: &[[f64; 3]]) -> ([f64; 3], [f64; 3]) {
    (
        t[s.edges[0]].map(|c| s.signs[0] * c),
        t[s.edges[1]].map(|c| s.signs[1] * c),
    )
}

/// An edge whose initial frame is its anchor edge's, transported to it
/// in one hop (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Anchor {
    /// The edge placed.
    pub edge: usize,
    /// The edge whose frame it takes: a swept edge or an earlier anchor's.
    pub from: usize,
    /// Orientation of `from` in the transport (±1).
    pub s_from: f64,
    /// Orientation of `edge` in the transport (±1).
    pub s_edge: f64,
    /// Index of the joint in `shell_joints.nodes`, and its node, for errors.
    pub joint: usize,
    /// The joint node.
    pub node: usize,
}

impl RodFrames {
    /// Initial frames by space-parallel transport from the unit edge
    /// `tangents` (see the module documentation). `first_director` applies
    /// to the first edge of every connected component; the `anchors`' edges
    /// take their anchor's frame.
    pub fn init(
        net: &RodNetwork,
        tangents: &[[f64; 3]],
        first_director: Option<[f64; 3]>,
    ) -> Result<Self, RodError> {
        Self::init_anchored(net, tangents, first_director, &[])
    }

    /// [`RodFrames::init`] with anchored edges.
    pub(crate) fn init_anchored(
        net: &RodNetwork,
        tangents: &[[f64; 3]],
        first_director: Option<[f64; 3]>,
        anchors: &[Anchor],
    ) -> Result<Self, RodError> {
        let ne = net.edges().len();
        let mut d1: Vec<Option<[f64; 3]>> = vec![None; ne];
        let mut anchored = vec![false; ne];
        for a in anchors {
            anchored[a.edge] = true;
        }
        let mut queue = VecDeque::new();
        for root in 0..ne {
            if d1[root].is_some() || anchored[root] {
                continue;
            }
            let t = &tangents[root];
            let d = match first_director {
                None => default_director(t),
                Some(v) => {
                    let n = dot(&v, &v).sqrt();
                    let p = sub(&v, &scale(dot(t, &v), t));
                    let pn = dot(&p, &p).sqrt();
                    if !(n.is_finite() && n > 0.0 && pn > 1e-6 * n) {
                        return Err(RodError::FirstDirector {
                            edge: root,
                            value: v,
                        });
                    }
                    scale(1.0 / pn, &p)
                }
            };
            d1[root] = Some(d);
            queue.push_back(root);
            while let Some(p) = queue.pop_front() {
                for &(k, slot) in net.springs_of_edge(p) {
                    let s = &net.springs()[k];
                    let other = 1 - slot;
                    let q = s.edges[other];
                    if d1[q].is_some() || anchored[q] {
                        continue;
                    }
                    let dp = d1[p].expect("visited").map(|c| s.signs[slot] * c);
                    let tp = tangents[p].map(|c| s.signs[slot] * c);
                    let tq = tangents[q].map(|c| s.signs[other] * c);
                    let dq = perp_unit(&tq, &transport(&tp, &tq, &dp));
                    d1[q] = Some(dq.map(|c| s.signs[other] * c));
                    queue.push_back(q);
                }
            }
        }
        for a in anchors {
            let d = d1[a.from].expect("an anchor's edge is swept or anchored before it");
            let tf = tangents[a.from].map(|c| a.s_from * c);
            let te = tangents[a.edge].map(|c| a.s_edge * c);
            if 1.0 + dot(&tf, &te) < 1e-6 {
                return Err(RodError::Joint {
                    field: format!("shell_joints.nodes[{}]", a.joint),
                    node: a.node,
                    problem: "has a joint edge folded back onto the edge its frame comes from (a shell edge along the rod, or a degenerate triangle)",
                });
            }
            let moved = transport(&tf, &te, &d.map(|c| a.s_from * c));
            d1[a.edge] = Some(perp_unit(&te, &moved).map(|c| a.s_edge * c));
        }
        let edges: Vec<EdgeFrame> = d1
            .into_iter()
            .zip(tangents)
            .map(|(d, t)| EdgeFrame {
                tangent: *t,
                director: d.expect("every edge is reached"),
            })
            .collect();
        let ref_twist = net
            .springs()
            .iter()
            .map(|s| {
                let (fi, fj) = (
                    edges[s.edges[0]].oriented(s.signs[0]),
                    edges[s.edges[1]].oriented(s.signs[1]),
                );
                reference_twist_direct(&fi.tangent, &fi.director, &fj.tangent, &fj.director, 0.0)
            })
            .collect();
        Ok(Self { edges, ref_twist })
    }

    /// Time-parallel transport of every frame to the unit edge `tangents`
    /// (of `q_prev`), updating the lagged reference twists by the holonomy
    /// formula. Edges whose tangent equals the committed one bit for bit are
    /// left untouched, so a second call with the same tangents changes
    /// nothing. Non-finite tangents (a collapsed edge) keep the old frame.
    pub fn transport_to(&mut self, net: &RodNetwork, tangents: &[[f64; 3]]) {
        let moved: Vec<bool> = self
            .edges
            .iter()
            .zip(tangents)
            .map(|(f, t)| t.iter().all(|c| c.is_finite()) && f.tangent != *t)
            .collect();
        for (k, s) in net.springs().iter().enumerate() {
            if !(moved[s.edges[0]] || moved[s.edges[1]]) {
                continue;
            }
            let fi = self.edges[s.edges[0]].oriented(s.signs[0]);
            let fj = self.edges[s.edges[1]].oriented(s.signs[1]);
            let (ti, tj) = oriented_tangents(s, tangents);
            let psi =
                reference_twist_holonomy(&fi.tangent, &fj.tangent, self.ref_twist[k], &ti, &tj);
            if psi.is_finite() {
                self.ref_twist[k] = psi;
            }
        }
        for (f, t) in self.edges.iter_mut().zip(tangents) {
            if let Some(g) = f.transported(t) {
                *f = g;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pliant_core::derivcheck::Rng;
    use pliant_core::vec3::{add, norm, unit};
    use std::f64::consts::PI;

    fn rnd_unit(r: &mut Rng) -> [f64; 3] {
        unit(&[r.range(-1.0, 1.0), r.range(-1.0, 1.0), r.range(-1.0, 1.0)])
    }
    fn near(r: &mut Rng, a: &[f64; 3], s: f64) -> [f64; 3] {
        let d = rnd_unit(r);
        unit(&add(a, &scale(s, &d)))
    }
    fn rot(axis: &[f64; 3], ang: f64, v: &[f64; 3]) -> [f64; 3] {
        // Rodrigues.
        let (s, c) = ang.sin_cos();
        let kxv = cross(axis, v);
        let kv = dot(axis, v);
        std::array::from_fn(|i| v[i] * c + kxv[i] * s + axis[i] * kv * (1.0 - c))
    }

    #[test]
    fn transport_is_a_rotation_with_inverse_and_the_holonomy_is_the_solid_angle() {
        let mut r = Rng::new(3);
        for _ in 0..20 {
            let a = rnd_unit(&mut r);
            let b = near(&mut r, &a, 0.8);
            let c = near(&mut r, &b, 0.8);
            let u = perp_unit(&a, &rnd_unit(&mut r));
            let pu = transport(&a, &b, &u);
            assert!((norm(&pu) - 1.0).abs() < 1e-14 && dot(&pu, &b).abs() < 1e-14);
            let back = transport(&b, &a, &pu);
            assert!(norm(&sub(&back, &u)) < 1e-14);
            // P(b→c) P(a→b) = R_c(Ω) P(a→c).
            let lhs = transport(&b, &c, &pu);
            let rhs = rot(&c, solid_angle(&a, &b, &c), &transport(&a, &c, &u));
            assert!(norm(&sub(&lhs, &rhs)) < 1e-13);
        }
    }

    #[test]
    fn holonomy_formula_equals_the_definition_of_the_reference_twist() {
        let mut r = Rng::new(5);
        for _ in 0..50 {
            let ai = rnd_unit(&mut r);
            let aj = near(&mut r, &ai, 1.0);
            let (ui, uj) = (
                perp_unit(&ai, &rnd_unit(&mut r)),
                perp_unit(&aj, &rnd_unit(&mut r)),
            );
            let psi0 = reference_twist_direct(&ai, &ui, &aj, &uj, 0.0);
            let ti = near(&mut r, &ai, 0.5);
            let tj = near(&mut r, &aj, 0.5);
            let fi = EdgeFrame {
                tangent: ai,
                director: ui,
            };
            let fj = EdgeFrame {
                tangent: aj,
                director: uj,
            };
            let direct =
                reference_twist_direct(&ti, &fi.director_at(&ti), &tj, &fj.director_at(&tj), psi0);
            let hol = reference_twist_holonomy(&ai, &aj, psi0, &ti, &tj);
            assert!((direct - hol).abs() < 1e-12, "{direct} vs {hol}");
        }
    }

    #[test]
    fn each_anchored_frame_starts_untwisted_against_its_anchor() {
        // Rod edge 0 = [0, 1] into node 1; a triangle 1–2–3 welded there:
        // edges [1, 2] and [1, 3] anchored to the rod edge, [2, 3] to
        // [1, 2] (they meet at node 2). The triangle is a loop, around
        // which transport does not close.
        let x = [
            [0.0, 0.0, -1.0],
            [0.0, 0.0, 0.0],
            [1.0, 0.2, 0.1],
            [0.3, 1.0, -0.2],
        ];
        let edges = vec![[0, 1], [1, 2], [1, 3], [2, 3]];
        let t: Vec<[f64; 3]> = edges
            .iter()
            .map(|&[a, b]| unit(&sub(&x[b], &x[a])))
            .collect();
        let anchor = |edge, from| Anchor {
            edge,
            from,
            s_from: 1.0,
            s_edge: 1.0,
            joint: 0,
            node: 1,
        };
        let anchors = [anchor(1, 0), anchor(2, 0), anchor(3, 1)];
        let net = RodNetwork::with_own(edges.clone(), 1).unwrap();
        let f = RodFrames::init_anchored(&net, &t, Some([1.0, 0.0, 0.0]), &anchors).unwrap();
        for e in &f.edges {
            assert!(dot(&e.tangent, &e.director).abs() < 1e-14);
            assert!((norm(&e.director) - 1.0).abs() < 1e-14);
        }
        let twist = |p: usize, q: usize| {
            let k = net
                .springs()
                .iter()
                .position(|s| s.edges == [p.min(q), p.max(q)])
                .unwrap();
            f.ref_twist[k]
        };
        for a in &anchors {
            assert!(twist(a.from, a.edge).abs() < 1e-14, "{a:?}");
        }
        // The spring that closes the loop carries its holonomy.
        assert!(twist(2, 3).abs() > 1e-3, "{}", twist(2, 3));
        // A joint edge folded back onto the rod edge cannot be framed.
        let x_bad = [x[0], x[1], [0.0, 0.0, -0.5], x[3]];
        let t_bad: Vec<[f64; 3]> = edges
            .iter()
            .map(|&[a, b]| unit(&sub(&x_bad[b], &x_bad[a])))
            .collect();
        let e = RodFrames::init_anchored(&net, &t_bad, None, &anchors).unwrap_err();
        assert!(matches!(e, RodError::Joint { node: 1, .. }), "{e}");
        assert!(e.to_string().contains("shell_joints.nodes[0]"), "{e}");
    }

    #[test]
    fn space_parallel_frames_have_zero_reference_twist_and_respect_the_first_director() {
        // A helix-like chain and a junction.
        let net = RodNetwork::new(vec![[0, 1], [1, 2], [2, 3], [4, 2]]).unwrap();
        let mut r = Rng::new(9);
        let t: Vec<[f64; 3]> = (0..4).map(|_| rnd_unit(&mut r)).collect();
        let f = RodFrames::init(&net, &t, Some([0.0, 0.0, 1.0])).unwrap();
        for e in &f.edges {
            assert!(dot(&e.tangent, &e.director).abs() < 1e-14);
            assert!((norm(&e.director) - 1.0).abs() < 1e-14);
        }
        assert!(dot(&f.edges[0].director, &[0.0, 0.0, 1.0]) > 0.0);
        // Springs on the spanning tree: (0,1)@1, (1,2)@2, (1,3)@2; (2,3)@2 closes a loop.
        let tree = [0, 1, 2];
        for k in tree {
            assert!(
                f.ref_twist[k].abs() < 1e-14,
                "spring {k}: {}",
                f.ref_twist[k]
            );
        }
        let e = RodFrames::init(&net, &t, Some(t[0].map(|c| 2.0 * c))).unwrap_err();
        assert_eq!(
            e,
            RodError::FirstDirector {
                edge: 0,
                value: t[0].map(|c| 2.0 * c)
            }
        );
    }

    #[test]
    fn transport_is_idempotent_and_the_reference_twist_unwraps_past_pi() {
        // Two edges at a right angle; edge j precesses about edge i, which
        // sweeps a cone of solid angle 2π(1 − cos 60°) = π per turn.
        let net = RodNetwork::chain(&[0, 1, 2]).unwrap();
        let ti = [1.0, 0.0, 0.0];
        let cone = |phi: f64| {
            [
                0.5,
                (3f64.sqrt() / 2.0) * phi.cos(),
                (3f64.sqrt() / 2.0) * phi.sin(),
            ]
        };
        let mut f = RodFrames::init(&net, &[ti, cone(0.0)], None).unwrap();
        let n = 400;
        let mut last = f.ref_twist[0];
        for k in 1..=3 * n {
            let t = [ti, cone(2.0 * PI * k as f64 / n as f64)];
            f.transport_to(&net, &t);
            let once = f.clone();
            f.transport_to(&net, &t);
            assert_eq!(
                f, once,
                "a second transport to the same tangents changes nothing"
            );
            assert!((f.ref_twist[0] - last).abs() < 0.1, "continuous in time");
            last = f.ref_twist[0];
            // Equal to the definition modulo 2π.
            let (a, b) = (f.edges[0], f.edges[1]);
            let d = reference_twist_direct(&a.tangent, &a.director, &b.tangent, &b.director, last);
            assert!((d - last).abs() < 1e-9);
        }
        // Three turns: |ψ| = 3π (up to the discretization of the loop).
        assert!(
            (f.ref_twist[0].abs() - 3.0 * PI).abs() < 1e-3,
            "{}",
            f.ref_twist[0]
        );
    }
}
