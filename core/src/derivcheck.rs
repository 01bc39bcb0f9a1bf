//! Derivative checks every energy's tests call: the energy's own derivatives
//! (analytic where it overrides them) against the dual-number fallback of its
//! element set and against central finite differences of its value — for the
//! gradient, the Hessian, the history block `∂²E/∂q∂q_prev`, the parameter
//! block `∂²E/∂q∂p` and the parameter gradient `∂E/∂p` — and the value and
//! gradient evaluated together ([`ElementSet::value_and_gradient`], what
//! line searches call) against the two evaluated apart.
//!
//! Everything is assembled densely over the full DOF vector, so use it on
//! small models (tens to a few hundred DOFs).

use crate::element::{Block, ElementSet, NO_PARAM};
use crate::energy::Energy;
use crate::state::EvalState;

/// Largest relative discrepancies found, each `max|a − b| / max(max|b|, floor)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckReport {
    /// Energy's gradient vs fallback.
    pub gradient_vs_fallback: f64,
    /// Energy's Hessian vs fallback.
    pub hessian_vs_fallback: f64,
    /// Energy's history block vs fallback.
    pub history_vs_fallback: f64,
    /// Energy's parameter block vs fallback.
    pub param_vs_fallback: f64,
    /// Energy's parameter gradient vs fallback.
    pub param_gradient_vs_fallback: f64,
    /// Energy's gradient vs central differences of the value.
    pub gradient_vs_fd: f64,
    /// Energy's Hessian vs central differences of the gradient.
    pub hessian_vs_fd: f64,
    /// History block vs central differences of the gradient in `q_prev`.
    pub history_vs_fd: f64,
    /// Parameter block vs central differences of the gradient in `p`.
    pub param_vs_fd: f64,
    /// Parameter gradient vs central differences of the value in `p`.
    pub param_gradient_vs_fd: f64,
    /// The split Hessian (sparse part plus rank-one terms, see
    /// [`crate::SplitHessian`]) vs the energy's dense Hessian; 0 for an
    /// energy without a split form.
    pub split_vs_hessian: f64,
    /// The value and gradient evaluated together
    /// ([`ElementSet::value_and_gradient`]) vs [`ElementSet::value`] and the
    /// gradient blocks: the larger of the two relative differences (the
    /// engine's own elements give 0: they agree bit for bit).
    pub fused_vs_separate: f64,
}

/// Tolerances for [`check`].
#[derive(Debug, Clone, Copy)]
pub struct Tolerances {
    /// Analytic vs fallback (both exact up to round-off).
    pub exact: f64,
    /// Against finite differences.
    pub fd: f64,
    /// Finite-difference step relative to `max(|q_i|, 1)`... absolute step, in the DOF's units.
    pub step: f64,
}

impl Default for Tolerances {
    fn default() -> Self {
        Self {
            exact: 1e-9,
            fd: 1e-5,
            step: 1e-6,
        }
    }
}

impl CheckReport {
    /// Fails with a description of every quantity above its tolerance.
    pub fn assert_within(&self, tol: &Tolerances) {
        let exact = [
            ("gradient vs fallback", self.gradient_vs_fallback),
            ("Hessian vs fallback", self.hessian_vs_fallback),
            ("history block vs fallback", self.history_vs_fallback),
            ("parameter block vs fallback", self.param_vs_fallback),
            (
                "parameter gradient vs fallback",
                self.param_gradient_vs_fallback,
            ),
            ("split Hessian vs Hessian", self.split_vs_hessian),
            (
                "value and gradient together vs apart",
                self.fused_vs_separate,
            ),
        ];
        let fd = [
            ("gradient vs FD", self.gradient_vs_fd),
            ("Hessian vs FD", self.hessian_vs_fd),
            ("history block vs FD", self.history_vs_fd),
            ("parameter block vs FD", self.param_vs_fd),
            ("parameter gradient vs FD", self.param_gradient_vs_fd),
        ];
        let mut bad = Vec::new();
        for (n, v) in exact {
            if v.is_nan() || v > tol.exact {
                bad.push(format!("{n}: {v:.3e} > {:.1e}", tol.exact));
            }
        }
        for (n, v) in fd {
            if v.is_nan() || v > tol.fd {
                bad.push(format!("{n}: {v:.3e} > {:.1e}", tol.fd));
            }
        }
        assert!(
            bad.is_empty(),
            "derivative check failed: {}\n{self:#?}",
            bad.join("; ")
        );
    }
}

fn rel(a: &[f64], b: &[f64]) -> f64 {
    if a.iter().chain(b).any(|v| !v.is_finite()) {
        return f64::INFINITY; // NaN/∞ anywhere is a failure, never hidden by max()
    }
    let scale = b
        .iter()
        .chain(a)
        .fold(0.0f64, |m, x| m.max(x.abs()))
        .max(1e-8);
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

/// Stencil DOFs of every element, flattened.
fn stencils(set: &dyn ElementSet) -> Vec<usize> {
    let ns = set.stencil_size();
    let mut d = vec![0; set.len() * ns];
    for i in 0..set.len() {
        set.dofs(i, &mut d[i * ns..(i + 1) * ns]);
    }
    d
}

/// Dense assembly of a block kind from `f` (either the energy or its fallback).
fn dense(
    set: &dyn ElementSet,
    which: Block,
    n: usize,
    np: usize,
    fill: &dyn Fn(&mut [f64]),
) -> Vec<f64> {
    let (ns, npe, ne) = (set.stencil_size(), set.param_size(), set.len());
    let d = stencils(set);
    let mut pi = vec![0; npe];
    match which {
        Block::Gradient => {
            let mut b = vec![0.0; ne * ns];
            fill(&mut b);
            let mut out = vec![0.0; n];
            for (v, &i) in b.iter().zip(&d) {
                out[i] += v;
            }
            out
        }
        Block::Hessian | Block::History => {
            let mut b = vec![0.0; ne * ns * ns];
            fill(&mut b);
            let mut out = vec![0.0; n * n];
            for e in 0..ne {
                for a in 0..ns {
                    for c in 0..ns {
                        out[d[e * ns + a] * n + d[e * ns + c]] += b[(e * ns + a) * ns + c];
                    }
                }
            }
            out
        }
        Block::Param => {
            let mut b = vec![0.0; ne * ns * npe];
            fill(&mut b);
            let mut out = vec![0.0; n * np];
            for e in 0..ne {
                set.params(e, &mut pi);
                for a in 0..ns {
                    for (c, &pc) in pi.iter().enumerate() {
                        if pc != NO_PARAM {
                            out[d[e * ns + a] * np + pc] += b[(e * ns + a) * npe + c];
                        }
                    }
                }
            }
            out
        }
        Block::ParamGradient => {
            let mut b = vec![0.0; ne * npe];
            fill(&mut b);
            let mut out = vec![0.0; np];
            for e in 0..ne {
                set.params(e, &mut pi);
                for (c, &pc) in pi.iter().enumerate() {
                    if pc != NO_PARAM {
                        out[pc] += b[e * npe + c];
                    }
                }
            }
            out
        }
    }
}

/// Checks all derivatives of `energy` (already bound) at state `s`.
pub fn check(energy: &dyn Energy, s: &EvalState, tol: &Tolerances) -> CheckReport {
    let set = energy.elements();
    let n = s.q.len();
    let np = s.p.len();
    let h = tol.step;
    let grad_at = |st: &EvalState| {
        dense(set, Block::Gradient, n, np, &|b| {
            set.blocks(st, Block::Gradient, b)
        })
    };
    let mine = |k: Block| dense(set, k, n, np, &|b| set.blocks(s, k, b));
    let fallback = |k: Block| dense(set, k, n, np, &|b| set.fallback_blocks(s, k, b));
    let g = grad_at(s);
    let g_fb = fallback(Block::Gradient);
    let fused = {
        let v = std::cell::Cell::new(0.0);
        let g_fused = dense(set, Block::Gradient, n, np, &|b| {
            v.set(set.value_and_gradient(s, b));
        });
        rel(&[v.get()], &[set.value(s)]).max(rel(&g_fused, &g))
    };
    let hm = mine(Block::Hessian);
    let hm_fb = fallback(Block::Hessian);
    let hist = mine(Block::History);
    let hist_fb = fallback(Block::History);
    let pb = mine(Block::Param);
    let pb_fb = fallback(Block::Param);
    let pg = mine(Block::ParamGradient);
    let pg_fb = fallback(Block::ParamGradient);
    let split = set.split_hessian().map_or(0.0, |sh| {
        let ns = set.stencil_size();
        let mut sparse = vec![0.0; set.len() * sh.entries.len()];
        let mut rank_one = vec![0.0; set.len() * sh.rank_one_stride(ns)];
        set.split_blocks(s, &mut sparse, &mut rank_one);
        let hs = dense(set, Block::Hessian, n, np, &|b| {
            b.fill(0.0);
            for e in 0..set.len() {
                sh.add_to_dense(
                    ns,
                    &sparse[e * sh.entries.len()..(e + 1) * sh.entries.len()],
                    &rank_one[e * sh.rank_one_stride(ns)..(e + 1) * sh.rank_one_stride(ns)],
                    &mut b[e * ns * ns..(e + 1) * ns * ns],
                );
            }
        });
        rel(&hs, &hm)
    });

    // Only DOFs that appear in some stencil can have non-zero derivatives.
    let mut active: Vec<usize> = stencils(set);
    active.sort_unstable();
    active.dedup();

    let mut g_fd = vec![0.0; n];
    let mut h_fd = vec![0.0; n * n];
    let mut hist_fd = vec![0.0; n * n];
    let mut q = s.q.to_vec();
    let mut qp = s.q_prev.to_vec();
    for &i in &active {
        let x0 = q[i];
        q[i] = x0 + h;
        let sp = EvalState { q: &q, ..*s };
        let (ep, gp) = (set.value(&sp), grad_at(&sp));
        q[i] = x0 - h;
        let sm = EvalState { q: &q, ..*s };
        let (em, gm) = (set.value(&sm), grad_at(&sm));
        q[i] = x0;
        g_fd[i] = (ep - em) / (2.0 * h);
        for r in 0..n {
            h_fd[r * n + i] = (gp[r] - gm[r]) / (2.0 * h);
        }
        if set.uses_history() {
            let y0 = qp[i];
            qp[i] = y0 + h;
            let gp = grad_at(&EvalState { q_prev: &qp, ..*s });
            qp[i] = y0 - h;
            let gm = grad_at(&EvalState { q_prev: &qp, ..*s });
            qp[i] = y0;
            for r in 0..n {
                hist_fd[r * n + i] = (gp[r] - gm[r]) / (2.0 * h);
            }
        }
    }
    let mut p_fd = vec![0.0; n * np];
    let mut pg_fd = vec![0.0; np];
    let mut p = s.p.to_vec();
    for j in 0..np {
        let p0 = p[j];
        let hp = h * p0.abs().max(1.0);
        p[j] = p0 + hp;
        let sp = EvalState { p: &p, ..*s };
        let (ep, gp) = (set.value(&sp), grad_at(&sp));
        p[j] = p0 - hp;
        let sm = EvalState { p: &p, ..*s };
        let (em, gm) = (set.value(&sm), grad_at(&sm));
        p[j] = p0;
        pg_fd[j] = (ep - em) / (2.0 * hp);
        for r in 0..n {
            p_fd[r * np + j] = (gp[r] - gm[r]) / (2.0 * hp);
        }
    }
    CheckReport {
        gradient_vs_fallback: rel(&g, &g_fb),
        hessian_vs_fallback: rel(&hm, &hm_fb),
        history_vs_fallback: rel(&hist, &hist_fb),
        param_vs_fallback: rel(&pb, &pb_fb),
        param_gradient_vs_fallback: rel(&pg, &pg_fb),
        gradient_vs_fd: rel(&g, &g_fd),
        hessian_vs_fd: rel(&hm, &h_fd),
        history_vs_fd: rel(&hist, &hist_fd),
        param_vs_fd: rel(&pb, &p_fd),
        param_gradient_vs_fd: rel(&pg, &pg_fd),
        split_vs_hessian: split,
        fused_vs_separate: fused,
    }
}

/// Checks every energy of `model` with [`check`] at `seeds` random states
/// around its initial state: each coordinate moved by up to `±scale`, the
/// previous state by up to `±prev_fraction · scale` from that (so history
/// blocks see motion), parameters `p`, step `h` (s). `inspect` sees each
/// energy and state first (to assert there is something to check); the
/// reports go to stderr under `label`. For tests of small models.
#[allow(clippy::too_many_arguments)]
pub fn check_model_at_random_states(
    model: &crate::Model,
    p: &[f64],
    scale: f64,
    prev_fraction: f64,
    h: f64,
    seeds: std::ops::RangeInclusive<u64>,
    tol: &Tolerances,
    label: &str,
    inspect: impl Fn(&dyn Energy, &EvalState),
) {
    for seed in seeds {
        let mut rng = Rng::new(seed);
        let q: Vec<f64> = model
            .q0()
            .iter()
            .map(|x| x + rng.range(-scale, scale))
            .collect();
        let qp: Vec<f64> = q
            .iter()
            .map(|x| x + rng.range(-scale, scale) * prev_fraction)
            .collect();
        let s = EvalState {
            q: &q,
            q_prev: &qp,
            p,
            h,
            dt: h,
            t: 0.0,
        };
        for e in model.energies() {
            inspect(e.as_ref(), &s);
            let r = check(e.as_ref(), &s, tol);
            eprintln!("{label} seed {seed}: {r:?}");
            r.assert_within(tol);
        }
    }
}

/// A small deterministic generator (SplitMix64) for test states.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Seeded generator.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    /// Uniform in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }
}
