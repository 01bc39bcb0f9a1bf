//! Per-element cost of the rod's derivatives: analytic (closed forms) vs
//! the dual-number fallback over the 8 reduced variables, on a wiggly
//! 1,000-node rod with lagged frames away from the evaluation point.
//!
//! Also the per-step cost of following the carried frames in rollout
//! derivatives.
//!
//! `cargo bench -p pliant-rod --bench rod_element` (release). Element loops
//! below 2,048 elements run sequentially, so the figures are single-thread.

use pliant_core::timing::ns_per_call as time;
use pliant_core::{BindInfo, Block, Energy, EvalState, ModelBuilder, ParamChannel};
use pliant_rod::{Actuation, Rod, RodEnergy, twist_dofs};
use std::hint::black_box;

fn setup(actuated: bool) -> (RodEnergy, Vec<f64>, Vec<f64>, Vec<f64>) {
    let n = 1000;
    let mut pos = vec![[0.0f64; 3]];
    for k in 1..n {
        let a = 0.3 * k as f64;
        let last = pos[k - 1];
        pos.push([
            last[0] + 0.01,
            last[1] + 0.002 * a.sin(),
            last[2] + 0.002 * a.cos(),
        ]);
    }
    let mut rod = Rod::chain(&(0..n).collect::<Vec<_>>(), 0.001, 1e6, 0.4, 1000.0)
        .with_rest_lengths_from(&pos)
        .unwrap();
    let mut b = ModelBuilder::new(3).unwrap();
    for p in &pos {
        b.add_node(p, 0.0).unwrap();
    }
    if actuated {
        rod = rod
            .actuate(Actuation::curvature("k", 1, None))
            .actuate(Actuation::twist("t", None))
            .actuate(Actuation::stretch("s", None));
        for c in ["k", "t", "s"] {
            b.add_param(ParamChannel::control(c, 0.1)).unwrap();
        }
    }
    b.add(rod.clone());
    let model = b.build().unwrap();
    let twists = twist_dofs(model.layout());
    let mut rod = rod
        .bind_to(&BindInfo {
            extra_dofs: &twists,
            ..model.bind_info()
        })
        .unwrap();
    let p = model.params_at(0.0);
    let wob = |q: &[f64], s: f64| -> Vec<f64> {
        q.iter()
            .enumerate()
            .map(|(i, v)| v + s * ((i as f64) * 0.7).sin())
            .collect()
    };
    let q_prev = wob(model.q0(), 1e-3);
    rod.begin_step(&q_prev, &p, 0.01, 0.0);
    let q = wob(&q_prev, 5e-4);
    (rod, q, q_prev, p)
}

/// The rod's energy from the literal definitions (what the fallback
/// differentiates), summed over the elements.
fn literal_value(rod: &RodEnergy, s: &EvalState) -> f64 {
    rod.literal_value(s)
}

fn main() {
    for actuated in [false, true] {
        let (rod, q, q_prev, p) = setup(actuated);
        let s = EvalState {
            q: &q,
            q_prev: &q_prev,
            p: &p,
            h: 0.01,
            dt: 0.01,
            t: 0.0,
        };
        // The analytic path, and the dual-number fallback of the same set.
        let set = rod.elements();
        let (ne, ns, np) = (set.len(), set.stencil_size(), set.param_size());
        let mut g = vec![0.0; ne * ns];
        let mut h = vec![0.0; ne * ns * ns];
        let mut pb = vec![0.0; ne * ns * np.max(1)];
        let per = |t: f64| t / ne as f64;
        println!(
            "rod element ({ne} elements, {ns} DOFs, {np} parameter slots{}), ns per element:",
            if actuated { ", actuated" } else { "" }
        );
        let rows = [
            (
                "value",
                time(|| {
                    black_box(set.value(&s));
                }),
                time(|| {
                    black_box(literal_value(&rod, &s));
                }),
            ),
            (
                "gradient",
                time(|| set.blocks(&s, Block::Gradient, black_box(&mut g))),
                time(|| set.fallback_blocks(&s, Block::Gradient, black_box(&mut g))),
            ),
            (
                "Hessian",
                time(|| set.blocks(&s, Block::Hessian, black_box(&mut h))),
                time(|| set.fallback_blocks(&s, Block::Hessian, black_box(&mut h))),
            ),
            (
                "param block",
                time(|| set.blocks(&s, Block::Param, black_box(&mut pb))),
                time(|| set.fallback_blocks(&s, Block::Param, black_box(&mut pb))),
            ),
        ];
        for (name, a, f) in rows {
            println!(
                "  {name:<12} analytic {:>8.0}   fallback {:>8.0}   ({:.1}x)",
                per(a),
                per(f),
                f / a
            );
        }
        // Once per step, only when rollout derivatives are recorded: the
        // Jacobians of the frame transport and ∂²E/∂x∂c (dual numbers).
        let tr = time(|| {
            black_box(rod.carried_transition(&q_prev, &p));
        });
        let fb = time(|| {
            black_box(rod.carried_block(&s));
        });
        let hess = time(|| set.blocks(&s, Block::Hessian, black_box(&mut h)));
        println!(
            "  frames (per step, derivatives only): transport Jacobians {:>6.0}, ∂²E/∂x∂c {:>6.0}   ({:.1}x one Hessian pass)",
            per(tr),
            per(fb),
            (tr + fb) / hess
        );
    }
}
