//! A rollout gives bitwise-identical states with 1 and 2 worker threads
//! (assembly, reductions and the faer factorization included).

use pliant::core::Simulator;

fn rollout(threads: usize) -> Vec<f64> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let d = pliant::lattice::lattice_drop().unwrap();
        let r = &d.settings;
        let mut sim = Simulator::new(d.model, r.integrator, r.dt, r.newton).unwrap();
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

/// A model large enough that element loops split into parallel tasks
/// (6,000 tetrahedra > 2 × `PAR_MIN_LEN`): a foam block falling onto a
/// frictional ground.
fn fem_rollout(threads: usize) -> Vec<f64> {
    use pliant::core::{Integrator, ModelBuilder, NewtonSettings};
    use pliant::environment::{Friction, Gravity, Ground, NormalLaw};
    use pliant::fem::{Material, TetMesh};
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mesh =
            TetMesh::from_voxel_boxes(&[([0, 0, 0], [20, 10, 5])], 0.005, [0.0, 0.0, 0.0005])
                .unwrap();
        assert!(mesh.tets.len() > 2 * pliant::core::parallel::PAR_MIN_LEN);
        let mut b = ModelBuilder::new(3).unwrap();
        mesh.add_to(
            &mut b,
            100.0,
            Material::Constant {
                youngs_modulus: 5e4,
                poisson_ratio: 0.3,
            },
        )
        .unwrap();
        b.add(Gravity::new(&[0.0, 0.0, -9.81]));
        b.add(Ground::new(
            &[0.0; 3],
            &[0.0, 0.0, 1.0],
            NormalLaw::Quadratic {
                stiffness: 2000.0,
                smoothing: 1e-4,
            },
            Some(Friction::SmoothCoulomb {
                mu: 0.6,
                mu_axis: None,
                slip_velocity: 1e-3,
            }),
        ));
        let mut sim = Simulator::new(
            b.build().unwrap(),
            Integrator::Bdf1,
            0.01,
            NewtonSettings::default(),
        )
        .unwrap();
        let mut all = Vec::new();
        for _ in 0..4 {
            sim.step().unwrap();
            all.extend_from_slice(sim.q());
        }
        all
    })
}

#[test]
fn parallel_fem_assembly_gives_identical_states_with_one_and_two_threads() {
    let a = fem_rollout(1);
    let b = fem_rollout(2);
    assert_eq!(a.len(), b.len());
    assert!(
        a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
        "states differ between 1 and 2 threads"
    );
}
