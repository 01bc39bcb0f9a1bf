//! Geometric multigrid on the manta ray's shells, measured (issue 15: the
//! per-triangle cost of a manta step grows with the mesh because its
//! direct and kept-factor solves do; algebraic multigrid lost on these
//! bending-dominated plates).
//!
//! The manta ray of `pliant::shell_scenes::Manta` is built on nested 1 : 4
//! refinements of its 350-triangle mesh (`pliant::shell::subdivide`), held
//! in a bent shape `z = 0.3 x² (0.5 + y)` at rest, and Newton's matrix
//! `A = h² ∇²E + M` (h = 5 ms) is solved for a smooth and a rough
//! right-hand side by conjugate gradients preconditioned with one V-cycle
//! over the whole hierarchy: Galerkin coarse operators `Pᵀ A P` with the
//! prolongation `P` of Loop subdivision or of linear interpolation (each
//! coordinate alike), one forward block Gauss–Seidel sweep (3 × 3 node
//! blocks) before the coarse correction and one backward sweep after, and
//! a sparse Cholesky factorization on the 350-triangle level. Printed per
//! size: PCG iterations to relative residuals 10⁻⁶ and 10⁻¹⁰, time of the
//! Galerkin set-up and per iteration, against one factorization of `A`
//! with the solver Newton uses.
//!
//! `cargo bench --bench shell_multigrid [-- LEVELS]` (default 4: up to
//! 89,600 triangles; 5 adds 358,400).

use faer::sparse::{SparseColMat, Triplet};
use pliant::core::EvalState;
use pliant::core::assembly::Assembler;
use pliant::core::linsolve::{Factor, LinearSolver};
use pliant::shell::TriMesh;
use pliant::shell::subdivide::{Refinement, Weights, refine};
use pliant::shell_scenes::Manta;
use std::time::Instant;

/// Per fine node, its weights on coarse nodes.
type NodeWeights = Vec<Vec<(usize, f64)>>;

/// A square sparse matrix by rows (full, both triangles), 3 unknowns per
/// node.
struct Csr {
    ptr: Vec<usize>,
    col: Vec<usize>,
    val: Vec<f64>,
}

impl Csr {
    fn n(&self) -> usize {
        self.ptr.len() - 1
    }

    fn from_rows(rows: Vec<Vec<(usize, f64)>>) -> Self {
        let mut ptr = vec![0];
        let (mut col, mut val) = (Vec::new(), Vec::new());
        for mut r in rows {
            r.sort_by_key(|e| e.0);
            let mut last = usize::MAX;
            for (c, v) in r {
                if c == last {
                    *val.last_mut().unwrap() += v;
                } else {
                    col.push(c);
                    val.push(v);
                    last = c;
                }
            }
            ptr.push(col.len());
        }
        Self { ptr, col, val }
    }

    /// The full matrix of a lower triangle by columns.
    fn from_lower(a: faer::sparse::SparseColMatRef<'_, usize, f64>) -> Self {
        let n = a.nrows();
        let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        let (cp, ri, v) = (a.symbolic().col_ptr(), a.symbolic().row_idx(), a.val());
        for j in 0..a.ncols() {
            for k in cp[j]..cp[j + 1] {
                let i = ri[k];
                rows[i].push((j, v[k]));
                if i != j {
                    rows[j].push((i, v[k]));
                }
            }
        }
        Self::from_rows(rows)
    }

    fn mul(&self, x: &[f64], y: &mut [f64]) {
        for (i, yi) in y.iter_mut().enumerate() {
            let r = self.ptr[i]..self.ptr[i + 1];
            *yi = self.col[r.clone()]
                .iter()
                .zip(&self.val[r])
                .map(|(&c, &v)| v * x[c])
                .sum();
        }
    }

    /// `Pᵀ A P` for `P` = `w ⊗ I₃` (`w`: per fine node its coarse weights).
    fn galerkin(&self, w: &[Vec<(usize, f64)>], n_coarse_nodes: usize) -> Csr {
        let nc = 3 * n_coarse_nodes;
        // A P by rows (Gustavson with a dense accumulator).
        let mut acc = vec![0.0; nc];
        let mut mark = vec![usize::MAX; nc];
        let mut ap: Vec<Vec<(usize, f64)>> = Vec::with_capacity(self.n());
        for i in 0..self.n() {
            let mut cols = Vec::new();
            for k in self.ptr[i]..self.ptr[i + 1] {
                let (j, a) = (self.col[k], self.val[k]);
                let (node, d) = (j / 3, j % 3);
                for &(c, pw) in &w[node] {
                    let cj = 3 * c + d;
                    if mark[cj] != i {
                        mark[cj] = i;
                        acc[cj] = 0.0;
                        cols.push(cj);
                    }
                    acc[cj] += a * pw;
                }
            }
            ap.push(cols.into_iter().map(|c| (c, acc[c])).collect());
        }
        // Pᵀ (A P): fine row i of A P goes to coarse rows 3c + i % 3.
        let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); nc];
        for (i, r) in ap.iter().enumerate() {
            for &(c, pw) in &w[i / 3] {
                let ci = 3 * c + i % 3;
                rows[ci].extend(r.iter().map(|&(cj, v)| (cj, pw * v)));
            }
        }
        Csr::from_rows(rows)
    }

    /// Inverses of the 3 × 3 diagonal node blocks.
    fn block_inverses(&self) -> Vec<[f64; 9]> {
        (0..self.n() / 3)
            .map(|node| {
                let mut b = [0.0; 9];
                for a in 0..3 {
                    let i = 3 * node + a;
                    for k in self.ptr[i]..self.ptr[i + 1] {
                        let j = self.col[k];
                        if j / 3 == node {
                            b[3 * a + j % 3] = self.val[k];
                        }
                    }
                }
                if std::env::var("PLIANT_MG_POINT").is_ok_and(|v| v == "1") {
                    let mut d = [0.0; 9];
                    for a in 0..3 {
                        d[4 * a] = 1.0 / b[4 * a];
                    }
                    d
                } else {
                    inverse3(&b)
                }
            })
            .collect()
    }

    fn lower_factor(&self) -> Factor {
        let t: Vec<Triplet<usize, usize, f64>> = (0..self.n())
            .flat_map(|i| {
                (self.ptr[i]..self.ptr[i + 1])
                    .filter(move |&k| self.col[k] <= i)
                    .map(move |k| Triplet::new(i, self.col[k], self.val[k]))
            })
            .collect();
        let m = SparseColMat::try_new_from_triplets(self.n(), self.n(), &t).unwrap();
        let solver = LinearSolver::new(m.symbolic()).unwrap();
        solver.factor(m.as_ref()).unwrap()
    }
}

fn inverse3(m: &[f64; 9]) -> [f64; 9] {
    pliant::core::mat3::inv3(m, pliant::core::mat3::det3(m))
}

/// One level of the hierarchy: its operator, node-block inverses and the
/// prolongation from the next coarser level.
struct Level {
    a: Csr,
    dinv: Vec<[f64; 9]>,
    /// `λ_max(D⁻¹A)` (block Jacobi), estimated by power iteration.
    lambda: f64,
    /// Weights from the next coarser level (none on the coarsest).
    w: Option<NodeWeights>,
}

struct Hierarchy {
    levels: Vec<Level>,
    coarsest: Factor,
    /// Gauss–Seidel sweeps before and after each coarse correction.
    sweeps: usize,
    /// Cycles per coarse correction (1: V-cycle, 2: W-cycle).
    gamma: usize,
    /// Chebyshev smoothing of this degree instead of Gauss–Seidel (0: GS).
    chebyshev: usize,
}

/// `y = D⁻¹ x` by node blocks.
fn block_apply(dinv: &[[f64; 9]], x: &[f64], y: &mut [f64]) {
    for (node, d) in dinv.iter().enumerate() {
        let v = [x[3 * node], x[3 * node + 1], x[3 * node + 2]];
        for a in 0..3 {
            y[3 * node + a] = d[3 * a] * v[0] + d[3 * a + 1] * v[1] + d[3 * a + 2] * v[2];
        }
    }
}

/// `λ_max(D⁻¹A)` by 15 power iterations, raised by 10 %.
fn lambda_max(a: &Csr, dinv: &[[f64; 9]]) -> f64 {
    let n = a.n();
    let mut x: Vec<f64> = (0..n)
        .map(|i| 1.0 + ((i * 2_654_435_761) % 1000) as f64 / 1000.0)
        .collect();
    let (mut ax, mut y) = (vec![0.0; n], vec![0.0; n]);
    let mut lambda: f64 = 0.0;
    for _ in 0..15 {
        a.mul(&x, &mut ax);
        block_apply(dinv, &ax, &mut y);
        let norm = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let xn = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        lambda = lambda.max(norm / xn);
        x.iter_mut().zip(&y).for_each(|(x, y)| *x = y / norm);
    }
    1.1 * lambda
}

/// Chebyshev smoothing of degree `degree` on `D⁻¹A x = D⁻¹b` over
/// `[λ/30, λ]` (Saad, Alg. 12.1).
fn chebyshev(l: &Level, b: &[f64], x: &mut [f64], degree: usize) {
    let (hi, lo) = (l.lambda, l.lambda / 30.0);
    let (theta, delta) = (0.5 * (hi + lo), 0.5 * (hi - lo));
    let sigma = theta / delta;
    let mut rho = 1.0 / sigma;
    let n = b.len();
    let mut r = vec![0.0; n];
    l.a.mul(x, &mut r);
    r.iter_mut().zip(b).for_each(|(r, b)| *r = b - *r);
    let mut d = vec![0.0; n];
    block_apply(&l.dinv, &r, &mut d);
    d.iter_mut().for_each(|v| *v /= theta);
    let (mut ad, mut z) = (vec![0.0; n], vec![0.0; n]);
    for step in 0..degree {
        x.iter_mut().zip(&d).for_each(|(x, d)| *x += d);
        if step + 1 == degree {
            break;
        }
        l.a.mul(&d, &mut ad);
        r.iter_mut().zip(&ad).for_each(|(r, a)| *r -= a);
        let rho_next = 1.0 / (2.0 * sigma - rho);
        let (c1, c2) = (rho_next * rho, 2.0 * rho_next / delta);
        block_apply(&l.dinv, &r, &mut z);
        d.iter_mut()
            .zip(&z)
            .for_each(|(d, z)| *d = c1 * *d + c2 * z);
        rho = rho_next;
    }
}

/// One block Gauss–Seidel sweep on `A x = b`, forward or backward.
fn sweep(l: &Level, b: &[f64], x: &mut [f64], forward: bool) {
    let nn = l.a.n() / 3;
    let mut step = |node: usize| {
        let mut r = [0.0; 3];
        for a in 0..3 {
            let i = 3 * node + a;
            let mut s = b[i];
            for k in l.a.ptr[i]..l.a.ptr[i + 1] {
                s -= l.a.val[k] * x[l.a.col[k]];
            }
            r[a] = s;
        }
        let d = &l.dinv[node];
        for a in 0..3 {
            x[3 * node + a] += d[3 * a] * r[0] + d[3 * a + 1] * r[1] + d[3 * a + 2] * r[2];
        }
    };
    if forward {
        (0..nn).for_each(&mut step);
    } else {
        (0..nn).rev().for_each(&mut step);
    }
}

impl Hierarchy {
    /// `ws[k]`: weights from mesh k to mesh k + 1 (coarsest first); with
    /// `rediscretized` (coarsest first, one per coarse mesh) the coarse
    /// operators are those meshes' own matrices instead of Galerkin's.
    fn build(
        fine: Csr,
        ws: Vec<NodeWeights>,
        mut rediscretized: Option<Vec<Csr>>,
        sweeps: usize,
        gamma: usize,
    ) -> Self {
        let mut levels = Vec::new();
        let mut a = fine;
        for w in ws.into_iter().rev() {
            let nc_nodes = 1 + w.iter().flatten().map(|e| e.0).max().unwrap();
            let coarse = match rediscretized.as_mut() {
                Some(r) => r.pop().expect("one matrix per coarse mesh"),
                None => a.galerkin(&w, nc_nodes),
            };
            let dinv = a.block_inverses();
            let lambda = lambda_max(&a, &dinv);
            levels.push(Level {
                a,
                dinv,
                lambda,
                w: Some(w),
            });
            a = coarse;
        }
        let coarsest = a.lower_factor();
        levels.push(Level {
            dinv: Vec::new(),
            lambda: 0.0,
            a,
            w: None,
        });
        Self {
            levels,
            coarsest,
            sweeps,
            gamma,
            chebyshev: std::env::var("PLIANT_MG_CHEBYSHEV")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
        }
    }

    fn vcycle(&self, k: usize, b: &[f64]) -> Vec<f64> {
        let l = &self.levels[k];
        let Some(w) = &l.w else {
            return self.coarsest.solve(b);
        };
        let n = l.a.n();
        let mut x = vec![0.0; n];
        if self.chebyshev > 0 {
            chebyshev(l, b, &mut x, self.chebyshev);
        } else {
            for _ in 0..self.sweeps {
                sweep(l, b, &mut x, true);
            }
        }
        let mut r = vec![0.0; n];
        l.a.mul(&x, &mut r);
        r.iter_mut().zip(b).for_each(|(r, b)| *r = b - *r);
        let nc = self.levels[k + 1].a.n();
        let mut rc = vec![0.0; nc];
        for (node, row) in w.iter().enumerate() {
            for &(c, pw) in row {
                for d in 0..3 {
                    rc[3 * c + d] += pw * r[3 * node + d];
                }
            }
        }
        // The coarse problem: `gamma` cycles (1: V-cycle, 2: W-cycle);
        // the coarsest level is solved directly once.
        let mut ec = self.vcycle(k + 1, &rc);
        if self.levels[k + 1].w.is_some() {
            let ac = &self.levels[k + 1].a;
            let mut t = vec![0.0; nc];
            for _ in 1..self.gamma {
                ac.mul(&ec, &mut t);
                t.iter_mut().zip(&rc).for_each(|(t, r)| *t = r - *t);
                let d = self.vcycle(k + 1, &t);
                ec.iter_mut().zip(&d).for_each(|(e, d)| *e += d);
            }
        }
        for (node, row) in w.iter().enumerate() {
            for &(c, pw) in row {
                for d in 0..3 {
                    x[3 * node + d] += pw * ec[3 * c + d];
                }
            }
        }
        if self.chebyshev > 0 {
            chebyshev(l, b, &mut x, self.chebyshev);
        } else {
            for _ in 0..self.sweeps {
                sweep(l, b, &mut x, false);
            }
        }
        x
    }
}

/// PCG iterations to relative residuals `tols` (ascending in accuracy).
fn pcg(a: &Csr, b: &[f64], m: impl Fn(&[f64]) -> Vec<f64>, tols: &[f64]) -> Vec<usize> {
    let n = b.len();
    let bn = b.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut x = vec![0.0; n];
    let mut r = b.to_vec();
    let mut z = m(&r);
    let mut p = z.clone();
    let mut rz: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
    let mut ap = vec![0.0; n];
    let mut out = Vec::new();
    for it in 1..=500 {
        a.mul(&p, &mut ap);
        let alpha = rz / p.iter().zip(&ap).map(|(a, b)| a * b).sum::<f64>();
        x.iter_mut().zip(&p).for_each(|(x, p)| *x += alpha * p);
        r.iter_mut().zip(&ap).for_each(|(r, q)| *r -= alpha * q);
        let rn = r.iter().map(|v| v * v).sum::<f64>().sqrt() / bn;
        while out.len() < tols.len() && rn < tols[out.len()] {
            out.push(it);
        }
        if out.len() == tols.len() {
            break;
        }
        z = m(&r);
        let rz_new: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
        p.iter_mut()
            .zip(&z)
            .for_each(|(p, z)| *p = z + rz_new / rz * *p);
        rz = rz_new;
    }
    while out.len() < tols.len() {
        out.push(usize::MAX);
    }
    out
}

/// Newton's matrix of the manta on `mesh`, bent, at rest.
fn newton_matrix(mesh: &TriMesh) -> (Csr, LinearSolver) {
    let run = Manta::default().build_on(mesh.clone()).unwrap();
    let model = run.sim.model();
    let mut q = model.q0().to_vec();
    for (i, x) in mesh.nodes.iter().enumerate() {
        q[3 * i + 2] = 0.3 * x[0] * x[0] * (0.5 + x[1]);
    }
    let dt = run.sim.dt();
    let p = model.params_at(0.0);
    let s = EvalState {
        q: &q,
        q_prev: &q,
        p: &p,
        h: dt,
        dt,
        t: 0.0,
    };
    let mut asm = Assembler::new(model).unwrap();
    assert_eq!(asm.n_free(), 3 * mesh.nodes.len(), "every coordinate free");
    let diag: Vec<f64> = asm.free_dofs().iter().map(|&i| model.mass()[i]).collect();
    let m = asm.hessian(model, &s, dt * dt, &diag, false).unwrap();
    let solver = LinearSolver::new(m.symbolic()).unwrap();
    (Csr::from_lower(m), solver)
}

fn main() {
    pliant::init();
    let levels: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(4);
    // PLIANT_GS_SWEEPS: Gauss–Seidel sweeps before and after each coarse
    // correction (default 1).
    let sweeps: usize = std::env::var("PLIANT_GS_SWEEPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    // PLIANT_MG_GAMMA: cycles per coarse correction (1 V, 2 W; default 1).
    let gamma: usize = std::env::var("PLIANT_MG_GAMMA")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    // PLIANT_MG_REDISCRETIZE=1: coarse operators from the coarse meshes'
    // own Newton matrices (at the same bent shape) instead of Pᵀ A P.
    let rediscretize = std::env::var("PLIANT_MG_REDISCRETIZE").is_ok_and(|v| v == "1");
    let base = Manta::default().mesh().unwrap();
    // Meshes and both kinds of weights, coarsest first.
    let mut meshes = vec![base];
    let mut weights: Vec<[NodeWeights; 2]> = Vec::new();
    for _ in 0..levels {
        let m = meshes.last().unwrap();
        let Refinement { fine, weights: wl } = refine(m, Weights::Loop).unwrap();
        let wi = refine(m, Weights::Linear).unwrap().weights;
        weights.push([wl, wi]);
        meshes.push(fine);
    }
    println!(
        "manta, bent, Newton's matrix h² ∇²E + M (h = 5 ms); PCG with one cycle (gamma {gamma}; rediscretized coarse operators {rediscretize}; block Gauss–Seidel {sweeps} + {sweeps}, direct on {} triangles)",
        meshes[0].triangles.len()
    );
    for k in 1..=levels {
        let mesh = &meshes[k];
        let (a, solver) = newton_matrix(mesh);
        // Right-hand sides: smooth (a uniform load) and rough (seeded noise).
        let smooth: Vec<f64> = (0..a.n())
            .map(|i| if i % 3 == 2 { 1.0 } else { 0.1 })
            .collect();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let rough: Vec<f64> = (0..a.n())
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
            })
            .collect();
        // One factorization of A, as Newton's direct and kept-factor paths take it.
        let lower = {
            let t: Vec<Triplet<usize, usize, f64>> = (0..a.n())
                .flat_map(|i| {
                    let a = &a;
                    (a.ptr[i]..a.ptr[i + 1])
                        .filter(move |&q| a.col[q] <= i)
                        .map(move |q| Triplet::new(i, a.col[q], a.val[q]))
                })
                .collect();
            SparseColMat::try_new_from_triplets(a.n(), a.n(), &t).unwrap()
        };
        let t0 = Instant::now();
        let f = solver.factor(lower.as_ref()).unwrap();
        let t_factor = t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        std::hint::black_box(f.solve(&rough));
        let t_solve = t0.elapsed().as_secs_f64();
        drop(f);
        println!(
            "{:>7} triangles, {:>7} unknowns, {:>9} nonzeros: factorization {:.3} s ({} factor entries), a solve with it {:.4} s",
            mesh.triangles.len(),
            a.n(),
            a.val.len(),
            t_factor,
            solver.factor_entries(),
            t_solve
        );
        for (wi, name) in [(0, "Loop"), (1, "linear")] {
            // PLIANT_MG_LEVELS=L: at most L levels (the coarsest of them
            // solved directly); 2 is the two-grid method.
            let first = std::env::var("PLIANT_MG_LEVELS")
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
                .map_or(0, |l| k.saturating_sub(l.max(2) - 1));
            let ws: Vec<NodeWeights> = weights[first..k].iter().map(|w| w[wi].clone()).collect();
            let a_fine = Csr {
                ptr: a.ptr.clone(),
                col: a.col.clone(),
                val: a.val.clone(),
            };
            let t0 = Instant::now();
            let redis = rediscretize.then(|| {
                meshes[first..k]
                    .iter()
                    .map(|m| newton_matrix(m).0)
                    .collect::<Vec<_>>()
            });
            let h = Hierarchy::build(a_fine, ws, redis, sweeps, gamma);
            let t_setup = t0.elapsed().as_secs_f64();
            let mut line = format!(
                "    {name:>6} ({} levels, direct on {} triangles): set-up {t_setup:.3} s;",
                k - first + 1,
                meshes[first].triangles.len()
            );
            for (rhs, rname) in [(&smooth, "smooth"), (&rough, "rough")] {
                let t0 = Instant::now();
                let its = pcg(&h.levels[0].a, rhs, |r| h.vcycle(0, r), &[1e-6, 1e-10]);
                let t = t0.elapsed().as_secs_f64();
                let fmt = |i: usize| {
                    if i == usize::MAX {
                        ">500".to_string()
                    } else {
                        i.to_string()
                    }
                };
                line += &format!(
                    " {rname}: {} / {} iterations to 1e-6 / 1e-10 ({:.4} s per iteration)",
                    fmt(its[0]),
                    fmt(its[1]),
                    t / its[1].min(500) as f64
                );
            }
            println!("{line}");
        }
    }
}
