//! The cavity against Lamé: a thick-walled neo-Hookean sphere inflated at
//! small pressure (`u/a ≈ 10⁻³`) matches the closed-form inner-wall
//! displacement within 2 % on the fine mesh, and the error falls as the
//! mesh is refined.

use pliant::scenarios::pressurized_sphere::PressurizedSphere;

#[test]
fn inflated_sphere_matches_lame() {
    let mut last = f64::INFINITY;
    for (cells, layers) in [(4, 4), (8, 8)] {
        let s = PressurizedSphere {
            cells,
            layers,
            ..Default::default()
        };
        let (u, tets) = s.solve().unwrap();
        let err = (u - s.lame()).abs() / s.lame();
        eprintln!(
            "{cells}×{cells}×{layers} ({tets} tets): u(a) = {u:.6e} m, Lamé {:.6e} m, error {:.2} %",
            s.lame(),
            100.0 * err
        );
        assert!(err < last, "refining must reduce the error");
        last = err;
    }
    assert!(last < 0.02, "error {:.2} % on the fine mesh", 100.0 * last);
}
