//! Cost of gait optimization on the Puppy at the paper's resolution in time
//! (168 steps of 33 ms, 4 keyframes, 8 motors = 32 parameters without
//! symmetry): a plain rollout, a rollout that records the step blocks, the
//! forward-sensitivity Jacobian sweep, the adjoint gradient sweep, and the
//! steady-state cost of a complete Gauss–Newton iteration with line search
//! (argmin `GaussNewtonLS`) and of a Levenberg–Marquardt iteration. Medians
//! of 3 runs.
//!
//! `cargo bench --bench gait_iteration [-- default] [lagged] [mu=MU] [slip=V] [pcg] [noreuse] [reuse=R] [tol=T] [iters=N] [sims=N] [marquardt] [noref] [noload] [nocut] [local] [exact] [plain|gn|lm|run|starts]`
//! (`local`: reused factorizations are refreshed with the ground's
//! node-local Hessian entries, `NewtonSettings::local_updates`)
//! (`exact`: Newton factorizes exact Hessians only, not the friction's
//! majorizer after a refused full step, `NewtonSettings::majorize` off)
//! (`plain`: only the plain rollout; `reuse=R`: `NewtonSettings::reuse_below`
//! R instead of the gait's 0.5; `tol=T`: Newton's absolute tolerance T
//! (N) instead of the gait's 1e-6)
//! (`nocut`: Levenberg–Marquardt trials run until their cost passes the
//! current one, never given up for falling short of the model's forecast,
//! `Shooting::with_forecast_cuts(false)`)
//! (`noload`: trials run concurrently on every simulator even while other
//! processes hold the cores, `Shooting::with_load_check(false)`)
//! (`starts`: Newton iterations of one trial near a Jacobian's trajectory, with
//! and without starting steps near it)
//! (`run`: whole 10-iteration runs from the default seed instead, with the
//! objective after each iteration; `iters=N`: N iterations; `sims=N`: only
//! the run with trials on N simulators; `marquardt`:
//! Levenberg–Marquardt's damping by Marquardt's steps, `Damping::Marquardt`,
//! instead of Nielsen's update)
//! (`default`: tight Newton settings instead of the gait's
//! `NewtonSettings::fast()`; `lagged`: the cable paper's lagged quadratic
//! friction, μ = 100/m, instead of smooth Coulomb; `mu=MU`: the table's
//! smooth Coulomb law with coefficient MU instead of
//! `pliant::gait::TABLE_MU`; `slip=V`: its slip velocity V (m/s) instead of
//! the table's 1 mm/s)

use pliant::gait::GaitSetup;
use pliant::optim::gradient::{gradient_adjoint, jacobian_forward};
use pliant::optim::{Damping, Memory, Method, OptimizeSettings, optimize, rollout};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    pliant::init();
    // Arguments: `default` (tight Newton settings instead of the gait's
    // `NewtonSettings::fast()`), `gn` / `lm` (only that solver).
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let has = |k: &str| args.iter().any(|a| a == k);
    let mut setup = GaitSetup::puppy_walk(false).unwrap();
    if has("default") {
        setup.newton = pliant::core::NewtonSettings::default();
    }
    if has("pcg") {
        setup.newton.directions = pliant::core::Directions::Pcg;
    }
    if has("local") {
        setup.newton.local_updates = true;
    }
    if has("noreuse") {
        setup.newton.reuse_below = 0.0;
    }
    if has("exact") {
        setup.newton.majorize = false;
    }
    if let Some(t) = args.iter().find_map(|a| a.strip_prefix("tol=")) {
        setup.newton.abs_tol = t.parse().expect("tol=T takes a number (N)");
    }
    if let Some(r) = args.iter().find_map(|a| a.strip_prefix("reuse=")) {
        setup.newton.reuse_below = r.parse().expect("reuse=R takes a number");
    }
    let mut friction = pliant::gait::table_friction();
    if let Some(mu) = args.iter().find_map(|a| a.strip_prefix("mu=")) {
        let mu: f64 = mu.parse().expect("mu=MU takes a number");
        friction = pliant::gait::table_friction_with(mu);
    }
    if let Some(v) = args.iter().find_map(|a| a.strip_prefix("slip=")) {
        // The smooth Coulomb law's slip velocity (m/s) instead of the
        // table's 1 mm/s: the force is `μ N tanh(7.5 v / ν)`, so a foot
        // held below `μ N` creeps at a fraction of `ν`.
        let slip_velocity: f64 = v.parse().expect("slip=V takes a number (m/s)");
        let pliant::environment::Friction::SmoothCoulomb { mu, mu_axis, .. } = friction else {
            panic!("slip=V applies to the table's smooth Coulomb law");
        };
        friction = pliant::environment::Friction::SmoothCoulomb {
            mu,
            mu_axis,
            slip_velocity,
        };
    }
    if has("lagged") {
        // The cable paper's own friction model (§II-C).
        friction = pliant::environment::Friction::LaggedQuadratic {
            mu: 100.0,
            mu_axis: None,
        };
    }
    if friction != pliant::gait::table_friction() {
        let puppy = pliant::robots::Robot::puppy().unwrap();
        setup.robot =
            pliant::gait::GaitRobot::from_robot(&puppy, [0.0, 0.0, -9.81], friction).unwrap();
    }
    // `marquardt`: Levenberg–Marquardt's damping by Marquardt's steps
    // instead of Nielsen's update.
    let damping = if has("marquardt") {
        Damping::Marquardt
    } else {
        Damping::Nielsen
    };
    println!("friction: {friction:?}");
    println!("Newton: {:?}", setup.newton);
    // `noref`: every trial step starts where `NewtonStart` says, not near
    // the current iterate's trajectory.
    let reference_starts = !has("noref");
    if has("run") {
        let iters = args
            .iter()
            .find_map(|a| a.strip_prefix("iters="))
            .map_or(10, |n| n.parse().expect("iters=N takes a whole number"));
        whole_runs(
            &setup,
            reference_starts,
            !has("noload"),
            !has("nocut"),
            iters,
            damping,
            args.iter()
                .find_map(|a| a.strip_prefix("sims="))
                .map(|n| n.parse().expect("sims=N takes a whole number")),
        );
        return;
    }
    if has("starts") {
        starts(&setup);
        return;
    }
    let z: Vec<f64> = (0..setup.gait.nz())
        .map(|j| 0.002 + 0.004 * ((j * 7) % 5) as f64 / 4.0)
        .collect();
    let (shooting, ctx) = setup.problem(&z).unwrap();
    let map = shooting.map().clone();
    let base = shooting.base().to_vec();
    let p = map.params(&base, &z).unwrap();
    // A separate simulator for the sweeps (the problem owns its own).
    let model = setup.robot.model().unwrap();
    let mut sim =
        pliant::core::Simulator::new(model, pliant::core::Integrator::Bdf1, setup.h, setup.newton)
            .unwrap();
    let v0 = vec![0.0; ctx.x0.len()];
    let objectives = {
        // The same objectives as the problem, rebuilt for the bare sweeps.
        let (_, c2) = setup.problem(&z).unwrap();
        let com = pliant::optim::ComPath::new(&c2.model, &[0, 1], c2.targets.clone(), 1e4).unwrap();
        let v: Vec<Box<dyn pliant::optim::Objective>> = vec![Box::new(com)];
        v
    };
    let (mut t_plain, mut t_store, mut t_fwd, mut t_adj) = (vec![], vec![], vec![], vec![]);
    let mut newton = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let tr = rollout(&mut sim, &ctx.x0, &v0, &p, Memory::Recompute).unwrap();
        t_plain.push(t.elapsed().as_secs_f64());
        newton = tr.newton_iterations.iter().sum::<usize>();
        if has("plain") {
            continue;
        }
        let t = Instant::now();
        let tr = rollout(&mut sim, &ctx.x0, &v0, &p, Memory::Store).unwrap();
        t_store.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        std::hint::black_box(jacobian_forward(&tr, &mut sim, &map, &base, &objectives).unwrap());
        t_fwd.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        std::hint::black_box(gradient_adjoint(&tr, &mut sim, &map, &base, &objectives).unwrap());
        t_adj.push(t.elapsed().as_secs_f64());
    }
    if has("plain") {
        println!(
            "plain rollout {:.3} s (median of 3), {:.2} Newton iterations per step",
            median(t_plain),
            newton as f64 / setup.steps() as f64
        );
        return;
    }
    let (tp, ts, tf, ta) = (
        median(t_plain),
        median(t_store),
        median(t_fwd),
        median(t_adj),
    );
    let steps = setup.steps();
    println!(
        "puppy: {} nodes, {} DOFs, {} steps, {} parameters; {:.2} Newton iterations per step",
        setup.robot.n_nodes(),
        ctx.model.n_dofs(),
        steps,
        map.nz(),
        newton as f64 / steps as f64
    );
    println!(
        "  plain rollout {tp:.3} s ({:.1} ms/step) | rollout recording step blocks {ts:.3} s | forward-sensitivity sweep ({} columns) {tf:.3} s | adjoint sweep {ta:.3} s",
        1e3 * tp / steps as f64,
        map.nz()
    );
    println!(
        "  adjoint gradient (recording rollout + sweep) / plain rollout = {:.2}; sweep alone / plain rollout = {:.2}",
        (ts + ta) / tp,
        ta / tp
    );
    // Steady-state cost of an iteration: (time for 3 iterations − time for
    // 1) / 2, so the initial evaluation is not counted.
    let sims = setup.trial_simulators;
    for (name, method, trial_simulators) in [
        (
            "Gauss-Newton + line search",
            Method::GaussNewton { tol: 1e-12 },
            1,
        ),
        (
            "Levenberg-Marquardt, trials one after the other",
            Method::LevenbergMarquardt {
                tol: 1e-12,
                damping,
            },
            1,
        ),
        (
            "Levenberg-Marquardt, trials on 2 simulators at once",
            Method::LevenbergMarquardt {
                tol: 1e-12,
                damping,
            },
            2,
        ),
    ] {
        let only_gn = has("gn") && !has("lm");
        let only_lm = has("lm") && !has("gn");
        if (only_gn && name.starts_with('L')) || (only_lm && name.starts_with('G')) {
            continue;
        }
        if trial_simulators > sims.max(1) {
            println!("  {name}: skipped ({sims} core(s))");
            continue;
        }
        let mut setup = setup.clone();
        setup.trial_simulators = trial_simulators;
        let mut per_iter = Vec::new();
        let mut trials = 0;
        let mut newton_per_step = 0.0;
        for _ in 0..3 {
            let mut t = [0.0; 2];
            let mut r = [0usize; 2];
            let mut nw = [(0usize, 0usize); 2];
            for (i, iters) in [1u64, 3].into_iter().enumerate() {
                let (sh, _) = setup.problem(&z).unwrap();
                let sh = sh
                    .with_reference_starts(reference_starts)
                    .with_forecast_cuts(!has("nocut"));
                let settings = OptimizeSettings {
                    method,
                    max_iters: iters,
                    checkpoint: None,
                };
                let t0 = Instant::now();
                let (res, _) = optimize(sh, &z, &settings, None).unwrap();
                t[i] = t0.elapsed().as_secs_f64();
                r[i] = res.stats.rollouts;
                nw[i] = (res.stats.newton_iterations, res.stats.steps);
            }
            per_iter.push((t[1] - t[0]) / 2.0);
            trials = r[1] - r[0];
            newton_per_step = (nw[1].0 - nw[0].0) as f64 / (nw[1].1 - nw[0].1).max(1) as f64;
        }
        println!(
            "  {name}: {:.2} s per iteration in steady state (line search included; {trials} rollouts in iterations 2–3, {newton_per_step:.2} Newton iterations per step in the last run's; median of 3)",
            median(per_iter)
        );
    }
}

/// `run`: 10 (`iters=N`: N) Levenberg–Marquardt iterations of the asymmetric Puppy from the
/// default seed, trials on 1 and on 2 simulators: wall time per iteration
/// averaged over the whole run (rejected trials included), and whether both
/// runs give the same iterates.
fn whole_runs(
    setup: &GaitSetup,
    reference_starts: bool,
    load_check: bool,
    forecast_cuts: bool,
    iters: u64,
    damping: Damping,
    only_sims: Option<usize>,
) {
    let z0 = setup.default_z0().unwrap();
    let mut zs = Vec::new();
    let all = 1..=setup.trial_simulators.max(1);
    if let Some(n) = only_sims.filter(|n| !all.contains(n)) {
        println!("  sims={n}: this machine gives {all:?} simulator(s)");
    }
    for sims in all.filter(|s| only_sims.is_none_or(|o| o == *s)) {
        let mut s = setup.clone();
        s.trial_simulators = sims;
        let (sh, _) = s.problem(&z0).unwrap();
        let sh = sh
            .with_reference_starts(reference_starts)
            .with_load_check(load_check)
            .with_forecast_cuts(forecast_cuts);
        let settings = OptimizeSettings {
            method: Method::LevenbergMarquardt {
                tol: 1e-12,
                damping,
            },
            max_iters: iters,
            checkpoint: None,
        };
        let t0 = Instant::now();
        let (res, _) = optimize(sh, &z0, &settings, None).unwrap();
        let t = t0.elapsed().as_secs_f64();
        println!(
            "  {iters} iterations, trials on {sims} simulator(s): {:.2} s per iteration (the initial rollout included); {} rollouts ({} alongside another, {} cut short, {} of them by the forecast); {:.2} Newton iterations per step; objective {:.4e} -> {:.4e}; {:.2} s in rollouts, {:.2} s in derivatives; {} trial batches one at a time for a busy machine (other processes took {} cores in the last round)",
            t / iters as f64,
            res.stats.rollouts,
            res.stats.rollouts_in_parallel,
            res.stats.rollouts_cut_short,
            res.stats.rollouts_cut_by_forecast,
            res.stats.newton_iterations as f64 / res.stats.steps.max(1) as f64,
            res.initial_objective,
            res.objective,
            res.stats.rollout_seconds,
            res.stats.derivative_seconds,
            res.stats.busy_machine_batches,
            res.stats
                .others_cores
                .map_or("an unknown number of".into(), |c| format!("{c:.2}"))
        );
        // What the time bought: the objective after each iteration.
        let trace: Vec<String> = res
            .history
            .iter()
            .map(|h| format!("{:.2} ({:.1} s)", h.objective, h.seconds))
            .collect();
        println!("    objective by iteration (elapsed): {}", trace.join(", "));
        zs.push(res.z);
    }
    if zs.len() == 2 {
        println!("  bitwise the same iterates: {}", zs[0] == zs[1]);
    }
}

/// `starts`: Newton iterations per step of a rollout at `w + ε d` after the
/// Jacobian at `w`, with and without starting steps near `w`'s trajectory.
fn starts(setup: &GaitSetup) {
    let z0 = setup.default_z0().unwrap();
    for on in [false, true] {
        let (sh, _) = setup.problem(&z0).unwrap();
        let sh = sh.with_reference_starts(on);
        let w = sh.w_of(&z0);
        sh.jacobian(&w).unwrap();
        for eps in [1e-6, 1e-4, 1e-2, 1e-1] {
            let w2: Vec<f64> = w
                .iter()
                .enumerate()
                .map(|(j, x)| x + eps * (1.0 + (j % 3) as f64) * x.abs().max(1e-3))
                .collect();
            let before = sh.stats();
            let t0 = Instant::now();
            sh.cost_below(&w2, f64::INFINITY).unwrap();
            let after = sh.stats();
            println!(
                "  reference starts {on}, eps {eps:e}: {:.2} Newton iterations per step, {:.3} s",
                (after.newton_iterations - before.newton_iterations) as f64
                    / (after.steps - before.steps) as f64,
                t0.elapsed().as_secs_f64()
            );
        }
    }
}
