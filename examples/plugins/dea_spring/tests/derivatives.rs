//! The plugin's element passes the derivative-check utility, and its
//! rest-length law is what the documentation states.

use pliant_core::derivcheck::{Tolerances, check};
use pliant_core::{CoreError, ElementList, EvalState, ModelBuilder, ParamChannel};
use pliant_example_dea::DeaSpring;

fn strip(nodes: [usize; 2]) -> DeaSpring {
    DeaSpring {
        nodes,
        rest_length: 0.05,
        youngs_modulus: 1e6,
        area: 1e-5,
        thickness: 50e-6,
        permittivity: 4.7,
        voltage: "V".into(),
    }
}

#[test]
fn derivatives_match_fallback_and_finite_differences() {
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 0.01).unwrap();
    b.add_node(&[0.051, 0.002, -0.001], 0.01).unwrap();
    b.add_node(&[0.0, 0.04, 0.03], 0.01).unwrap();
    b.add_param(ParamChannel::control("V", 0.0)).unwrap();
    b.add(ElementList::new(vec![strip([0, 1]), strip([1, 2])]));
    let m = b.build().unwrap();
    for v in [0.0, 1500.0, 3000.0] {
        let p = [v];
        let s = EvalState {
            q: m.q0(),
            q_prev: m.q0(),
            p: &p,
            h: 0.01,
            dt: 0.01,
            t: 0.0,
        };
        let tol = Tolerances {
            exact: 1e-9,
            fd: 1e-5,
            step: 1e-7,
        };
        check(m.energies()[0].as_ref(), &s, &tol).assert_within(&tol);
    }
}

#[test]
fn rest_length_grows_with_voltage_squared() {
    let d = strip([0, 1]);
    // ε₀ ε_r V²/(2 Y t²) at 3 kV: 8.854e-12 · 4.7 · 9e6 / (2 · 1e6 · 2.5e-9) = 0.0749.
    let strain = d.strain_per_volt2() * 3000.0f64.powi(2);
    assert!((strain - 0.074_903).abs() < 1e-5, "{strain}");
    assert!((d.stiffness() - 200.0).abs() < 1e-12);
}

#[test]
fn bad_element_data_is_reported() {
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 0.01).unwrap();
    b.add_node(&[0.05, 0.0, 0.0], 0.01).unwrap();
    b.add_param(ParamChannel::control("V", 0.0)).unwrap();
    let mut bad = strip([0, 1]);
    bad.thickness = -1.0;
    b.add(ElementList::new(vec![bad]));
    let e = b.build().unwrap_err();
    assert!(
        matches!(e.innermost(), CoreError::Invalid(i) if i.field == "elements[0].thickness" && i.value == -1.0),
        "{e}"
    );
    assert!(e.to_string().contains("energies[0] (dea_spring)"), "{e}");
    // In a 2-D model the strip lies in the plane (the engine embeds it at
    // z = 0): its derivatives over the 4 DOFs still check out.
    let mut b = ModelBuilder::new(2).unwrap();
    b.add_node(&[0.0, 0.0], 0.01).unwrap();
    b.add_node(&[0.05, 0.01], 0.01).unwrap();
    b.add_param(ParamChannel::control("V", 0.0)).unwrap();
    b.add(ElementList::new(vec![strip([0, 1])]));
    let m = b.build().unwrap();
    assert_eq!(m.energies()[0].elements().stencil_size(), 4);
    let p = [2000.0];
    let s = EvalState::at_rest(m.q0(), &p, 0.01, 0.0);
    let tol = Tolerances {
        exact: 1e-9,
        fd: 1e-5,
        step: 1e-7,
    };
    check(m.energies()[0].as_ref(), &s, &tol).assert_within(&tol);
}
