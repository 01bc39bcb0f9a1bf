//! The shell scenes of MAT-DiSMech §7.1, shortened and coarsened for the
//! test suite (the full runs are `cargo run --release --example shells`):
//! the manta ray swims forward along its axis by symmetric flapping
//! (Fig. 6e), and the parachute reaches the terminal velocity of its drag
//! law with an inverted-bowl canopy (Fig. 8).

use pliant::shell_scenes::{Manta, Parachute, node};

#[test]
fn manta_ray_advances_along_y_stays_on_its_axis_and_heaves() {
    let scene = Manta {
        cells: 8,
        dt: 5e-3,
        duration: 0.9,
        ..Manta::default()
    };
    let mut run = scene.build().unwrap();
    let y0 = node(run.sim.q(), run.leading)[1];
    let mut z = Vec::new();
    let mut max_x = 0.0f64;
    for _ in 0..run.steps {
        run.sim.step().unwrap();
        let p = node(run.sim.q(), run.leading);
        max_x = max_x.max(p[0].abs());
        z.push(p[2]);
    }
    let dy = node(run.sim.q(), run.leading)[1] - y0;
    // Turning points of z: the leading edge heaves up and down with the
    // flapping (3.4 Hz: about three turning points in 0.9 s).
    let turns = z
        .windows(3)
        .filter(|w| (w[1] - w[0]) * (w[2] - w[1]) < 0.0)
        .count();
    eprintln!("manta: Δy = {dy:.4} m, max |x| = {max_x:.2e} m, {turns} turning points of z");
    assert!(dy > 0.1, "the ray should swim towards +y: Δy = {dy}");
    assert!(max_x < 1e-9, "symmetric flapping keeps x = 0: {max_x}");
    assert!(turns >= 3, "z should oscillate: {turns} turning points");
}

#[test]
fn parachute_reaches_its_drag_law_terminal_velocity_as_an_inverted_bowl() {
    let scene = Parachute {
        n: 3,
        dt: 0.01,
        duration: 2.5,
        weld_ropes: false,
    };
    let mut run = scene.build().unwrap();
    let mut speeds = Vec::new();
    let mut areas = Vec::new();
    for _ in 0..run.steps {
        run.sim.step().unwrap();
        speeds.push(-run.sim.v()[3 * run.payload + 2]);
        areas.push(run.drag_area(run.sim.q()));
    }
    let tail = 50; // the last 0.5 s
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let v_end = mean(&speeds[speeds.len() - tail..]);
    let spread = speeds[speeds.len() - tail..]
        .iter()
        .fold(0.0f64, |m, v| m.max((v - v_end).abs()));
    let v_law = Parachute::drag_balance(run.mass, mean(&areas[areas.len() - tail..]));
    let q = run.sim.q();
    let bowl =
        node(q, run.centre)[2] - run.corners.iter().map(|&c| node(q, c)[2]).sum::<f64>() / 6.0;
    eprintln!(
        "parachute: v = {v_end:.3} m/s (±{spread:.3}), drag law {v_law:.3} m/s, bowl depth {bowl:.3} m"
    );
    assert!(
        spread < 0.05 * v_end,
        "not terminal yet: ±{spread} around {v_end}"
    );
    assert!((v_end / v_law - 1.0).abs() < 0.05, "{v_end} vs {v_law}");
    assert!(
        bowl > 0.1,
        "the canopy's centre should ride above its corners: {bowl}"
    );
}

/// Largest horizontal offset of the payload (m) and largest spread of the
/// six corners' heights (m) over `steps` steps of a small parachute.
fn asymmetry(weld: bool, steps: usize) -> (f64, f64) {
    let scene = Parachute {
        n: 3,
        dt: 0.01,
        duration: steps as f64 * 0.01,
        weld_ropes: weld,
    };
    let mut run = scene.build().unwrap();
    let (mut offset, mut spread) = (0.0f64, 0.0f64);
    for _ in 0..run.steps {
        run.sim.step().unwrap();
        let q = run.sim.q();
        let p = node(q, run.payload);
        offset = offset.max(p[0].hypot(p[1]));
        let z: Vec<f64> = run.corners.iter().map(|&c| node(q, c)[2]).collect();
        let (lo, hi) = z
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        spread = spread.max(hi - lo);
    }
    (offset, spread)
}

#[test]
fn the_parachute_keeps_its_six_fold_symmetry_pinned_or_welded() {
    // The descent is unstable to tilting (docs/results.md), so any
    // asymmetry of the model grows; only round-off may seed it. With the
    // rod–shell joints' frames picked by the label order, the welded
    // parachute was off by 2.2e-6 m after 1 s, and tilted after 2.5 s.
    for weld in [false, true] {
        let (offset, spread) = asymmetry(weld, 100);
        eprintln!(
            "welded {weld}: payload offset {offset:.2e} m, corner heights spread {spread:.2e} m"
        );
        assert!(
            offset < 1e-12,
            "welded {weld}: payload off axis by {offset} m"
        );
        assert!(
            spread < 1e-12,
            "welded {weld}: corner heights spread {spread} m"
        );
    }
}

/// What a refined manta ray's run did.
struct RefinedRun {
    /// The states at the start and the end (m).
    start: Vec<f64>,
    end: Vec<f64>,
    /// Newton's factorizations, multigrid set-ups and PCG iterations,
    /// summed over the steps.
    factorizations: usize,
    setups: usize,
    pcg: usize,
}

/// The manta ray of `cells` cells refined 1 : 4 `refinements` times (its
/// coarser meshes as multigrid levels), or with `None` as generated (the
/// generated meshes of half, a quarter, … the cells as its levels),
/// stepped for `duration` s with Newton's `directions`.
fn refined_manta(
    cells: usize,
    refinements: Option<usize>,
    duration: f64,
    directions: pliant::core::Directions,
) -> RefinedRun {
    let defaults = Manta::default();
    let scene = Manta {
        cells,
        duration,
        newton: pliant::core::NewtonSettings {
            directions,
            ..defaults.newton
        },
        ..defaults
    };
    let mut run = match refinements {
        Some(r) => scene.refined(r).unwrap(),
        None => scene.build().unwrap(),
    };
    let start = run.sim.q().to_vec();
    let (mut factorizations, mut setups, mut pcg) = (0, 0, 0);
    for _ in 0..run.steps {
        let r = run.sim.step().unwrap().newton;
        factorizations += r.factorizations;
        setups += r.amg_setups;
        pcg += r.pcg_iterations;
    }
    RefinedRun {
        start,
        end: run.sim.q().to_vec(),
        factorizations,
        setups,
        pcg,
    }
}

/// The largest difference between two states of one model (m).
fn max_apart(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "states of one model");
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

/// The manta ray on its mesh refined 1 : 4 twice, stepped with geometric
/// multigrid directions (its two coarser meshes as the levels) and with
/// direct solves: the same states within Newton's tolerance, no
/// factorization on the multigrid side, and the hierarchy built and kept.
#[test]
fn geometric_multigrid_directions_reach_the_direct_solves_states() {
    use pliant::core::Directions;
    let direct = refined_manta(6, Some(2), 0.02, Directions::Direct);
    let geometric = refined_manta(6, Some(2), 0.02, Directions::Geometric);
    assert_eq!(
        geometric.factorizations, 0,
        "multigrid never fell back to a factorization"
    );
    assert!(
        geometric.setups >= 1 && geometric.pcg > 0,
        "{} set-ups, {} PCG iterations",
        geometric.setups,
        geometric.pcg
    );
    let moved = max_apart(&direct.end, &direct.start);
    let apart = max_apart(&direct.end, &geometric.end);
    assert!(moved > 1e-5, "the plate moved {moved} m");
    assert!(
        apart < 1e-3 * moved,
        "{apart} m apart after moving {moved} m"
    );
}

/// The generated manta ray at 48 cells across with the generated meshes of
/// 24 and 12 cells as its levels — not nested, tied by barycentric
/// transfers — stepped with geometric multigrid directions and with direct
/// solves: the same states within Newton's tolerance, and no
/// factorization of the finest Hessian on the multigrid side.
#[test]
fn multigrid_on_meshes_that_are_not_nested_reaches_the_direct_solves_states() {
    use pliant::core::Directions;
    let direct = refined_manta(48, None, 0.03, Directions::Direct);
    let geometric = refined_manta(48, None, 0.03, Directions::Geometric);
    assert_eq!(
        geometric.factorizations, 0,
        "multigrid gave every direction"
    );
    assert!(geometric.setups >= 1, "{} set-ups", geometric.setups);
    let moved = max_apart(&direct.end, &direct.start);
    let apart = max_apart(&direct.end, &geometric.end);
    assert!(moved > 1e-5, "the plate moved {moved} m");
    assert!(
        apart < 1e-3 * moved,
        "{apart} m apart after moving {moved} m"
    );
}

/// Over the first 0.16 s of flapping, the once-refined manta ray's
/// coarsest mesh (350 triangles) buckles where its finest does not: its own
/// step Hessian at the injected iterate is indefinite in one set-up. The
/// hierarchy then takes that level's PSD-projected Hessian instead of
/// falling back to a factorization of the finest one, and the states stay
/// those of direct solves (the plate moves 0.10 m; they were 3·10⁻¹¹ m
/// apart when written).
#[test]
fn geometric_multigrid_projects_a_coarse_level_that_is_not_positive_definite() {
    use pliant::core::Directions;
    let cells = Manta::default().cells;
    let direct = refined_manta(cells, Some(1), 0.16, Directions::Direct);
    let geometric = refined_manta(cells, Some(1), 0.16, Directions::Geometric);
    assert_eq!(
        geometric.factorizations, 0,
        "every direction came from multigrid"
    );
    let moved = max_apart(&direct.end, &direct.start);
    let apart = max_apart(&direct.end, &geometric.end);
    assert!(moved > 1e-3, "the plate moved {moved} m");
    assert!(apart < 1e-6, "{apart} m apart after moving {moved} m");
}

/// Coarse models that do not fit the model they coarsen are refused with
/// errors naming the level and what was wrong, and change nothing.
#[test]
fn coarse_models_that_do_not_fit_are_refused() {
    use pliant::core::{CoarseModel, CoreError};
    use pliant::shell::subdivide::{Weights, refine};
    let scene = Manta {
        cells: 4,
        ..Manta::default()
    };
    let coarse_mesh = scene.mesh().unwrap();
    let fine = refine(&coarse_mesh, Weights::Linear).unwrap();
    let mut run = scene.build_on(fine.fine.clone()).unwrap();
    let n_coarse = coarse_mesh.nodes.len();
    let injected: Vec<Vec<(usize, f64)>> = (0..n_coarse).map(|i| vec![(i, 1.0)]).collect();
    let mut off_mesh = injected.clone();
    off_mesh[3] = vec![(fine.fine.nodes.len(), 1.0)];
    let mut not_finite = fine.weights.clone();
    not_finite[5][0].1 = f64::NAN;
    let mut unnormalized = injected.clone();
    unnormalized[2] = vec![(2, 0.5)];
    #[derive(Debug)]
    enum Kind {
        Range,
        Count,
        NonFinite,
        Inconsistent,
    }
    let cases = [
        (
            off_mesh,
            fine.weights.clone(),
            "positions of node 3",
            Kind::Range,
        ),
        (
            injected.clone(),
            fine.weights[..10].to_vec(),
            "prolongation",
            Kind::Count,
        ),
        (
            injected[1..].to_vec(),
            fine.weights.clone(),
            "positions",
            Kind::Count,
        ),
        (
            injected.clone(),
            not_finite,
            "prolongation: a weight of finer node 5",
            Kind::NonFinite,
        ),
        (
            unnormalized,
            fine.weights.clone(),
            "positions of node 2",
            Kind::Inconsistent,
        ),
    ];
    for (positions, prolongation, names, kind) in cases {
        let model = scene.model_on(&coarse_mesh).unwrap();
        let e = run
            .sim
            .set_coarse_models(vec![CoarseModel {
                model,
                positions,
                prolongation,
            }])
            .unwrap_err();
        let right = match kind {
            Kind::Range => matches!(e, CoreError::NodeOutOfRange { .. }),
            Kind::Count => matches!(e, CoreError::Count { .. }),
            Kind::NonFinite => matches!(e, CoreError::NonFinite { .. }),
            Kind::Inconsistent => matches!(e, CoreError::Inconsistent { .. }),
        };
        assert!(right, "{kind:?}: {e:?}");
        let text = e.to_string();
        assert!(
            text.contains("coarse level 1") && text.contains(names),
            "{text}"
        );
    }
    // Still steps as before.
    run.sim.step().unwrap();
}
