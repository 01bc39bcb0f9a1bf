//! The solver at scale: a neo-Hookean block of n³ cubic cells (1 cm each)
//! dropped 2 cm onto frictional ground, simulated for one second at pliant's
//! usual step (BDF1, `NewtonSettings::fast()`) — the scene of `benches/warp/warp_block.py`, which runs NVIDIA
//! Warp's explicit CPU FEM on the same block, so the two can be compared.
//!
//! Material matched to Warp's stable neo-Hookean at small strain
//! (nominal E = 100 kPa, ν = 0.45 behaves as E ≈ 75.5 kPa, ν ≈ 0.459),
//! gravity 9.81 m/s², ground penalty 1000 N/m per node with smooth Coulomb
//! friction μ = 0.5 (slip velocity 1 mm/s), and Warp's total mass: it gives
//! each of the (n+1)³ grid nodes the mass of one cell at 1000 kg/m³, so the
//! density here is 1000 · ((n+1)/n)³ kg/m³. pliant splits each cell into six
//! tetrahedra (Freudenthal), Warp into five: the nodes and DOFs are the same.
//!
//! Prints, per size and as medians over `--reps` interleaved runs: wall time
//! per simulated second, Newton iterations, factorizations, and the share of
//! the time spent factorizing (factorizations × the median time of one
//! factorization of the final Hessian, timed separately). Writes the final
//! node positions to `target/fem_block/pliant_n{n}.csv` (z up, grid order
//! x fastest, then y, then z) for `benches/warp/compare.py`. With two sizes
//! or more it also prints the largest size's cost per tet-step over the
//! smallest's, paired within each interleaved round (the issue's "within
//! 1.5× of linear"; pairing keeps the load's drift between rounds out of
//! the ratio).
//!
//! `cargo bench --bench fem_block [-- 5 10 20 40] [--reps 3] [--seconds 0.99] [--dt 0.033] [--default-newton] [--tol N] [--pcg | --no-pcg | --amg] [--parallel-factorization] [--predictor-start] [--refine L]`
//!
//! `--refine L` meshes one block of edge `L` m (1000 kg/m³) at every size
//! instead, on a ground of the same stiffness per unit area, with Newton's
//! tolerance scaled with a node's weight: the same physical problem at
//! every resolution, so the per-step cost shows how the solver scales
//! (Warp's scene grows the block with `n`, and a taller block is a harder
//! landing).
//!
//! `--predictor-start` starts every Newton solve from the inertial predictor
//! (`pliant_core::NewtonStart::Predictor`) instead of the lower-potential
//! rule.
//!
//! `--parallel-factorization` lets large factors use faer's parallel kernels
//! (`pliant_core::linsolve::set_parallel_factorization`; off by default).
//!
//! The default step is pliant's usual one, the cable paper's h = 0.033 s
//! (30 steps per simulated second); `--dt 0.01` is the finer alternative.
//!
//! `cargo bench --bench fem_block -- --orderings 5 10 20 40` compares the
//! fill-reducing orderings (AMD, nested dissection) on the block's Hessian.

use pliant::core::assembly::Assembler;
use pliant::core::linsolve::{LinearSolver, Ordering};
use pliant::core::{
    Directions, EvalState, Integrator, Model, ModelBuilder, NewtonSettings, Simulator,
};
use pliant::environment::{Friction, Gravity, Ground, NormalLaw};
use pliant::fem::{Material, TetMesh};
use std::io::Write;
use std::time::Instant;

const CELL: f64 = 0.01;
const DROP: f64 = 0.02;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn range(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}

/// The block with `n` cells a side, its lowest face `DROP` above the ground:
/// Warp's scene (cells of `CELL`), or with `refine = Some(L)` one block of
/// edge `L` (m) meshed `n` cells a side, at 1000 kg/m³, on a ground of the
/// same stiffness per unit area at every `n` (1000 N/m per node of a 1 cm
/// grid) — the same physical problem at every resolution.
fn block(n: i64, refine: Option<f64>) -> (Model, usize) {
    let cell = refine.map_or(CELL, |l| l / n as f64);
    let mesh = TetMesh::from_voxel_boxes(&[([0, 0, 0], [n, n, n])], cell, [0.0, 0.0, DROP])
        .expect("a box mesh");
    let mut b = ModelBuilder::new(3).expect("3-D");
    // Warp's add_soft_grid gives each of the (n+1)³ grid nodes the mass of
    // one cell; the same total mass here.
    let rho = match refine {
        None => 1000.0 * ((n + 1) as f64 / n as f64).powi(3),
        Some(_) => 1000.0,
    };
    let ground_k = 1000.0 * (cell / CELL).powi(2);
    mesh.add_to(
        &mut b,
        rho,
        Material::Constant {
            youngs_modulus: 75.5e3,
            poisson_ratio: 0.459,
        },
    )
    .expect("the block");
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    let mut ground = Ground::new(
        &[0.0; 3],
        &[0.0, 0.0, 1.0],
        NormalLaw::Quadratic {
            stiffness: ground_k,
            smoothing: 1e-4,
        },
        Some(Friction::SmoothCoulomb {
            mu: 0.5,
            mu_axis: None,
            slip_velocity: 1e-3,
        }),
    );
    ground.nodes = Some(mesh.boundary_nodes());
    b.add(ground);
    (b.build().expect("the model"), mesh.tets.len())
}

struct Run {
    wall: f64,
    iterations: usize,
    factorizations: usize,
    pcg: usize,
    amg_setups: usize,
    factor_share: f64,
    final_q: Vec<f64>,
}

/// One timed simulation; then the bare factorization time of the final
/// Hessian (median of 3) for the solver share.
fn run(
    n: i64,
    seconds: f64,
    dt: f64,
    newton: NewtonSettings,
    refine: Option<f64>,
) -> (Run, usize, usize) {
    let (model, tets) = block(n, refine);
    // The same relative accuracy at every resolution: the tolerance (N)
    // scales with a node's weight, which scales with the cell's volume.
    let mut newton = newton;
    if let Some(l) = refine {
        newton.abs_tol *= (l / n as f64 / CELL).powi(3);
    }
    let dofs = model.n_dofs();
    let steps = (seconds / dt).round() as usize;
    let mut sim = Simulator::new(model, Integrator::Bdf1, dt, newton).expect("simulator");
    let t = Instant::now();
    let (mut iterations, mut factorizations, mut pcg, mut amg_setups) = (0, 0, 0, 0);
    for _ in 0..steps {
        let r = sim.step().expect("a step").newton;
        if std::env::var_os("FEM_BLOCK_TRACE").is_some() {
            eprintln!(
                "step {:3}: {} iterations, {} factorizations, {} PCG, {} multigrid setups, residual {:.2e} N, {} backtracks",
                sim.steps_done(),
                r.iterations,
                r.factorizations,
                r.pcg_iterations,
                r.amg_setups,
                r.residual,
                r.backtracks
            );
        }
        iterations += r.iterations;
        factorizations += r.factorizations;
        pcg += r.pcg_iterations;
        amg_setups += r.amg_setups;
    }
    let wall = t.elapsed().as_secs_f64();
    let model = sim.model();
    let q = sim.q().to_vec();
    let mut asm = Assembler::new(model).expect("assembler");
    let solver = LinearSolver::new(asm.symbolic()).expect("analysis");
    let mut tf = Vec::new();
    // No factorization to time when there were none (multigrid).
    for _ in 0..if factorizations > 0 { 3 } else { 0 } {
        let m = step_hessian(&mut asm, model, &q, dt);
        let t0 = Instant::now();
        std::hint::black_box(solver.factor(m).expect("factor"));
        tf.push(t0.elapsed().as_secs_f64());
    }
    let factor_share = if tf.is_empty() {
        0.0
    } else {
        (factorizations as f64 * median(tf) / wall).min(1.0)
    };
    (
        Run {
            wall,
            iterations,
            factorizations,
            pcg,
            amg_setups,
            factor_share,
            final_q: q,
        },
        tets,
        dofs,
    )
}

/// The BDF1 step Hessian (`M + dt² K`, lower triangle) at rest at `q`.
fn step_hessian<'a>(
    asm: &'a mut Assembler,
    model: &Model,
    q: &[f64],
    dt: f64,
) -> faer::sparse::SparseColMatRef<'a, usize, f64> {
    let s = EvalState {
        q,
        q_prev: q,
        p: &[],
        h: dt,
        dt,
        t: 0.0,
    };
    let diag: Vec<f64> = asm.free_dofs().iter().map(|&i| model.mass()[i]).collect();
    asm.hessian(model, &s, dt * dt, &diag, false)
        .expect("Hessian")
}

/// The Hessian of the block at rest (BDF1 at `dt`), analysed with AMD and
/// with nested dissection: factor entries and the median time of 3
/// factorizations each, interleaved.
fn orderings(n: i64, dt: f64, parallel: bool) {
    let (model, tets) = block(n, None);
    let mut asm = Assembler::new(&model).expect("assembler");
    let q = model.q0().to_vec();
    let t0 = Instant::now();
    let amd = LinearSolver::with_ordering(asm.symbolic(), Ordering::Amd).expect("AMD");
    let t_amd = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let nd = LinearSolver::with_ordering(asm.symbolic(), Ordering::NestedDissection).expect("ND");
    let t_nd = t0.elapsed().as_secs_f64();
    let auto = LinearSolver::new(asm.symbolic()).expect("auto").ordering();
    let (mut fa, mut fn_) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        for (solver, times) in [(&amd, &mut fa), (&nd, &mut fn_)] {
            let m = step_hessian(&mut asm, &model, &q, dt);
            let t0 = Instant::now();
            std::hint::black_box(solver.factor(m).expect("factor"));
            times.push(t0.elapsed().as_secs_f64());
        }
    }
    let (fa, fn_) = (median(fa), median(fn_));
    // The chosen solver's factorization with faer's parallel kernels (two
    // threads) and sequentially, and one triangular solve.
    let (mut fpar, mut fseq, mut fsolve) = (Vec::new(), Vec::new(), Vec::new());
    let threads = rayon::current_num_threads();
    for _ in 0..3 {
        for par in [faer::Par::rayon(threads), faer::Par::Seq] {
            faer::set_global_parallelism(par);
            pliant::core::linsolve::set_parallel_factorization(par != faer::Par::Seq);
            let solver = LinearSolver::new(asm.symbolic()).expect("analysis");
            let m = step_hessian(&mut asm, &model, &q, dt);
            let t0 = Instant::now();
            let f = solver.factor(m).expect("factor");
            let t = t0.elapsed().as_secs_f64();
            if par == faer::Par::Seq {
                fseq.push(t);
            } else {
                fpar.push(t);
                let b: Vec<f64> = (0..q.len()).map(|i| (i as f64).sin()).collect();
                let t0 = Instant::now();
                std::hint::black_box(f.solve(&b[..asm.n_free()]));
                fsolve.push(t0.elapsed().as_secs_f64());
            }
        }
    }
    faer::set_global_parallelism(faer::Par::rayon(threads));
    pliant::core::linsolve::set_parallel_factorization(parallel);
    println!(
        "      chosen ordering: factorization {:.3} s with faer's parallel kernels ({threads} threads), {:.3} s sequential; one solve {:.2} ms",
        median(fpar),
        median(fseq),
        1e3 * median(fsolve)
    );
    println!(
        "{n:>3}³ cells, {tets:>7} tets, {:>7} DOFs | AMD: {:>11} factor entries, analysis {:7.3} s, factorization {:8.3} s | nested dissection: {:>11} entries ({:.2}×), analysis {:7.3} s, factorization {:8.3} s ({:.2}×) | chosen: {auto:?}",
        q.len(),
        amd.factor_entries(),
        t_amd,
        fa,
        nd.factor_entries(),
        nd.factor_entries() as f64 / amd.factor_entries() as f64,
        t_nd,
        fn_,
        fn_ / fa,
    );
}

fn write_final(n: i64, q: &[f64]) -> std::io::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fem_block");
    std::fs::create_dir_all(&dir)?;
    let mut f =
        std::io::BufWriter::new(std::fs::File::create(dir.join(format!("pliant_n{n}.csv")))?);
    writeln!(f, "x,y,z")?;
    for p in q.chunks(3) {
        writeln!(f, "{:.9},{:.9},{:.9}", p[0], p[1], p[2])?;
    }
    Ok(())
}

fn main() {
    pliant::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str, default: f64| -> f64 {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .map(|v| v.parse().expect("a number"))
            .unwrap_or(default)
    };
    let reps = value("--reps", 3.0) as usize;
    let seconds = value("--seconds", 0.99);
    let dt = value("--dt", 0.033);
    let mut newton = if args.iter().any(|a| a == "--default-newton") {
        NewtonSettings::default()
    } else {
        NewtonSettings::fast()
    };
    newton.abs_tol = value("--tol", newton.abs_tol);
    if args.iter().any(|a| a == "--no-pcg") {
        newton.directions = Directions::Direct;
    }
    if args.iter().any(|a| a == "--pcg") {
        newton.directions = Directions::Pcg;
    }
    if args.iter().any(|a| a == "--amg") {
        newton.directions = Directions::Amg;
    }
    if args.iter().any(|a| a == "--predictor-start") {
        newton.start = pliant::core::NewtonStart::Predictor;
    }
    let refine = args
        .iter()
        .any(|a| a == "--refine")
        .then(|| value("--refine", 0.1));
    let parallel = args.iter().any(|a| a == "--parallel-factorization");
    pliant::core::linsolve::set_parallel_factorization(parallel);
    let mut sizes: Vec<i64> = Vec::new();
    let mut skip = false;
    for a in &args {
        if skip {
            skip = false;
        } else if a.starts_with("--") {
            skip = matches!(
                a.as_str(),
                "--reps" | "--seconds" | "--dt" | "--tol" | "--refine"
            );
        } else if let Ok(n) = a.parse() {
            sizes.push(n);
        }
    }
    if sizes.is_empty() {
        sizes = vec![5, 10, 20];
    }
    if args.iter().any(|a| a == "--orderings") {
        println!(
            "orderings: the block's BDF1 Hessian at rest (dt = {dt} s), {} threads; factorization times are medians of 3, interleaved",
            rayon::current_num_threads()
        );
        for &n in &sizes {
            orderings(n, dt, parallel);
        }
        return;
    }
    if let Some(l) = refine {
        println!(
            "refinement: one block of edge {l} m at every size (1000 kg/m³, ground stiffness 10⁷ N/m per m²), Newton's tolerance scaled with the node weight ({:e} N at 1 cm cells)",
            newton.abs_tol
        );
    }
    println!(
        "block drop: {seconds} s simulated at dt = {dt} s, BDF1, Newton {}, {} threads; medians of {reps} interleaved runs [range]",
        if args.iter().any(|a| a == "--default-newton") {
            "default"
        } else {
            "fast()"
        },
        rayon::current_num_threads()
    );
    let mut runs: Vec<Vec<Run>> = sizes.iter().map(|_| Vec::new()).collect();
    let mut meta = vec![(0, 0); sizes.len()];
    for _ in 0..reps {
        for (k, &n) in sizes.iter().enumerate() {
            let (r, tets, dofs) = run(n, seconds, dt, newton, refine);
            meta[k] = (tets, dofs);
            runs[k].push(r);
        }
    }
    for (k, &n) in sizes.iter().enumerate() {
        let rs = &runs[k];
        let walls: Vec<f64> = rs.iter().map(|r| r.wall / seconds).collect();
        let (lo, hi) = range(&walls);
        let last = rs.last().expect("a run");
        let steps = (seconds / dt).round();
        println!(
            "{n:>3}³ cells: {:>7} tets, {:>7} DOFs | {:8.3} s per simulated second [{lo:.3}–{hi:.3}] | {:.2} Newton iterations, {:.2} factorizations and {:.2} PCG iterations and {:.2} multigrid setups per step | factorization {:.0}% of the time | {:.2} µs per tet-step",
            meta[k].0,
            meta[k].1,
            median(walls.clone()),
            last.iterations as f64 / steps,
            last.factorizations as f64 / steps,
            last.pcg as f64 / steps,
            last.amg_setups as f64 / steps,
            100.0 * median(rs.iter().map(|r| r.factor_share).collect()),
            1e6 * median(walls) * dt / meta[k].0 as f64,
        );
        if refine.is_some() {
            let z: Vec<f64> = last.final_q.chunks(3).map(|p| p[2]).collect();
            let lowest = z.iter().copied().fold(f64::INFINITY, f64::min);
            println!(
                "      final state: mean node height {:.4} mm, lowest node {:+.4} mm",
                1e3 * z.iter().sum::<f64>() / z.len() as f64,
                1e3 * lowest
            );
        }
        if let Err(e) = write_final(n, &last.final_q) {
            eprintln!("could not write the final state of n = {n}: {e}");
        }
    }
    if sizes.len() > 1 {
        // The per-step cost's growth with size (within 1.5× of linear is
        // the goal): the largest block's cost per tet-step over the
        // smallest's, paired within each interleaved round (the machine's
        // load drifts between rounds).
        let by_tets = |k: &usize| meta[*k].0;
        let small = (0..sizes.len()).min_by_key(by_tets).expect("two sizes");
        let large = (0..sizes.len()).max_by_key(by_tets).expect("two sizes");
        let (ts, tl) = (meta[small].0 as f64, meta[large].0 as f64);
        let growth: Vec<f64> = runs[small]
            .iter()
            .zip(&runs[large])
            .map(|(rs, rl)| (rl.wall / tl) / (rs.wall / ts))
            .collect();
        let (lo, hi) = range(&growth);
        let rounds: Vec<String> = growth.iter().map(|g| format!("{g:.2}")).collect();
        println!(
            "per tet-step cost, {}³ over {}³ cells, paired by round: {:.2} [{lo:.2}–{hi:.2}] (rounds: {})",
            sizes[large],
            sizes[small],
            median(growth),
            rounds.join(", ")
        );
    }
}
