//! MAT-DiSMech §7.2 / Fig. 11: a cantilever rod under gravity against
//! Euler–Bernoulli for E = 20 GPa … 20 MPa, and against the exact elastica
//! where Euler–Bernoulli's small-deflection assumption fails.

use pliant::core::{Integrator, NewtonSettings, Simulator};
use pliant::rod_cantilever::RodCantilever;

/// Static tip deflection (m, positive down) of the discretized rod
/// (without damping, which a static step would turn into a spring).
fn static_tip(c: &RodCantilever) -> f64 {
    let c = RodCantilever { damping: 0.0, ..*c };
    let mut sim = Simulator::new(
        c.model().unwrap(),
        Integrator::Static,
        1.0,
        NewtonSettings::default(),
    )
    .unwrap();
    sim.step().unwrap();
    -sim.q()[3 * c.tip() + 2]
}

#[test]
fn cantilever_rod_matches_euler_bernoulli_when_stiff_and_the_elastica_always() {
    println!(
        "| E | edges | tip deflection (mm) | Euler–Bernoulli (mm) | vs EB | elastica (mm) | vs elastica |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut departures = Vec::new();
    for youngs in [20e9, 2e9, 200e6, 20e6] {
        let c = RodCantilever {
            edges: 50,
            youngs,
            damping: 0.0,
        };
        let w = static_tip(&c);
        let (eb, el) = (c.euler_bernoulli(), c.elastica());
        let (vs_eb, vs_el) = (w / eb - 1.0, w / el - 1.0);
        println!(
            "| {:.0e} Pa | 50 | {:.5} | {:.5} | {:+.2} % | {:.5} | {:+.2} % |",
            youngs,
            1e3 * w,
            1e3 * eb,
            100.0 * vs_eb,
            1e3 * el,
            100.0 * vs_el
        );
        // The discrete rod converges to the exact beam at every stiffness.
        assert!(
            vs_el.abs() < 0.01,
            "E = {youngs}: {vs_el:+.4} from the elastica"
        );
        departures.push(vs_eb);
    }
    // Within 1 % of Euler–Bernoulli at 20 GPa (small deflection) …
    assert!(departures[0].abs() < 0.01, "20 GPa: {:+.4}", departures[0]);
    // … and increasingly below it as E drops and the deflection grows.
    assert!(departures.windows(2).all(|w| w[1] < w[0]), "{departures:?}");
    assert!(departures[3] < -0.03, "20 MPa: {:+.4}", departures[3]);
}

#[test]
fn refinement_converges_to_the_elastica() {
    let err = |edges| {
        let c = RodCantilever {
            edges,
            youngs: 200e6,
            damping: 0.0,
        };
        (static_tip(&c) / c.elastica() - 1.0).abs()
    };
    let (coarse, fine) = (err(10), err(40));
    eprintln!("200 MPa: error {coarse:.2e} with 10 edges, {fine:.2e} with 40");
    assert!(fine < coarse, "{fine} ≥ {coarse}");
}

#[test]
fn damped_dynamic_rod_settles_at_the_static_deflection() {
    // PyElastica-comparable run: ζ = 20 1/s, implicit Euler, h = 10 ms, 1 s.
    let c = RodCantilever {
        edges: 50,
        youngs: 200e6,
        damping: 20.0,
    };
    let mut sim = Simulator::new(
        c.model().unwrap(),
        Integrator::ImplicitEuler,
        0.01,
        NewtonSettings::default(),
    )
    .unwrap();
    for _ in 0..100 {
        sim.step().unwrap();
    }
    let w = -sim.q()[3 * c.tip() + 2];
    let w_static = static_tip(&c);
    eprintln!("tip after 1 s {w:e} m, static {w_static:e} m");
    assert!((w / w_static - 1.0).abs() < 1e-3, "{w} vs {w_static}");
}
