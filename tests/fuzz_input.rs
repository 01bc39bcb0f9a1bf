//! Seeded fuzzing of scene files and optimization specs: a few thousand
//! mutations of the shipped examples (numbers replaced by extremes, values
//! by the wrong type, fields deleted, renamed, duplicated, arrays emptied or
//! grown), each read, validated, built and stepped a bounded number of
//! times. Asserted: no panic; every refusal is an error with a message;
//! every accepted run stays finite or stops with a typed error; accepted
//! spec names stay inside `--out`. A second, smaller pass runs mutated
//! scenes through the binary: exit 0 or 1 (never a signal), a message on
//! refusal, nothing written outside `--out`.

use pliant::core::derivcheck::Rng;
use pliant::core::scene::Scene;
use pliant::gait::OptimizeSpec;
use serde_json::{Value, json};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// Steps run per accepted scene.
const STEPS: usize = 12;

fn example(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/scenes")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn pick(rng: &mut Rng, n: usize) -> usize {
    ((rng.uniform() * n as f64) as usize).min(n.saturating_sub(1))
}

/// Every path in `v` (object keys and array indices), the root included.
fn paths(v: &Value, here: Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                let mut p = here.clone();
                p.push(json!(k));
                paths(c, p, out);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                let mut p = here.clone();
                p.push(json!(i));
                paths(c, p, out);
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |v, k| match k {
        Value::String(s) => &mut v[s.as_str()],
        k => &mut v[k.as_u64().unwrap() as usize],
    })
}

/// Values that break assumptions.
fn nasty(rng: &mut Rng) -> Value {
    let pool = [
        json!(0),
        json!(-1),
        json!(-0.0),
        json!(1e308),
        json!(-1e308),
        json!(1e-308),
        json!(4.9e-324),
        json!(9007199254740993u64),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(0.5),
        json!(3),
        json!(1e6),
        json!("NaN"),
        json!("inf"),
        json!(""),
        json!("../x"),
        json!(null),
        json!(true),
        json!([]),
        json!([1, 2]),
        json!([[0, 0, 0]]),
        json!({}),
        json!({"type": "spring"}),
    ];
    pool[pick(rng, pool.len())].clone()
}

/// One random mutation of `doc`.
fn mutate(doc: &mut Value, rng: &mut Rng) {
    let mut all = Vec::new();
    paths(doc, Vec::new(), &mut all);
    let path = all[pick(rng, all.len())].clone();
    let op = pick(rng, 7);
    let (parent_path, last) = match path.split_last() {
        Some((l, p)) => (p.to_vec(), Some(l.clone())),
        None => (Vec::new(), None),
    };
    match op {
        // Replace with a nasty value.
        0 | 1 => *at(doc, &path) = nasty(rng),
        // Scale a number by an extreme factor.
        2 => {
            let v = at(doc, &path);
            if let Some(x) = v.as_f64() {
                let f = [0.0, -1.0, 1e-12, 1e12, 1e300][pick(rng, 5)];
                *v = json!(x * f);
            } else {
                *v = nasty(rng);
            }
        }
        // Delete the field / element.
        3 => {
            let parent = at(doc, &parent_path);
            match (parent, last) {
                (Value::Object(m), Some(Value::String(k))) => {
                    m.remove(&k);
                }
                (Value::Array(a), Some(i)) => {
                    a.remove(i.as_u64().unwrap() as usize);
                }
                _ => {}
            }
        }
        // Duplicate an array element, or add an unknown field.
        4 => match at(doc, &parent_path) {
            Value::Array(a) if !a.is_empty() => {
                let i = pick(rng, a.len());
                let e = a[i].clone();
                a.push(e);
            }
            Value::Object(m) => {
                m.insert("unexpected_field".into(), json!(1));
            }
            _ => {}
        },
        // Empty an array or object.
        5 => match at(doc, &path) {
            Value::Array(a) => a.clear(),
            Value::Object(m) => m.clear(),
            v => *v = json!([]),
        },
        // Wrap the value in an array.
        _ => {
            let v = at(doc, &path);
            *v = json!([v.clone()]);
        }
    }
}

/// Reads, builds and steps one scene; `Err` with the message when refused.
fn try_scene(text: &str) -> Result<(), String> {
    let scene = Scene::from_json(text, "fuzz").map_err(|e| e.to_string())?;
    let mut s = scene.into_simulator().map_err(|e| e.to_string())?;
    for _ in 0..STEPS.min(s.settings.steps) {
        match s.simulator.step() {
            Ok(r) => {
                let q = s.simulator.q();
                assert!(
                    q.iter().all(|v| v.is_finite()) && r.newton.residual.is_finite(),
                    "an accepted step left a non-finite state: {text}"
                );
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(())
}

/// Runs `cases` mutations (1 to 3 each) of the `bases` in turn through
/// `check`, asserting no panic and a message with every refusal; returns
/// (accepted, refused).
fn fuzz(
    bases: &[Value],
    seed: u64,
    cases: usize,
    check: impl Fn(&str) -> Result<(), String>,
) -> (usize, usize) {
    let mut rng = Rng::new(seed);
    let (mut accepted, mut refused) = (0, 0);
    for case in 0..cases {
        let mut doc = bases[case % bases.len()].clone();
        for _ in 0..1 + pick(&mut rng, 3) {
            mutate(&mut doc, &mut rng);
        }
        let text = doc.to_string();
        match catch_unwind(AssertUnwindSafe(|| check(&text))) {
            Ok(Ok(())) => accepted += 1,
            Ok(Err(msg)) => {
                assert!(
                    msg.len() > 10,
                    "a refusal without a message: {msg:?} for {text}"
                );
                refused += 1;
            }
            Err(_) => panic!("case {case} panicked on: {text}"),
        }
    }
    eprintln!("{accepted} accepted, {refused} refused");
    (accepted, refused)
}

#[test]
fn mutated_scenes_never_panic_and_refusals_say_why() {
    pliant::init();
    // With Newton settings to mutate too.
    let mut chain = example("hanging_chain.json");
    chain["newton"] = json!({"max_iterations": 50, "abs_tol": 1e-10, "rel_tol": 1e-9,
        "max_backtracks": 40, "max_step_halvings": 2, "reuse_below": 0.0});
    let (accepted, refused) = fuzz(
        &[
            chain,
            example("rod_drape.json"),
            example("sheet_drape.json"),
            // Muscles anchored on a rod's surface.
            example("rod_muscle_arm.json"),
        ],
        20261124,
        1500,
        try_scene,
    );
    // Both outcomes occur: the mutations are neither all harmless nor all fatal.
    assert!(
        accepted > 50 && refused > 500,
        "{accepted} accepted, {refused} refused"
    );
}

#[test]
fn mutated_specs_never_panic_and_accepted_names_stay_inside_out() {
    pliant::init();
    let base = json!({
        "name": "walk", "robot": "tripod", "target": {"type": "arc", "radius": 0.05, "angle": 1.0},
        "prep_steps": 2, "cycle_steps": 12, "cycles": 1, "keyframes": 2, "iterations": 0,
        "weights": {"com": 1e4, "slack": 1e2, "slack_epsilon": 1e-3, "smoothness": 1e-4, "regularization": 1e-2},
        "method": "levenberg_marquardt", "incline_degrees": 0.0
    });
    let (accepted, refused) = fuzz(&[base], 7, 3000, |text| {
        let spec = OptimizeSpec::from_json(text, "fuzz").map_err(|e| e.to_string())?;
        spec.validate().map_err(|e| e.to_string())?;
        if let Some(n) = &spec.name {
            let p = Path::new("out").join(n);
            assert!(
                p.parent() == Some(Path::new("out")) && !n.starts_with('.'),
                "accepted name {n:?} leaves out/"
            );
        }
        let setup = spec.setup().map_err(|e| e.to_string())?;
        setup.validate_target().map_err(|e| e.to_string())?;
        spec.z0(&setup).map_err(|e| e.to_string())?;
        Ok(())
    });
    assert!(
        accepted > 100 && refused > 500,
        "{accepted} accepted, {refused} refused"
    );
}

#[test]
fn mutated_scenes_through_the_binary_exit_cleanly_and_write_only_inside_out() {
    use std::process::Command;
    let mut rng = Rng::new(99);
    let dir = std::env::temp_dir().join(format!("pliant-fuzz-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let base = example("hanging_chain.json");
    for case in 0..40 {
        let mut doc = base.clone();
        for _ in 0..1 + pick(&mut rng, 3) {
            mutate(&mut doc, &mut rng);
        }
        std::fs::write(dir.join("scene.json"), doc.to_string()).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_pliant"))
            .args(["simulate", "scene.json", "--out", "out", "--steps", "20"])
            .current_dir(&dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        assert!(
            matches!(code, Some(0) | Some(1)),
            "case {case}: ended by {:?}: {err}\n{doc}",
            out.status
        );
        if code == Some(1) {
            assert!(
                err.starts_with("error: ") && !err.contains("panicked"),
                "case {case}: {err}"
            );
        }
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "out")
            .collect();
        left.sort();
        assert_eq!(left, ["scene.json"], "case {case} wrote outside out/");
        let _ = std::fs::remove_dir_all(dir.join("out"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
