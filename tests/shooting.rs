//! The shooting problem on a small actuated spring robot with ground
//! contact and Coulomb friction: forward-sensitivity Jacobian and adjoint
//! gradient against central finite differences of whole rollouts and against
//! each other; Gauss–Newton decreasing the objective monotonically;
//! checkpoint and resume; bad input.

mod common;

use pliant::core::{Integrator, Simulator};
use pliant::optim::{
    AverageVelocity, ComPath, ControlSmoothness, Damping, Gait, Memory, Method, Motor, Objective,
    OptimizeSettings, Shooting, optimize,
};

fn sim(integrator: Integrator) -> Simulator {
    common::tetra_robot(integrator, &[(1, "u0"), (2, "u1")])
}

fn gait(mirror: bool) -> Gait {
    Gait {
        motors: vec![
            Motor {
                name: "a".into(),
                channels: vec!["u0".into()],
                mirror_of: None,
            },
            Motor {
                name: "b".into(),
                channels: vec!["u1".into()],
                mirror_of: mirror.then_some(0),
            },
        ],
        keyframes: 2,
        prep_steps: 3,
        cycle_steps: 6,
        cycles: 2,
        bounds: Some((-0.01, 0.02)),
    }
}

fn problem(integrator: Integrator, memory: Memory) -> Shooting {
    let s = sim(integrator);
    let g = gait(false);
    let map = g.control_map(s.model()).unwrap();
    let model = s.model();
    let c0 = pliant::optim::CentreOfMass::new(model, &[0, 1])
        .unwrap()
        .of(model.q0());
    let targets = ComPath::straight(&c0, &[0.05, 0.0], g.steps(), 0.01);
    let objectives: Vec<Box<dyn Objective>> = vec![
        Box::new(ComPath::new(model, &[0, 1], targets, 1e4).unwrap()),
        Box::new(AverageVelocity::new(model, &[0, 1], vec![0.05, 0.0], 1.0).unwrap()),
        Box::new(ControlSmoothness::new(model, &["u0", "u1"], 0.01, 1e-3).unwrap()),
    ];
    Shooting::new(s, map, objectives)
        .unwrap()
        .with_memory(memory)
}

/// Levenberg–Marquardt with Nielsen's damping for `max_iters` iterations.
fn lm_settings(max_iters: u64) -> OptimizeSettings {
    OptimizeSettings {
        method: Method::LevenbergMarquardt {
            tol: 1e-8,
            damping: Damping::Nielsen,
        },
        max_iters,
        checkpoint: None,
    }
}

fn rel(a: f64, b: f64, scale: f64) -> f64 {
    (a - b).abs() / scale
}

#[test]
fn forward_and_adjoint_gradients_match_finite_differences_of_whole_rollouts() {
    for integ in [Integrator::Bdf1, Integrator::ImplicitMidpoint] {
        let p = problem(integ, Memory::Store);
        let z = [0.012, -0.004, 0.007, 0.015];
        let w = p.w_of(&z);
        // Central differences of the complete rollout's cost w.r.t. w.
        let eps = 1e-6;
        let c = p.check_gradient(&w, eps).unwrap();
        eprintln!("{integ:?}: {c}");
        assert!(
            c.scale > 1e-3,
            "the gradient must not be trivially small: {}",
            c.scale
        );
        assert!(c.forward_vs_fd < 1e-5, "{integ:?}: {c}");
        assert!(c.adjoint_vs_forward < 1e-9, "{integ:?}: {c}");
        let (r, jac) = p.jacobian(&w).unwrap();
        let nz = z.len();
        // Every residual's Jacobian column, not only the gradient.
        let j0 = 1;
        let (mut wp, mut wm) = (w.clone(), w.clone());
        wp[j0] += eps;
        wm[j0] -= eps;
        let rp = p.residuals(&wp).unwrap();
        let rm = p.residuals(&wm).unwrap();
        let jscale = jac.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for row in 0..r.len() {
            let fd = (rp[row] - rm[row]) / (2.0 * eps);
            assert!(
                rel(fd, jac[row * nz + j0], jscale) < 1e-5,
                "{integ:?}: row {row}: {fd} vs {}",
                jac[row * nz + j0]
            );
        }
    }
}

#[test]
fn recomputing_step_blocks_gives_the_stored_result_bitwise() {
    let z = [0.012, -0.004, 0.007, 0.015];
    let a = problem(Integrator::Bdf1, Memory::Store);
    let b = problem(Integrator::Bdf1, Memory::Recompute);
    let w = a.w_of(&z);
    assert_eq!(a.jacobian(&w).unwrap(), b.jacobian(&w).unwrap());
    assert_eq!(a.gradient(&w).unwrap(), b.gradient(&w).unwrap());
}

#[test]
fn gauss_newton_decreases_the_objective_monotonically_to_tolerance() {
    let p = problem(Integrator::Bdf1, Memory::Store);
    let settings = OptimizeSettings {
        method: Method::GaussNewton { tol: 1e-6 },
        max_iters: 30,
        checkpoint: None,
    };
    let (res, _) = optimize(p, &[0.0; 4], &settings, None).unwrap();
    eprintln!(
        "GN: {:.4e} -> {:.4e} in {} iterations ({}); history {:?}",
        res.initial_objective,
        res.objective,
        res.iterations,
        res.termination,
        res.history.iter().map(|h| h.objective).collect::<Vec<_>>()
    );
    assert!(res.objective < 0.5 * res.initial_objective);
    let mut prev = res.initial_objective;
    for h in &res.history {
        assert!(
            h.objective <= prev * (1.0 + 1e-12),
            "{} after {prev}",
            h.objective
        );
        prev = h.objective;
    }
    assert!(
        res.termination.contains("converged"),
        "stopped by {} after {} iterations",
        res.termination,
        res.iterations
    );
}

#[test]
fn an_interrupted_optimization_resumes_to_the_same_parameters() {
    let dir = std::env::temp_dir().join(format!("pliant-ckpt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = |iters: u64, ckpt: bool| {
        let settings = OptimizeSettings {
            method: Method::Lbfgs {
                memory: 5,
                tol_grad: 1e-12,
            },
            max_iters: iters,
            checkpoint: ckpt.then(|| (dir.clone(), "walk".to_string())),
        };
        optimize(
            problem(Integrator::Bdf1, Memory::Store),
            &[0.0; 4],
            &settings,
            None,
        )
        .unwrap()
        .0
    };
    let full = run(6, false);
    let first = run(2, true); // "killed" after two iterations
    assert_eq!(first.iterations, 2);
    let resumed = run(6, true);
    assert_eq!(resumed.iterations, full.iterations);
    assert_eq!(resumed.z, full.z, "resumed and uninterrupted runs differ");
    assert!(first.z != full.z);
    // The resumed run reports every iteration as the uninterrupted one did:
    // the two before the checkpoint from its history file, then its own,
    // the first step measured from the checkpointed point, not from z0.
    assert_eq!(resumed.resumed_at, Some(2));
    let key = |h: &pliant::optim::IterationRecord| (h.iter, h.objective, h.step);
    assert_eq!(
        resumed.history.iter().map(key).collect::<Vec<_>>(),
        full.history.iter().map(key).collect::<Vec<_>>()
    );
    assert_eq!(resumed.history[..2], first.history[..]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_gait_and_objective_input_are_clear_errors() {
    let s = sim(Integrator::Bdf1);
    let mut g = gait(false);
    g.motors[1].channels = vec!["u_missing".into()];
    let e = g.control_map(s.model()).unwrap_err().to_string();
    assert!(e.contains("u_missing") && e.contains("u0"), "{e}");
    let mut g = gait(false);
    g.keyframes = 0;
    let e = g.control_map(s.model()).unwrap_err().to_string();
    assert!(e.contains("`gait.keyframes` is 0"), "{e}");
    let e = ControlSmoothness::new(s.model(), &["nope"], 0.01, 1.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("nope"), "{e}");
    let p = problem(Integrator::Bdf1, Memory::Store);
    let settings = OptimizeSettings {
        method: Method::GaussNewton { tol: 1e-6 },
        max_iters: 1,
        checkpoint: None,
    };
    let e = optimize(p, &[0.0; 3], &settings, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("initial keyframe values z0: 3 given"), "{e}");
    let p = problem(Integrator::Bdf1, Memory::Store);
    let e = optimize(p, &[0.5, 0.0, 0.0, 0.0], &settings, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`z0` is 0.5, expected within the bounds"), "{e}");
}

#[test]
fn levenberg_marquardt_is_monotone_and_keeps_the_bounds() {
    let p = problem(Integrator::Bdf1, Memory::Recompute);
    let settings = lm_settings(15);
    let (res, _) = optimize(p, &[0.0; 4], &settings, None).unwrap();
    eprintln!(
        "LM: {:.4e} -> {:.4e} in {} iterations ({}); z = {:?}",
        res.initial_objective, res.objective, res.iterations, res.termination, res.z
    );
    assert!(res.objective < 0.5 * res.initial_objective);
    let mut prev = res.initial_objective;
    for h in &res.history {
        assert!(h.objective <= prev, "{} after {prev}", h.objective);
        prev = h.objective;
    }
    assert!(
        res.z.iter().all(|z| (-0.01..=0.02).contains(z)),
        "{:?}",
        res.z
    );
    // The reported steps are the moves of z: together they cover the
    // distance from the start, and none exceeds the box.
    let steps: Vec<f64> = res.history.iter().map(|h| h.step).collect();
    let moved = res.z.iter().fold(0.0f64, |m, z| m.max(z.abs()));
    assert!(steps.iter().all(|s| (0.0..=0.03).contains(s)), "{steps:?}");
    assert!(
        steps.iter().sum::<f64>() >= moved * (1.0 - 1e-12),
        "steps {steps:?} cover less than the distance moved, {moved}"
    );
}

#[test]
fn a_trial_that_must_be_rejected_stops_early_and_exactly() {
    let p = problem(Integrator::Bdf1, Memory::Recompute);
    let nz = p.map().nz();
    let w = vec![0.3; nz];
    let w2 = vec![-0.2; nz];
    let c = pliant::optim::gradient::cost(&p.residuals(&w).unwrap());
    // A bound above the cost: the full rollout, the same cost.
    let p2 = problem(Integrator::Bdf1, Memory::Recompute);
    assert_eq!(p2.cost_below(&w, 2.0 * c + 1.0).unwrap(), Some(c));
    assert_eq!(p2.stats().rollouts_cut_short, 0);
    // A bound far below: rejected, stopped before the end.
    let steps_before = p2.stats().steps;
    assert_eq!(p2.cost_below(&w2, 1e-300).unwrap(), None);
    let s = p2.stats();
    assert_eq!(s.rollouts_cut_short, 1);
    assert_eq!(
        s.steps, steps_before,
        "a cut rollout adds no completed steps"
    );
    // And the cached point is still the finished one.
    assert_eq!(p2.cost_below(&w, f64::INFINITY).unwrap(), Some(c));
    assert_eq!(p2.stats().rollouts, 2);
}

#[test]
fn a_trial_the_forecast_says_cannot_get_below_the_bound_is_given_up_at_once() {
    use nalgebra::DVector;
    use pliant::optim::Forecast;
    use pliant::optim::levenberg_marquardt::TrialCost;
    let nz = problem(Integrator::Bdf1, Memory::Recompute).map().nz();
    // With a regularization, whose residuals come last.
    let problem = |memory: Memory| {
        problem(Integrator::Bdf1, memory)
            .with_regularization(1e-2, vec![0.005; nz])
            .unwrap()
    };
    let w = DVector::from_element(nz, -0.2);
    let r = DVector::from_vec(problem(Memory::Recompute).residuals(w.as_slice()).unwrap());
    let c = 0.5 * r.norm_squared();
    // The current point: residuals twice the trial's, so the model (the
    // trial's own residuals, an exact forecast) forecasts a decrease.
    let current = &r * 2.0;
    let exact = [r.clone()];
    let forecast = Forecast {
        current: &current,
        models: &exact,
    };
    // An exact forecast never gives up a trial that ends below the bound.
    let p = problem(Memory::Recompute);
    let got = p.trial_costs_forecast(std::slice::from_ref(&w), 1.01 * c, forecast);
    let finished = got[0].as_ref().unwrap().expect("the trial finished");
    assert!((finished - c).abs() <= 1e-12 * c, "{finished} against {c}");
    assert_eq!(p.stats().rollouts_cut_short, 0);
    // Against a bound the trial ends above, it gives the trial up after
    // its first step: the cost so far plus the forecast of the rest is the
    // trial's whole cost. The exact test alone stops it later, when the
    // steps so far cost the bound.
    for (cuts, by_forecast) in [(true, 1), (false, 0)] {
        let p = problem(Memory::Recompute).with_forecast_cuts(cuts);
        let got = p.trial_costs_forecast(std::slice::from_ref(&w), 0.99 * c, forecast);
        assert_eq!(got[0].as_ref().unwrap(), &None);
        let s = p.stats();
        assert_eq!(
            (s.rollouts_cut_short, s.rollouts_cut_by_forecast),
            (1, by_forecast),
            "forecast cuts {cuts}"
        );
        assert_eq!(s.steps, 0, "a cut rollout adds no completed steps");
    }
}

#[test]
fn levenberg_marquardt_with_and_without_forecast_cuts() {
    let settings = lm_settings(15);
    let mut runs = Vec::new();
    for cuts in [true, false] {
        let p = problem(Integrator::Bdf1, Memory::Recompute).with_forecast_cuts(cuts);
        let (res, _) = optimize(p, &[0.0; 4], &settings, None).unwrap();
        eprintln!(
            "forecast cuts {cuts}: {:.4e} -> {:.4e} in {} iterations, {} rollouts, {} cut short, {} by the forecast",
            res.initial_objective,
            res.objective,
            res.iterations,
            res.stats.rollouts,
            res.stats.rollouts_cut_short,
            res.stats.rollouts_cut_by_forecast
        );
        assert!(res.objective < 0.5 * res.initial_objective);
        let mut prev = res.initial_objective;
        for h in &res.history {
            assert!(h.objective <= prev, "{} after {prev}", h.objective);
            prev = h.objective;
        }
        runs.push(res);
    }
    // The cuts happen through `optimize` and are off when asked.
    assert!(runs[0].stats.rollouts_cut_by_forecast > 0);
    assert_eq!(runs[1].stats.rollouts_cut_by_forecast, 0);
    // Here they gave up only trials that would have been rejected anyway:
    // the same iterates, bit for bit, and the same rollouts.
    let path = |r: &pliant::optim::OptimizeResult| -> Vec<f64> {
        r.history.iter().map(|h| h.objective).collect()
    };
    assert_eq!(path(&runs[0]), path(&runs[1]));
    assert_eq!(runs[0].stats.rollouts, runs[1].stats.rollouts);
}

#[test]
fn trials_on_spare_simulators_give_the_same_iterates() {
    let settings = lm_settings(8);
    let one = problem(Integrator::Bdf1, Memory::Recompute);
    let (a, _) = optimize(one, &[0.0; 4], &settings, None).unwrap();
    // Without the load check, so that other processes on the machine
    // cannot make the trials run one at a time (the iterates would be the
    // same, but nothing would have run concurrently).
    let three = problem(Integrator::Bdf1, Memory::Recompute)
        .with_spare_simulators(vec![sim(Integrator::Bdf1), sim(Integrator::Bdf1)])
        .unwrap()
        .with_load_check(false);
    assert_eq!(three.concurrent_trials(), 3);
    let (b, _) = optimize(three, &[0.0; 4], &settings, None).unwrap();
    eprintln!(
        "sequential: {} rollouts; concurrent: {} rollouts, {} alongside another",
        a.stats.rollouts, b.stats.rollouts, b.stats.rollouts_in_parallel
    );
    assert_eq!(a.z, b.z, "the iterates must not depend on the spares");
    assert_eq!(a.objective, b.objective);
    assert_eq!(a.iterations, b.iterations);
    assert!(b.stats.rollouts_in_parallel > 0, "trials ran concurrently");
    // Several points at once give each point's own cost, and the first one
    // below the bound is the one cached.
    let ws = vec![vec![0.1; 4], vec![-0.1; 4], vec![0.2; 4]];
    let p = problem(Integrator::Bdf1, Memory::Recompute);
    let seq: Vec<f64> = ws
        .iter()
        .map(|w| pliant::optim::gradient::cost(&p.residuals(w).unwrap()))
        .collect();
    let fresh = problem(Integrator::Bdf1, Memory::Recompute)
        .with_spare_simulators(vec![sim(Integrator::Bdf1)])
        .unwrap();
    let bound = seq[1] * (1.0 + 1e-9);
    let got: Vec<Option<f64>> = fresh
        .costs_below(&ws, bound)
        .into_iter()
        .map(|r| r.unwrap())
        .collect();
    for (g, s) in got.iter().zip(&seq) {
        assert_eq!(*g, (*s < bound).then_some(*s));
    }
    let first_below = seq.iter().position(|&s| s < bound).unwrap();
    let rollouts = fresh.stats().rollouts;
    fresh.residuals(&ws[first_below]).unwrap();
    assert_eq!(fresh.stats().rollouts, rollouts, "served from the cache");
}

#[test]
fn a_spare_simulator_of_another_model_is_an_error() {
    let mut b = pliant::core::ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0; 3], 1.0).unwrap();
    let other = Simulator::new(
        b.build().unwrap(),
        Integrator::Bdf1,
        0.01,
        pliant::core::NewtonSettings::default(),
    )
    .unwrap();
    let err = problem(Integrator::Bdf1, Memory::Recompute)
        .with_spare_simulators(vec![other])
        .unwrap_err();
    assert!(
        matches!(
            err,
            pliant::optim::OptimError::Size {
                what: "spare simulator DOFs",
                ..
            }
        ),
        "{err}"
    );
}

/// Trial rollouts start their steps near the trajectory where a derivative
/// was last taken: after a Jacobian from its linear prediction, after an
/// adjoint gradient from its steps alone. A nearby trial then needs fewer
/// Newton iterations than from the inertial predictor, and costs what a
/// cold rollout costs within the Newton tolerance; `residuals` stays cold.
#[test]
fn trials_start_near_the_last_derivatives_trajectory() {
    let z = [0.012, -0.004, 0.007, 0.015];
    let z2 = [0.0121, -0.0041, 0.0071, 0.0149];
    let trial = |on: bool, jacobian: bool| {
        let p = problem(Integrator::Bdf1, Memory::Recompute).with_reference_starts(on);
        let w = p.w_of(&z);
        if jacobian {
            p.jacobian(&w).unwrap();
        } else {
            p.gradient(&w).unwrap();
        }
        let before = p.stats().newton_iterations;
        let c = p.cost_below(&p.w_of(&z2), f64::INFINITY).unwrap().unwrap();
        let iterations = p.stats().newton_iterations - before;
        // A cold rollout at the same point, on the same problem.
        let w2 = p.w_of(&z2);
        let mut w_other = w2.clone();
        w_other[0] += 1e-3;
        p.residuals(&w_other).unwrap();
        let cold = pliant::optim::gradient::cost(&p.residuals(&w2).unwrap());
        (iterations, c, cold)
    };
    let (off, c_off, cold_off) = trial(false, true);
    let (linear, c_linear, cold_linear) = trial(true, true);
    let (steps_only, c_steps, _) = trial(true, false);
    eprintln!("Newton iterations: {off} cold, {linear} linear, {steps_only} steps only");
    assert_eq!(
        c_off, cold_off,
        "without reference starts a trial is a cold rollout"
    );
    assert_eq!(
        cold_linear, cold_off,
        "residuals never start near a reference"
    );
    assert!(
        linear < steps_only && steps_only < off,
        "{linear} {steps_only} {off}"
    );
    for c in [c_linear, c_steps] {
        assert!((c - c_off).abs() <= 1e-6 * c_off, "{c} against {c_off}");
    }
}
