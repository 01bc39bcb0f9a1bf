//! Rollouts from JSON specs (`pliant gradient`, `pliant.Rollout`): the
//! adjoint gradient against central differences of whole rollouts, per-term
//! gradients summing to the total, and errors that name the field.

use pliant::rollout::{Rollout, RolloutError, RolloutSpec};
use std::path::Path;

fn spec() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/rollouts/pma_reach.json"
    ))
}

#[test]
fn adjoint_gradient_matches_central_differences() {
    pliant::init();
    let r = Rollout::from_file(spec()).unwrap();
    assert_eq!(r.variable_names().len(), 5);
    for z in [
        r.z0().to_vec(),
        r.z0().iter().map(|v| 0.6 * v + 2e4).collect(),
    ] {
        let e = r.evaluate_terms(&z).unwrap();
        let fd = r.gradient_fd(&z, 1e-6).unwrap();
        let scale = e.gradient.iter().fold(0.0f64, |m, g| m.max(g.abs()));
        assert!(scale > 0.0);
        for (g, f) in e.gradient.iter().zip(&fd) {
            assert!(
                (g - f).abs() < 1e-4 * scale,
                "adjoint {g} vs central differences {f}"
            );
        }
        assert_eq!(e.terms.len(), 2);
        assert!((e.terms.iter().sum::<f64>() - e.value).abs() <= 1e-14 * e.value);
        // The terms' gradients (one adjoint each) sum to the joint adjoint's.
        let joint = r.evaluate(&z, true).unwrap();
        for j in 0..z.len() {
            let s = e.term_gradients[0][j] + e.term_gradients[1][j];
            assert!((s - joint.gradient[j]).abs() <= 1e-12 * scale);
        }
        // The design variable (the lower muscle's pressure) matters.
        assert!(e.gradient[4].abs() > 1e-3 * scale);
    }
}

#[test]
fn spec_errors_name_the_field() {
    pliant::init();
    let dir = spec().parent().unwrap().to_path_buf();
    let build = |text: &str| {
        let mut s = RolloutSpec::from_json(text, "test")?;
        s.base_dir = Some(dir.clone());
        Rollout::new(&s)
    };
    let field = |e: RolloutError| e.field().map(str::to_string);
    let e = build(
        r#"{"scene": "../scenes/pma_pair.json", "controls": [{"channel": "q", "keyframes": 3}]}"#,
    )
    .unwrap_err();
    assert_eq!(field(e).as_deref(), Some("controls[0].channel"));
    let e = build(
        r#"{"scene": "../scenes/pma_pair.json", "controls": [{"channel": "p", "keyframes": 1}]}"#,
    )
    .unwrap_err();
    assert_eq!(field(e).as_deref(), Some("controls[0].keyframes"));
    let e = build(r#"{"scene": "../scenes/pma_pair.json", "objectives": [{"type": "node", "node": 9, "axes": [2], "target": [0]}]}"#)
        .unwrap_err();
    assert_eq!(field(e).as_deref(), Some("objectives[0].node"));
    let e = build(r#"{"scene": "../scenes/pma_pair.json", "objectives": [{"type": "com", "axes": [2], "target": [0, 1]}]}"#)
        .unwrap_err();
    assert_eq!(field(e).as_deref(), Some("objectives[0].target"));
    let e = build(r#"{"scene": "../scenes/pma_pair.json", "stepz": 3}"#).unwrap_err();
    assert!(e.to_string().contains("stepz"), "{e}");
    let r = build(r#"{"scene": "../scenes/pma_pair.json", "design": ["p_lower"], "steps": 5}"#)
        .unwrap();
    assert!(matches!(
        r.evaluate(&[f64::NAN], true),
        Err(RolloutError::NonFinite { .. })
    ));
    assert!(matches!(
        r.evaluate(&[1.0, 2.0], true),
        Err(RolloutError::Size { .. })
    ));
}
