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

/// An absurd pressure (1000 × Young's modulus) is a Newton failure that
/// says where it happened; the load step done before it is kept.
#[test]
fn an_absurd_pressure_fails_cleanly_and_keeps_the_steps_done() {
    use pliant::core::{Integrator, NewtonSettings, Simulator};
    let s = PressurizedSphere {
        cells: 4,
        layers: 2,
        ..Default::default()
    };
    let built = s.model(vec![(0.0, 0.0), (1.0, 1e3), (2.0, 1e9)]).unwrap();
    let mut sim = Simulator::new(
        built.model,
        Integrator::Static,
        1.0,
        NewtonSettings::default(),
    )
    .unwrap();
    sim.step().unwrap();
    let kept = sim.q().to_vec();
    let err = sim.step().expect_err("1 GPa must not converge");
    let msg = err.to_string();
    eprintln!("{msg}");
    assert!(msg.contains("step 2") || msg.contains("t = 2"), "{msg}");
    assert_eq!(sim.steps_done(), 1);
    assert_eq!(sim.q(), &kept[..]);
    assert!(kept.iter().all(|v| v.is_finite()));
}
