//! Per-element cost of the shell energies' derivatives: what the solver
//! uses (hinge, mid-edge and stretching: closed forms; the paper's
//! simplified mid-edge Hessian: first-order duals of its gradient) against
//! the generic dual-number fallback of the same element set, on a bent
//! random mesh with the step starting elsewhere (lagged mid-edge frames).
//! Also how far the paper's simplified mid-edge Hessian (Appendix A: `c_k`,
//! `t_k` held) is from the exact one.
//!
//! `cargo bench -p pliant-shell --bench shell_element` (release). Element
//! loops below 2,048 elements run sequentially: single-thread figures.

use pliant_core::derivcheck::Rng;
use pliant_core::timing::ns_per_call as time;
use pliant_core::{Block, EnergySpec, EvalState, ModelBuilder};
use pliant_shell::generate::{MeshKind, rectangle};
use pliant_shell::{Modulus, ShellHinges, ShellMidEdge, ShellStretching};
use std::hint::black_box;

fn main() {
    let mesh = rectangle(0.1, 0.04, 0.005, MeshKind::Random, 3).unwrap();
    let tri = mesh.triangles.clone();
    let mid = |paper| -> Box<dyn EnergySpec> {
        Box::new(ShellMidEdge {
            triangles: tri.clone(),
            thickness: 1e-3,
            youngs_modulus: Modulus::Value(2e9),
            poisson_ratio: 0.3,
            density: 1000.0,
            paper_derivatives: paper,
        })
    };
    let specs: Vec<(&str, Box<dyn EnergySpec>)> = vec![
        (
            "stretching",
            Box::new(ShellStretching {
                triangles: tri.clone(),
                thickness: 1e-3,
                youngs_modulus: Modulus::Value(2e9),
                density: 0.0,
                stiffness_scale: 1.0,
            }),
        ),
        (
            "hinge",
            Box::new(ShellHinges {
                triangles: tri.clone(),
                thickness: 1e-3,
                youngs_modulus: Modulus::Value(2e9),
                natural_angle: vec![],
            }),
        ),
        ("mid-edge", mid(false)),
        ("mid-edge (paper)", mid(true)),
    ];
    let mut hess_exact = Vec::new();
    for (name, spec) in specs {
        let mut b = ModelBuilder::new(3).unwrap();
        for x in &mesh.nodes {
            b.add_node(x, 0.0).unwrap();
        }
        b.add_boxed(spec);
        let model = b.build().unwrap();
        let mut rng = Rng::new(5);
        let q_prev: Vec<f64> = model
            .q0()
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v + if i % 3 == 2 {
                    0.2 * (i as f64 * 0.01).sin() * 0.01
                } else {
                    0.0
                }
            })
            .collect();
        let q: Vec<f64> = q_prev.iter().map(|v| v + rng.range(-1e-4, 1e-4)).collect();
        let s = EvalState {
            q: &q,
            q_prev: &q_prev,
            p: &[],
            h: 0.01,
            dt: 0.01,
            t: 0.0,
        };
        let set = model.energies()[0].elements();
        let (ne, ns) = (set.len(), set.stencil_size());
        let mut g = vec![0.0; ne * ns];
        let mut h = vec![0.0; ne * ns * ns];
        let per = |t: f64| t / ne as f64;
        let tg = time(|| set.blocks(&s, Block::Gradient, black_box(&mut g)));
        let tgf = time(|| set.fallback_blocks(&s, Block::Gradient, black_box(&mut g)));
        let th = time(|| set.blocks(&s, Block::Hessian, black_box(&mut h)));
        let thf = time(|| set.fallback_blocks(&s, Block::Hessian, black_box(&mut h)));
        println!(
            "{name:<17} ({ne} elements, {ns} stencil DOFs), ns per element: gradient {:>7.0} (fallback {:>7.0}, {:.1}x)   Hessian {:>7.0} (fallback {:>7.0}, {:.1}x)",
            per(tg),
            per(tgf),
            tgf / tg,
            per(th),
            per(thf),
            thf / th
        );
        set.blocks(&s, Block::Hessian, &mut h);
        if name == "mid-edge" {
            hess_exact = h.clone();
        } else if name == "mid-edge (paper)" {
            let num: f64 = h
                .iter()
                .zip(&hess_exact)
                .map(|(a, b)| (a - b) * (a - b))
                .sum();
            let den: f64 = hess_exact.iter().map(|b| b * b).sum();
            println!(
                "  paper's simplified Hessian vs exact (bent state): relative Frobenius difference {:.2e}",
                (num / den).sqrt()
            );
        }
    }
}
