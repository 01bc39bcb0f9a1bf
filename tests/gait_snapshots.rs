//! Gait regressions (insta snapshots in the top-level `snapshots/`):
//! (a) a short optimized Tripod gait and (b) a fixed-control Puppy rollout —
//! keyframes, centre-of-mass path, final objective. Floats are rounded
//! before snapshotting: lengths to 1 µm (`1e-6` m), objectives to 4
//! significant digits, so the snapshots are stable across machines (SIMD
//! width changes round-off far below that). CI (`CI=true`) never writes
//! snapshots; see `snapshots/README.md` for reviewing a changed gait.

use pliant::gait::GaitSetup;
use pliant::optim::{Damping, Method, OptimizeSettings, optimize};
use serde_json::{Value, json};

fn um(x: f64) -> Value {
    json!((x * 1e6).round() / 1e6)
}

fn sig4(x: f64) -> Value {
    if x == 0.0 {
        return json!(0.0);
    }
    let e = x.abs().log10().floor() as i32 - 3;
    let s = 10f64.powi(e);
    json!(((x / s).round() * s * 1e12).round() / 1e12)
}

fn short(mut s: GaitSetup) -> GaitSetup {
    s.gait.prep_steps = 3;
    s.gait.cycle_steps = 12;
    s.gait.cycles = 2;
    s.settle_steps = 10;
    s
}

fn record(s: &GaitSetup, z: &[f64], objective: f64) -> Value {
    let (shooting, ctx) = s.problem(z).unwrap();
    let tr = shooting.rollout_z(z).unwrap();
    let com: Vec<Value> = (0..=tr.steps())
        .step_by(3)
        .map(|k| {
            let c = ctx.com.of(&tr.x[k]);
            json!([k, um(c[0]), um(c[1])])
        })
        .collect();
    json!({
        "name": s.name,
        "steps": tr.steps(),
        "keyframes_m": z.iter().map(|v| um(*v)).collect::<Vec<_>>(),
        "com_path_m": com,
        "objective": sig4(objective),
    })
}

fn check(name: &str, v: &Value) {
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_json_snapshot!(name, v);
    });
}

#[test]
fn optimized_tripod_gait() {
    pliant::init();
    let s = short(GaitSetup::tripod_walk().unwrap());
    let z0 = vec![0.004, 0.0, 0.004, 0.008, 0.0, 0.004, 0.008, 0.004];
    let (shooting, _) = s.problem(&z0).unwrap();
    let settings = OptimizeSettings {
        method: Method::LevenbergMarquardt {
            tol: 1e-4,
            damping: Damping::Nielsen,
        },
        max_iters: 2,
        checkpoint: None,
    };
    let (res, _) = optimize(shooting, &z0, &settings, None).unwrap();
    assert!(res.objective < res.initial_objective);
    check("tripod_gait", &record(&s, &res.z, res.objective));
}

#[test]
fn fixed_control_puppy_rollout() {
    pliant::init();
    let s = short(GaitSetup::puppy_walk(true).unwrap());
    let z: Vec<f64> = (0..s.gait.nz())
        .map(|j| 0.002 + 0.004 * ((j * 7) % 5) as f64 / 4.0)
        .collect();
    let (shooting, _) = s.problem(&z).unwrap();
    let w = shooting.w_of(&z);
    let objective = pliant::optim::gradient::cost(&shooting.residuals(&w).unwrap());
    check("puppy_rollout", &record(&s, &z, objective));
}
