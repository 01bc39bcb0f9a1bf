//! The core of the argmin examples (`examples/argmin_reach.rs`,
//! `examples/argmin_design.rs`) on a tiny budget: the user-written
//! objective on the cable-driven finger, handed to argmin's own `Executor`
//! with L-BFGS, lowers the cost; and the gradient of whole rollouts w.r.t.
//! a design parameter (Young's modulus on a design channel) matches central
//! finite differences of whole rollouts.

#[path = "../examples/common/finger.rs"]
mod finger;

use argmin::core::Executor;
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use finger::{E_UNIT, Finger};
use nalgebra::DVector;

#[test]
fn lbfgs_through_argmins_executor_lowers_the_reaching_cost() {
    let finger = Finger::new().unwrap();
    // 20 steps (0.2 s), hold from step 9: a short version of the task.
    let problem = finger::reach_problem(&finger, 20).unwrap();
    let z0 = vec![5.0; problem.map().nz()];
    let w0 = DVector::from_vec(problem.w_of(&z0));
    let c0 = argmin::core::CostFunction::cost(&problem, &w0).unwrap();
    let solver: LBFGS<_, DVector<f64>, DVector<f64>, f64> =
        LBFGS::new(MoreThuenteLineSearch::new(), 5);
    let res = Executor::new(problem, solver)
        .configure(|s| s.param(w0).max_iters(3))
        .run()
        .unwrap();
    let best = res.state().get_best_cost();
    eprintln!("reaching cost {c0:.6e} -> {best:.6e} in 3 L-BFGS iterations");
    assert!(
        c0 > 1.0,
        "the start must be far from the target (cost {c0})"
    );
    assert!(best < 0.5 * c0, "cost {c0} -> {best}");
}

#[test]
fn design_gradient_of_whole_rollouts_matches_finite_differences() {
    let finger = Finger::new().unwrap();
    // 20 steps (0.2 s), the tip height counted from step 11.
    let problem = finger::design_problem(&finger, 20, 11).unwrap();
    let cost = |z: f64| -> f64 {
        let r = problem.residuals(&problem.w_of(&[z])).unwrap();
        0.5 * r.iter().map(|r| r * r).sum::<f64>()
    };
    for e in [0.8e5, 3e5] {
        let z = e / E_UNIT;
        let w = problem.w_of(&[z]);
        let (_, g) = problem.gradient(&w).unwrap();
        // dO/dz = dO/dw / (dz/dw), z = m + r tanh(w).
        let (lo, hi) = finger::Z_BOUNDS;
        let adjoint = g[0] / (0.5 * (hi - lo) * (1.0 - w[0].tanh().powi(2)));
        let dz = 1e-6 * z;
        let fd = (cost(z + dz) - cost(z - dz)) / (2.0 * dz);
        eprintln!("E = {e} Pa: dO/dz adjoint {adjoint:.9e}, central FD {fd:.9e}");
        assert!(
            fd.abs() > 1e-2,
            "the modulus must move the tip (dO/dz = {fd})"
        );
        assert!(
            (adjoint - fd).abs() < 1e-5 * fd.abs(),
            "adjoint {adjoint} vs FD {fd}"
        );
    }
}
