//! Pneumatic muscles anchored on a rod's surface (`Anchor::Rod`): the
//! anchors ride the rod's cross-sections (pliant-pneumatic follows
//! pliant-rod's material frames without reading them, by transporting its
//! own director of each edge along the same tangents), a muscle along a
//! cantilever bends it with the closed-form curvature, rollout gradients
//! through the anchors' carried frames are exact, and bad anchors are
//! typed errors.

use pliant::core::derivcheck::{Tolerances, check_model_at_random_states};
use pliant::core::geometry::{Point, Shape};
use pliant::core::{
    Energy, EvalState, Integrator, Model, ModelBuilder, NewtonSettings, ParamChannel, Simulator,
};
use pliant::environment::Gravity;
use pliant::optim::{CentreOfMass, ComPath, Gait, Memory, Motor, Objective, Shooting};
use pliant::pneumatic::{Anchor, Muscle, MuscleModel, PneumaticMuscles, Quantity};
use pliant::rod::{Actuation, Rod, RodEnergy};
use std::f64::consts::PI;

/// Rod radius, m.
const RADIUS: f64 = 0.01;
/// Rod Young's modulus, Pa.
const YOUNGS: f64 = 2e6;
/// Muscle offset from the centre line, m (the snake paper's 12.5 mm).
const OFFSET: f64 = 0.0125;
/// Muscle stiffness, N/m, and effective area, m² (the paper's PMA).
const MUSCLE_K: f64 = 1900.0;
const AREA: f64 = 3.5625e-4;

/// Nodes of a rod of `n` edges over `length` along x, bent out of the
/// plane when `curly`.
fn nodes(n: usize, length: f64, curly: bool) -> Vec<[f64; 3]> {
    (0..=n)
        .map(|k| {
            let s = k as f64 / n as f64;
            if curly {
                [
                    s * length,
                    0.01 * (3.0 * s).sin(),
                    0.008 * (5.0 * s).cos() - 0.008,
                ]
            } else {
                [s * length, 0.0, 0.0]
            }
        })
        .collect()
}

/// A point `offset` from edge `k`'s centre line, a fraction `s` along it,
/// in the direction making angle `angle` with the plane's normal `z`
/// (about the edge's tangent).
fn surface_point(x: &[[f64; 3]], k: usize, s: f64, angle: f64) -> [f64; 3] {
    let (a, b) = (x[k], x[k + 1]);
    let e: [f64; 3] = std::array::from_fn(|i| b[i] - a[i]);
    let l = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt();
    let t = e.map(|c| c / l);
    // z made perpendicular to t, and t × that.
    let z = [0.0, 0.0, 1.0];
    let zt = t[2];
    let n1 = {
        let v: [f64; 3] = std::array::from_fn(|i| z[i] - zt * t[i]);
        let lv = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / lv)
    };
    let n2 = [
        t[1] * n1[2] - t[2] * n1[1],
        t[2] * n1[0] - t[0] * n1[2],
        t[0] * n1[1] - t[1] * n1[0],
    ];
    std::array::from_fn(|i| a[i] + s * e[i] + OFFSET * (angle.cos() * n1[i] + angle.sin() * n2[i]))
}

/// A muscle along the rod through the mid-points of every edge's
/// cross-section, at `angle` about each edge from the z side.
fn muscle_along(x: &[[f64; 3]], angle: f64, pressure: Quantity, name: &str) -> Muscle {
    Muscle {
        name: Some(name.into()),
        nodes: (0..x.len() - 1)
            .map(|k| Anchor::Rod {
                rod: "spine".into(),
                edge: k,
                at: surface_point(x, k, 0.5, angle),
            })
            .collect(),
        pressure,
    }
}

/// A rod named `spine` through `x` (shaped by `rod`), clamped at its
/// first edge, with the `muscles` on it (linear law, damping `damping`
/// N·s/m), and control channels `channels` at constant values.
fn arm(
    x: &[[f64; 3]],
    muscles: Vec<Muscle>,
    damping: f64,
    channels: &[(&str, f64)],
    rod: impl FnOnce(Rod) -> Rod,
) -> ModelBuilder {
    let mut b = ModelBuilder::new(3).unwrap();
    let ids: Vec<usize> = x.iter().map(|p| b.add_node(p, 0.0).unwrap()).collect();
    b.fix_node(0).unwrap();
    b.fix_node(1).unwrap();
    for (c, v) in channels {
        b.add_param(ParamChannel::control(c, *v)).unwrap();
    }
    b.add(rod(Rod::chain(&ids, RADIUS, YOUNGS, 0.5, 1000.0)
        .named("spine")
        .fix_twist(0)));
    b.add(PneumaticMuscles::new(
        muscles,
        MUSCLE_K,
        damping,
        MuscleModel::Linear { area: AREA },
    ));
    b
}

fn rod_of(model: &Model) -> &RodEnergy {
    model.energies_of::<RodEnergy>()[0]
}

/// Every muscle piece's two anchors, in order, from the muscles' drawing.
fn anchors_drawn(model: &Model, q: &[f64], p: &[f64]) -> Vec<[f64; 3]> {
    let s = EvalState::at_rest(q, p, 1.0, 0.0);
    let e: &dyn Energy = model
        .energies()
        .iter()
        .find(|e| e.as_any().is_some_and(|a| !a.is::<RodEnergy>()))
        .map(|e| e.as_ref())
        .expect("the muscle set");
    let Some(Shape::Cells(c)) = e.geometry(&s).into_iter().next() else {
        panic!("muscles are drawn as cells");
    };
    c.points
        .iter()
        .map(|p| match p {
            Point::At(x) => *x,
            other => panic!("an anchor drawn as {other:?}"),
        })
        .collect()
}

/// Each anchor's edge and its angle (rad) in that edge's material frame
/// in the initial state `x`, muscle by muscle (`angles` as in
/// [`muscle_along`]).
fn initial_angles(model: &Model, x: &[[f64; 3]], angles: &[f64]) -> Vec<(usize, f64)> {
    let m0 = rod_of(model).material_frames(model.q0());
    let n = x.len() - 1;
    let mut out = Vec::new();
    for &a in angles {
        for k in 0..n {
            let p = surface_point(x, k, 0.5, a);
            let o: [f64; 3] = std::array::from_fn(|i| p[i] - 0.5 * (x[k][i] + x[k + 1][i]));
            let dot = |u: &[f64; 3]| o[0] * u[0] + o[1] * u[1] + o[2] * u[2];
            out.push((k, dot(&m0[k][1]).atan2(dot(&m0[k][0]))));
        }
    }
    out
}

/// The largest distance (m) between a drawn anchor and where the rod's
/// own material frames put a point at the anchor's initial angle
/// (`expect_at`, from [`initial_angles`]), in the state `q` at time `t`.
fn departure(model: &Model, q: &[f64], t: f64, expect_at: &[(usize, f64)], n: usize) -> f64 {
    let frames = rod_of(model).material_frames(q);
    let drawn = anchors_drawn(model, q, &model.params_at(t));
    let node = |i: usize| -> [f64; 3] {
        let p = model.node_position(q, i);
        [p[0], p[1], p[2]]
    };
    // A muscle's pieces are (anchor j, anchor j + 1): every start, and the
    // last piece's end.
    let per_muscle = n - 1;
    let mut worst: f64 = 0.0;
    for (idx, &(k, beta)) in expect_at.iter().enumerate() {
        let (m, j) = (idx / n, idx % n);
        let got = if j < per_muscle {
            drawn[2 * (m * per_muscle + j)]
        } else {
            drawn[2 * (m * per_muscle + j - 1) + 1]
        };
        let (a, b) = (node(k), node(k + 1));
        let f = &frames[k];
        for i in 0..3 {
            let want = 0.5 * (a[i] + b[i]) + OFFSET * (beta.cos() * f[0][i] + beta.sin() * f[1][i]);
            worst = worst.max((got[i] - want).abs());
        }
    }
    worst
}

/// The anchors stay on the rod's cross-sections: at every step of a
/// twisting, bending, out-of-plane motion each anchor is where the rod's
/// own material frame puts a point at its initial angle, to round-off.
#[test]
fn anchors_turn_with_the_rods_material_frames() {
    let n = 8;
    let x = nodes(n, 0.16, true);
    let angles = [0.3, 2.2, -1.9];
    let muscles: Vec<Muscle> = angles
        .iter()
        .enumerate()
        .map(|(m, &a)| muscle_along(&x, a, Quantity::Channel("p".into()), &format!("m{m}")))
        .collect();
    // Pressure in the muscles, and a natural twist driven on the rod so
    // that its cross-sections turn (rad per spring).
    let mut b = arm(&x, muscles, 20.0, &[("p", 4e4), ("twist", 1.5)], |r| {
        r.actuate(Actuation::twist("twist", None))
    });
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    let model = b.build().unwrap();
    let expect_at = initial_angles(&model, &x, &angles);
    let mut sim = Simulator::new(
        model,
        Integrator::ImplicitEuler,
        0.005,
        NewtonSettings::default(),
    )
    .unwrap();
    let (mut largest_twist, mut worst, mut moved) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..60 {
        sim.step().unwrap();
        let q = sim.q().to_vec();
        let model = sim.model();
        largest_twist = rod_of(model)
            .twist_dofs()
            .iter()
            .fold(largest_twist, |m, &d| m.max(q[d].abs()));
        worst = worst.max(departure(model, &q, sim.time(), &expect_at, n));
        let tip = model.node_position(&q, n);
        moved = moved.max((tip[1] - x[n][1]).hypot(tip[2] - x[n][2]));
    }
    eprintln!(
        "largest twist {largest_twist:.3} rad, tip moved up to {moved:.3e} m, \
         largest departure from the rod's frames {worst:.2e} m"
    );
    assert!(
        largest_twist > 0.2,
        "the rod hardly twisted: {largest_twist}"
    );
    assert!(moved > 0.01, "the rod hardly moved: {moved}");
    assert!(
        worst < 1e-12,
        "an anchor left its cross-section by {worst:e} m"
    );

    // A run restarted from a new state (`set_state` resets what energies
    // carry): the rod turned by 170° about z, so its edges point almost
    // opposite to their committed tangents (the reset goes through a
    // waypoint), and twisted by 0.7 rad per edge.
    let rot = 170f64.to_radians();
    let (sn, cs) = rot.sin_cos();
    let mut q = sim.model().q0().to_vec();
    for i in 0..=n {
        let d = sim.model().layout().node_dof(i, 0, "test").unwrap();
        let (px, py) = (q[d], q[d + 1]);
        q[d] = cs * px - sn * py;
        q[d + 1] = sn * px + cs * py;
    }
    for &d in rod_of(sim.model()).twist_dofs() {
        q[d] = 0.7;
    }
    let v = vec![0.0; q.len()];
    sim.set_state(&q, &v, 0.0, 0).unwrap();
    let after_reset = departure(sim.model(), &q, 0.0, &expect_at, n);
    eprintln!("after a reset to a turned and twisted state: {after_reset:.2e} m");
    assert!(after_reset < 1e-12, "after reset: {after_reset:e} m");
}

/// A muscle along one side of a cantilever pushes on cross-sections at
/// `r` from the centre line: a uniform moment `f r`, so a uniform
/// curvature `κ = f r / EI`. The rod's tension `f` stretches it by
/// `f/EA` and the muscle, on the convex side, lengthens by
/// `L (f/EA + κ r)`, so `f = p A − K L (f/EA + f r²/EI)`:
/// `f = p A / (1 + K L (1/EA + r²/EI))`.
#[test]
fn a_muscle_along_a_cantilever_bends_it_with_the_closed_form_curvature() {
    let (length, n) = (0.2, 20);
    let x = nodes(n, length, false);
    let ei = YOUNGS * PI * RADIUS.powi(4) / 4.0;
    let ea = YOUNGS * PI * RADIUS * RADIUS;
    // On the +y side (angle −π/2 from z about +x).
    let mut kappas = Vec::new();
    for p in [1e4, 2e4] {
        let m = muscle_along(&x, -PI / 2.0, Quantity::Value(p), "side");
        let model = arm(&x, vec![m], 0.0, &[], |r| r).build().unwrap();
        let mut sim =
            Simulator::new(model, Integrator::Static, 1.0, NewtonSettings::default()).unwrap();
        sim.step().unwrap();
        let q = sim.q();
        let model = sim.model();
        let at = |i: usize| model.node_position(q, i);
        let angle = |k: usize| {
            let (a, b) = (at(k), at(k + 1));
            (b[1] - a[1]).atan2(b[0] - a[0])
        };
        // The muscle spans mid-edge 0 to mid-edge n − 1: nodes 1..n − 1
        // turn; the edges' mean length is the current spacing.
        let spacing = (0..n)
            .map(|k| {
                let (a, b) = (at(k), at(k + 1));
                ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2) + (b[2] - a[2]).powi(2)).sqrt()
            })
            .sum::<f64>()
            / n as f64;
        let kappa = -(angle(n - 1) - angle(0)) / ((n - 1) as f64 * spacing);
        let l_m = (n - 1) as f64 * length / n as f64;
        let f = p * AREA / (1.0 + MUSCLE_K * l_m * (1.0 / ea + OFFSET * OFFSET / ei));
        let closed = f * OFFSET / ei;
        eprintln!(
            "p = {p:.0} Pa: curvature {kappa:.5} 1/m, closed form {closed:.5} 1/m ({:+.3} %), tip angle {:.2}°, out of plane {:.1e} m",
            100.0 * (kappa / closed - 1.0),
            -angle(n - 1).to_degrees(),
            (0..=n).map(|i| at(i)[2].abs()).fold(0.0, f64::max)
        );
        assert!(
            (kappa / closed - 1.0).abs() < 0.01,
            "p = {p}: κ = {kappa} against {closed}"
        );
        kappas.push(kappa);
    }
    // It bends away from the muscle (towards −y), linearly in p.
    assert!(kappas[0] > 0.0);
    assert!((kappas[1] / kappas[0] - 2.0).abs() < 0.01, "{kappas:?}");
}

/// The pieces with rod anchors: gradient and Hessian of the dual-number
/// fallback against central finite differences at random states (the
/// twist angles perturbed too).
#[test]
fn pieces_on_a_rod_pass_the_derivative_checks() {
    let x = nodes(4, 0.08, true);
    let m = vec![
        muscle_along(&x, 0.7, Quantity::Channel("p".into()), "a"),
        // A muscle from a node to the rod's surface, and one from the surface
        // to a node: mixed ends.
        Muscle {
            name: Some("mixed".into()),
            nodes: vec![
                Anchor::Node(0),
                Anchor::Rod {
                    rod: "spine".into(),
                    edge: 2,
                    at: surface_point(&x, 2, 0.3, -2.0),
                },
                Anchor::Node(4),
            ],
            pressure: Quantity::Value(2e4),
        },
        // Node to node in a set with anchors on rods, and a point on the
        // centre line (no offset, so no direction of its own).
        Muscle {
            name: Some("plain".into()),
            nodes: vec![Anchor::Node(1), Anchor::Node(3)],
            pressure: Quantity::Channel("p".into()),
        },
        Muscle {
            name: Some("axis".into()),
            nodes: vec![
                Anchor::Node(0),
                Anchor::Rod {
                    rod: "spine".into(),
                    edge: 3,
                    at: std::array::from_fn(|i| 0.5 * (x[3][i] + x[4][i])),
                },
            ],
            pressure: Quantity::Channel("p".into()),
        },
    ];
    let model = arm(&x, m, 30.0, &[("p", 1e4)], |r| r).build().unwrap();
    let tol = Tolerances {
        exact: 1e-8,
        fd: 2e-5,
        step: 1e-7,
    };
    check_model_at_random_states(
        &model,
        &[2.5e4],
        0.004,
        0.3,
        0.01,
        1..=3,
        &tol,
        "muscles on a rod",
        |_, _| {},
    );
}

/// A curled rod under gravity swung by two muscles on its surface whose
/// pressures are the controls: out of the plane the anchors' frames carry
/// history, and forward and adjoint gradients of a tip objective agree
/// with central differences of whole rollouts.
fn swinging(memory: Memory) -> Shooting {
    let x = nodes(6, 0.12, true);
    let muscles = vec![
        muscle_along(&x, 0.4, Quantity::Channel("left".into()), "left"),
        muscle_along(
            &x,
            0.4 + 2.0 * PI / 3.0,
            Quantity::Channel("right".into()),
            "right",
        ),
    ];
    let mut b = arm(&x, muscles, 5.0, &[("left", 0.0), ("right", 0.0)], |r| r);
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    let model = b.build().unwrap();
    let newton = NewtonSettings {
        abs_tol: 1e-13,
        rel_tol: 1e-13,
        max_iterations: 100,
        ..Default::default()
    };
    let h = 0.01;
    let gait = Gait {
        motors: ["left", "right"]
            .iter()
            .map(|c| Motor {
                name: c.to_string(),
                channels: vec![c.to_string()],
                mirror_of: None,
            })
            .collect(),
        keyframes: 3,
        prep_steps: 2,
        cycle_steps: 9,
        cycles: 1,
        bounds: None,
    };
    let sim = Simulator::new(model, Integrator::ImplicitEuler, h, newton).unwrap();
    let map = gait.control_map(sim.model()).unwrap();
    let model = sim.model();
    // The centre of mass in x and y, pulled along a line.
    let c0 = CentreOfMass::new(model, &[0, 1]).unwrap().of(model.q0());
    let targets = ComPath::straight(&c0, &[0.01, -0.02], gait.steps(), h);
    let objectives: Vec<Box<dyn Objective>> = vec![Box::new(
        ComPath::new(model, &[0, 1], targets, 1e4).unwrap(),
    )];
    Shooting::new(sim, map, objectives)
        .unwrap()
        .with_memory(memory)
}

/// Keyframe pressures (Pa) of the two muscles.
const Z: [f64; 6] = [3e4, 1e4, 5e4, 2e4, 4e4, 0.5e4];

#[test]
fn rollout_gradients_through_anchors_on_a_rod_are_exact() {
    let p = swinging(Memory::Recompute);
    let c = p.check_gradient(&Z, 10.0).unwrap();
    eprintln!("{c}");
    assert!(c.scale > 1e-12, "gradient {:?}", c.forward);
    assert!(c.forward_vs_fd < 1e-6, "{c}");
    assert!(c.adjoint_vs_forward < 1e-9, "{c}");
    // Blocks rebuilt at stored states see the recorded anchor frames.
    let (rs, js) = swinging(Memory::Store).jacobian(&Z).unwrap();
    let (rr, jr) = swinging(Memory::Recompute).jacobian(&Z).unwrap();
    assert_eq!(rs, rr, "the rollouts themselves must agree bitwise");
    let scale = js.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let d = js
        .iter()
        .zip(&jr)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(
        d <= 1e-12 * scale,
        "Jacobians differ by {d:e} (scale {scale:e})"
    );
}

fn bind_error(anchor: Anchor, second_rod: bool) -> String {
    let x = nodes(3, 0.06, false);
    let m = Muscle {
        name: None,
        nodes: vec![Anchor::Node(0), anchor],
        pressure: Quantity::Value(1e4),
    };
    let mut b = arm(&x, vec![m], 0.0, &[], |r| r);
    if second_rod {
        let extra: Vec<usize> = (0..2)
            .map(|k| b.add_node(&[k as f64 * 0.02, 0.1, 0.0], 0.0).unwrap())
            .collect();
        b.add(Rod::chain(&extra, RADIUS, YOUNGS, 0.5, 1000.0).named("spine"));
    }
    b.build().unwrap_err().to_string()
}

#[test]
fn bad_anchors_on_rods_are_typed_errors() {
    let x = nodes(3, 0.06, false);
    let on = |rod: &str, edge: usize, at: [f64; 3]| Anchor::Rod {
        rod: rod.into(),
        edge,
        at,
    };
    let e = bind_error(on("tail", 1, surface_point(&x, 1, 0.5, 0.0)), false);
    assert!(
        e.contains("no rod named `tail`") && e.contains("spine"),
        "{e}"
    );
    let e = bind_error(on("spine", 7, surface_point(&x, 1, 0.5, 0.0)), false);
    assert!(e.contains("has 3 edges, no edge 7"), "{e}");
    let e = bind_error(on("spine", 1, surface_point(&x, 1, 1.6, 0.0)), false);
    assert!(
        e.contains("at 1.6000 of its length") && e.contains("nodes[1].at"),
        "{e}"
    );
    let e = bind_error(on("spine", 1, [0.03, f64::NAN, 0.0]), false);
    assert!(e.contains("nodes[1].at[1]"), "{e}");
    let e = bind_error(on("spine", 1, surface_point(&x, 1, 0.5, 0.0)), true);
    assert!(e.contains("two rods are named `spine`"), "{e}");
    // In a scene, an anchor with a stray field is refused, not read as
    // whichever form ignores it.
    for text in [
        r#"{"rod": "spine", "edge": 1, "at": [0.03, 0.0125, 0.0], "weights": [1]}"#,
        r#"{"nodes": [1], "weights": [1], "rod": "spine"}"#,
        r#"{"rod": "spine", "edges": 1, "at": [0.03, 0.0125, 0.0]}"#,
    ] {
        assert!(
            serde_json::from_str::<Anchor>(text).is_err(),
            "{text} was accepted"
        );
    }
    let ok: Anchor =
        serde_json::from_str(r#"{"rod": "spine", "edge": 1, "at": [0.03, 0.0125, 0.0]}"#).unwrap();
    assert!(matches!(ok, Anchor::Rod { edge: 1, .. }));
}

/// The shipped scene `examples/scenes/rod_muscle_arm.json`: three muscles
/// 120° apart on a standing rod's surface, inflated to 1.5 bar one after
/// another; while each is inflated the tip leans away from it.
#[test]
fn the_soft_arm_scene_leans_away_from_each_muscle_in_turn() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/scenes/rod_muscle_arm.json"
    );
    let scene = pliant::core::scene::Scene::from_file(std::path::Path::new(path)).unwrap();
    let mut run = scene.into_simulator().unwrap();
    let sim = &mut run.simulator;
    let tip = sim.model().layout().region("tip", "test").unwrap()[0];
    // Each muscle is fully inflated over [0.3, 0.6] s after its start
    // (0, 0.6, 1.2 s); read the tip at the end of each plateau.
    for (m, t_read) in [0.6, 1.2, 1.8].into_iter().enumerate() {
        while sim.time() < t_read - 1e-9 {
            sim.step().unwrap();
        }
        let p = sim.model().node_position(sim.q(), tip);
        let azimuth = p[1].atan2(p[0]).to_degrees();
        let away = (120.0 * m as f64 + 180.0 + 180.0).rem_euclid(360.0) - 180.0;
        let off = (azimuth - away + 540.0).rem_euclid(360.0) - 180.0;
        let reach = p[0].hypot(p[1]);
        eprintln!(
            "muscle {m}: tip at azimuth {azimuth:.1}° ({off:+.2}° from straight away), {reach:.4} m off the axis"
        );
        assert!(off.abs() < 2.0, "muscle {m}: azimuth {azimuth}");
        assert!(reach > 0.1, "muscle {m}: reach {reach}");
    }
}

/// `examples/rollouts/arm_reach.json`: the soft arm's tip driven toward a
/// point by the three muscles' pressure keyframes, differentiated through
/// the anchors on the rod (`pliant gradient`). The adjoint gradient agrees
/// with central differences of whole rollouts. Three of those rollouts
/// used to stall: Newton's full step took the residual from 8.6e-7 N to
/// 1.1e-11 N but was refused for a rise of Φ below its round-off, until
/// the line search let the residual decide where Φ cannot (see
/// `core/src/newton/mod.rs`).
#[test]
fn the_arm_reach_rollout_has_exact_gradients() {
    use pliant::rollout::Rollout;
    pliant::init();
    let spec = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/rollouts/arm_reach.json"
    );
    let r = Rollout::from_file(std::path::Path::new(spec)).unwrap();
    assert_eq!(r.variable_names().len(), 9);
    let z = [5e4, 6e4, 7e4, 3e4, 4e4, 8e4, 2e4, 1e4, 5e4];
    let e = r.evaluate_terms(&z).unwrap();
    let fd = r.gradient_fd(&z, 1e-6).unwrap();
    let scale = e.gradient.iter().fold(0.0f64, |m, g| m.max(g.abs()));
    let worst = e
        .gradient
        .iter()
        .zip(&fd)
        .map(|(g, f)| (g - f).abs())
        .fold(0.0, f64::max);
    eprintln!(
        "objective {:.6e}, |g|max {scale:.3e}, adjoint vs central differences {:.2e}",
        e.value,
        worst / scale
    );
    assert!(scale > 1e-6, "{:?}", e.gradient);
    assert!(
        worst < 1e-5 * scale,
        "adjoint {:?} vs central differences {fd:?}",
        e.gradient
    );
}

/// The anchors' carried derivatives, each against central differences of
/// what it differentiates (the rollout test above checks them only
/// together): `carried_transition` against `begin_step` moved in the state
/// and in the carried frames, `carried_block` against the muscles'
/// gradient moved in the carried frames.
#[test]
fn the_anchors_carried_derivatives_match_finite_differences() {
    use pliant::core::{Block, EnergySpec};
    let x = nodes(5, 0.1, true);
    let list = vec![
        muscle_along(&x, 0.9, Quantity::Value(3e4), "a"),
        muscle_along(&x, -2.1, Quantity::Value(1e4), "b"),
    ];
    let model = arm(&x, list.clone(), 40.0, &[], |r| r).build().unwrap();
    // A bound copy of the muscles to step by hand.
    let spec = PneumaticMuscles::new(list, MUSCLE_K, 40.0, MuscleModel::Linear { area: AREA });
    let mut e = spec.bind(&model.bind_info()).unwrap();
    let p: Vec<f64> = vec![];
    // A previous state with every node and twist moved, and a current one
    // moved again.
    let wiggle = |q: &[f64], amp: f64, phase: f64| -> Vec<f64> {
        q.iter()
            .enumerate()
            .map(|(i, v)| v + amp * (1.3 * i as f64 + phase).sin())
            .collect()
    };
    let q_prev = wiggle(model.q0(), 4e-3, 0.0);
    let q = wiggle(&q_prev, 2e-3, 0.7);
    let (n, h) = (q.len(), 1e-6);
    let c0 = e.carried_state();
    let m = c0.len();
    assert_eq!(m, 2 * 5 * 6);
    let dense = |t: &[(usize, usize, f64)], rows: usize, cols: usize| {
        let mut d = vec![vec![0.0; cols]; rows];
        for &(r, c, v) in t {
            d[r][c] += v;
        }
        d
    };
    let rel = |a: &[Vec<f64>], b: &[Vec<f64>]| {
        let scale = a.iter().flatten().fold(0.0f64, |s, v| s.max(v.abs()));
        let diff = a
            .iter()
            .flatten()
            .zip(b.iter().flatten())
            .fold(0.0f64, |s, (u, v)| s.max((u - v).abs()));
        (diff / scale, scale)
    };

    // ∂c'/∂q_prev and ∂c'/∂c of the step's transport.
    let tr = e.carried_transition(&q_prev, &p).unwrap();
    assert_eq!(tr.len, m);
    let mut step = |c: &[f64], qp: &[f64]| {
        e.restore_carried_state(c).unwrap();
        e.begin_step(qp, &p, 0.01, 0.0);
        e.carried_state()
    };
    let (mut fd_q, mut fd_c) = (vec![vec![0.0; n]; m], vec![vec![0.0; m]; m]);
    for j in 0..n {
        let (mut a, mut b) = (q_prev.clone(), q_prev.clone());
        a[j] += h;
        b[j] -= h;
        let (ca, cb) = (step(&c0, &a), step(&c0, &b));
        (0..m).for_each(|i| fd_q[i][j] = (ca[i] - cb[i]) / (2.0 * h));
    }
    for j in 0..m {
        let (mut a, mut b) = (c0.clone(), c0.clone());
        a[j] += h;
        b[j] -= h;
        let (ca, cb) = (step(&a, &q_prev), step(&b, &q_prev));
        (0..m).for_each(|i| fd_c[i][j] = (ca[i] - cb[i]) / (2.0 * h));
    }
    let (eq, sq) = rel(&dense(&tr.dq, m, n), &fd_q);
    let (ec, sc) = rel(&dense(&tr.dc, m, m), &fd_c);
    eprintln!("transition: ∂c/∂q {eq:.2e} (scale {sq:.2e}), ∂c/∂c {ec:.2e} (scale {sc:.2e})");
    assert!(sq > 1.0 && sc > 0.5, "nothing moved the frames");
    assert!(eq < 1e-7 && ec < 1e-7, "∂c/∂q {eq:e}, ∂c/∂c {ec:e}");

    // ∂²E/∂x∂c at (q, q_prev) with the frames transported to q_prev.
    e.restore_carried_state(&c0).unwrap();
    e.begin_step(&q_prev, &p, 0.01, 0.0);
    let c1 = e.carried_state();
    let s = EvalState {
        q: &q,
        q_prev: &q_prev,
        p: &p,
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    };
    let block = dense(&e.carried_block(&s), n, m);
    let mut gradient_at = |c: &[f64]| -> Vec<f64> {
        e.restore_carried_state(c).unwrap();
        let set = e.elements();
        let ns = set.stencil_size();
        let mut blocks = vec![0.0; set.len() * ns];
        set.blocks(&s, Block::Gradient, &mut blocks);
        let (mut g, mut dofs) = (vec![0.0; n], vec![0; ns]);
        for i in 0..set.len() {
            set.dofs(i, &mut dofs);
            for (k, &d) in dofs.iter().enumerate() {
                g[d] += blocks[i * ns + k];
            }
        }
        g
    };
    let mut fd = vec![vec![0.0; m]; n];
    for j in 0..m {
        let (mut a, mut b) = (c1.clone(), c1.clone());
        a[j] += h;
        b[j] -= h;
        let (ga, gb) = (gradient_at(&a), gradient_at(&b));
        (0..n).for_each(|i| fd[i][j] = (ga[i] - gb[i]) / (2.0 * h));
    }
    let (eb, sb) = rel(&block, &fd);
    eprintln!("frame block: {eb:.2e} (scale {sb:.2e})");
    assert!(sb > 1e-3, "the frames do not reach the gradient");
    assert!(eb < 1e-6, "∂²E/∂x∂c off by {eb:e}");
}
