//! Assembly throughput of an energy loaded from a plugin library (dual-number
//! fallback across the library boundary) against the same energy compiled
//! into the host, on the same model and state, interleaved rounds:
//!
//! `cargo bench --bench plugin_assembly`

use pliant::core::assembly::Assembler;
use pliant::core::{
    ElementList, EnergySpec, EvalState, Model, ModelBuilder, ParamChannel, plugin, registry,
};
use pliant_example_dea::DeaSpring;
use std::time::Instant;

fn strips(n: usize) -> Vec<DeaSpring> {
    let id = |i: usize, j: usize, k: usize| (k * n + j) * n + i;
    let mut v = Vec::new();
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                for (di, dj, dk) in [(1, 0, 0), (0, 1, 0), (0, 0, 1)] {
                    let (a, b, c) = (i + di, j + dj, k + dk);
                    if a < n && b < n && c < n {
                        v.push(DeaSpring {
                            nodes: [id(i, j, k), id(a, b, c)],
                            rest_length: 0.01,
                            youngs_modulus: 1e6,
                            area: 1e-6,
                            thickness: 5e-5,
                            permittivity: 4.7,
                            voltage: "V".into(),
                        });
                    }
                }
            }
        }
    }
    v
}

fn model(n: usize, energy: Box<dyn EnergySpec>) -> Model {
    let mut b = ModelBuilder::new(3).unwrap();
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                b.add_node(&[0.01 * i as f64, 0.01 * j as f64, 0.01 * k as f64], 1e-3)
                    .unwrap();
            }
        }
    }
    b.add_param(ParamChannel::control("V", 0.0)).unwrap();
    b.add_boxed(energy);
    b.build().unwrap()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    pliant::init();
    let dir = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let lib = dir.join(format!(
        "{}pliant_example_dea{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    plugin::load(&lib).expect("the example plugin is built with the benches (dev-dependency)");
    let n = 30;
    let s = strips(n);
    let json = serde_json::json!({ "type": "dea_spring", "elements": s });
    let runtime = model(n, registry::spec_from_json(&json, "bench", "").unwrap());
    let host = model(n, Box::new(ElementList::new(s.clone())));
    let (mut ar, mut ah) = (
        Assembler::new(&runtime).unwrap(),
        Assembler::new(&host).unwrap(),
    );
    let q: Vec<f64> = host
        .q0()
        .iter()
        .enumerate()
        .map(|(i, x)| x + 1e-4 * ((i * 7919) % 13) as f64 / 13.0)
        .collect();
    let p = [2000.0];
    let st = EvalState {
        q: &q,
        q_prev: &q,
        p: &p,
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    };
    let diag = vec![1e-3; ah.n_free()];
    let mut g = vec![0.0; q.len()];
    let (mut tr, mut th, mut ratio) = (vec![], vec![], vec![]);
    for _ in 0..15 {
        let t0 = Instant::now();
        std::hint::black_box(ah.hessian(&host, &st, 1.0, &diag, false).unwrap());
        g.fill(0.0);
        ah.add_gradient(&host, &st, 1.0, &mut g);
        let t1 = Instant::now();
        std::hint::black_box(ar.hessian(&runtime, &st, 1.0, &diag, false).unwrap());
        g.fill(0.0);
        ar.add_gradient(&runtime, &st, 1.0, &mut g);
        let t2 = Instant::now();
        th.push((t1 - t0).as_secs_f64());
        tr.push((t2 - t1).as_secs_f64());
        ratio.push((t2 - t1).as_secs_f64() / (t1 - t0).as_secs_f64());
    }
    println!(
        "{} DEA strips ({} DOFs), Hessian + gradient assembly with the dual-number fallback:\n  \
         compiled into the host {:.2} ms, loaded from the plugin library {:.2} ms; plugin/host ratio {:.2} (median of 15 interleaved rounds)",
        s.len(),
        q.len(),
        median(th) * 1e3,
        median(tr) * 1e3,
        median(ratio)
    );
}
