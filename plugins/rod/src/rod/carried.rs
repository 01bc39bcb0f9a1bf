//! Derivatives through the lagged frames, so that rollout derivatives of 3-D
//! rods are exact.
//!
//! What a rod carries from step to step, `c` (its
//! [`carried_state`](pliant_core::Energy::carried_state)): per edge the
//! committed tangent `a` and director `u` (6 values, the edge's own
//! orientation), then per spring the reference twist `ψ₀`. At the start of
//! step `k` they are transported to the tangents `t(x_{k−1})`
//! ([`crate::frames::RodFrames::transport_to`]):
//!
//! `a' = t(x_{k−1})`, `u' = ⊥(a', P(a → a') u)`,
//! `ψ₀' = ψ₀ − Ω(a_i, a_i', a_j') − Ω(a_i, a_j', a_j)` (oriented per spring),
//!
//! so `c_k = T(x_{k−1}, c_{k−1})` depends on the whole path of tangents (out
//! of the plane, a holonomy). The energy of step `k` depends on `c_k` through
//! `d₁ = P(a → t) u` and the reference twist. Both Jacobians of `T` and the
//! mixed block `∂²E/∂x∂c` are taken here with dual numbers (of the same
//! formulas the solver uses), and the engine threads them through the
//! sensitivity and adjoint recurrences.

use super::energy::RodEnergy;
use crate::element::N;
use crate::frames::solid_angle;
use crate::network::Plan;
use nalgebra::SVector;
use pliant_core::edge_frame::transport_jacobian;
use pliant_core::num_dual::{DualSVec64, HyperDualSVec64, gradient, partial_hessian};
use pliant_core::vec3::{V3, cross, scale, sub, unit};
use pliant_core::{CarriedTransition, Element, ElementSet, EvalState};
use rayon::prelude::*;

/// Values per edge in `c` (tangent, director).
const PER_EDGE: usize = 6;
/// Tangent directions of the carried values one spring reads (3 per edge
/// frame, `ψ₀`).
const W: usize = 7;

/// `x[k..k + 3]` as a 3-vector.
fn v3<D: Copy>(x: &[D], k: usize) -> V3<D> {
    [x[k], x[k + 1], x[k + 2]]
}

impl RodEnergy {
    /// Length of `c`.
    fn carried_len(&self) -> usize {
        PER_EDGE * self.net.edges().len() + self.net.springs().len()
    }

    /// The Jacobians of the transport `begin_step(q_prev)` is about to make
    /// (per edge one dual-number pass over `(a, u, x)`, per spring one over
    /// `(a_i, a_j, x, ψ₀)`; edges and springs in parallel, collected in
    /// order).
    pub(crate) fn transition(&self, q_prev: &[f64]) -> CarriedTransition {
        let ne = self.net.edges().len();
        let node_x = |e: usize| -> [f64; 6] {
            let [a, b] = &self.node_dofs[e];
            std::array::from_fn(|k| {
                if k < 3 {
                    q_prev[a[k]]
                } else {
                    q_prev[b[k - 3]]
                }
            })
        };
        let node_dof = |e: usize, k: usize| -> usize {
            let [a, b] = &self.node_dofs[e];
            if k < 3 { a[k] } else { b[k - 3] }
        };
        type Triplets = Vec<(usize, usize, f64)>;
        // a' = t(x) (rows 6e..6e+3) and u' = ⊥(t, P(a → t) u) (rows
        // 6e+3..6e+6) over (a, u, x).
        let edges: Vec<(Triplets, Triplets)> = (0..ne)
            .into_par_iter()
            .map(|e| {
                let x = node_x(e);
                let jac = transport_jacobian(
                    &self.frames.edges[e],
                    &[x[0], x[1], x[2]],
                    &[x[3], x[4], x[5]],
                );
                let (mut dq, mut dc) = (Vec::with_capacity(36), Vec::with_capacity(18));
                for row in 0..6 {
                    if row >= 3 {
                        for k in 0..6 {
                            dc.push((PER_EDGE * e + row, PER_EDGE * e + k, jac[row][k]));
                        }
                    }
                    for k in 0..6 {
                        dq.push((PER_EDGE * e + row, node_dof(e, k), jac[row][6 + k]));
                    }
                }
                (dq, dc)
            })
            .collect();
        // ψ₀' over (a_i, a_j, x of edge i, x of edge j, ψ₀).
        let springs: Vec<(Triplets, Triplets)> = self
            .net
            .springs()
            .par_iter()
            .enumerate()
            .map(|(k, s)| {
                let [i, j] = s.edges;
                let [si, sj] = s.signs;
                let mut inp = [0.0; 19];
                inp[..3].copy_from_slice(&self.frames.edges[i].tangent);
                inp[3..6].copy_from_slice(&self.frames.edges[j].tangent);
                inp[6..12].copy_from_slice(&node_x(i));
                inp[12..18].copy_from_slice(&node_x(j));
                inp[18] = self.frames.ref_twist[k];
                let (_, g) = gradient(
                    |v: SVector<DualSVec64<19>, 19>| {
                        let v = v.as_slice();
                        let (si, sj) = (DualSVec64::<19>::from(si), DualSVec64::<19>::from(sj));
                        let ai = scale(si, &v3(v, 0));
                        let aj = scale(sj, &v3(v, 3));
                        let ti = scale(si, &unit(&sub(&v3(v, 9), &v3(v, 6))));
                        let tj = scale(sj, &unit(&sub(&v3(v, 15), &v3(v, 12))));
                        v[18] - solid_angle(&ai, &ti, &tj) - solid_angle(&ai, &tj, &aj)
                    },
                    &SVector::from(inp),
                );
                let row = PER_EDGE * ne + k;
                let (mut dq, mut dc) = (Vec::with_capacity(12), Vec::with_capacity(7));
                for c in 0..3 {
                    dc.push((row, PER_EDGE * i + c, g[c]));
                    dc.push((row, PER_EDGE * j + c, g[3 + c]));
                }
                dc.push((row, row, g[18]));
                for c in 0..6 {
                    dq.push((row, node_dof(i, c), g[6 + c]));
                    dq.push((row, node_dof(j, c), g[12 + c]));
                }
                (dq, dc)
            })
            .collect();
        let mut tr = CarriedTransition {
            len: self.carried_len(),
            ..Default::default()
        };
        for (dq, dc) in edges.into_iter().chain(springs) {
            tr.dq.extend(dq);
            tr.dc.extend(dc);
        }
        tr
    }

    /// `∂²E/∂x∂c` at `s` (the bending–twisting springs; stretching does not
    /// read the frames).
    ///
    /// The carried frames always satisfy `|a| = |u| = 1`, `u ⊥ a` (the
    /// transport ends in [`unit`] and `⊥`), so their sensitivities lie in
    /// the tangent space of that manifold: per edge the infinitesimal
    /// rotations `δa = ω × a`, `δu = ω × u` (3 directions: `ω` along `a`,
    /// `u`, `v = a × u`). The block is taken along the 7 orthonormal tangent
    /// directions `W` of a spring (3 per edge and `ψ₀`) with dual numbers
    /// and returned as `(∂²E/∂r∂w) Wᵀ`, which equals `∂²E/∂x∂c` on every
    /// tangent direction (the only ones the recurrences apply it to) at 7
    /// instead of 13 directions.
    pub(crate) fn frame_block(&self, s: &EvalState) -> Vec<(usize, usize, f64)> {
        let ne = self.net.edges().len();
        let per_element: Vec<Vec<(usize, usize, f64)>> = (0..self.plan.len())
            .into_par_iter()
            .map(|i| {
                let Plan::Spring { spring, .. } = self.plan[i] else {
                    return Vec::new();
                };
                let el = &self.set.items()[i];
                let Some(bt) = &el.bt else {
                    return Vec::new();
                };
                let sp = &self.net.springs()[spring];
                let (r, kbar, tbar) = self.set.with_local(i, s, |e, l| {
                    let mut r = [0.0; 8];
                    e.reduce(l.x, &mut r);
                    let slot = |k: usize| l.p[k] * e.gains[k];
                    (
                        r,
                        [bt.kappa_bar[0] + slot(0), bt.kappa_bar[1] + slot(1)],
                        bt.tau_bar + slot(2),
                    )
                });
                // Tangent directions (δa, δu) per edge, orthonormal in R⁶.
                let basis: [[[f64; 6]; 3]; 2] = std::array::from_fn(|k| {
                    let (a, u) = (bt.a[k], bt.u[k]);
                    let v = cross(&a, &u);
                    let h = std::f64::consts::FRAC_1_SQRT_2;
                    [
                        [0.0, 0.0, 0.0, v[0], v[1], v[2]],
                        [-v[0], -v[1], -v[2], 0.0, 0.0, 0.0],
                        [
                            h * u[0],
                            h * u[1],
                            h * u[2],
                            -h * a[0],
                            -h * a[1],
                            -h * a[2],
                        ],
                    ]
                });
                let (_, _, _, h) = partial_hessian(
                    |(rv, wv): (
                        SVector<HyperDualSVec64<8, W>, 8>,
                        SVector<HyperDualSVec64<8, W>, W>,
                    )| {
                        type H = HyperDualSVec64<8, W>;
                        let (r, w) = (rv.as_slice(), wv.as_slice());
                        // (a_k, u_k) + Σ_d w_{3k+d} basis[k][d].
                        let frame = |k: usize, off: usize, base: &[f64; 3]| -> V3<H> {
                            std::array::from_fn(|x| {
                                (0..3).fold(H::from(base[x]), |acc, d| {
                                    acc + w[3 * k + d] * basis[k][d][off + x]
                                })
                            })
                        };
                        bt.energy_with_frames(
                            &v3(r, 0),
                            &v3(r, 3),
                            [r[6], r[7]],
                            kbar.map(H::from),
                            H::from(tbar),
                            &[frame(0, 0, &bt.a[0]), frame(1, 0, &bt.a[1])],
                            &[frame(0, 3, &bt.u[0]), frame(1, 3, &bt.u[1])],
                            w[6] + bt.psi0,
                        )
                    },
                    (&SVector::from(r), &SVector::zeros()),
                );
                // Rows: x = Bᵀ r; columns: the global carried index (with
                // the edge's orientation sign: oriented = sign × stored).
                let mut dofs = [0usize; N];
                self.set.dofs(i, &mut dofs);
                let mut out = Vec::new();
                let mut add = |col: usize, hr: [f64; 8]| {
                    let mut hx = [0.0; N];
                    el.scatter_vec(&hr, &mut hx);
                    for (row, v) in hx.iter().enumerate() {
                        if *v != 0.0 {
                            out.push((dofs[row], col, *v));
                        }
                    }
                };
                for k in 0..2 {
                    let sign = sp.signs[k];
                    for comp in 0..6 {
                        let hr: [f64; 8] = std::array::from_fn(|a| {
                            (0..3)
                                .map(|d| h[(a, 3 * k + d)] * basis[k][d][comp])
                                .sum::<f64>()
                                * sign
                        });
                        add(PER_EDGE * sp.edges[k] + comp, hr);
                    }
                }
                add(PER_EDGE * ne + spring, std::array::from_fn(|a| h[(a, 6)]));
                out
            })
            .collect();
        per_element.into_iter().flatten().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{CHANNELS, actuated_chain, junction, perturb, setup, wiggly};
    use super::*;
    use crate::{Actuation, Rod};
    use pliant_core::derivcheck::Rng;
    use pliant_core::{Block, Energy, Model};

    /// Dense `rows × cols` from triplets (duplicates added).
    fn dense(t: &[(usize, usize, f64)], rows: usize, cols: usize) -> Vec<Vec<f64>> {
        let mut m = vec![vec![0.0; cols]; rows];
        for &(r, c, v) in t {
            m[r][c] += v;
        }
        m
    }

    /// Largest difference of two matrices, relative to the largest entry.
    fn rel_diff(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
        let scale = a.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
        let diff = a
            .iter()
            .flatten()
            .zip(b.iter().flatten())
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        diff / scale
    }

    /// An actuated, twisted, non-planar rod whose frames were transported
    /// once (to `q_a`), and a start state `q_prev` away from it.
    fn rod_with_history(seed: u64) -> (RodEnergy, Model, Vec<f64>, Vec<f64>) {
        let mut rng = Rng::new(seed);
        let pos = wiggly(6, &mut rng);
        let rod = actuated_chain(6).with_rest_lengths_from(&pos).unwrap();
        let (mut rod, model) = setup(rod, &pos, &CHANNELS);
        let p = model.params_at(0.0);
        let q_a = perturb(&model, model.q0(), 2e-3, 0.5, &mut rng);
        rod.begin_step(&q_a, &p, 0.01, 0.0);
        let q_prev = perturb(&model, &q_a, 2e-3, 0.5, &mut rng);
        (rod, model, p, q_prev)
    }

    /// A junction of three out-of-plane arms whose edges point away from,
    /// into and across the junction (springs with both orientation signs),
    /// actuated, with frames transported once and a start state away.
    fn junction_with_history(seed: u64) -> (RodEnergy, Model, Vec<f64>, Vec<f64>) {
        let mut rng = Rng::new(seed);
        let (pos, edges) = junction();
        let rod = Rod::network(edges, 1e-3, 1e6, 0.3, 1000.0)
            .with_rest_lengths_from(&pos)
            .unwrap()
            .actuate(Actuation::curvature("k1", 1, None))
            .actuate(Actuation::twist("tw", None));
        let (mut rod, model) = setup(rod, &pos, &[("k1", 2.0), ("tw", 1.0)]);
        assert!(rod.net.springs().iter().any(|s| s.signs.contains(&-1.0)));
        let p = model.params_at(0.0);
        let q_a = perturb(&model, model.q0(), 2e-3, 0.5, &mut rng);
        rod.begin_step(&q_a, &p, 0.01, 0.0);
        let q_prev = perturb(&model, &q_a, 2e-3, 0.5, &mut rng);
        (rod, model, p, q_prev)
    }

    /// Chains and a junction (both orientation signs).
    fn cases(seed: u64) -> [(RodEnergy, Model, Vec<f64>, Vec<f64>); 3] {
        [
            rod_with_history(seed),
            rod_with_history(seed + 1),
            junction_with_history(seed + 2),
        ]
    }

    #[test]
    fn the_transition_is_the_derivative_of_begin_step() {
        for (seed, (mut rod, model, p, q_prev)) in cases(3).into_iter().enumerate() {
            let c0 = rod.carried_state();
            let (m, n) = (c0.len(), q_prev.len());
            let tr = rod.transition(&q_prev);
            assert_eq!(tr.len, m);
            let mut step = |c: &[f64], q: &[f64]| {
                rod.restore_carried_state(c).unwrap();
                rod.begin_step(q, &p, 0.01, 0.0);
                rod.carried_state()
            };
            let h = 1e-6;
            // ∂c'/∂q by central differences of begin_step.
            let mut fd_q = vec![vec![0.0; n]; m];
            for j in 0..n {
                let (mut qp, mut qm) = (q_prev.clone(), q_prev.clone());
                qp[j] += h;
                qm[j] -= h;
                let (cp, cm) = (step(&c0, &qp), step(&c0, &qm));
                for i in 0..m {
                    fd_q[i][j] = (cp[i] - cm[i]) / (2.0 * h);
                }
            }
            let mut fd_c = vec![vec![0.0; m]; m];
            for j in 0..m {
                let (mut ap, mut am) = (c0.clone(), c0.clone());
                ap[j] += h;
                am[j] -= h;
                let (cp, cm) = (step(&ap, &q_prev), step(&am, &q_prev));
                for i in 0..m {
                    fd_c[i][j] = (cp[i] - cm[i]) / (2.0 * h);
                }
            }
            let (eq, ec) = (
                rel_diff(&dense(&tr.dq, m, n), &fd_q),
                rel_diff(&dense(&tr.dc, m, m), &fd_c),
            );
            assert!(
                eq < 1e-7 && ec < 1e-7,
                "seed {seed}: ∂c/∂q {eq:e}, ∂c/∂c {ec:e}"
            );
            // The twist DOFs do not move the frames.
            let twists = rod.twist_dofs().to_vec();
            assert!(
                tr.dq
                    .iter()
                    .all(|&(_, c, v)| v == 0.0 || !twists.contains(&c))
            );
            let _ = model;
        }
    }

    /// The rod's gradient (full length) at `q` with the carried state `c`.
    fn gradient_at(
        rod: &mut RodEnergy,
        c: &[f64],
        q: &[f64],
        q_prev: &[f64],
        p: &[f64],
    ) -> Vec<f64> {
        rod.restore_carried_state(c).unwrap();
        let s = EvalState {
            q,
            q_prev,
            p,
            h: 0.01,
            dt: 0.01,
            t: 0.0,
        };
        let set = rod.elements();
        let ns = set.stencil_size();
        let mut blocks = vec![0.0; set.len() * ns];
        set.blocks(&s, Block::Gradient, &mut blocks);
        let mut g = vec![0.0; q.len()];
        let mut dofs = vec![0; ns];
        for i in 0..set.len() {
            set.dofs(i, &mut dofs);
            for (k, &d) in dofs.iter().enumerate() {
                g[d] += blocks[i * ns + k];
            }
        }
        g
    }

    /// A random tangent direction of the carried state: per edge an
    /// infinitesimal rotation `ω` of `(a, u)`, per spring a change of `ψ₀`.
    fn tangent_direction(rod: &RodEnergy, c: &[f64], rng: &mut Rng) -> Vec<f64> {
        let ne = rod.net.edges().len();
        let mut d = vec![0.0; c.len()];
        for e in 0..ne {
            let w = [
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            ];
            let (a, u) = (v3(c, PER_EDGE * e), v3(c, PER_EDGE * e + 3));
            d[PER_EDGE * e..PER_EDGE * e + 3].copy_from_slice(&cross(&w, &a));
            d[PER_EDGE * e + 3..PER_EDGE * e + 6].copy_from_slice(&cross(&w, &u));
        }
        for v in &mut d[PER_EDGE * ne..] {
            *v = rng.range(-1.0, 1.0);
        }
        d
    }

    #[test]
    fn the_frame_block_is_the_derivative_of_the_gradient_along_the_frames() {
        for (seed, (mut rod, model, p, q_prev)) in cases(5).into_iter().enumerate() {
            rod.begin_step(&q_prev, &p, 0.01, 0.0);
            let mut rng = Rng::new(seed as u64 + 100);
            let q = perturb(&model, &q_prev, 2e-3, 0.5, &mut rng);
            let c0 = rod.carried_state();
            let (m, n) = (c0.len(), q.len());
            let s = EvalState {
                q: &q,
                q_prev: &q_prev,
                p: &p,
                h: 0.01,
                dt: 0.01,
                t: 0.0,
            };
            let block = dense(&rod.frame_block(&s), n, m);
            let h = 1e-7;
            let (mut analytic, mut fd) = (Vec::new(), Vec::new());
            for _ in 0..4 {
                let d = tangent_direction(&rod, &c0, &mut rng);
                let at =
                    |t: f64| -> Vec<f64> { c0.iter().zip(&d).map(|(c, d)| c + t * d).collect() };
                let gp = gradient_at(&mut rod, &at(h), &q, &q_prev, &p);
                let gm = gradient_at(&mut rod, &at(-h), &q, &q_prev, &p);
                analytic.push(
                    (0..n)
                        .map(|i| (0..m).map(|j| block[i][j] * d[j]).sum())
                        .collect::<Vec<f64>>(),
                );
                fd.push(
                    (0..n)
                        .map(|i| (gp[i] - gm[i]) / (2.0 * h))
                        .collect::<Vec<f64>>(),
                );
            }
            let e = rel_diff(&analytic, &fd);
            assert!(
                e < 1e-6,
                "seed {seed}: ∂²E/∂x∂c along the frames off by {e:e}"
            );
        }
    }
}
