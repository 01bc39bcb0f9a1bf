//! Cost of a pressurized cavity per Newton iteration — its gradient and its
//! Hessian assembled into the sparse matrix — at about 1k and 10k surface
//! triangles (the inner wall of a cubed sphere), for the constant-pressure
//! law (independent triangles) and the ideal-gas law (one element whose
//! Hessian is split into the per-triangle part and a rank-one term kept
//! out of the factorization).
//!
//! `cargo bench -p pliant-pneumatic --bench cavity` (release).

use pliant_core::assembly::Assembler;
use pliant_core::timing::ns_per_call;
use pliant_core::{EnergySpec, EvalState, ModelBuilder, ParamChannel};
use pliant_pneumatic::{Cavity, cavity_surface};
use std::hint::black_box;

fn main() {
    println!(
        "cavity energy per Newton iteration (gradient + Hessian assembly), release, single model"
    );
    for cells in [9, 29] {
        let (x, tets) = pliant_mesh::hollow_sphere(0.05, 0.06, cells, 1).expect("sizes");
        let r = |p: &[f64; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        let wall = cavity_surface(&x, &tets, |i| (r(&x[i]) - 0.05).abs() < 1e-12);
        let laws: Vec<(&str, Box<dyn EnergySpec>)> = vec![
            (
                "constant pressure",
                Box::new(Cavity::pressurized(wall.clone(), "p")),
            ),
            (
                "ideal gas (split)",
                Box::new(Cavity::ideal_gas(wall.clone(), 2e5)),
            ),
        ];
        for (name, law) in laws {
            let mut b = ModelBuilder::new(3).expect("3-D");
            for p in &x {
                b.add_node(p, 1e-3).expect("node");
            }
            b.add_param(ParamChannel::control("p", 2e4))
                .expect("channel");
            b.add_boxed(law);
            let model = b.build().expect("model");
            let mut asm = Assembler::new(&model).expect("pattern");
            let p = model.params_at(0.0);
            let s = EvalState::at_rest(model.q0(), &p, 1e-3, 0.0);
            let mut g = vec![0.0; model.n_dofs()];
            let diag = vec![0.0; asm.n_free()];
            let ns = ns_per_call(|| {
                asm.add_gradient(&model, &s, 1.0, &mut g);
                black_box(
                    asm.hessian(&model, &s, 1.0, &diag, false)
                        .expect("hessian")
                        .val()[0],
                );
            });
            println!(
                "  {:5} triangles, {name:18}: {:9.1} µs per iteration ({:.0} ns per triangle)",
                wall.len(),
                ns / 1e3,
                ns / wall.len() as f64
            );
        }
    }
}
