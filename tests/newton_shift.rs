//! `NewtonSettings::carry_shift`: a slender lattice column shortened
//! quasi-statically past buckling (compressed springs make the Hessian
//! indefinite, so Newton shifts its diagonal at step after step) takes
//! fewer shifted factorizations when the shift search starts from the last
//! step's shift, and reaches the same states.

use pliant::core::{Integrator, ModelBuilder, Motion, NewtonSettings, Simulator};
use pliant::lattice::SpringLattice;

fn column(carry_shift: bool) -> (Vec<Vec<f64>>, usize, usize) {
    let lat = SpringLattice {
        n: [3, 3, 16],
        spacing: 0.01,
        stiffness: 200.0,
        node_mass: 1e-3,
        origin: [0.0; 3],
    };
    let mut b = ModelBuilder::new(3).unwrap();
    lat.add_to(&mut b).unwrap();
    for j in 0..3 {
        for i in 0..3 {
            b.fix_node(lat.node(i, j, 0)).unwrap();
            let top = lat.node(i, j, 15);
            b.constrain(3 * top, Motion::Fixed).unwrap();
            b.constrain(3 * top + 1, Motion::Fixed).unwrap();
            // 3 mm shorter per load step (t counts steps: dt = 1).
            b.constrain(3 * top + 2, Motion::Linear { velocity: -0.003 })
                .unwrap();
        }
    }
    let m = b.build().unwrap();
    let settings = NewtonSettings {
        max_iterations: 200,
        carry_shift,
        ..Default::default()
    };
    // An imperfection picks the buckling direction.
    let mid = lat.node(1, 1, 8);
    let (mut q, v) = (m.q0().to_vec(), m.v0().to_vec());
    q[3 * mid] += 1e-4;
    let mut sim = Simulator::new(m, Integrator::Static, 1.0, settings).unwrap();
    sim.set_state(&q, &v, 0.0, 0).unwrap();
    let (mut states, mut tries, mut shifted) = (Vec::new(), 0, 0);
    for _ in 0..12 {
        // Each step meets Newton's tolerance or is an error.
        let r = sim.step().unwrap().newton;
        tries += r.shift_tries;
        shifted += r.shifted;
        states.push(sim.q().to_vec());
    }
    (states, tries, shifted)
}

#[test]
fn carrying_the_shift_across_steps_saves_factorizations_and_keeps_the_states() {
    let (fresh, fresh_tries, fresh_shifted) = column(false);
    let (carried, carried_tries, carried_shifted) = column(true);
    eprintln!(
        "shifted iterations {fresh_shifted} / {carried_shifted}, shifted factorization tries {fresh_tries} / {carried_tries} (fresh / carried)"
    );
    assert!(fresh_shifted > 0, "the chain must need shifts");
    assert!(
        carried_tries < fresh_tries,
        "{carried_tries} tries with the carried shift, {fresh_tries} without"
    );
    let worst = fresh
        .iter()
        .flatten()
        .zip(carried.iter().flatten())
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    eprintln!("largest difference of the states: {worst:.3e} m");
    assert!(worst < 1e-8, "states differ by {worst:.3e} m");
}
