//! A rollout gives bitwise-identical states with 1 and 2 worker threads
//! (assembly, reductions and the faer factorization included).

use pliant::core::Simulator;

fn rollout(threads: usize) -> Vec<f64> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let d = pliant::demo::lattice_drop().unwrap();
        let mut sim = Simulator::new(d.model, d.integrator, d.dt, d.newton).unwrap();
        let mut all = Vec::new();
        for _ in 0..60 {
            sim.step().unwrap();
            all.extend_from_slice(sim.q());
        }
        all
    })
}

#[test]
fn one_and_two_threads_give_identical_states() {
    let a = rollout(1);
    let b = rollout(2);
    assert_eq!(a.len(), b.len());
    let same = a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits());
    assert!(same, "states differ between 1 and 2 threads");
}
