//! The optimization specs shipped in `examples/optimize/` parse and describe
//! the paper's layouts; bad specs are clear errors.

use pliant::gait::OptimizeSpec;

#[test]
fn shipped_specs_parse_and_build_their_gaits() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/optimize");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let spec = OptimizeSpec::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let setup = spec.setup().unwrap();
        assert_eq!(setup.steps(), 24 + 2 * 72, "{}", path.display());
        assert_eq!(spec.z0(&setup).unwrap().len(), setup.gait.nz());
        n += 1;
    }
    assert!(n >= 2);
}

#[test]
fn bad_specs_are_errors() {
    let parse = |s: &str| OptimizeSpec::from_json(s, "test");
    assert!(parse(r#"{"robot": "puppy", "iterations": -1}"#).is_err());
    // Choices are enums: an unknown robot or method names the field.
    for (bad, field) in [
        (r#"{"robot": "kitten"}"#, "robot"),
        (r#"{"robot": "puppy", "method": "newton"}"#, "method"),
        (r#"{"robot": "puppy", "damping": "fletcher"}"#, "damping"),
    ] {
        match parse(bad) {
            Err(pliant::scenarios::ScenarioError::Spec {
                field: f, message, ..
            }) => {
                assert_eq!(f, field, "{message}");
                assert!(message.contains("unknown variant"), "{message}");
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    // Text after the document is refused.
    assert!(parse(r#"{"robot": "puppy"} garbage"#).is_err());
    let s = parse(r#"{"robot": "tripod", "symmetric": true}"#).unwrap();
    assert!(
        s.setup()
            .unwrap_err()
            .to_string()
            .contains("no mirrored motors")
    );
    // A damping update belongs to Levenberg–Marquardt.
    let s = parse(r#"{"robot": "puppy", "method": "lbfgs", "damping": "nielsen"}"#).unwrap();
    let e = s.setup().unwrap_err().to_string();
    assert!(e.contains("damping") && e.contains("lbfgs"), "{e}");
    let s = parse(r#"{"robot": "puppy", "z0": [0.0]}"#).unwrap();
    let setup = s.setup().unwrap();
    let e = s.z0(&setup).unwrap_err().to_string();
    assert!(e.contains("spec z0 values") && e.contains("1 given"), "{e}");
}

#[test]
fn a_spec_chooses_the_damping_update() {
    use pliant::optim::{Damping, Method};
    let parse = |s: &str| OptimizeSpec::from_json(s, "test").unwrap();
    let damping = |s: &OptimizeSpec| match s.method() {
        Method::LevenbergMarquardt { damping, .. } => damping,
        other => panic!("{other:?}"),
    };
    assert_eq!(damping(&parse(r#"{"robot": "puppy"}"#)), Damping::Nielsen);
    let marquardt = parse(r#"{"robot": "puppy", "damping": "marquardt"}"#);
    assert_eq!(damping(&marquardt), Damping::Marquardt);
    marquardt.setup().unwrap();
}

#[test]
fn a_spec_may_turn_the_forecast_cuts_off() {
    let parse = |s: &str| OptimizeSpec::from_json(s, "test").unwrap();
    let on = parse(r#"{"robot": "tripod"}"#).setup().unwrap();
    let off = parse(r#"{"robot": "tripod", "forecast_cuts": false}"#)
        .setup()
        .unwrap();
    assert!(on.forecast_cuts && !off.forecast_cuts);
    // Other iterates, another checkpoint.
    assert_ne!(on.fingerprint(), off.fingerprint());
    let again = parse(r#"{"robot": "tripod", "forecast_cuts": true}"#)
        .setup()
        .unwrap();
    assert_eq!(on.fingerprint(), again.fingerprint());
    // A Levenberg–Marquardt setting.
    let s = parse(r#"{"robot": "tripod", "method": "gauss_newton", "forecast_cuts": false}"#);
    let e = s.setup().unwrap_err().to_string();
    assert!(
        e.contains("forecast_cuts") && e.contains("gauss_newton"),
        "{e}"
    );
    // On, a trial the model says cannot get below the bound is given up at
    // once; off, it runs until its cost so far passes the bound.
    let (problem, _) = off.problem(&off.default_z0().unwrap()).unwrap();
    let (on_problem, _) = on.problem(&on.default_z0().unwrap()).unwrap();
    let nz = problem.map().nz();
    let w = nalgebra::DVector::from_element(nz, 0.001);
    use pliant::optim::levenberg_marquardt::TrialCost;
    let r = nalgebra::DVector::from_vec(problem.residuals(w.as_slice()).unwrap());
    let twice = &r * 2.0;
    let exact = [r.clone()];
    let forecast = pliant::optim::Forecast {
        current: &twice,
        models: &exact,
    };
    let bound = 0.99 * 0.5 * r.norm_squared();
    for (p, cut) in [(&problem, 0), (&on_problem, 1)] {
        let got = p.trial_costs_forecast(std::slice::from_ref(&w), bound, forecast);
        assert_eq!(got[0].as_ref().unwrap(), &None);
        assert_eq!(p.stats().rollouts_cut_by_forecast, cut);
    }
}

#[test]
fn heading_targets_follow_the_target_path() {
    use pliant::gait::{GaitSetup, Target, Weights};
    let mut s = GaitSetup::puppy_turn().unwrap();
    let Target::Arc { angle, .. } = s.target else {
        panic!("the turn has an arc target")
    };
    let th = s.heading_targets(0.1);
    assert_eq!(th.len(), s.steps());
    // Unchanged through the preparatory phase, then turning right at a
    // constant rate to the arc's end tangent.
    assert!(th[..s.gait.prep_steps].iter().all(|&t| t == 0.1));
    assert!((th[th.len() - 1] - (0.1 - angle)).abs() < 1e-12);
    assert!(th.windows(2).all(|w| w[1] <= w[0]));
    assert!((s.heading_change_asked_degrees() + angle.to_degrees()).abs() < 1e-9);
    s.target = Target::Arc {
        radius: -0.04,
        angle,
    };
    assert!((s.heading_targets(0.0).last().unwrap() - angle).abs() < 1e-12);
    s.target = Target::Straight { speed: 0.02 };
    assert!(s.heading_targets(0.2).iter().all(|&t| t == 0.2));
    assert_eq!(s.heading_change_asked_degrees(), 0.0);
    // Weights written before the heading term existed still parse.
    let w: Weights = serde_json::from_str(
        r#"{"com": 1e4, "slack": 100, "slack_epsilon": 0.001, "smoothness": 1e-4, "regularization": 0.01}"#,
    )
    .unwrap();
    assert_eq!(w.heading, Weights::default().heading);
    let bad = Weights {
        heading: -1.0,
        ..Weights::default()
    };
    assert!(bad.validate().is_err());
}

#[test]
fn a_turn_weights_heading_unless_the_spec_sets_weights() {
    use pliant::gait::{GaitSetup, Weights};
    let turn = r#"{ "robot": "puppy", "target": { "type": "arc", "radius": 0.04, "angle": 1.5707963267948966 } }"#;
    let spec: OptimizeSpec = serde_json::from_str(turn).unwrap();
    let setup = spec.setup().unwrap();
    assert_eq!(setup.weights, GaitSetup::puppy_turn().unwrap().weights);
    assert_eq!(setup.weights.heading, 10.0 * Weights::default().heading);
    let straight: OptimizeSpec = serde_json::from_str(r#"{ "robot": "puppy" }"#).unwrap();
    assert_eq!(straight.setup().unwrap().weights, Weights::default());
    // Weights written in the spec are taken as they are.
    let mut v: serde_json::Value = serde_json::from_str(turn).unwrap();
    v["weights"] = serde_json::to_value(Weights::default()).unwrap();
    let spec: OptimizeSpec = serde_json::from_value(v).unwrap();
    assert_eq!(spec.setup().unwrap().weights, Weights::default());
}
