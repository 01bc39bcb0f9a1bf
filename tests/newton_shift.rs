//! `NewtonSettings::carry_shift`: a slender lattice column shortened
//! quasi-statically past buckling (compressed springs make the Hessian
//! indefinite, so Newton shifts its diagonal at step after step) takes
//! fewer shifted factorizations when the shift search starts from the last
//! step's shift, and reaches the same states.

use pliant::core::NewtonSettings;

fn column(carry_shift: bool) -> (Vec<Vec<f64>>, usize, usize) {
    let mut sim = pliant::lattice::buckling_column(NewtonSettings {
        max_iterations: 200,
        carry_shift,
        ..Default::default()
    })
    .unwrap();
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
    assert!(fresh_shifted > 0, "the column must need shifts");
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
