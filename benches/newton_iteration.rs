//! One Newton iteration on 3-D spring lattices of about 10k, 100k and 300k
//! DOFs: assembly (energy, gradient, Hessian), numeric Cholesky, solve —
//! against faer's bare numeric factorization of the same matrix, measured in
//! the same run; plus the dual-number fallback's assembly against the
//! analytic spring, and peak memory.
//!
//! `cargo bench --bench newton_iteration` (add `-- 10k 100k` to pick sizes).
//! Prints medians over repeated runs.

use faer::Side;
use faer::sparse::SparseColMat;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use pliant::core::assembly::Assembler;
use pliant::core::element::FallbackOnly;
use pliant::core::linsolve::LinearSolver;
use pliant::core::{
    BindInfo, Energy, EnergySpec, EvalState, Integrator, ModelBuilder, NewtonSettings, Simulator,
};
use pliant::environment::{Gravity, Ground, NormalLaw, Springs};
use pliant::lattice::SpringLattice;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The lattice's springs with every derivative from the dual-number fallback.
#[derive(Debug, Serialize, Deserialize)]
struct FallbackSprings(Springs);

impl EnergySpec for FallbackSprings {
    fn bind(&self, info: &BindInfo) -> pliant::core::Result<Box<dyn Energy>> {
        Ok(Box::new(FallbackOnly(self.0.bind(info)?)))
    }
}
pliant::core::register_energy!(FallbackSprings = "bench_fallback_springs", "bench", "{}");

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.to_string())
        })
        .and_then(|l| {
            l.split_whitespace()
                .nth(1)
                .and_then(|v| v.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn lattice_model(n: usize, fallback: bool) -> pliant::core::Model {
    let lat = SpringLattice {
        n: [n, n, n],
        spacing: 0.01,
        stiffness: 500.0,
        node_mass: 1e-3,
        origin: [0.0, 0.0, 1e-3],
    };
    let mut b = ModelBuilder::new(3).unwrap();
    for p in lat.positions() {
        b.add_node(&p, lat.node_mass).unwrap();
    }
    if fallback {
        b.add(FallbackSprings(lat.springs(0)));
    } else {
        b.add(lat.springs(0));
    }
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    b.add(Ground::new(
        &[0.0, 0.0, 0.0],
        &[0.0, 0.0, 1.0],
        NormalLaw::Quadratic {
            stiffness: 1e4,
            smoothing: 1e-4,
        },
        None,
    ));
    b.build().unwrap()
}

fn bench_size(label: &str, n: usize, reps: usize, steps: usize) {
    let h = 0.01;
    let model = lattice_model(n, false);
    let ndof = model.n_dofs();
    let mut asm = Assembler::new(&model).unwrap();
    let solver = LinearSolver::new(asm.symbolic()).unwrap();
    // A deformed state: every node displaced a little.
    let q: Vec<f64> = model
        .q0()
        .iter()
        .enumerate()
        .map(|(i, x)| x + 1e-4 * ((i * 7919) % 13) as f64 / 13.0)
        .collect();
    let p: Vec<f64> = vec![];
    let s = EvalState {
        q: &q,
        q_prev: model.q0(),
        p: &p,
        h,
        dt: h,
        t: 0.0,
    };
    let diag: Vec<f64> = asm.free_dofs().iter().map(|&i| model.mass()[i]).collect();
    let mut g = vec![0.0; ndof];

    // faer alone: symbolic analysis of the same matrix, then bare numeric LLᵀ.
    let hmat = {
        let m = asm.hessian(&model, &s, h * h, &diag, false).unwrap();
        SparseColMat::new(m.symbolic().to_owned().unwrap(), m.val().to_vec())
    };
    let sym = SymbolicLlt::try_new(hmat.symbolic(), Side::Lower).unwrap();
    // Interleave the bare factorization with our iteration so both see the
    // same machine state; report medians and the median of per-round ratios.
    let (mut tv, mut tg, mut th, mut tf, mut ts, mut tb, mut ratio) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..reps {
        let t0 = Instant::now();
        std::hint::black_box(
            Llt::try_new_with_symbolic(sym.clone(), hmat.as_ref(), Side::Lower).unwrap(),
        );
        let bare = t0.elapsed().as_secs_f64();
        // A Newton iteration as the solver runs it: Hessian assembly,
        // factorization, solve, then the line search's value and gradient.
        let t0 = Instant::now();
        let hm = asm.hessian(&model, &s, h * h, &diag, false).unwrap();
        let t1 = Instant::now();
        let f = solver.factor(hm).unwrap();
        let t2 = Instant::now();
        let rhs: Vec<f64> = g.iter().take(asm.n_free()).map(|v| -v).collect();
        std::hint::black_box(f.solve(&rhs));
        let t3 = Instant::now();
        std::hint::black_box(asm.energy(&model, &s));
        let t4 = Instant::now();
        g.fill(0.0);
        asm.add_gradient(&model, &s, h * h, &mut g);
        let t5 = Instant::now();
        th.push((t1 - t0).as_secs_f64());
        tf.push((t2 - t1).as_secs_f64());
        ts.push((t3 - t2).as_secs_f64());
        tv.push((t4 - t3).as_secs_f64());
        tg.push((t5 - t4).as_secs_f64());
        tb.push(bare);
        ratio.push((t5 - t0).as_secs_f64() / bare);
    }
    let (t_value, t_grad, t_hess, t_factor, t_solve, t_bare) = (
        median(tv),
        median(tg),
        median(th),
        median(tf),
        median(ts),
        median(tb),
    );
    let ratio = median(ratio);
    let assembly = t_hess + t_value + t_grad;
    let iteration = assembly + t_factor + t_solve;

    // Whole time steps: wall time per Newton iteration.
    let mut sim = Simulator::new(
        lattice_model(n, false),
        Integrator::ImplicitEuler,
        h,
        NewtonSettings::default(),
    )
    .unwrap();
    let start = Instant::now();
    let mut iters = 0;
    for _ in 0..steps {
        iters += sim.step().unwrap().newton.iterations;
    }
    let per_iter_in_steps = start.elapsed().as_secs_f64() / iters.max(1) as f64;

    // Fallback vs analytic spring assembly (blocks + scatter), same state.
    let fb_model = lattice_model(n, true);
    let mut fb_asm = Assembler::new(&fb_model).unwrap();
    let (mut ta, mut tfb, mut fratio) = (vec![], vec![], vec![]);
    for _ in 0..reps {
        let t0 = Instant::now();
        std::hint::black_box(asm.hessian(&model, &s, h * h, &diag, false).unwrap());
        g.fill(0.0);
        asm.add_gradient(&model, &s, h * h, &mut g);
        let t1 = Instant::now();
        std::hint::black_box(fb_asm.hessian(&fb_model, &s, h * h, &diag, false).unwrap());
        g.fill(0.0);
        fb_asm.add_gradient(&fb_model, &s, h * h, &mut g);
        let t2 = Instant::now();
        ta.push((t1 - t0).as_secs_f64());
        tfb.push((t2 - t1).as_secs_f64());
        fratio.push((t2 - t1).as_secs_f64() / (t1 - t0).as_secs_f64());
    }
    let (t_an, t_fb, fratio) = (median(ta), median(tfb), median(fratio));

    println!(
        "{label:>5}: {ndof} DOFs, {} stored Hessian entries (lower)\n  \
         assembly {:.1} ms (value {:.1}, gradient {:.1}, Hessian {:.1}); numeric Cholesky {:.1} ms; solve {:.1} ms\n  \
         Newton iteration {:.1} ms; bare faer factorization {:.1} ms; ratio {:.2} (median of {reps} interleaved rounds); assembly {:.1}% of the iteration\n  \
         measured inside time steps: {:.1} ms per Newton iteration ({iters} iterations in {steps} steps)\n  \
         dual-number fallback springs: Hessian+gradient assembly {:.1} ms vs analytic {:.1} ms, ratio {:.2} (median of interleaved rounds)\n  \
         peak RSS so far {:.0} MiB",
        asm.nnz(),
        assembly * 1e3,
        t_value * 1e3,
        t_grad * 1e3,
        t_hess * 1e3,
        t_factor * 1e3,
        t_solve * 1e3,
        iteration * 1e3,
        t_bare * 1e3,
        ratio,
        100.0 * assembly / iteration,
        per_iter_in_steps * 1e3,
        t_fb * 1e3,
        t_an * 1e3,
        fratio,
        peak_rss_mib(),
    );
}

fn main() {
    pliant::init();
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let want = |s: &str| args.is_empty() || args.iter().any(|a| a == s);
    println!("threads: {}", rayon::current_num_threads());
    if want("10k") {
        bench_size("10k", 15, 7, 2);
    }
    if want("100k") {
        bench_size("100k", 32, 5, 2);
    }
    if want("300k") {
        bench_size("300k", 46, 3, 1);
    }
}
