//! Cells against closed forms: the pressure law on a circle is the paper's
//! `F = C (V₀/V − 1)` per segment; a free cell conserves its energy and
//! keeps its area within 0.25 % of `V₀` (energy within 0.05 %) over 5 s
//! of an oval oscillation under implicit midpoint at dt = 1/50 s; contact keeps two
//! pressed cells apart.

use pliant_cells::{Cell, CellContact, CellContactEnergy, CellSet, Cells, add_ring};
use pliant_core::element::Block;
use pliant_core::{
    EvalState, Integrator, ModelBuilder, NewtonSettings, ParamChannel, Quantity, Simulator,
};

const N: usize = 100;

/// Newton to 10⁻⁸ N: below that the incremental potential of a 1 g
/// membrane node no longer resolves the decrease (its line search stalls
/// in round-off), and a force of 10⁻⁸ N moves such a node by 4·10⁻⁹ m
/// per step of 1/50 s.
fn settings() -> NewtonSettings {
    NewtonSettings {
        abs_tol: 1e-8,
        ..NewtonSettings::default()
    }
}
const R: f64 = 0.5;

fn one_cell(pressure: Quantity) -> (pliant_core::Model, Vec<usize>) {
    let mut b = ModelBuilder::new(2).unwrap();
    let ring = add_ring(&mut b, [0.3, -0.2], R, N, 0.1, 1e-3).unwrap();
    b.add_param(ParamChannel::control("C", 2.0)).unwrap();
    b.add(Cells {
        cells: vec![Cell {
            nodes: ring.clone(),
            pressure,
        }],
        stretch_stiffness: 300.0,
        bending_stiffness: 1e-4,
        name: None,
    });
    (b.build().unwrap(), ring)
}

/// The gradient of the cells energy at `q` with pressure constant `c`.
fn gradient(m: &pliant_core::Model, q: &[f64], c: f64) -> Vec<f64> {
    let set = m.energies()[0].elements();
    let p = [c];
    let s = EvalState {
        q,
        q_prev: q,
        p: &p,
        h: 0.02,
        dt: 0.02,
        t: 0.0,
    };
    let mut g = vec![0.0; set.stencil_size()];
    set.blocks(&s, Block::Gradient, &mut g);
    g
}

#[test]
fn pressure_force_on_a_circle_is_the_papers_law() {
    let (m, _) = one_cell(Quantity::Channel("C".into()));
    let cells = m.energies_of::<CellSet>()[0];
    let v0 = cells.rest_areas()[0];
    let l0 = 2.0 * R * (std::f64::consts::PI / N as f64).sin();
    let center = [0.3, -0.2];
    for scale in [0.8, 0.95, 1.05, 1.3] {
        let q: Vec<f64> = m
            .q0()
            .chunks(2)
            .flat_map(|x| {
                [
                    center[0] + scale * (x[0] - center[0]),
                    center[1] + scale * (x[1] - center[1]),
                ]
            })
            .collect();
        let v = cells.areas(&q)[0];
        assert!((v / v0 - scale * scale).abs() < 1e-12);
        for c in [0.5, 2.0, 40.0] {
            // The pressure's share of the force: the membrane's is the same
            // at C = 0.
            let (g, g0) = (gradient(&m, &q, c), gradient(&m, &q, 0.0));
            let paper = c * (v0 / v - 1.0);
            let mut total = [0.0, 0.0];
            for i in 0..N {
                let f = [-(g[2 * i] - g0[2 * i]), -(g[2 * i + 1] - g0[2 * i + 1])];
                total[0] += f[0];
                total[1] += f[1];
                // Outward along the radius, magnitude C (V₀/V − 1) · ½|x₊ − x₋|/ℓ̄:
                // the paper's per-segment force times the half-segments'
                // length over the rest length, s cos(π/N) on a circle.
                let rvec = [q[2 * i] - center[0], q[2 * i + 1] - center[1]];
                let rl = rvec[0].hypot(rvec[1]);
                let radial = (f[0] * rvec[0] + f[1] * rvec[1]) / rl;
                let across = (f[0] * rvec[1] - f[1] * rvec[0]) / rl;
                let expected = paper * scale * (std::f64::consts::PI / N as f64).cos();
                assert!(
                    (radial - expected).abs() < 1e-9 * paper.abs().max(1e-3),
                    "scale {scale}, C {c}, node {i}: {radial} vs {expected}"
                );
                assert!(across.abs() < 1e-9 * paper.abs().max(1e-3));
                let (a, b) = (
                    &q[2 * ((i + N - 1) % N)..2 * ((i + N - 1) % N) + 2],
                    &q[2 * ((i + 1) % N)..2 * ((i + 1) % N) + 2],
                );
                let half = 0.5 * (b[0] - a[0]).hypot(b[1] - a[1]);
                assert!((radial - paper * half / l0).abs() < 1e-9 * paper.abs().max(1e-3));
            }
            assert!(total[0].abs() + total[1].abs() < 1e-9 * paper.abs().max(1e-3));
        }
    }
}

#[test]
fn a_free_cell_conserves_energy_and_area_under_implicit_midpoint() {
    let (m, _) = one_cell(Quantity::Value(2.0));
    let n = m.q0().len();
    // An oval oscillation (mode 2 of the radial velocity) plus a drift.
    let q0 = m.q0().to_vec();
    let v0: Vec<f64> = (0..n / 2)
        .flat_map(|i| {
            let (x, y) = (q0[2 * i] - 0.3, q0[2 * i + 1] + 0.2);
            let phi = y.atan2(x);
            let vr = 0.05 * (2.0 * phi).cos();
            [vr * phi.cos() + 0.1, vr * phi.sin()]
        })
        .collect();
    let mut sim = Simulator::new(m, Integrator::ImplicitMidpoint, 1.0 / 50.0, settings()).unwrap();
    sim.set_state(&q0, &v0, 0.0, 0).unwrap();
    let p = [2.0];
    let e0 = sim.kinetic_energy() + sim.potential_energy(&p);
    let area0 = sim.model().energies_of::<CellSet>()[0].rest_areas()[0];
    let (mut worst_area, mut worst_energy): (f64, f64) = (0.0, 0.0);
    for _ in 0..250 {
        sim.step().unwrap();
        let cells = sim.model().energies_of::<CellSet>()[0];
        worst_area = worst_area.max((cells.areas(sim.q())[0] / area0 - 1.0).abs());
        let e = sim.kinetic_energy() + sim.potential_energy(&p);
        worst_energy = worst_energy.max((e / e0 - 1.0).abs());
    }
    eprintln!("area within {worst_area:.3e} of V0, energy within {worst_energy:.3e}");
    assert!(worst_area < 2.5e-3, "area drifted by {worst_area}");
    assert!(worst_energy < 5e-4, "energy drifted by {worst_energy}");
    // It did oscillate: the area moved.
    assert!(worst_area > 1e-5);
}

/// Two cells of the paper (C = 2 N) side by side, `gap` (m) apart: the
/// builder and the two rings.
fn two_cells(gap: f64) -> (ModelBuilder, Vec<usize>, Vec<usize>) {
    let mut b = ModelBuilder::new(2).unwrap();
    let a = add_ring(&mut b, [0.0, 0.0], R, N, 0.0, 1e-3).unwrap();
    let c = add_ring(&mut b, [2.0 * R + gap, 0.0], R, N, 0.0, 1e-3).unwrap();
    b.add(Cells {
        cells: [&a, &c]
            .map(|ring| Cell {
                nodes: ring.clone(),
                pressure: 2.0.into(),
            })
            .to_vec(),
        stretch_stiffness: 300.0,
        bending_stiffness: 1e-4,
        name: None,
    });
    (b, a, c)
}

#[test]
fn pressed_cells_do_not_interpenetrate() {
    let (mut b, a, c) = two_cells(0.01);
    let w = 0.01;
    b.add(CellContact::new(vec![a.clone(), c.clone()], w, 1e3).with_friction(0.3, 0.01));
    // Head-on at 1 m/s each.
    for &i in &a {
        b.set_velocity(2 * i, 1.0).unwrap();
    }
    for &i in &c {
        b.set_velocity(2 * i, -1.0).unwrap();
    }
    let m = b.build().unwrap();
    let mut sim = Simulator::new(m, Integrator::ImplicitEuler, 1.0 / 50.0, settings()).unwrap();
    let mut min_gap = f64::INFINITY;
    let mut touched = false;
    for _ in 0..50 {
        sim.step().unwrap();
        let obs = sim.observables(&[]);
        let get = |k: &str| obs.iter().find(|o| o.0 == k).unwrap().1;
        min_gap = min_gap.min(get("cell_contact.min_gap"));
        touched |= get("cell_contact.pairs") > 0.0;
    }
    eprintln!("smallest gap beyond the thickness: {min_gap:.3e} m");
    assert!(touched);
    // The membranes never come closer than a fifth of the thickness.
    assert!(min_gap > -0.8 * w, "gap {min_gap}");
    // They bounced apart: the left cell moves left again.
    let vx: f64 = a.iter().map(|&i| sim.v()[2 * i]).sum::<f64>() / a.len() as f64;
    assert!(vx < 0.0, "left cell still moving right at {vx} m/s");
}

/// Two touching cells side by side, moving together at `speed` (m/s)
/// along x and falling at 1 m/s, with the second one squeezed towards the
/// first at 0.5 m/s: every pair closer than the contact band at the end of
/// each step was a candidate (and they touched); the candidates per step.
fn sliding_pair(speed: f64) -> Vec<usize> {
    let (mut b, a, c) = two_cells(0.012);
    let w = 0.01;
    b.add(CellContact::new(vec![a.clone(), c.clone()], w, 1e3));
    for (ring, vx) in [(&a, speed), (&c, speed - 0.5)] {
        for &i in ring {
            b.set_velocity(2 * i, vx).unwrap();
            b.set_velocity(2 * i + 1, -1.0).unwrap();
        }
    }
    let m = b.build().unwrap();
    let mut sim = Simulator::new(m, Integrator::ImplicitEuler, 1.0 / 50.0, settings()).unwrap();
    // The contact band: w plus 40/K, K = 15/δ, δ = w/2.
    let band = w + 40.0 * (0.5 * w) / 15.0;
    let nodes: Vec<usize> = a.iter().chain(&c).copied().collect();
    let (mut counts, mut in_band) = (Vec::new(), 0);
    for step in 0..25 {
        sim.step().unwrap();
        let q = sim.q();
        let contact = sim.model().energies_of::<CellContactEnergy>()[0];
        let pairs = contact.pairs();
        counts.push(pairs.len());
        let at = |k: usize| [q[2 * nodes[k]], q[2 * nodes[k] + 1]];
        for n in 0..2 * N {
            for s in 0..2 * N {
                if n / N == s / N {
                    continue;
                }
                let (p, x, y) = (
                    at(n),
                    at(s),
                    at(if (s + 1) % N == 0 { s + 1 - N } else { s + 1 }),
                );
                let e = [y[0] - x[0], y[1] - x[1]];
                let t = (((p[0] - x[0]) * e[0] + (p[1] - x[1]) * e[1])
                    / (e[0] * e[0] + e[1] * e[1]))
                    .clamp(0.0, 1.0);
                let d = (p[0] - x[0] - t * e[0]).hypot(p[1] - x[1] - t * e[1]);
                if d < band {
                    in_band += 1;
                    assert!(
                        pairs.binary_search(&(n, s)).is_ok(),
                        "speed {speed}: step {step}: node {n} within {d:.4} m of segment {s} is not a candidate"
                    );
                }
            }
        }
    }
    assert!(
        in_band > 100,
        "the cells touched ({in_band} pairs in the band)"
    );
    counts
}

#[test]
fn contact_candidates_follow_the_relative_motion_of_membranes() {
    let slow = sliding_pair(0.0);
    let fast = sliding_pair(5.0);
    eprintln!("candidate pairs per step, at rest: {slow:?}\nsliding at 5 m/s: {fast:?}");
    // The cells squeeze each other the same way in both runs; their common
    // motion of 10 cm per step does not widen the search.
    let (s, f) = (slow.iter().max().unwrap(), fast.iter().max().unwrap());
    assert!(
        *f <= s + s / 10,
        "{f} candidates sliding against {s} at rest"
    );
}

#[test]
fn a_drawn_cell_is_its_closed_membrane_with_its_area_ratio() {
    use pliant_core::Energy;
    use pliant_core::geometry::{CellKind, Shape};
    let (m, ring) = one_cell(Quantity::Value(1.0));
    // Squash the ring by 20 % in y.
    let q: Vec<f64> = m.q0().chunks(2).flat_map(|x| [x[0], 0.8 * x[1]]).collect();
    let cells = m.energies_of::<CellSet>()[0];
    let s = pliant_core::EvalState::at_rest(&q, &[], 0.01, 0.0);
    let [Shape::Cells(c)] = &cells.geometry(&s)[..] else {
        panic!("one set of lines")
    };
    c.check().unwrap();
    assert_eq!(
        (c.kind, c.len(), c.points.len()),
        (CellKind::Line, ring.len(), ring.len())
    );
    // Closed: every point starts one segment and ends another.
    let mut degree = vec![0; c.points.len()];
    c.connectivity.iter().for_each(|&i| degree[i] += 1);
    assert!(degree.iter().all(|&d| d == 2));
    let ratio = cells.areas(&q)[0] / cells.rest_areas()[0];
    assert!((ratio - 0.8).abs() < 1e-9, "{ratio}");
    assert!(c.fields[0].values.iter().all(|&r| r == ratio));
}
