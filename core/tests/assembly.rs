//! The assembled Hessian against its element blocks: every stored entry of
//! the lower triangle is the sum, in element order, of the blocks' entries
//! that land on it plus the diagonal — bitwise, and the same whether the
//! element blocks were filled on one thread or two.

use pliant_core::assembly::Assembler;
use pliant_core::{Ctx, ElementList, EvalState, ModelBuilder, Scalar, Stencil};
use serde::{Deserialize, Serialize};

/// A nonlinear spring, `E = k/4 (|x_b − x_a|² − L²)² / L²` (J), so that
/// its Hessian blocks are dense and change with the state.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Quartic {
    nodes: [usize; 2],
    k: f64,
    rest: f64,
}

impl pliant_core::Element for Quartic {
    type Size = Stencil<6, 0>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn energy<D: Scalar>(&self, x: &[D], _: &[D], _: &[D], _: &Ctx) -> D {
        let d = [x[3] - x[0], x[4] - x[1], x[5] - x[2]];
        let s = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - self.rest * self.rest;
        s * s * (0.25 * self.k / (self.rest * self.rest))
    }
}
pliant_core::register_energy!(
    elements Quartic = "test_assembly_quartic",
    "quartic test spring",
    r#"{"type": "test_assembly_quartic", "elements": []}"#
);

/// An `m³` lattice of nodes 5 cm apart with springs to 7 forward
/// neighbours (along the axes and the face and body diagonals), its first
/// face fixed, and a state that moves every coordinate by its own amount
/// (within ±5 mm).
fn lattice(m: usize) -> (pliant_core::Model, Vec<f64>) {
    let mut b = ModelBuilder::new(3).unwrap();
    let at = |i: usize, j: usize, k: usize| (i * m + j) * m + k;
    let mut q = Vec::new();
    for i in 0..m {
        for j in 0..m {
            for k in 0..m {
                let n = at(i, j, k);
                let x = [i as f64 * 0.05, j as f64 * 0.05, k as f64 * 0.05];
                b.add_node(&x, 0.01).unwrap();
                if i == 0 {
                    b.fix_node(n).unwrap();
                }
                // A deformed state: every coordinate moved by its own amount.
                for (d, v) in x.iter().enumerate() {
                    let h = ((3 * n + d).wrapping_mul(2_654_435_761) % 1000) as f64 / 1000.0;
                    q.push(v + 0.01 * (h - 0.5));
                }
            }
        }
    }
    let mut springs = Vec::new();
    for i in 0..m {
        for j in 0..m {
            for k in 0..m {
                for (di, dj, dk) in [
                    (1, 0, 0),
                    (0, 1, 0),
                    (0, 0, 1),
                    (1, 1, 0),
                    (1, 0, 1),
                    (0, 1, 1),
                    (1, 1, 1),
                ] {
                    let (a, bb, c) = (i + di, j + dj, k + dk);
                    if a < m && bb < m && c < m {
                        let len = 0.05 * ((di + dj + dk) as f64).sqrt();
                        springs.push(Quartic {
                            nodes: [at(i, j, k), at(a, bb, c)],
                            k: 100.0 * (1.0 + (springs.len() % 7) as f64),
                            rest: len,
                        });
                    }
                }
            }
        }
    }
    b.add(ElementList::new(springs));
    (b.build().unwrap(), q)
}

fn assembled(
    threads: usize,
    asm: &mut Assembler,
    model: &pliant_core::Model,
    q: &[f64],
    diag: &[f64],
) -> Vec<f64> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let p = model.params_at(0.0);
        let s = EvalState {
            q,
            q_prev: q,
            p: &p,
            h: 0.01,
            dt: 0.01,
            t: 0.0,
        };
        asm.hessian(model, &s, 2.5e-3, diag, false)
            .unwrap()
            .val()
            .to_vec()
    })
}

#[test]
fn each_entry_is_the_ordered_sum_of_its_blocks_on_one_thread_or_two() {
    let (model, q) = lattice(9);
    let mut asm = Assembler::new(&model).unwrap();
    let nf = asm.n_free();
    let diag: Vec<f64> = (0..nf).map(|f| 1.0 + f as f64 * 1e-3).collect();
    // Enough springs that their blocks are filled in parallel (at least
    // `PAR_MIN_LEN` elements); the gather into the matrix is sequential.
    let springs = model.energies()[0].elements().len();
    assert!(
        springs >= pliant_core::parallel::PAR_MIN_LEN,
        "{springs} springs"
    );
    let one = assembled(1, &mut asm, &model, &q, &diag);
    let two = assembled(2, &mut asm, &model, &q, &diag);
    assert!(
        one.iter()
            .zip(&two)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "one and two threads differ"
    );

    // The reference: the element blocks (as triplets, element by element)
    // summed in that order into the lower triangle over the free DOFs, then
    // the diagonal.
    let mut free_of = vec![usize::MAX; asm.n_dofs()];
    for (f, &d) in asm.free_dofs().iter().enumerate() {
        free_of[d] = f;
    }
    let sym = asm.symbolic();
    let (cp, ri) = (sym.col_ptr().to_vec(), sym.row_idx().to_vec());
    let entry = |r: usize, c: usize| cp[c] + ri[cp[c]..cp[c + 1]].binary_search(&r).unwrap();
    let mut t = Vec::new();
    asm.last_hessian_triplets(2.5e-3, &mut t);
    let mut want = vec![0.0; one.len()];
    for tr in &t {
        let (r, c) = (free_of[tr.row], free_of[tr.col]);
        if r != usize::MAX && c != usize::MAX && r >= c {
            want[entry(r, c)] += tr.val;
        }
    }
    for (f, d) in diag.iter().enumerate() {
        want[entry(f, f)] += d;
    }
    let differ = want
        .iter()
        .zip(&one)
        .filter(|(a, b)| a.to_bits() != b.to_bits())
        .count();
    assert_eq!(differ, 0, "{differ} of {} entries differ", one.len());
    // The state is deformed: the springs' blocks are not the diagonal alone.
    let off_diagonal = (0..nf)
        .flat_map(|c| (cp[c]..cp[c + 1]).map(move |k| (k, c)))
        .filter(|&(k, c)| ri[k] != c && one[k] != 0.0)
        .count();
    assert!(
        off_diagonal > 10_000,
        "{off_diagonal} non-zero off-diagonal entries"
    );
}

/// The energy and gradient of one pass ([`Assembler::energy_and_gradient`],
/// what Newton's line search calls for a full step) are bitwise the energy
/// and gradient of two, on one thread or two. The springs write no fused
/// evaluation, so this is the engine's default path (an element's own is
/// checked by `derivcheck`, e.g. the neo-Hookean tetrahedra).
#[test]
fn value_and_gradient_together_are_the_two_apart_on_one_thread_or_two() {
    let (model, q) = lattice(9);
    let mut asm = Assembler::new(&model).unwrap();
    assert!(model.energies()[0].elements().len() >= pliant_core::parallel::PAR_MIN_LEN);
    let p = model.params_at(0.0);
    let s = EvalState {
        q: &q,
        q_prev: &q,
        p: &p,
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    };
    let n = asm.n_dofs();
    let mut runs = Vec::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        runs.push(pool.install(|| {
            let e = asm.energy(&model, &s);
            let mut g = vec![0.0; n];
            asm.add_gradient(&model, &s, 0.7, &mut g);
            let mut g_both = vec![0.0; n];
            let e_both = asm.energy_and_gradient(&model, &s, 0.7, &mut g_both);
            assert_eq!(e.to_bits(), e_both.to_bits(), "{threads} thread(s)");
            assert!(
                g.iter()
                    .zip(&g_both)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{threads} thread(s): gradients differ"
            );
            (e_both, g_both)
        }));
    }
    assert_eq!(runs[0].0.to_bits(), runs[1].0.to_bits());
    assert!(runs[0].0 > 0.0 && runs[0].1.iter().any(|v| v.abs() > 1e-3));
}
