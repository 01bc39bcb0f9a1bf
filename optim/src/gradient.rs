//! Derivatives of a trajectory objective with respect to the control
//! parameters `z`, by forward sensitivity and by the adjoint method.
//!
//! Each step satisfies `g_k(x_k; x_{k−1}, v_{k−1}, p_k) = 0` and
//! `v_k = vx x_k + vxp x_{k−1} + vv v_{k−1}` (the engine's `(x, v)` form of
//! the cable paper's eq. 4). With `A_k = ∂g_k/∂x_k` (symmetric, factorized),
//! `B_k = ∂g_k/∂x_{k−1}`, `C_k = ∂g_k/∂v_{k−1}`, `D_k = ∂g_k/∂p_k` and
//! `P_k = ∂p_k/∂z` from the [`ControlMap`]:
//!
//! - **forward sensitivity** (eqs. 9–11): `S_0 = V_0 = 0`,
//!   `A_k S_k = −(B_k S_{k−1} + C_k V_{k−1} + D_k P_k)`,
//!   `V_k = vx S_k + vxp S_{k−1} + vv V_{k−1}`, one solve per column and
//!   step with the step's own factorization; the residual Jacobian is
//!   `∂r/∂z = Σ_k ∂r/∂x_k S_k + ∂r/∂p_k P_k + ∂r/∂p_{k−1} P_{k−1}`.
//! - **adjoint** (the transposed recurrence run backward): with
//!   `a_k = Σ r ∂r/∂x_k`, going `k = K … 1`, `S̄_k += vx V̄_k`,
//!   `A_k μ_k = S̄_k`, then `S̄_{k−1} += vxp V̄_k − B_kᵀ μ_k`,
//!   `V̄_{k−1} += vv V̄_k − C_kᵀ μ_k`, `∇_z O += P_kᵀ(b_k + c_{k+1} − D_kᵀ μ_k)`
//!   — one solve per step whatever the length of `z`.
//!
//! Energies that carry state from step to step which their value depends
//! on (rod reference frames: `c_k = T(x_{k−1}, c_{k−1})`) add `E_k = ∂g_k/∂c_k`
//! to both: forward, `C_k = T_x C_{k−1}ˣ + T_c C_{k−1}` joins the right-hand
//! side as `E_k C_k`; backward, `C̄_k −= E_kᵀ μ_k`, `S̄_{k−1} += T_xᵀ C̄_k`,
//! `C̄_{k−1} = T_cᵀ C̄_k`. So rollout derivatives stay exact through them.

use crate::controls::ControlMap;
use crate::error::Result;
use crate::objective::{Objective, Residuals, StepView};
use crate::trajectory::Trajectory;
use pliant_core::Simulator;
use pliant_core::sparse::{mul_add, tr_mul_add};

/// `½‖r_k‖²` of the residuals of step `k` alone (all objectives).
pub fn step_cost(
    tr: &Trajectory,
    base: &[f64],
    objectives: &[Box<dyn Objective>],
    k: usize,
) -> f64 {
    step_residuals(tr, base, objectives, k, &mut Vec::new())
}

/// [`step_cost`] (the same sum), with the residuals of step `k` appended
/// to `out` in the order [`residuals`] gives them.
pub(crate) fn step_residuals(
    tr: &Trajectory,
    base: &[f64],
    objectives: &[Box<dyn Objective>],
    k: usize,
    out: &mut Vec<f64>,
) -> f64 {
    let mut buf = Residuals::default();
    let mut c = 0.0;
    for o in objectives {
        buf.clear();
        o.eval(&view(tr, base, k), &mut buf);
        c += cost(&buf.r);
        out.extend_from_slice(&buf.r);
    }
    c
}

/// The residuals of `objectives` over every step of `tr` (with the base
/// parameter vector `base`), ordered by step, then objective.
pub fn residuals(tr: &Trajectory, base: &[f64], objectives: &[Box<dyn Objective>]) -> Vec<f64> {
    let mut r = Vec::new();
    let mut buf = Residuals::default();
    for k in 1..=tr.steps() {
        for o in objectives {
            buf.clear();
            o.eval(&view(tr, base, k), &mut buf);
            r.extend_from_slice(&buf.r);
        }
    }
    r
}

fn check_sizes(tr: &Trajectory, map: &ControlMap, base: &[f64]) -> Result<()> {
    let np = base.len();
    if tr.steps() != map.steps() {
        return Err(crate::error::OptimError::Size {
            what: "trajectory steps (the control map's)",
            found: tr.steps(),
            expected: map.steps(),
        });
    }
    if let Some(p) = tr.p.first()
        && p.len() != np
    {
        return Err(crate::error::OptimError::Size {
            what: "trajectory parameters per step (the base vector's)",
            found: p.len(),
            expected: np,
        });
    }
    if let Some(&c) = map.channels().iter().find(|&&c| c >= np) {
        return Err(crate::error::OptimError::Size {
            what: "control map channel index (must be below the model's channel count)",
            found: c,
            expected: np,
        });
    }
    Ok(())
}

/// `½‖r‖²`.
pub fn cost(r: &[f64]) -> f64 {
    0.5 * r.iter().map(|v| v * v).sum::<f64>()
}

fn view<'a>(tr: &'a Trajectory, base: &'a [f64], k: usize) -> StepView<'a> {
    StepView {
        k,
        steps: tr.steps(),
        t: tr.t[k],
        x: &tr.x[k],
        x0: &tr.x[0],
        p: &tr.p[k - 1],
        p_prev: if k >= 2 { &tr.p[k - 2] } else { base },
    }
}

/// Residuals and their Jacobian `∂r/∂z` (row-major `rows × nz`) by forward
/// sensitivity. `sim` is used to recompute step blocks for
/// [`crate::Memory::Recompute`] trajectories (its state changes).
pub fn jacobian_forward(
    tr: &Trajectory,
    sim: &mut Simulator,
    map: &ControlMap,
    base: &[f64],
    objectives: &[Box<dyn Objective>],
) -> Result<(Vec<f64>, Vec<f64>)> {
    jacobian_forward_helped(tr, sim, None, map, base, objectives, None)
}

/// What [`forward_sweep`] can record for later rollouts' start guesses
/// (`crate::trajectory::Reference`): `S_k = ∂x_k/∂z` per step, column-major
/// `n × nz` in single precision, and the integrator's velocity update.
#[derive(Debug, Default)]
pub(crate) struct Sensitivities {
    pub s: Vec<Vec<f32>>,
    pub v_update: [f64; 3],
}

/// Whether step `k`'s blocks are rebuilt by the helper simulator of
/// [`jacobian_forward_helped`]: two steps of every three (the calling
/// thread rebuilds the third and runs the sweep, about as much work).
/// Fixed by `k`, so which simulator rebuilt which step never depends on
/// timing.
fn on_helper(k: usize) -> bool {
    !k.is_multiple_of(3)
}

/// [`jacobian_forward`] with an optional second simulator of the same
/// model: for a [`crate::Memory::Recompute`] trajectory it rebuilds two
/// steps' blocks of every three ([`Trajectory::derivatives`]) on a second
/// thread while this one rebuilds the rest and runs the sensitivity
/// recurrence, in step order. The blocks are the same whichever simulator
/// builds them (each rebuild restores the step's carried state and
/// assembles at the stored states), so the Jacobian is too — as long as
/// every energy's element set follows from the carried state (see
/// [`crate::Shooting::with_spare_simulators`] for the one that does not).
pub(crate) fn jacobian_forward_helped(
    tr: &Trajectory,
    sim: &mut Simulator,
    helper: Option<&mut Simulator>,
    map: &ControlMap,
    base: &[f64],
    objectives: &[Box<dyn Objective>],
    record: Option<&mut Sensitivities>,
) -> Result<(Vec<f64>, Vec<f64>)> {
    check_sizes(tr, map, base)?;
    let helper = helper.filter(|_| tr.memory() == crate::Memory::Recompute && tr.steps() > 2);
    let Some(helper) = helper else {
        let out = forward_sweep(tr, map, base, objectives, record, |k| {
            tr.derivatives(sim, k)
        });
        tr.restore_end(sim)?;
        return out;
    };
    let out = std::thread::scope(|scope| {
        // A few steps of look-ahead: the helper runs ahead of the sweep
        // by at most this many blocks.
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        scope.spawn(move || {
            for k in (1..=tr.steps()).filter(|&k| on_helper(k)) {
                let d = tr.derivatives(helper, k);
                let failed = d.is_err();
                if tx.send(d).is_err() || failed {
                    break;
                }
            }
        });
        forward_sweep(tr, map, base, objectives, record, |k| {
            if on_helper(k) {
                rx.recv().unwrap_or_else(|_| {
                    Err(crate::error::OptimError::inconsistent(
                        format!("trajectory step {k}"),
                        "the helper simulator stopped before rebuilding it",
                    ))
                })
            } else {
                tr.derivatives(sim, k)
            }
        })
        // Dropping the receiver here stops a helper still running ahead
        // after an error.
    });
    tr.restore_end(sim)?;
    out
}

/// The forward-sensitivity recurrence over `tr`, step `k`'s blocks from
/// `blocks(k)` (called in step order) unless stored in `tr`; with `record`,
/// every step's `S_k` is kept there too.
fn forward_sweep(
    tr: &Trajectory,
    map: &ControlMap,
    base: &[f64],
    objectives: &[Box<dyn Objective>],
    mut record: Option<&mut Sensitivities>,
    mut blocks: impl FnMut(usize) -> Result<pliant_core::StepDerivatives>,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let n = tr.x[0].len();
    let np = base.len();
    let nz = map.nz();
    // Column-major n × nz.
    let mut s = vec![0.0; n * nz];
    let mut v = vec![0.0; n * nz];
    let mut r_all = Vec::new();
    let mut jac: Vec<f64> = Vec::new();
    let mut buf = Residuals::default();
    let mut p_prev_blk = vec![0.0; np * nz];
    let mut rhs = vec![0.0; n * nz];
    // Carried-state sensitivities, column-major m × nz (rod frames).
    let mut c = Vec::new();
    for k in 1..=tr.steps() {
        let owned;
        let d = match tr.stored_derivatives(k) {
            Some(d) => d,
            None => {
                owned = blocks(k)?;
                &owned
            }
        };
        let pk = map.dense_block(k, np);
        rhs.fill(0.0);
        let m = d.carried_len();
        if m > 0 {
            let mut c_new = vec![0.0; m * nz];
            for j in 0..nz {
                let cj = &mut c_new[j * m..(j + 1) * m];
                mul_add(&d.dc_dx_prev, &s[j * n..(j + 1) * n], cj);
                if c.len() == m * nz {
                    mul_add(&d.dc_dc_prev, &c[j * m..(j + 1) * m], cj);
                }
                mul_add(&d.dg_dc, cj, &mut rhs[j * n..(j + 1) * n]);
            }
            c = c_new;
        }
        for j in 0..nz {
            let col = &mut rhs[j * n..(j + 1) * n];
            d.dg_dx_prev.mul_add(&s[j * n..(j + 1) * n], col);
            mul_add(&d.dg_dv_prev, &v[j * n..(j + 1) * n], col);
            mul_add(&d.dg_dp, &pk[j * np..(j + 1) * np], col);
        }
        // All columns in one blocked solve.
        let mut s_new = d.solve_many(&rhs, nz);
        s_new.iter_mut().for_each(|y| *y = -*y);
        for idx in 0..n * nz {
            v[idx] = d.vx * s_new[idx] + d.vxp * s[idx] + d.vv * v[idx];
        }
        s = s_new;
        if let Some(rec) = record.as_deref_mut() {
            rec.s.push(s.iter().map(|&y| y as f32).collect());
            rec.v_update = [d.vx, d.vxp, d.vv];
        }
        for o in objectives {
            buf.clear();
            o.eval(&view(tr, base, k), &mut buf);
            let row0 = r_all.len();
            r_all.extend_from_slice(&buf.r);
            jac.resize(r_all.len() * nz, 0.0);
            for &(row, dof, val) in &buf.dx {
                let jr = &mut jac[(row0 + row) * nz..(row0 + row + 1) * nz];
                for j in 0..nz {
                    jr[j] += val * s[j * n + dof];
                }
            }
            for (entries, blk) in [(&buf.dp, &pk), (&buf.dp_prev, &p_prev_blk)] {
                for &(row, c, val) in entries {
                    let jr = &mut jac[(row0 + row) * nz..(row0 + row + 1) * nz];
                    for j in 0..nz {
                        jr[j] += val * blk[j * np + c];
                    }
                }
            }
        }
        p_prev_blk = pk;
    }
    Ok((r_all, jac))
}

/// Residuals and the gradient `∇_z O` of `O = ½‖r‖²` by the adjoint method.
pub fn gradient_adjoint(
    tr: &Trajectory,
    sim: &mut Simulator,
    map: &ControlMap,
    base: &[f64],
    objectives: &[Box<dyn Objective>],
) -> Result<(Vec<f64>, Vec<f64>)> {
    gradient_adjoint_helped(tr, sim, None, map, base, objectives)
}

/// Every step's blocks of a [`crate::Memory::Recompute`] trajectory, in
/// step order; with `helper`, the steps of [`on_helper`] are rebuilt on it
/// by a second thread.
fn rebuild_all(
    tr: &Trajectory,
    sim: &mut Simulator,
    helper: Option<&mut Simulator>,
) -> Result<Vec<pliant_core::StepDerivatives>> {
    let kmax = tr.steps();
    let Some(helper) = helper.filter(|_| kmax > 2) else {
        return (1..=kmax).map(|k| tr.derivatives(sim, k)).collect();
    };
    // Each side keeps its blocks (or its first error) by step, so the
    // merge reports the earliest step's error, as the sequential loop does.
    let (theirs, ours) = std::thread::scope(|scope| {
        let theirs = scope.spawn(move || {
            (1..=kmax)
                .filter(|&k| on_helper(k))
                .map(|k| tr.derivatives(helper, k))
                .take_while_inclusive_ok()
        });
        let ours = (1..=kmax)
            .filter(|&k| !on_helper(k))
            .map(|k| tr.derivatives(sim, k))
            .take_while_inclusive_ok();
        (theirs.join(), ours)
    });
    let theirs = theirs.unwrap_or_else(|p| std::panic::resume_unwind(p));
    let (mut theirs, mut ours) = (theirs.into_iter(), ours.into_iter());
    (1..=kmax)
        .map(|k| {
            if on_helper(k) {
                theirs.next()
            } else {
                ours.next()
            }
            .unwrap_or_else(|| {
                // The other side stopped at an earlier error; it is
                // reported before this step is reached.
                Err(crate::error::OptimError::inconsistent(
                    format!("trajectory step {k}"),
                    "its blocks were not rebuilt after an earlier step failed",
                ))
            })
        })
        .collect()
}

/// Collects results up to and including the first error.
trait TakeWhileOk<T> {
    fn take_while_inclusive_ok(self) -> Vec<Result<T>>;
}

impl<T, I: Iterator<Item = Result<T>>> TakeWhileOk<T> for I {
    fn take_while_inclusive_ok(self) -> Vec<Result<T>> {
        let mut out = Vec::new();
        for r in self {
            let failed = r.is_err();
            out.push(r);
            if failed {
                break;
            }
        }
        out
    }
}

/// [`gradient_adjoint`] with an optional second simulator of the same
/// model that rebuilds two steps' blocks of every three on a second
/// thread (see [`jacobian_forward_helped`]).
pub(crate) fn gradient_adjoint_helped(
    tr: &Trajectory,
    sim: &mut Simulator,
    helper: Option<&mut Simulator>,
    map: &ControlMap,
    base: &[f64],
    objectives: &[Box<dyn Objective>],
) -> Result<(Vec<f64>, Vec<f64>)> {
    check_sizes(tr, map, base)?;
    let kmax = tr.steps();
    let n = tr.x[0].len();
    let np = base.len();
    let nz = map.nz();
    // Per-step objective gradients a_k (x_k), b_k (p_k), c_k (p_{k−1}).
    let mut a = vec![vec![0.0; n]; kmax + 1];
    let mut b = vec![vec![0.0; np]; kmax + 2];
    let mut r_all = Vec::new();
    let mut buf = Residuals::default();
    for k in 1..=kmax {
        for o in objectives {
            buf.clear();
            o.eval(&view(tr, base, k), &mut buf);
            for &(row, dof, val) in &buf.dx {
                a[k][dof] += buf.r[row] * val;
            }
            for &(row, c, val) in &buf.dp {
                b[k][c] += buf.r[row] * val;
            }
            if k >= 2 {
                for &(row, c, val) in &buf.dp_prev {
                    b[k - 1][c] += buf.r[row] * val;
                }
            }
            r_all.extend_from_slice(&buf.r);
        }
    }
    // Recomputed blocks are built in step order on each simulator (what
    // energies carry is restored per step), then consumed backward: the adjoint holds all K factorizations
    // either way; Recompute only spares rollouts that need no derivative.
    let recomputed: Vec<pliant_core::StepDerivatives> = if tr.stored_derivatives(1).is_some() {
        Vec::new()
    } else {
        rebuild_all(tr, sim, helper)?
    };
    let mut grad = vec![0.0; nz];
    let mut s_bar = vec![0.0; n];
    let mut v_bar = vec![0.0; n];
    // Adjoint of the carried state c_k (rod frames); the objective does not
    // read it, so it starts at zero.
    let mut c_bar: Vec<f64> = Vec::new();
    for k in (1..=kmax).rev() {
        let d = match tr.stored_derivatives(k) {
            Some(d) => d,
            None => &recomputed[k - 1],
        };
        for i in 0..n {
            s_bar[i] += a[k][i] + d.vx * v_bar[i];
        }
        let mu = d.solve(&s_bar);
        // Parameter gradient of step k: b_k − D_kᵀ μ_k.
        let mut gp = b[k].clone();
        let mut dtm = vec![0.0; np];
        tr_mul_add(&d.dg_dp, &mu, &mut dtm);
        for c in 0..np {
            gp[c] -= dtm[c];
        }
        map.add_vjp(k, &gp, &mut grad);
        // Propagate to step k − 1.
        let mut s_prev = vec![0.0; n];
        let mut v_prev = vec![0.0; n];
        for i in 0..n {
            s_prev[i] = d.vxp * v_bar[i];
            v_prev[i] = d.vv * v_bar[i];
        }
        let mut bt = vec![0.0; n];
        d.dg_dx_prev.tr_mul_add(&mu, &mut bt);
        let mut ct = vec![0.0; n];
        tr_mul_add(&d.dg_dv_prev, &mu, &mut ct);
        for i in 0..n {
            s_prev[i] -= bt[i];
            v_prev[i] -= ct[i];
        }
        // c_k = T(x_{k−1}, c_{k−1}): c̄_k −= (∂g/∂c_k)ᵀ μ_k, then
        // x̄_{k−1} += (∂c_k/∂x_{k−1})ᵀ c̄_k, c̄_{k−1} = (∂c_k/∂c_{k−1})ᵀ c̄_k.
        let m = d.carried_len();
        if m > 0 {
            c_bar.resize(m, 0.0);
            let mut et = vec![0.0; m];
            tr_mul_add(&d.dg_dc, &mu, &mut et);
            for (cb, e) in c_bar.iter_mut().zip(&et) {
                *cb -= e;
            }
            tr_mul_add(&d.dc_dx_prev, &c_bar, &mut s_prev);
            let mut c_prev = vec![0.0; m];
            tr_mul_add(&d.dc_dc_prev, &c_bar, &mut c_prev);
            c_bar = c_prev;
        }
        s_bar = s_prev;
        v_bar = v_prev;
    }
    tr.restore_end(sim)?;
    Ok((r_all, grad))
}

/// `Jᵀ r` for a row-major `rows × nz` Jacobian.
pub fn jt_r(jac: &[f64], r: &[f64], nz: usize) -> Vec<f64> {
    let mut g = vec![0.0; nz];
    for (row, &ri) in r.iter().enumerate() {
        for j in 0..nz {
            g[j] += jac[row * nz + j] * ri;
        }
    }
    g
}
