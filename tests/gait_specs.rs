//! The optimization specs shipped in `examples/optimize/` parse and describe
//! the paper's layouts; bad specs are clear errors.

use pliant::gait::OptimizeSpec;

#[test]
fn shipped_specs_parse_and_build_their_gaits() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/optimize");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let spec: OptimizeSpec =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let setup = spec.setup().unwrap();
        assert_eq!(setup.steps(), 24 + 2 * 72, "{}", path.display());
        assert_eq!(spec.z0(&setup).unwrap().len(), setup.gait.nz());
        spec.method().unwrap();
        n += 1;
    }
    assert!(n >= 2);
}

#[test]
fn bad_specs_are_errors() {
    let parse = |s: &str| serde_json::from_str::<OptimizeSpec>(s);
    assert!(parse(r#"{"robot": "puppy", "iterations": -1}"#).is_err());
    let s = parse(r#"{"robot": "tripod", "symmetric": true}"#).unwrap();
    assert!(
        s.setup()
            .unwrap_err()
            .to_string()
            .contains("no mirrored motors")
    );
    let s = parse(r#"{"robot": "puppy", "method": "newton"}"#).unwrap();
    assert!(s.method().unwrap_err().to_string().contains("newton"));
    let s = parse(r#"{"robot": "puppy", "z0": [0.0]}"#).unwrap();
    let setup = s.setup().unwrap();
    assert!(
        s.z0(&setup)
            .unwrap_err()
            .to_string()
            .contains("z0 has 1 values")
    );
}
