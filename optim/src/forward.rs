//! Forward sensitivity of a rollout (cable paper §III-A, eqs. 9–11), in the
//! engine's `(x, v)` state form: differentiating `g_k(x_k; x_{k−1}, v_{k−1}, p) = 0`
//! and the velocity update gives, per parameter column,
//!
//! `∂g/∂x_k · S_x^k = −(∂g/∂x_{k−1} S_x^{k−1} + ∂g/∂v_{k−1} S_v^{k−1} + ∂g/∂c_k S_c^k + ∂g/∂p)`,
//! `S_v^k = vx S_x^k + vxp S_x^{k−1} + vv S_v^{k−1}`,
//! `S_c^k = ∂c_k/∂x_{k−1} S_x^{k−1} + ∂c_k/∂c_{k−1} S_c^{k−1}` (what the
//! energies carry from step to step, such as rod frames; empty for most models),
//!
//! one solve with the step's factorization per column and step. For BDF1 this
//! is exactly the block-lower-triangular recurrence of eq. 10.

use pliant_core::sparse::mul_add;
use pliant_core::{CoreError, Simulator};

/// Final state of a rollout and its sensitivity to chosen parameter channels.
#[derive(Debug, Clone)]
pub struct RolloutSensitivity {
    /// Positions after every step (`steps` entries).
    pub states: Vec<Vec<f64>>,
    /// `∂x_K/∂p_j` for each requested channel `j` (one column per channel).
    pub dx_dp: Vec<Vec<f64>>,
}

/// Steps `sim` `steps` times with the parameter vector `p` held constant and
/// returns the states and `∂x_K/∂p` for the channels `wrt`.
pub fn rollout_with_sensitivity(
    sim: &mut Simulator,
    p: &[f64],
    wrt: &[usize],
    steps: usize,
) -> Result<RolloutSensitivity, CoreError> {
    let n = sim.q().len();
    if let Some(&bad) = wrt.iter().find(|&&j| j >= p.len()) {
        return Err(CoreError::ParamOutOfRange {
            field: "rollout_with_sensitivity wrt".into(),
            index: bad,
            count: p.len(),
        });
    }
    let m = wrt.len();
    let mut sx = vec![vec![0.0; n]; m];
    let mut sv = vec![vec![0.0; n]; m];
    // Sensitivity of the energies' carried state (rod frames).
    let mut sc: Vec<Vec<f64>> = vec![Vec::new(); m];
    let mut states = Vec::with_capacity(steps);
    for _ in 0..steps {
        let (_, d) = sim.step_with(p, true)?;
        let d = d.expect("derivatives were requested");
        let nc = d.carried_len();
        for (j, &pj) in wrt.iter().enumerate() {
            let mut rhs = vec![0.0; n];
            if nc > 0 {
                let mut c = vec![0.0; nc];
                mul_add(&d.dc_dx_prev, &sx[j], &mut c);
                if sc[j].len() == nc {
                    mul_add(&d.dc_dc_prev, &sc[j], &mut c);
                }
                mul_add(&d.dg_dc, &c, &mut rhs);
                sc[j] = c;
            }
            d.dg_dx_prev.mul_add(&sx[j], &mut rhs);
            mul_add(&d.dg_dv_prev, &sv[j], &mut rhs);
            let mut e = vec![0.0; p.len()];
            e[pj] = 1.0;
            mul_add(&d.dg_dp, &e, &mut rhs);
            let new_sx: Vec<f64> = d.solve(&rhs).iter().map(|v| -v).collect();
            for i in 0..n {
                sv[j][i] = d.vx * new_sx[i] + d.vxp * sx[j][i] + d.vv * sv[j][i];
            }
            sx[j] = new_sx;
        }
        states.push(sim.q().to_vec());
    }
    Ok(RolloutSensitivity { states, dx_dp: sx })
}
