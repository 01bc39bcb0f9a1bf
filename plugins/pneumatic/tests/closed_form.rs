//! Closed-form checks: an ideal-gas piston compressed to half its volume
//! doubles its pressure; a free PMA extends by 50 % at 4 bar and a blocked
//! one pushes with `p A`; the McKibben law's free extension matches its
//! inverse map; the enclosed volume is exact for any reference point.

mod common;

use common::{box_corners, box_triangles, builder};
use pliant_core::{Integrator, Motion, NewtonSettings, ParamChannel, Simulator};
use pliant_environment::{NodeForce, PointForces};
use pliant_pneumatic::{
    ATMOSPHERE, Cavity, Muscle, MuscleModel, PneumaticMuscles, Quantity, enclosed_volume,
};

/// Static equilibrium of `model`, stepped until the state stops moving.
fn settle(model: pliant_core::Model) -> Simulator {
    let mut sim =
        Simulator::new(model, Integrator::Static, 1.0, NewtonSettings::default()).unwrap();
    let mut last = sim.q().to_vec();
    for _ in 0..20 {
        sim.step().unwrap();
        let moved = sim
            .q()
            .iter()
            .zip(&last)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        last = sim.q().to_vec();
        if moved < 1e-14 {
            break;
        }
    }
    sim
}

#[test]
fn volume_is_exact_and_independent_of_the_reference_point() {
    let x = box_corners(0.1, 0.08, 0.05);
    for o in [[0.0; 3], [1.0, -2.0, 3.0], [0.05, 0.04, 0.025]] {
        let v = enclosed_volume(&x, &box_triangles(), o);
        assert!((v - 4e-4).abs() < 1e-15, "{v}");
    }
}

/// A square pyramid of gas at one atmosphere whose apex (free only along
/// z) is pressed down with `p₀ A/3`: isothermal ideal gas balances it at
/// twice the pressure, `(p − p₀) ∂V/∂z = F` with `∂V/∂z = A/3`, so at half
/// the volume (half the height).
#[test]
fn ideal_gas_piston_doubles_its_pressure_at_half_the_volume() {
    let (a, h) = (0.1, 0.05);
    let x = [
        [0.0, 0.0, 0.0],
        [a, 0.0, 0.0],
        [a, a, 0.0],
        [0.0, a, 0.0],
        [a / 2.0, a / 2.0, h],
    ];
    let triangles = vec![
        [0, 2, 1],
        [0, 3, 2],
        [0, 1, 4],
        [1, 2, 4],
        [2, 3, 4],
        [3, 0, 4],
    ];
    let mut b = builder(&x, 0.01).unwrap();
    for n in 0..4 {
        b.fix_node(n).unwrap();
    }
    b.constrain(12, Motion::Fixed).unwrap();
    b.constrain(13, Motion::Fixed).unwrap();
    b.add(Cavity::ideal_gas(triangles, ATMOSPHERE).named("gas"));
    b.add(PointForces::new(vec![NodeForce {
        node: 4,
        force: vec![0.0, 0.0, -ATMOSPHERE * a * a / 3.0],
    }]));
    let sim = settle(b.build().unwrap());
    let apex = sim.q()[14];
    assert!(
        (apex - h / 2.0).abs() < 1e-9 * h,
        "apex at {apex} m, expected {}",
        h / 2.0
    );
    let obs = sim.observables(&sim.model().params_at(0.0));
    let get = |k: &str| obs.iter().find(|o| o.0 == k).unwrap().1;
    let absolute = get("gas.pressure") + ATMOSPHERE;
    assert!((absolute / ATMOSPHERE - 2.0).abs() < 1e-9, "{absolute} Pa");
    assert!((get("gas.volume") - a * a * h / 6.0).abs() < 1e-12);
    // Drawn as its six wall triangles, each with the gauge pressure.
    let s = pliant_core::EvalState::at_rest(sim.q(), &[], 1.0, 0.0);
    let shapes = sim.model().energies()[0].geometry(&s);
    let [pliant_core::geometry::Shape::Cells(c)] = &shapes[..] else {
        panic!("{shapes:?}")
    };
    c.check().unwrap();
    assert_eq!(c.len(), 6);
    assert!(c.fields[0].values.iter().all(|&p| p == get("gas.pressure")));
}

fn paper_muscle(model: MuscleModel, pressure: f64, blocked: bool) -> (f64, f64) {
    let x = [[0.0, 0.0, 0.0], [0.05, 0.0, 0.0], [0.15, 0.0, 0.0]];
    let mut b = builder(&x, 0.01).unwrap();
    b.fix_node(0).unwrap();
    for n in 1..3 {
        for d in 1..3 {
            b.constrain(3 * n + d, Motion::Fixed).unwrap();
        }
    }
    if blocked {
        b.fix_node(2).unwrap();
    }
    b.add_param(ParamChannel::control("p", pressure)).unwrap();
    b.add(PneumaticMuscles::new(
        vec![Muscle {
            name: Some("pma".into()),
            nodes: vec![0.into(), 1.into(), 2.into()],
            pressure: Quantity::Channel("p".into()),
        }],
        1900.0,
        0.0,
        model,
    ));
    let sim = settle(b.build().unwrap());
    let p = sim.model().params_at(0.0);
    let obs = sim.observables(&p);
    let get = |k: &str| obs.iter().find(|o| o.0 == k).unwrap().1;
    // The reaction at the fixed end: the muscle's force on node 0.
    let s = pliant_core::EvalState::at_rest(sim.q(), &p, 1.0, 0.0);
    let mut g = vec![0.0; sim.q().len()];
    pliant_core::assembly::Assembler::new(sim.model())
        .unwrap()
        .add_gradient(sim.model(), &s, 1.0, &mut g);
    // Drawn as its two pieces, with the observed pressure force.
    let shapes = sim.model().energies()[0].geometry(&s);
    let [pliant_core::geometry::Shape::Cells(c)] = &shapes[..] else {
        panic!("{shapes:?}")
    };
    c.check().unwrap();
    assert_eq!(c.len(), 2);
    let force = &c.fields[0].values;
    let mean = force.iter().sum::<f64>() / 2.0;
    assert!((mean - get("pma.force")).abs() <= 1e-12 * get("pma.force").abs().max(1.0));
    (get("pma.length") - 0.15, -g[0])
}

#[test]
fn the_papers_muscle_extends_fifty_percent_at_four_bar_and_pushes_p_a_when_blocked() {
    let model = MuscleModel::linear_from_free_extension(0.5, 4e5, 1900.0, 0.15);
    let MuscleModel::Linear { area } = model else {
        unreachable!()
    };
    assert!((area - 3.5625e-4).abs() < 1e-12);
    let (ext, _) = paper_muscle(model, 4e5, false);
    assert!((ext / 0.15 - 0.5).abs() < 1e-9, "free extension {ext} m");
    for p in [1e5, 3e5] {
        let (ext, push) = paper_muscle(model, p, true);
        assert!(ext.abs() < 1e-12);
        // Node 0 is pushed away from the muscle (−x) with p A.
        assert!(
            (push + p * area).abs() < 1e-9 * p * area,
            "{push} N at {p} Pa"
        );
    }
    // The §IV-D map both ways.
    let p = model.pressure_for_extension(0.045, 1900.0, 0.15).unwrap();
    assert!((model.free_extension(p, 1900.0, 0.15).unwrap() - 0.045).abs() < 1e-15);
}

#[test]
fn mckibben_free_extension_matches_its_inverse_map() {
    let model = MuscleModel::McKibben {
        braid_angle: 65f64.to_radians(),
        diameter: 0.01,
    };
    for p in [5e4, 2e5, 4e5] {
        let expected = model.free_extension(p, 1900.0, 0.15).unwrap();
        assert!(expected > 0.0, "an extension-mode braid extends");
        let (ext, _) = paper_muscle(model, p, false);
        assert!(
            (ext - expected).abs() < 1e-9 * expected,
            "{ext} vs {expected} at {p} Pa"
        );
        let back = model
            .pressure_for_extension(expected, 1900.0, 0.15)
            .unwrap();
        assert!((back - p).abs() < 1e-6 * p);
    }
    // Below 54.7° the same law contracts.
    let contracting = MuscleModel::McKibben {
        braid_angle: 30f64.to_radians(),
        diameter: 0.01,
    };
    assert!(contracting.free_extension(2e5, 1900.0, 0.15).unwrap() < 0.0);
    // No equilibrium: a strong vacuum on an extending braid.
    assert_eq!(model.free_extension(-1e9, 1900.0, 0.15), None);
}

/// A muscle whose fixed end is a material point halfway between two fixed
/// nodes (padded 24-DOF pieces): it still extends 50 % at 4 bar, and each
/// of the two nodes takes half the blocked reaction.
#[test]
fn a_muscle_anchored_at_a_material_point_behaves_like_one_anchored_at_a_node() {
    use pliant_pneumatic::Anchor;
    let x = [[0.0, -0.01, 0.0], [0.0, 0.01, 0.0], [0.15, 0.0, 0.0]];
    for blocked in [false, true] {
        let mut b = builder(&x, 0.01).unwrap();
        b.fix_node(0).unwrap();
        b.fix_node(1).unwrap();
        if blocked {
            b.fix_node(2).unwrap();
        } else {
            b.constrain(7, Motion::Fixed).unwrap();
            b.constrain(8, Motion::Fixed).unwrap();
        }
        b.add_param(ParamChannel::control("p", 4e5)).unwrap();
        b.add(PneumaticMuscles::new(
            vec![Muscle {
                name: Some("pma".into()),
                nodes: vec![
                    Anchor::Point {
                        nodes: vec![0, 1],
                        weights: vec![0.5, 0.5],
                    },
                    2.into(),
                ],
                pressure: Quantity::Channel("p".into()),
            }],
            1900.0,
            0.0,
            MuscleModel::linear_from_free_extension(0.5, 4e5, 1900.0, 0.15),
        ));
        let sim = settle(b.build().unwrap());
        let p = sim.model().params_at(0.0);
        if blocked {
            let s = pliant_core::EvalState::at_rest(sim.q(), &p, 1.0, 0.0);
            let mut g = vec![0.0; sim.q().len()];
            pliant_core::assembly::Assembler::new(sim.model())
                .unwrap()
                .add_gradient(sim.model(), &s, 1.0, &mut g);
            let pa = 4e5 * 3.5625e-4;
            // Force on each of the two nodes: −∂E/∂x = −pA/2 along x each.
            assert!(
                (g[0] - pa / 2.0).abs() < 1e-9 * pa && (g[3] - pa / 2.0).abs() < 1e-9 * pa,
                "{g:?}"
            );
        } else {
            let ext = sim.q()[6] - 0.15;
            assert!((ext / 0.15 - 0.5).abs() < 1e-9, "free extension {ext} m");
        }
    }
}
