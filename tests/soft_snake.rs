//! The pneumatic soft snake (Arachchige et al. 2023): the drop test comes
//! to rest on the ground, the gait's pressures respect the 3 bar ceiling,
//! and the rollout gradient of its sideways displacement with respect to
//! its pressure keyframes matches finite differences of whole rollouts
//! (forward sensitivity and adjoint), through contact and friction; the
//! two mountings roll as mirror images.

use pliant::core::Simulator;
use pliant::optim::{AverageVelocity, Gait as KeyframeGait, Motor, Objective, Shooting};
use pliant::soft_snake::gait::{Gait, GaitKind};
use pliant::soft_snake::{Mounting, SnakeFriction, SoftSnake, newton};

#[test]
fn the_dropped_snake_comes_to_rest_on_the_ground() {
    pliant::init();
    let snake = SoftSnake {
        gait: Gait::new(GaitKind::Still),
        drop_height: 0.05,
        settle: 0.6,
        duration: 0.0,
        dt: 0.01,
        ..SoftSnake::default()
    };
    let (mut sim, info) = snake.build().unwrap().simulator().unwrap();
    let mut lowest: f64 = f64::INFINITY;
    for _ in 0..info.steps {
        sim.step().unwrap();
        let q = sim.q();
        lowest = info
            .body
            .contact_nodes()
            .iter()
            .map(|&n| q[3 * n + 2])
            .fold(lowest, f64::min);
    }
    let q = sim.q();
    let v = sim.v();
    let speed = (0..q.len() / 3)
        .map(|n| (v[3 * n].powi(2) + v[3 * n + 1].powi(2) + v[3 * n + 2].powi(2)).sqrt())
        .fold(0.0, f64::max);
    let penetration = -info
        .body
        .contact_nodes()
        .iter()
        .map(|&n| q[3 * n + 2])
        .fold(f64::INFINITY, f64::min);
    // At rest: weight 3.43 N over the lowest skin points of K_g = 1000 N/m
    // each, so a fraction of a millimetre of penetration.
    assert!(speed < 1e-3, "still moving at {speed} m/s");
    assert!(
        penetration > 0.0 && penetration < 2e-4,
        "penetration {penetration} m"
    );
    // Never far into the ground, even at impact (0.05 m drop, 1 m/s).
    assert!(lowest > -2e-3, "impact penetration {} m", -lowest);
    // The hubs rest about one skin radius up (a decagon on an edge: R cos 18°).
    let hub_z =
        info.body.hubs.iter().map(|&h| q[3 * h + 2]).sum::<f64>() / info.body.hubs.len() as f64;
    assert!(
        (hub_z - 0.03 * 18f64.to_radians().cos()).abs() < 5e-4,
        "hubs at {hub_z} m"
    );
}

#[test]
fn gait_pressures_stay_within_the_ceiling_and_rotate_the_bending_plane() {
    for kind in [GaitKind::Planar, GaitKind::Spatial] {
        let g = Gait::new(kind);
        for k in 0..400 {
            let tau = k as f64 * 0.01;
            for i in 0..3 {
                let p: Vec<f64> = (0..3)
                    .map(|j| g.pressure(Mounting::default(), i, j, tau))
                    .collect();
                assert!(p.iter().all(|&p| (0.0..=3e5 + 1e-9).contains(&p)), "{p:?}");
                if tau >= g.ramp {
                    assert!((p.iter().cloned().fold(0.0, f64::max) - 3e5).abs() < 0.26e5);
                }
            }
        }
        // One period later the pattern repeats; half a period later the
        // most pressurized muscle of section 1 has moved on.
        let (a, b) = (
            g.pressure(Mounting::default(), 0, 0, 1.0),
            g.pressure(Mounting::default(), 0, 0, 3.0),
        );
        assert!((a - b).abs() < 1e-6);
    }
}

/// A coarse snake (7 rings, 6 skin points) dropped 1 mm, whose nine
/// pressures follow keyframes (two per cycle of 0.1 s) from the start; the
/// objective is its mean sideways velocity.
#[test]
fn pressure_keyframe_gradients_match_finite_differences_of_rollouts() {
    pliant::init();
    let snake = SoftSnake {
        rings: 7,
        skin_points: 6,
        drop_height: 1e-3,
        settle: 0.0,
        duration: 0.2,
        dt: 0.01,
        ..SoftSnake::default()
    };
    let scene = snake.build().unwrap();
    let channels = scene.info.body.channels.clone();
    let mut nt = newton();
    nt.abs_tol = 1e-12;
    nt.rel_tol = 1e-12;
    nt.max_step_halvings = 0;
    let sim = Simulator::new(
        scene.model,
        pliant::core::Integrator::ImplicitEuler,
        0.01,
        nt,
    )
    .unwrap();
    let gait = KeyframeGait {
        motors: channels
            .iter()
            .flatten()
            .map(|c| Motor {
                name: c.clone(),
                channels: vec![c.clone()],
                mirror_of: None,
            })
            .collect(),
        keyframes: 2,
        prep_steps: 4,
        cycle_steps: 10,
        cycles: 1,
        bounds: Some((0.0, 3e5)),
    };
    let map = gait.control_map(sim.model()).unwrap();
    let obj: Vec<Box<dyn Objective>> = vec![Box::new(
        AverageVelocity::new(sim.model(), &[1], vec![0.1], 1e3).unwrap(),
    )];
    let problem = Shooting::new(sim, map, obj).unwrap();
    let z: Vec<f64> = (0..18)
        .map(|i| 1e5 + 1e5 * ((i as f64) * 1.3).sin().abs())
        .collect();
    // The solver's variable: pressures within [0, 3 bar] through tanh.
    let w = problem.w_of(&z);
    let c = problem.check_gradient(&w, 1e-6).unwrap();
    eprintln!("{c}");
    assert!(c.scale > 0.0, "gradient {:?}", c.forward);
    assert!(c.forward_vs_fd < 1e-5, "{c}");
    assert!(c.adjoint_vs_forward < 1e-8, "{c}");
}

/// Every friction variant builds and holds the dropped snake; a gait whose
/// sense or phase direction is not ±1 is an error naming the field.
#[test]
fn friction_variants_build_and_gait_directions_are_validated() {
    pliant::init();
    for friction in [
        SnakeFriction::PerAxisRobot,
        SnakeFriction::PerAxisWorld,
        SnakeFriction::PerAxisLocal,
        SnakeFriction::Elliptic,
    ] {
        let snake = SoftSnake {
            rings: 7,
            skin_points: 6,
            friction,
            gait: Gait::new(GaitKind::Spatial),
            drop_height: 1e-3,
            settle: 0.0,
            duration: 0.05,
            dt: 0.01,
            ..SoftSnake::default()
        };
        let (mut sim, info) = snake.build().unwrap().simulator().unwrap();
        for _ in 0..info.steps {
            sim.step().unwrap();
        }
        assert!(sim.q().iter().all(|v| v.is_finite()), "{friction:?}");
    }
    for (sense, wave, field) in [(0.5, -1.0, "gait.sense"), (1.0, 0.0, "gait.wave")] {
        let mut snake = SoftSnake::default();
        snake.gait.sense = sense;
        snake.gait.wave = wave;
        let e = snake.build().unwrap_err().to_string();
        assert!(e.contains(field), "{e}");
    }
}

/// Starting each step from the inertial predictor (the snake's setting)
/// rolls the snake as far as starting from the lower-potential of
/// predictor and previous state, in fewer Newton iterations: the rolling
/// snake's solutions lie near its predictor, which its ground damping and
/// friction (dissipation potentials, zero at the previous state) hide
/// from the potential comparison. The two runs are not the same path to
/// round-off: a rolling step's potential can have nearby local minima (a
/// run like this one, at a tolerance of 1e-11 N, parted by 0.8 mm within
/// one step 0.3 s in), and the start decides which one Newton lands in — so
/// the test compares how far the snake rolled (98 and 103 mm when written).
#[test]
fn starting_from_the_predictor_rolls_as_far_in_fewer_iterations() {
    use pliant::core::NewtonStart;
    pliant::init();
    let snake = SoftSnake {
        rings: 13,
        skin_points: 8,
        drop_height: 1e-3,
        settle: 0.1,
        duration: 1.5,
        dt: 0.01,
        ..SoftSnake::default()
    };
    let run = |start: NewtonStart| {
        let mut nt = newton();
        nt.start = start;
        let (mut sim, info) = snake.clone().build().unwrap().simulator_with(nt).unwrap();
        let (steps, hubs) = (info.steps, info.body.hubs.clone());
        let hub_y = |q: &[f64]| hubs.iter().map(|&h| q[3 * h + 1]).sum::<f64>() / hubs.len() as f64;
        let y0 = hub_y(sim.q());
        let mut iterations = 0;
        for _ in 0..steps {
            iterations += sim.step().unwrap().newton.iterations;
        }
        (hub_y(sim.q()) - y0, iterations, steps)
    };
    assert_eq!(newton().start, NewtonStart::Predictor);
    let (y_pred, it_pred, steps) = run(NewtonStart::Predictor);
    let (y_low, it_low, _) = run(NewtonStart::LowerPotential);
    eprintln!(
        "{steps} steps: rolled {:.2} mm in {it_pred} Newton iterations from the predictor, {:.2} mm in {it_low} from the lower potential",
        y_pred * 1e3,
        y_low * 1e3
    );
    assert!(y_low > 0.02, "the snake rolled only {y_low} m");
    assert!(
        (y_pred - y_low).abs() < 0.1 * y_low,
        "rolled {y_pred} m from the predictor against {y_low} m"
    );
    assert!(
        it_pred < it_low,
        "{it_pred} iterations from the predictor against {it_low}"
    );
}

/// The two mountings give mirror images of the joint-space gaits: a gait
/// whose bending planes are shifted by `Δ` between sections and starts at
/// `φ₀` is, with the sections taken head to tail, the gait shifted by `−Δ`
/// that starts at `φ₀ + 2Δ`. So the left-handed planar gait (`Δ = −π/3`)
/// from `φ₀ = 0` and the right-handed one (`Δ = π/3`) from `−2π/3` roll
/// alike across the body and drift opposite ways along it — up to the
/// rings' stub nodes, which sit 5 mm towards the head and are the body's
/// one asymmetry end to end.
#[test]
fn the_two_mountings_roll_as_mirror_images() {
    use std::f64::consts::PI;
    pliant::init();
    let run = |mounting: Mounting, start_phase: f64| {
        let mut snake = SoftSnake {
            rings: 13,
            skin_points: 8,
            drop_height: 1e-3,
            settle: 0.1,
            duration: 2.5,
            dt: 0.01,
            mounting,
            ..SoftSnake::default()
        };
        snake.gait.start_phase = start_phase;
        let (mut sim, info) = snake.build().unwrap().simulator().unwrap();
        let hubs = info.body.hubs.clone();
        let mean = |q: &[f64], k: usize| {
            hubs.iter().map(|&h| q[3 * h + k]).sum::<f64>() / hubs.len() as f64
        };
        let (x0, y0) = (mean(sim.q(), 0), mean(sim.q(), 1));
        for _ in 0..info.steps {
            sim.step().unwrap();
        }
        (mean(sim.q(), 0) - x0, mean(sim.q(), 1) - y0)
    };
    let (xl, yl) = run(Mounting::LeftHanded, 0.0);
    let (xr, yr) = run(Mounting::RightHanded, -2.0 * PI / 3.0);
    let (xs, ys) = run(Mounting::RightHanded, 0.0);
    eprintln!(
        "left from 0: ({:.2}, {:.2}) mm; right from −2π/3: ({:.2}, {:.2}) mm; right from 0: ({:.2}, {:.2}) mm",
        xl * 1e3,
        yl * 1e3,
        xr * 1e3,
        yr * 1e3,
        xs * 1e3,
        ys * 1e3
    );
    // (32.5, 87.8) and (−33.2, 87.2) mm when written.
    assert!(
        xl > 0.01 && yl > 0.05,
        "the left-handed snake drifted {xl} m and rolled {yl} m"
    );
    assert!((yl - yr).abs() < 0.03 * yl, "rolled {yl} against {yr} m");
    assert!((xl + xr).abs() < 0.05 * xl, "drifted {xl} against {xr} m");
    // Not any two runs agree: the right-handed snake from the same phase
    // (−44.3, 55.1 mm when written) is another gait start.
    assert!((ys - yl).abs() > 0.1 * yl, "rolled {ys} against {yl} m");
}
