//! A rollout gives bitwise-identical states with 1 and 2 worker threads
//! (assembly, reductions and the faer factorization included).

use pliant::core::{ModelBuilder, Simulator};
use pliant::fem::{Material, TetMesh};

/// Runs `f` on a rayon pool of `threads` workers.
fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// A foam body (100 kg/m³, E = 50 kPa, ν = 0.3) meshed by `mesh`.
fn foam(mesh: &TetMesh) -> ModelBuilder {
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
    b
}

fn rollout(threads: usize) -> Vec<f64> {
    on_threads(threads, || {
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
/// (6,000 tetrahedra > 2 × `PAR_MIN_LEN`) and that the solver orders it by
/// nested dissection (4,158 DOFs): a foam block falling onto a frictional
/// ground. With `Pcg`, Newton directions come from conjugate gradients
/// preconditioned by kept factorizations, with `Amg` by multigrid.
fn fem_rollout(threads: usize, directions: pliant::core::Directions) -> Vec<f64> {
    use pliant::core::{Directions, Integrator, NewtonSettings};
    use pliant::environment::{Friction, Gravity, Ground, NormalLaw};
    on_threads(threads, || {
        let mesh =
            TetMesh::from_voxel_boxes(&[([0, 0, 0], [20, 10, 5])], 0.005, [0.0, 0.0, 0.0005])
                .unwrap();
        assert!(mesh.tets.len() > 2 * pliant::core::parallel::PAR_MIN_LEN);
        let mut b = foam(&mesh);
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
        let newton = NewtonSettings {
            directions,
            ..NewtonSettings::default()
        };
        let model = b.build().unwrap();
        let asm = pliant::core::assembly::Assembler::new(&model).unwrap();
        let ordering = pliant::core::linsolve::LinearSolver::new(asm.symbolic())
            .unwrap()
            .ordering();
        assert_eq!(ordering, pliant::core::linsolve::Ordering::NestedDissection);
        let mut sim = Simulator::new(model, Integrator::Bdf1, 0.01, newton).unwrap();
        let mut all = Vec::new();
        let (mut pcg_iterations, mut setups, mut factorizations) = (0, 0, 0);
        for _ in 0..4 {
            let stats = sim.step().unwrap().newton;
            pcg_iterations += stats.pcg_iterations;
            setups += stats.amg_setups;
            factorizations += stats.factorizations;
            all.extend_from_slice(sim.q());
        }
        let by_cg = directions != Directions::Direct;
        assert_eq!(pcg_iterations > 0, by_cg, "{pcg_iterations} PCG iterations");
        let amg = directions == Directions::Amg;
        assert_eq!(setups > 0, amg, "{setups} multigrid setups");
        if amg {
            assert_eq!(factorizations, 0, "multigrid took factorizations");
        }
        all
    })
}

#[test]
fn parallel_fem_assembly_gives_identical_states_with_one_and_two_threads() {
    use pliant::core::Directions;
    for directions in [Directions::Direct, Directions::Pcg, Directions::Amg] {
        let a = fem_rollout(1, directions);
        let b = fem_rollout(2, directions);
        assert_eq!(a.len(), b.len());
        assert!(
            a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
            "states differ between 1 and 2 threads (directions {directions:?})"
        );
    }
}

/// Newton with PCG directions (kept factorization or multigrid) converges
/// to the same states as with direct solves, within what the tolerance
/// allows (1e-10 N on a block whose stiffness is about 250 N/m per node:
/// far below 1e-9 m).
#[test]
fn pcg_directions_reach_the_states_of_direct_solves() {
    use pliant::core::Directions;
    let direct = fem_rollout(2, Directions::Direct);
    for directions in [Directions::Pcg, Directions::Amg] {
        let other = fem_rollout(2, directions);
        let worst = direct
            .iter()
            .zip(&other)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(
            worst < 1e-9,
            "{directions:?} and direct rollouts differ by {worst:.3e} m"
        );
    }
}

/// A block whose factor is large enough (at least
/// `PARALLEL_MIN_FACTOR_ENTRIES`) that the solver used to hand it to faer's
/// parallel kernels, whose sums run in an order that depends on the thread
/// count: with 1 and 2 worker threads the states must still be bitwise
/// equal.
#[test]
fn a_large_factorization_gives_identical_states_with_one_and_two_threads() {
    use pliant::core::linsolve::{LinearSolver, PARALLEL_MIN_FACTOR_ENTRIES};
    use pliant::core::{Directions, Integrator, NewtonSettings};
    use pliant::environment::Gravity;
    let run = |threads: usize| {
        on_threads(threads, || {
            let mesh =
                TetMesh::from_voxel_boxes(&[([0, 0, 0], [16, 16, 16])], 0.01, [0.0; 3]).unwrap();
            let mut b = foam(&mesh);
            for (n, x) in mesh.nodes.iter().enumerate() {
                if x[2] == 0.0 {
                    b.fix_node(n).unwrap();
                }
            }
            b.add(Gravity::new(&[0.3, 0.0, -9.81]));
            let model = b.build().unwrap();
            let asm = pliant::core::assembly::Assembler::new(&model).unwrap();
            let entries = LinearSolver::new(asm.symbolic()).unwrap().factor_entries();
            assert!(
                entries >= PARALLEL_MIN_FACTOR_ENTRIES,
                "{entries} factor entries"
            );
            let newton = NewtonSettings {
                directions: Directions::Direct,
                ..NewtonSettings::default()
            };
            let mut sim = Simulator::new(model, Integrator::Bdf1, 0.01, newton).unwrap();
            sim.step().unwrap();
            sim.q().to_vec()
        })
    };
    let (a, b) = (run(1), run(2));
    assert!(
        a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
        "states differ between 1 and 2 threads"
    );
}

/// A settling stack of four soft cells (each cell one large element of the
/// cells plugin, whose own loop runs in parallel from two cells on). Over
/// 60 steps Newton's assemblies pass several of the periods in which they
/// run the way not preferred (`core/src/parallel_choice.rs`), so on two
/// threads some run in parallel and some on the calling thread: the states
/// must still be bitwise those of one thread.
#[test]
fn a_cell_stack_gives_identical_states_with_one_and_two_threads() {
    use pliant::core::{Integrator, NewtonSettings};
    let run = |threads| {
        on_threads(threads, || {
            let (model, _) = pliant::soft_cells::stack::stack(4, 2).unwrap();
            let mut sim = Simulator::new(
                model,
                Integrator::ImplicitEuler,
                0.02,
                NewtonSettings::default(),
            )
            .unwrap();
            let mut all = Vec::new();
            let mut iterations = 0;
            for _ in 0..60 {
                iterations += sim.step().unwrap().newton.iterations;
                all.extend_from_slice(sim.q());
            }
            (all, iterations)
        })
    };
    let (a, ia) = run(1);
    let (b, ib) = run(2);
    // Each iteration assembles a value, a gradient and a Hessian at least.
    assert!(3 * ia > 2 * 128, "only {ia} Newton iterations");
    assert_eq!(ia, ib);
    let same = a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits());
    assert!(same, "states differ between 1 and 2 threads");
}

/// Geometric multigrid directions (the manta ray refined 1 : 4 three times
/// over its coarser meshes: W-cycles whose products run in parallel above
/// 100,000 entries) give bitwise-identical states with 1 and 2 threads.
#[test]
fn geometric_multigrid_gives_identical_states_with_one_and_two_threads() {
    use pliant::core::{Directions, NewtonSettings};
    use pliant::shell_scenes::Manta;
    let run = |threads| {
        on_threads(threads, || {
            let defaults = Manta::default();
            let scene = Manta {
                cells: 6,
                duration: 0.015,
                newton: NewtonSettings {
                    directions: Directions::Geometric,
                    ..defaults.newton
                },
                ..defaults
            };
            let mut run = scene.refined(3).unwrap();
            let mut pcg = 0;
            for _ in 0..run.steps {
                pcg += run.sim.step().unwrap().newton.pcg_iterations;
            }
            assert!(pcg > 0);
            run.sim.q().to_vec()
        })
    };
    let (a, b) = (run(1), run(2));
    assert!(
        a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
        "states differ between 1 and 2 threads"
    );
}
