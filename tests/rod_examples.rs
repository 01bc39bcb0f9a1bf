//! Behaviour of the MAT-DiSMech §7.1 rod scenes ([`pliant::rod_scenes`]):
//! the earthworm needs friction to crawl, the snake needs anisotropic drag
//! to swim, crossing rods do not pass through each other, the gripper stays
//! outside the sphere only with contact, PneuNets bend by their natural
//! curvature, and a dropped stiff rod comes to rest on the ground.
//!
//! Reduced for debug builds (the example runs the full scenes): fewer
//! cycles/seconds, coarser time steps and, where noted, fewer nodes.

use pliant::core::Simulator;
use pliant::rod_scenes::{
    CrossingRods, DroppedRod, Earthworm, GRAVITY, Gripper, LENGTH, PneuNet, RADIUS, RodScene,
    SceneInfo, Snake, centreline_distance, lowest_z, node_positions, turning_angle_xz,
};

/// Runs a scene to its end, calling `each` at the start and after every step.
fn run(scene: RodScene, mut each: impl FnMut(&Simulator, &SceneInfo)) -> (Simulator, SceneInfo) {
    pliant::init();
    let (mut sim, info) = scene.simulator().unwrap();
    each(&sim, &info);
    for k in 0..info.steps {
        sim.step()
            .unwrap_or_else(|e| panic!("{}: step {k} failed: {e}", info.name));
        each(&sim, &info);
    }
    (sim, info)
}

fn rod(sim: &Simulator, info: &SceneInfo, i: usize) -> Vec<[f64; 3]> {
    node_positions(sim.model(), sim.q(), &info.rods[i])
}

#[test]
fn the_earthworm_crawls_forward_with_friction_and_not_without() {
    // Three 0.6-s cycles; the front end is compared at the cycle ends, where
    // both edges are back at their rest lengths.
    let cycles = 3;
    let mut result = vec![];
    for mu in [Some(0.25), None] {
        let spec = Earthworm {
            friction: mu,
            duration: cycles as f64 * 0.6,
            ..Earthworm::default()
        };
        let per = (spec.period / spec.dt).round() as usize;
        let mut ends = vec![];
        let mut k = 0;
        let (sim, _) = run(spec.build().unwrap(), |sim, info| {
            if k % per == 0 {
                ends.push(rod(sim, info, 0)[Earthworm::FRONT][0]);
            }
            k += 1;
        });
        assert_eq!(ends.len(), cycles + 1);
        let m = sim.model();
        let com = m.center_of_mass(sim.q())[0] - m.center_of_mass(m.q0())[0];
        result.push((ends, com));
    }
    let (fric, free) = (&result[0], &result[1]);
    eprintln!(
        "front end at the cycle ends: μ = 0.25 {:?}, frictionless {:?} (m)",
        fric.0, free.0
    );
    // With friction: about 0.9 mm per cycle, every cycle.
    for w in fric.0.windows(2) {
        let step = w[1] - w[0];
        assert!(step > 0.5e-3, "advance per cycle {step} m: {:?}", fric.0);
    }
    let adv = fric.0[cycles] - fric.0[0];
    assert!(adv > 2.0e-3 && fric.1 > 2.0e-3, "advance {adv} m");
    // Without: no horizontal force, so the centre of mass stays put and the
    // front end is back where it started after every cycle.
    assert!(
        free.1.abs() < 1e-7,
        "frictionless centre of mass moved {} m",
        free.1
    );
    for x in &free.0 {
        let d = x - free.0[0];
        assert!(d.abs() < 0.05e-3, "frictionless front end at {d} m");
    }
    assert!(adv > 40.0 * (free.0[cycles] - free.0[0]).abs());
}

#[test]
fn the_snake_swims_only_with_anisotropic_drag() {
    // Three periods at 20 ms steps (the example: 10 s at 10 ms); the head is
    // compared after the one-period amplitude ramp, at whole periods.
    let mut out = vec![];
    for (ct, cn) in [(0.01, 0.1), (0.1, 0.1)] {
        let spec = Snake {
            ct,
            cn,
            duration: 3.0,
            dt: 0.02,
            ..Snake::default()
        };
        let head = spec.head();
        let per = (1.0 / spec.dt).round() as usize;
        let mut at = vec![];
        let mut zmax: f64 = 0.0;
        let mut k = 0;
        let (sim, _) = run(spec.build().unwrap(), |sim, info| {
            let p = rod(sim, info, 0);
            zmax = zmax.max(p.iter().map(|x| x[2].abs()).fold(0.0, f64::max));
            if k % per == 0 {
                at.push(p[head]);
            }
            k += 1;
        });
        let m = sim.model();
        let com = m.center_of_mass(sim.q())[0] - m.center_of_mass(m.q0())[0];
        assert!(zmax < 1e-9, "the snake left the plane z = 0 by {zmax} m");
        out.push((at, com));
    }
    let (aniso, iso) = (&out[0], &out[1]);
    let adv = aniso.0[3][0] - aniso.0[1][0];
    let back = iso.0[3][0] - iso.0[1][0];
    eprintln!("head advance over periods 2–3: C_t ≠ C_n {adv} m, C_t = C_n {back} m");
    // About 7 mm per period in the full-resolution example.
    assert!(adv > 5e-3, "head advanced {adv} m in two periods");
    assert!(aniso.1 > 5e-3, "centre of mass moved {} m", aniso.1);
    // Isotropic drag: the drag weights equal the lumped masses, so the
    // momentum starts and stays zero: the centre of mass cannot move, and
    // the head returns to the same place every period.
    assert!(
        iso.1.abs() < 1e-7,
        "isotropic centre of mass moved {} m",
        iso.1
    );
    assert!(back.abs() < 0.2e-3, "isotropic head moved {back} m");
    assert!(adv > 25.0 * back.abs());
}

/// Smallest centre-line distance over the run and the final contact count.
fn crossing(contact: bool) -> (f64, f64) {
    let spec = CrossingRods {
        contact,
        ..CrossingRods::default()
    };
    let mut min = f64::INFINITY;
    let (sim, _) = run(spec.build().unwrap(), |sim, info| {
        min = min.min(centreline_distance(&rod(sim, info, 0), &rod(sim, info, 1)));
    });
    let pairs = sim
        .observables(&sim.model().params_at(sim.time()))
        .into_iter()
        .find(|(n, _)| n == "rod_contact.pairs")
        .map_or(0.0, |(_, v)| v);
    (min, pairs)
}

#[test]
fn crossing_rods_pushed_together_do_not_pass_through_each_other() {
    let spec = CrossingRods::default();
    let (min, pairs) = crossing(true);
    let (free, _) = crossing(false);
    eprintln!(
        "smallest centre-line distance: with contact {min} m ({pairs} touching pairs at the end), without {free} m"
    );
    let two_r = 2.0 * RADIUS;
    assert!(
        min >= two_r - spec.delta,
        "centre lines {min} m apart, below 2r₀ − δ = {} m",
        two_r - spec.delta
    );
    assert!(min < two_r + spec.delta, "never touched: {min} m");
    assert!(pairs >= 1.0, "no touching pair at the end");
    // The same push without contact: the centre lines cross.
    assert!(
        free < 0.5 * RADIUS,
        "without contact the rods stayed {free} m apart"
    );
}

#[test]
fn the_gripper_stays_outside_the_sphere_only_with_contact() {
    // 21 nodes, 20-ms steps, a 3-s ramp (the example: 41 nodes, 10 ms, 5 s).
    let mut gaps = vec![];
    for contact in [true, false] {
        let spec = Gripper {
            contact,
            nodes: 21,
            dt: 0.02,
            ramp: 3.0,
            duration: 3.5,
            ..Gripper::default()
        };
        let mut min = f64::INFINITY;
        let (sim, info) = run(spec.build().unwrap(), |sim, info| {
            min = min.min(spec.sphere_gap(&rod(sim, info, 0)));
        });
        gaps.push((min, spec.sphere_gap(&rod(&sim, &info, 0))));
    }
    let (with, without) = (gaps[0], gaps[1]);
    eprintln!("sphere gap (smallest, final): with contact {with:?} m, without {without:?} m");
    // Soft penalty (k = 20 N/m): the rod's surface may sink into the sphere
    // by less than the contact tolerance δ = r₀.
    assert!(
        with.0 > -RADIUS,
        "with contact the rod sank {} m into the sphere",
        -with.0
    );
    assert!(
        with.1 < 0.5 * RADIUS,
        "the rod does not press on the sphere at the end: gap {} m",
        with.1
    );
    // Without contact it sweeps through the sphere and ends inside it.
    assert!(without.0 < -10e-3 && without.1 < -5e-3, "{without:?}");
}

#[test]
fn pneunets_bend_by_their_natural_curvature() {
    // 21 nodes, 10 load steps (the example: 51 nodes, 20).
    let mut angles = vec![];
    for kappa in pliant::rod_scenes::PNEUNET_CURVATURES {
        let spec = PneuNet {
            nodes: 21,
            load_steps: 10,
            ..PneuNet::with_curvature(kappa)
        };
        let (sim, info) = run(spec.build().unwrap(), |_, _| {});
        let a = turning_angle_xz(&rod(&sim, &info, 0));
        // Gravity is negligible against EI = 0.0157 N·m²: the free springs
        // (all but the clamped edge's) sit at their natural turning angle.
        let dl = LENGTH / 20.0;
        let natural = 19.0 * 2.0 * (0.5 * kappa * dl).atan();
        assert!(
            (a - natural).abs() < 0.01,
            "κ̄ = {kappa}: {a} rad vs {natural}"
        );
        angles.push(a);
    }
    assert!(angles[0] < angles[1] && angles[1] < angles[2], "{angles:?}");
    // A tip force along +x opens the least curved actuator.
    let spec = PneuNet {
        nodes: 21,
        load_steps: 10,
        tip_force: Some([1.75, 0.0, 0.07]),
        ..PneuNet::with_curvature(15.70)
    };
    let (sim, info) = run(spec.build().unwrap(), |_, _| {});
    let a = turning_angle_xz(&rod(&sim, &info, 0));
    assert!(
        a < angles[0] - 0.2,
        "{a} rad with the force, {} without",
        angles[0]
    );
}

#[test]
fn a_dropped_stiff_rod_comes_to_rest_on_the_ground() {
    // 21 nodes, 2-ms steps, 0.6 s (the example: 41 nodes, 1 ms, 1 s).
    let spec = DroppedRod {
        nodes: 21,
        dt: 2e-3,
        duration: 0.6,
        ..DroppedRod::default()
    };
    let mut lowest = f64::INFINITY;
    let (sim, info) = run(spec.build().unwrap(), |sim, info| {
        lowest = lowest.min(lowest_z(&rod(sim, info, 0)));
    });
    let pts = rod(&sim, &info, 0);
    let z = lowest_z(&pts);
    eprintln!(
        "lowest centre line: deepest {lowest} m, final {z} m; kinetic energy {} J",
        sim.kinetic_energy()
    );
    // The contact band of the centre line: the plane z = r₀, tolerance δ = r₀.
    assert!(z > 0.0 && z < 2.0 * RADIUS, "lowest node at {z} m");
    // Lying flat, nothing left of the fall's energy.
    let top = pts.iter().map(|p| p[2]).fold(f64::MIN, f64::max);
    assert!(
        top - z < 0.2 * RADIUS,
        "not lying flat: height span {} m",
        top - z
    );
    let drop_energy = sim.model().total_mass() * GRAVITY * spec.height;
    assert!(
        sim.kinetic_energy() < 1e-6 * drop_energy,
        "kinetic energy {} J",
        sim.kinetic_energy()
    );
    // It hit the ground without passing through it.
    // (The paper's ground is soft, k = 20 N/m: the surface sinks by about a
    // radius at impact.)
    assert!(
        lowest > -RADIUS && lowest < RADIUS,
        "deepest centre line {lowest} m"
    );
}
