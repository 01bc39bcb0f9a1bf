//! Newton iteration of neo-Hookean tetrahedral blocks of about 1k, 10k and
//! 100k tetrahedra (assembly, Cholesky, solve, against faer's bare numeric
//! factorization of the same matrix, interleaved), and one simulated second of
//! the Puppy at h = 0.033 s.
//!
//! `cargo bench --bench fem_newton [-- 1k 10k 100k puppy]`; `-- puppyit`
//! times one Newton iteration of the Puppy by its parts (not in the
//! default set).

use faer::Par;
use faer::Side;
use faer::sparse::SparseColMat;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use pliant::core::assembly::Assembler;
use pliant::core::linsolve::LinearSolver;
use pliant::core::{EvalState, Integrator, ModelBuilder, NewtonSettings, Simulator};
use pliant::environment::Friction;
use pliant::fem::{Material, TetMesh};
use pliant::robots::Robot;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn block(label: &str, n: [i64; 3], reps: usize) {
    let mesh = TetMesh::from_voxel_boxes(&[([0, 0, 0], n)], 0.01, [0.0; 3]).unwrap();
    let mut b = ModelBuilder::new(3).unwrap();
    mesh.add_to(
        &mut b,
        100.0,
        Material::Constant {
            youngs_modulus: 1e5,
            poisson_ratio: 0.3,
        },
    )
    .unwrap();
    let model = b.build().unwrap();
    let mut asm = Assembler::new(&model).unwrap();
    let solver = LinearSolver::new(asm.symbolic()).unwrap();
    let q: Vec<f64> = model
        .q0()
        .iter()
        .enumerate()
        .map(|(i, x)| x + 1e-4 * ((i * 7919) % 13) as f64 / 13.0)
        .collect();
    let h = 0.01;
    let s = EvalState {
        q: &q,
        q_prev: model.q0(),
        p: &[],
        h,
        dt: h,
        t: 0.0,
    };
    let diag: Vec<f64> = asm.free_dofs().iter().map(|&i| model.mass()[i]).collect();
    let hm = {
        let m = asm.hessian(&model, &s, h * h, &diag, false).unwrap();
        SparseColMat::new(m.symbolic().to_owned().unwrap(), m.val().to_vec())
    };
    let sym = SymbolicLlt::try_new(hm.symbolic(), Side::Lower).unwrap();
    let mut g = vec![0.0; q.len()];
    let (mut ta, mut tf, mut ts, mut tb, mut ratio) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..reps {
        // The baseline is the faster of faer's sequential and parallel
        // factorizations (ours is sequential unless
        // `set_parallel_factorization` is on).
        let mut bare = f64::INFINITY;
        for par in [Par::Seq, Par::rayon(0)] {
            faer::set_global_parallelism(par);
            let t0 = Instant::now();
            std::hint::black_box(
                Llt::try_new_with_symbolic(sym.clone(), hm.as_ref(), Side::Lower).unwrap(),
            );
            bare = bare.min(t0.elapsed().as_secs_f64());
        }
        faer::set_global_parallelism(Par::rayon(0));
        let t0 = Instant::now();
        std::hint::black_box(asm.energy(&model, &s));
        g.fill(0.0);
        asm.add_gradient(&model, &s, h * h, &mut g);
        let m = asm.hessian(&model, &s, h * h, &diag, false).unwrap();
        let t1 = Instant::now();
        let f = solver.factor(m).unwrap();
        let t2 = Instant::now();
        std::hint::black_box(f.solve(&g[..asm.n_free()]));
        let t3 = Instant::now();
        ta.push((t1 - t0).as_secs_f64());
        tf.push((t2 - t1).as_secs_f64());
        ts.push((t3 - t2).as_secs_f64());
        tb.push(bare);
        ratio.push((t3 - t0).as_secs_f64() / bare);
    }
    let (a, f, so, bare) = (median(ta), median(tf), median(ts), median(tb));
    println!(
        "{label:>5}: {} tets, {} DOFs | assembly {:.1} ms, Cholesky {:.1} ms, solve {:.1} ms | iteration / bare faer {:.2} (median of {reps} interleaved), bare {:.1} ms | assembly {:.1}% of the iteration",
        mesh.tets.len(),
        q.len(),
        a * 1e3,
        f * 1e3,
        so * 1e3,
        median(ratio),
        bare * 1e3,
        100.0 * a / (a + f + so)
    );
}

fn puppy() {
    let robot = Robot::puppy().unwrap();
    // Ground friction: the cable paper's lagged quadratic (§II-C, μ = 100/m)
    // and MAT-DiSMech's smooth Coulomb (μ = 0.6, slip velocity 1 mm/s);
    // Newton with the default settings and with `NewtonSettings::fast()`;
    // all interleaved, medians of 5.
    let frictions = [
        (
            "lagged quadratic (cable paper)",
            Friction::LaggedQuadratic {
                mu: 100.0,
                mu_axis: None,
            },
        ),
        (
            "smooth Coulomb",
            Friction::SmoothCoulomb {
                mu: 0.6,
                mu_axis: None,
                slip_velocity: 1e-3,
            },
        ),
    ];
    let newtons = [
        ("default Newton", NewtonSettings::default()),
        ("NewtonSettings::fast()", NewtonSettings::fast()),
    ];
    let n = frictions.len() * newtons.len();
    let mut times = vec![Vec::new(); n];
    let mut stats = vec![(0, 0); n];
    let mut finals: Vec<Vec<f64>> = vec![Vec::new(); n];
    for _ in 0..5 {
        for (fi, &(_, friction)) in frictions.iter().enumerate() {
            for (ni, &(_, newton)) in newtons.iter().enumerate() {
                let v = fi * newtons.len() + ni;
                let m = robot.on_ground(0.0, [0.0, 0.0, -9.81], friction).unwrap();
                let mut sim = Simulator::new(m, Integrator::Bdf1, 0.033, newton).unwrap();
                let t = Instant::now();
                let (mut iters, mut facts) = (0, 0);
                for _ in 0..30 {
                    let r = sim.step().unwrap().newton;
                    iters += r.iterations;
                    facts += r.factorizations;
                }
                times[v].push(t.elapsed().as_secs_f64());
                stats[v] = (iters, facts);
                finals[v] = sim.q().to_vec();
            }
        }
    }
    for (fi, &(fname, _)) in frictions.iter().enumerate() {
        for (ni, &(nname, _)) in newtons.iter().enumerate() {
            let v = fi * newtons.len() + ni;
            let base = fi * newtons.len();
            let t = median(times[v].clone());
            let dq = finals[v]
                .iter()
                .zip(&finals[base])
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            println!(
                "puppy, {fname} friction, {nname}: {} tets; 1 simulated second (30 steps of 33 ms, {} Newton iterations, {} factorizations) in {:.3} s = {:.1}× real time (median of 5); final state differs from the default settings by {dq:.1e} m",
                robot.mesh.tets.len(),
                stats[v].0,
                stats[v].1,
                t,
                0.99 / t
            );
        }
    }
}

/// One Newton iteration of the Puppy on the gait's table, at its state
/// after 30 steps (1 s) of settling: energy and gradient, Hessian assembly,
/// and factorization plus solve with each ordering (the solver picks AMD
/// below 2,000 unknowns without trying nested dissection).
fn puppy_iteration() {
    use pliant::core::linsolve::Ordering;
    let robot = Robot::puppy().unwrap();
    let model = robot
        .on_ground(0.0, [0.0, 0.0, -9.81], pliant::gait::table_friction())
        .unwrap();
    let h = 0.033;
    let mut sim = Simulator::new(model, Integrator::Bdf1, h, NewtonSettings::fast()).unwrap();
    for _ in 0..30 {
        sim.step().unwrap();
    }
    let q = sim.q().to_vec();
    let model = sim.model();
    let mut asm = Assembler::new(model).unwrap();
    let s = EvalState {
        q: &q,
        q_prev: &q,
        p: &[],
        h,
        dt: h,
        t: 0.0,
    };
    let diag: Vec<f64> = asm.free_dofs().iter().map(|&i| model.mass()[i]).collect();
    let solvers = [Ordering::Amd, Ordering::NestedDissection]
        .map(|o| (o, LinearSolver::with_ordering(asm.symbolic(), o).unwrap()));
    let mut g = vec![0.0; q.len()];
    let nf = asm.n_free();
    let mut t = vec![vec![]; 4];
    for _ in 0..50 {
        let t0 = Instant::now();
        std::hint::black_box(asm.energy(model, &s));
        g.fill(0.0);
        asm.add_gradient(model, &s, h * h, &mut g);
        let t1 = Instant::now();
        let m = asm.hessian(model, &s, h * h, &diag, false).unwrap();
        let t2 = Instant::now();
        t[0].push((t1 - t0).as_secs_f64());
        t[1].push((t2 - t1).as_secs_f64());
        for (i, (_, so)) in solvers.iter().enumerate() {
            let t2 = Instant::now();
            let f = so.factor(m).unwrap();
            std::hint::black_box(f.solve(&g[..nf]));
            t[2 + i].push(t2.elapsed().as_secs_f64());
        }
    }
    println!(
        "puppy iteration: {} DOFs | energy and gradient {:.2} ms, Hessian {:.2} ms (medians of 50)",
        nf,
        1e3 * median(t[0].clone()),
        1e3 * median(t[1].clone())
    );
    for (i, (o, so)) in solvers.iter().enumerate() {
        println!(
            "  {o:?}: {} factor entries, factorization and solve {:.2} ms",
            so.factor_entries(),
            1e3 * median(t[2 + i].clone())
        );
    }
}

fn main() {
    pliant::init();
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let want = |s: &str| args.is_empty() || args.iter().any(|a| a == s);
    if want("1k") {
        block("1k", [5, 6, 6], 9);
    }
    if want("10k") {
        block("10k", [12, 12, 12], 7);
    }
    if want("100k") {
        block("100k", [26, 26, 25], 3);
    }
    if want("puppy") {
        puppy();
    }
    if args.iter().any(|a| a == "puppyit") {
        puppy_iteration();
    }
}
