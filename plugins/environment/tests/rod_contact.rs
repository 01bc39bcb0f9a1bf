//! Rod–rod contact (IMC): derivatives, continuity, exclusion of neighbours,
//! and two crossing rods pushed together that must not pass through.

use pliant_core::derivcheck::{Rng, Tolerances, check};
use pliant_core::{Energy, EvalState, Integrator, Model, ModelBuilder, NewtonSettings, Simulator};
use pliant_environment::{Gravity, LogExpPenalty, RodContact, Spring, Springs};

const R0: f64 = 1e-3;
const DELTA: f64 = 2e-4;

/// Two single-edge rods crossing at right angles, `gap` (m) apart along z.
fn crossing(gap: f64, contact: RodContact) -> Model {
    let mut b = ModelBuilder::new(3).unwrap();
    for p in [
        [-0.01, 0.0, 0.0],
        [0.01, 0.0, 0.0],
        [0.0, -0.01, gap],
        [0.0, 0.01, gap],
    ] {
        b.add_node(&p, 1e-3).unwrap();
    }
    b.add(contact);
    b.build().unwrap()
}

fn contact() -> RodContact {
    RodContact::new(
        vec![[0, 1], [2, 3]],
        R0,
        LogExpPenalty {
            stiffness: 1e4,
            delta: DELTA,
        },
    )
}

#[test]
fn derivatives_match_finite_differences_with_and_without_friction() {
    for friction in [false, true] {
        for gap in [2.0 * R0 - 0.5 * DELTA, 2.0 * R0 + 0.2 * DELTA, 1.2 * R0] {
            let c = if friction {
                contact().with_friction(0.4, 1e-3)
            } else {
                contact()
            };
            let m = crossing(gap, c);
            let mut rng = Rng::new(3);
            let q: Vec<f64> = m.q0().iter().map(|x| x + rng.range(-1e-4, 1e-4)).collect();
            let qp: Vec<f64> = q.iter().map(|x| x + rng.range(-1e-5, 1e-5)).collect();
            let s = EvalState {
                q: &q,
                q_prev: &qp,
                p: &[],
                h: 1e-3,
                dt: 1e-3,
                t: 0.0,
            };
            let e = &m.energies()[0];
            assert!(
                e.elements().value(&s) > 0.0,
                "gap {gap}: pair should be active"
            );
            let r = check(
                e.as_ref(),
                &s,
                &Tolerances {
                    exact: 1e-9,
                    fd: 1e-5,
                    step: 1e-9,
                },
            );
            eprintln!("friction {friction} gap {gap}: {r:?}");
            r.assert_within(&Tolerances {
                exact: 1e-9,
                fd: 1e-5,
                step: 1e-9,
            });
        }
    }
}

#[test]
fn pair_energy_is_continuous_as_one_rod_slides_and_lifts_off() {
    let m = crossing(0.0, contact());
    let e = &m.energies()[0];
    let mut q = m.q0().to_vec();
    // Slide the upper edge along x past the lower edge's end (the closest
    // points change region) while lifting it through the whole band.
    let n = 4000;
    let mut last: Option<f64> = None;
    let mut max_jump: f64 = 0.0;
    for i in 0..=n {
        let f = i as f64 / n as f64;
        let x = 0.005 + 0.01 * f;
        let z = 2.0 * R0 - DELTA + 4.0 * DELTA * f;
        for (node, base) in [(2, -0.01), (3, 0.01)] {
            q[3 * node] = x;
            q[3 * node + 1] = base;
            q[3 * node + 2] = z;
        }
        let s = EvalState {
            q: &q,
            q_prev: &q,
            p: &[],
            h: 1e-3,
            dt: 1e-3,
            t: 0.0,
        };
        let v = e.elements().value(&s);
        assert!(v.is_finite() && v >= 0.0);
        if let Some(l) = last {
            max_jump = max_jump.max((v - l).abs());
        }
        last = Some(v);
    }
    // Largest slope k_c·2·δ·... bounded by k_c (2r₀ − Δ + δ)·2 per metre of
    // lift; the path moves 4δ/n in z per sample.
    let bound = 1e4 * 2.0 * (2.0 * DELTA) * (4.0 * DELTA / n as f64) * 1.5;
    assert!(max_jump < bound, "jump {max_jump:e} ≥ {bound:e}");
    assert!(
        last.unwrap() < 1e-20,
        "energy beyond the band {}",
        last.unwrap()
    );
}

#[test]
fn edges_close_along_the_rod_never_form_pairs() {
    // A zig-zag chain folded onto itself: consecutive edges touch in space
    // but are neighbours along the rod.
    let mut b = ModelBuilder::new(3).unwrap();
    for i in 0..6 {
        let x = if i % 2 == 0 { 0.0 } else { 1.5e-3 };
        b.add_node(&[x, 0.2e-3 * i as f64, 0.0], 1e-3).unwrap();
    }
    let edges: Vec<[usize; 2]> = (0..5).map(|i| [i, i + 1]).collect();
    b.add(RodContact::new(
        edges,
        R0,
        LogExpPenalty {
            stiffness: 1e4,
            delta: DELTA,
        },
    ));
    let m = b.build().unwrap();
    // Path length 1.5 mm per edge: only pairs at least two edges apart
    // along the rod (≥ 3 mm > 2r₀ + δ) are candidates.
    let c = m.energies()[0].as_ref() as &dyn Energy;
    let s = EvalState {
        q: m.q0(),
        q_prev: m.q0(),
        p: &[],
        h: 1e-3,
        dt: 1e-3,
        t: 0.0,
    };
    let obs = c.observables(&s);
    eprintln!("{obs:?}");
    let set = c.elements();
    let mut dofs = [0usize; 12];
    for k in 0..set.len() {
        set.dofs(k, &mut dofs);
        let (i, j) = (dofs[0] / 3, dofs[6] / 3);
        let (ei, ej) = (i, j); // first node of each edge = edge index here
        assert!(
            ej >= ei + 2,
            "pair of edges {ei}, {ej} is too close along the rod"
        );
    }
    assert!(
        !set.is_empty(),
        "the folded chain's far edges should be candidates"
    );
}

/// A chain of `n` springs along `dir` through `centre` at height `z`.
fn chain(b: &mut ModelBuilder, n: usize, along_x: bool, z: f64) -> Vec<usize> {
    let len = 0.02;
    (0..=n)
        .map(|i| {
            let s = -0.5 * len + len * i as f64 / n as f64;
            let p = if along_x { [s, 0.0, z] } else { [0.0, s, z] };
            b.add_node(&p, 1e-4).unwrap()
        })
        .collect()
}

fn pushed_rods(margin: Option<f64>) -> (Simulator, usize) {
    let mut b = ModelBuilder::new(3).unwrap();
    let lower = chain(&mut b, 8, true, 0.0);
    let upper = chain(&mut b, 8, false, 3.0 * R0);
    for &n in &lower {
        b.fix_node(n).unwrap();
    }
    let mut springs = Vec::new();
    let mut edges = Vec::new();
    for rod in [&lower, &upper] {
        for w in rod.windows(2) {
            springs.push(Spring {
                nodes: [w[0], w[1]],
                stiffness: 500.0,
                rest_length: None,
            });
            edges.push([w[0], w[1]]);
        }
    }
    b.add(Springs::new(springs));
    // A strong downward push on the upper rod only.
    let mut g = Gravity::new(&[0.0, 0.0, -50.0]);
    g.nodes = Some(upper.clone());
    b.add(g);
    let mut c = RodContact::new(
        edges,
        R0,
        LogExpPenalty {
            stiffness: 1e3,
            delta: DELTA,
        },
    )
    .with_friction(0.3, 1e-3);
    c.margin = margin;
    b.add(c);
    let m = b.build().unwrap();
    let sim = Simulator::new(
        m,
        Integrator::ImplicitEuler,
        1e-3,
        NewtonSettings::default(),
    )
    .unwrap();
    (sim, upper[4])
}

#[test]
fn crossing_rods_pushed_together_do_not_pass_through() {
    let (mut sim, mid) = pushed_rods(None);
    let mut lowest = f64::INFINITY;
    let mut min_gap = f64::INFINITY;
    for _ in 0..150 {
        sim.step().unwrap();
        lowest = lowest.min(sim.q()[3 * mid + 2]);
        let obs = sim.observables(&[]);
        let gap = obs
            .iter()
            .find(|(n, _)| n == "rod_contact.min_gap")
            .unwrap()
            .1;
        min_gap = min_gap.min(gap);
    }
    // The upper rod's middle rests on the lower one: the centre lines stay
    // at least about 2r₀ apart (penetration a fraction of δ), never below.
    eprintln!("lowest centre {lowest:e} m, smallest gap {min_gap:e} m");
    assert!(lowest > 2.0 * R0 - DELTA, "upper rod sank to {lowest}");
    assert!(min_gap > -DELTA, "penetration {min_gap}");
    // And it did come down to touch (the push was real).
    assert!(lowest < 2.0 * R0 + DELTA, "never touched: {lowest}");
}

#[test]
fn broad_phase_gives_the_same_motion_as_checking_every_pair() {
    // A margin larger than the scene makes every non-excluded pair a
    // candidate from the start (fixed structure); the default margin
    // rebuilds the candidate list as the rods approach.
    let (mut a, mid) = pushed_rods(None);
    let (mut b, _) = pushed_rods(Some(1.0));
    let candidates = |s: &Simulator| s.model().energies()[2].elements().len();
    let (first_a, first_b) = (candidates(&a), candidates(&b));
    let mut lowest = f64::INFINITY;
    for _ in 0..150 {
        a.step().unwrap();
        b.step().unwrap();
        lowest = lowest.min(a.q()[3 * mid + 2]);
    }
    assert!(
        first_a < candidates(&a) && candidates(&a) < first_b,
        "candidates: broad phase {first_a} -> {}, all pairs {first_b}",
        candidates(&a)
    );
    assert!(lowest < 2.0 * R0 + DELTA, "rods never touched");
    let d = a
        .q()
        .iter()
        .zip(b.q())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    eprintln!("max difference {d:e} m; mid z {}", a.q()[3 * mid + 2]);
    assert!(d < 1e-10, "broad phase changed the motion by {d} m");
}

#[test]
fn runs_from_the_same_state_agree_bitwise() {
    // The search margin is carried state: `set_state` resets it, so a second
    // run from the initial state sees the same candidate pairs.
    let (mut sim, _) = pushed_rods(None);
    let (q0, v0) = (sim.q().to_vec(), sim.v().to_vec());
    let run = |sim: &mut Simulator| {
        sim.set_state(&q0, &v0, 0.0, 0).unwrap();
        for _ in 0..120 {
            sim.step().unwrap();
        }
        sim.q().to_vec()
    };
    let first = run(&mut sim);
    let second = run(&mut sim);
    assert_eq!(first, second);
}
