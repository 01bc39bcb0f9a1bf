//! Every environment energy: analytic gradient/Hessian vs the dual-number
//! fallback vs central finite differences, including history and parameter
//! blocks, at random, stretched and near-degenerate states.

use pliant_core::derivcheck::{Rng, Tolerances, check};
use pliant_core::{Block, EnergySpec, EvalState, Model, ModelBuilder, ParamChannel};
use pliant_environment::{
    Friction, Gravity, Ground, LogExpPenalty, NodeForce, NormalLaw, PointForces, ResistiveForce,
    ShearPanels, SphereContact, Spring, Springs, ViscousDamping,
};

/// The evaluation state of a model at rest at `q` (no motion over the
/// step, h = 10 ms) under parameters `p`.
fn at_rest<'a>(q: &'a [f64], p: &'a [f64]) -> EvalState<'a> {
    EvalState {
        q,
        q_prev: q,
        p,
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    }
}

/// A small 2-D or 3-D model: `n` nodes near the plane z = 0 (y = 0 in 2-D),
/// one control channel `u`.
fn model(dim: usize, energies: Vec<Box<dyn EnergySpec>>) -> Model {
    let mut b = ModelBuilder::new(dim).unwrap();
    let mut rng = Rng::new(7);
    for _ in 0..5 {
        let p: Vec<f64> = (0..dim).map(|_| rng.range(-0.05, 0.05)).collect();
        b.add_node(&p, rng.range(0.01, 0.02)).unwrap();
    }
    b.add_param(ParamChannel::control("u", 0.003)).unwrap();
    for e in energies {
        b.add_boxed(e);
    }
    b.build().unwrap()
}

/// States to check at: `scale` sets how far the nodes move from the rest state
/// and from the previous state.
fn states(m: &Model, seed: u64, scale: f64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let q: Vec<f64> = m
        .q0()
        .iter()
        .map(|x| x + rng.range(-scale, scale))
        .collect();
    let qp: Vec<f64> = q.iter().map(|x| x + rng.range(-scale, scale)).collect();
    (q, qp)
}

fn check_all(m: &Model, tol: &Tolerances, label: &str) {
    for (seed, scale) in [(1, 1e-3), (2, 1e-2), (3, 3e-2), (4, 1e-4), (5, 0.0)] {
        let (mut q, mut qp) = states(m, seed, scale);
        if scale == 0.0 {
            // Far from everything: nodes 1 m up (contact laws in their tails).
            for v in q.iter_mut().chain(qp.iter_mut()) {
                *v += 1.0;
            }
        }
        let p = vec![0.003];
        let s = EvalState {
            q: &q,
            q_prev: &qp,
            p: &p,
            h: 0.01,
            dt: 0.02, // h ≠ dt as in implicit midpoint
            t: 0.0,
        };
        for e in m.energies() {
            let r = check(e.as_ref(), &s, tol);
            eprintln!("{label} seed {seed}: {r:?}");
            r.assert_within(tol);
        }
    }
}

#[test]
fn spring_derivatives() {
    for dim in [2, 3] {
        let springs = vec![
            Spring {
                nodes: [0, 1],
                stiffness: 120.0,
                rest_length: None,
            },
            Spring {
                nodes: [1, 2],
                stiffness: 80.0,
                rest_length: Some(0.5),
            }, // strongly stretched/compressed
            Spring {
                nodes: [3, 4],
                stiffness: 10.0,
                rest_length: Some(1e-4),
            },
        ];
        let m = model(
            dim,
            vec![
                Box::new(Springs::new(springs.clone())),
                Box::new(Springs::with_contraction(springs, "u")),
            ],
        );
        check_all(&m, &Tolerances::default(), &format!("spring {dim}-D"));
    }
}

#[test]
fn gravity_and_buoyancy_derivatives() {
    let mut g = Gravity::new(&[0.0, 0.0, -9.81]);
    g.density = Some(1200.0);
    g.medium_density = Some(1000.0);
    let m = model(
        3,
        vec![Box::new(Gravity::new(&[1.0, 2.0, -9.81])), Box::new(g)],
    );
    check_all(&m, &Tolerances::default(), "gravity");
    // Buoyancy scales the weight by (ρ − ρ_med)/ρ.
    let q = m.q0().to_vec();
    let p = vec![0.0];
    let s = at_rest(&q, &p);
    let mut g1 = vec![0.0; 15];
    m.energies()[1]
        .elements()
        .blocks(&s, Block::Gradient, &mut g1);
    assert!((g1[2] - m.mass()[2] * 9.81 * 200.0 / 1200.0).abs() < 1e-12);
}

#[test]
fn damping_derivatives() {
    let m = model(3, vec![Box::new(ViscousDamping::uniform(0.3))]);
    check_all(&m, &Tolerances::default(), "damping");
}

#[test]
fn point_force_derivatives_and_value() {
    let forces = vec![
        NodeForce {
            node: 1,
            force: vec![1.0, -2.0, 0.5],
        },
        NodeForce {
            node: 3,
            force: vec![0.0, 0.0, -3.0],
        },
    ];
    let m = model(
        3,
        vec![
            Box::new(PointForces::new(forces.clone())),
            Box::new(PointForces::new(forces).scaled_by("u")),
        ],
    );
    check_all(&m, &Tolerances::default(), "point forces");
    // The force is −∇E: F on the listed nodes, scaled by the channel.
    let q = m.q0().to_vec();
    let p = vec![0.003];
    let s = at_rest(&q, &p);
    let mut g = vec![0.0; 6];
    m.energies()[1]
        .elements()
        .blocks(&s, Block::Gradient, &mut g);
    let expected = [-0.003, 0.006, -0.0015, 0.0, 0.0, 0.009];
    for (a, b) in g.iter().zip(expected) {
        assert!((a - b).abs() < 1e-15, "{g:?}");
    }
}

#[test]
fn resistive_force_derivatives() {
    let edges = vec![[0, 1], [1, 2], [2, 3], [3, 4]];
    let m = model(
        3,
        vec![
            Box::new(ResistiveForce::new(edges.clone(), 0.01, 0.1)),
            Box::new(ResistiveForce::new(edges, 0.3, 0.05)),
        ],
    );
    check_all(&m, &Tolerances::default(), "rft");
}

#[test]
fn sphere_contact_derivatives() {
    // Place the sphere so that node 0 sits inside the contact band.
    let q0 = model(3, vec![]).q0().to_vec();
    let (radius, node_radius, delta) = (0.04, 0.002, 5e-3);
    let centre = [q0[0], q0[1], q0[2] - (radius + node_radius + 0.3 * delta)];
    // Slip velocity as in the ground checks: the FD step must resolve the
    // stick–slip transition (width ≈ 2ν/15).
    for (mu, slip) in [(0.0, None), (0.4, Some(0.05))] {
        let mut c = SphereContact::new(
            centre,
            radius,
            LogExpPenalty {
                stiffness: 2000.0,
                delta,
            },
        );
        c.node_radius = node_radius;
        c.mu = mu;
        c.slip_velocity = slip;
        let m = model(3, vec![Box::new(c)]);
        // K₁ = 3000/m: a smaller FD step keeps the truncation error (∝ K₁²h²)
        // below the tolerance.
        let tol = Tolerances {
            step: 1e-7,
            ..Tolerances::default()
        };
        check_all(&m, &tol, &format!("sphere μ = {mu}"));
    }
}

fn ground_laws() -> Vec<NormalLaw> {
    vec![
        NormalLaw::Quadratic {
            stiffness: 2000.0,
            smoothing: 2e-3,
        },
        NormalLaw::LogExp {
            stiffness: 2000.0,
            delta: 5e-3,
        },
        NormalLaw::SpringDamper {
            stiffness: 1000.0,
            damping: 130.0,
            smoothing: 2e-3,
        },
    ]
}

/// A ground normal tilted off the last axis, in `dim` dimensions.
fn tilted_normal(dim: usize) -> Vec<f64> {
    if dim == 3 {
        vec![0.1, -0.2, 1.0]
    } else {
        vec![0.15, 1.0]
    }
}

/// A world friction axis, in `dim` dimensions.
fn world_axis(dim: usize) -> Vec<f64> {
    if dim == 3 {
        vec![1.0, 0.3, 0.2]
    } else {
        vec![1.0, 0.1]
    }
}

fn frictions(aniso: bool) -> Vec<Option<Friction>> {
    let a = |v: f64| if aniso { Some(v) } else { None };
    vec![
        None,
        Some(Friction::LaggedQuadratic {
            mu: 3.0,
            mu_axis: a(9.0),
        }),
        Some(Friction::SmoothCoulomb {
            mu: 0.2,
            mu_axis: a(0.6),
            slip_velocity: 0.05,
        }),
    ]
}

#[test]
fn ground_derivatives_per_axis_friction_and_world_axes() {
    // Per-axis Coulomb (snake paper eq. 4) along per-node axes and along a
    // world axis; the elliptic laws along a world axis too.
    let tol = Tolerances {
        exact: 1e-8,
        fd: 2e-5,
        step: 1e-7,
    };
    let per_axis = Friction::PerAxisCoulomb {
        mu: 0.2,
        mu_axis: 0.6,
        slip_velocity: 0.05,
    };
    for dim in [2, 3] {
        let normal = tilted_normal(dim);
        let world = world_axis(dim);
        for law in ground_laws() {
            let mut cases = vec![(Some(per_axis), true), (Some(per_axis), false)];
            cases.extend(frictions(true).into_iter().skip(1).map(|f| (f, false)));
            for (fr, per_node) in cases {
                let mut g = Ground::new(&vec![0.0; dim], &normal, law, fr);
                if per_node {
                    g.axes = Some(vec![[1, 2], [2, 3], [3, 4], [4, 0], [0, 1]]);
                } else {
                    g.axis = Some(world.clone());
                }
                let m = model(dim, vec![Box::new(g)]);
                check_all(
                    &m,
                    &tol,
                    &format!("ground {dim}-D {law:?} {fr:?} per node {per_node}"),
                );
            }
        }
    }
}

#[test]
fn ground_derivatives_all_laws_and_frictions() {
    // Finite differences of piecewise laws: the random states must not sit on
    // a joint; a 1e-7 step makes that vanishingly unlikely.
    let tol = Tolerances {
        exact: 1e-8,
        fd: 2e-5,
        step: 1e-7,
    };
    for dim in [2, 3] {
        let normal = tilted_normal(dim);
        for law in ground_laws() {
            for aniso in [false, true] {
                for fr in frictions(aniso) {
                    if fr.is_none() && aniso {
                        continue;
                    }
                    let mut g = Ground::new(&vec![0.0; dim], &normal, law, fr);
                    if aniso {
                        g.axes = Some(vec![[1, 2], [2, 3], [3, 4], [4, 0], [0, 1]]);
                    }
                    let m = model(dim, vec![Box::new(g)]);
                    check_all(&m, &tol, &format!("ground {dim}-D {law:?} {fr:?}"));
                }
            }
        }
    }
}

#[test]
fn majorized_friction_hessians_bound_the_exact_ones() {
    // What Newton factorizes after a refused full step (`Ctx::majorize`):
    // for the smooth Coulomb laws a positive semidefinite block M ⪰ H (the
    // saturating force's negative curvature dropped) that differs from H
    // where nodes slip; for every other law the exact block, bit for bit.
    let mut rng = Rng::new(11);
    let per_axis = Friction::PerAxisCoulomb {
        mu: 0.2,
        mu_axis: 0.6,
        slip_velocity: 0.05,
    };
    for dim in [2, 3] {
        let normal = tilted_normal(dim);
        let mut cases: Vec<(Option<Friction>, bool, bool)> =
            vec![(Some(per_axis), true, true), (Some(per_axis), false, true)];
        for aniso in [false, true] {
            for fr in frictions(aniso).into_iter().skip(usize::from(aniso)) {
                let coulomb = matches!(fr, Some(Friction::SmoothCoulomb { .. }));
                cases.push((fr, aniso, coulomb));
            }
        }
        for (fr, per_node, coulomb) in cases {
            let law = NormalLaw::Quadratic {
                stiffness: 2000.0,
                smoothing: 2e-3,
            };
            let mut g = Ground::new(&vec![0.0; dim], &normal, law, fr);
            if per_node {
                g.axes = Some(vec![[1, 2], [2, 3], [3, 4], [4, 0], [0, 1]]);
            } else if matches!(fr, Some(Friction::PerAxisCoulomb { .. })) {
                g.axis = Some(world_axis(dim));
            }
            let m = model(dim, vec![Box::new(g)]);
            let set = m.energies()[0].elements();
            let ns = set.stencil_size();
            let label = format!("ground {dim}-D {fr:?} per node {per_node}");
            let mut differs = 0.0f64;
            for (seed, scale) in [(1, 1e-3), (2, 1e-2), (3, 3e-2)] {
                let (mut q, mut qp) = states(&m, seed, scale);
                // Pressed into the ground: every node carries a normal force.
                for n in 0..5 {
                    q[dim * n + dim - 1] -= 0.004;
                    qp[dim * n + dim - 1] -= 0.004;
                }
                let p = vec![0.0];
                let s = EvalState {
                    q: &q,
                    q_prev: &qp,
                    p: &p,
                    h: 0.01,
                    dt: 0.01,
                    t: 0.0,
                };
                let mut h = vec![0.0; set.len() * ns * ns];
                let mut mj = h.clone();
                set.blocks(&s, Block::Hessian, &mut h);
                set.majorized_hessian_blocks(&s, &mut mj);
                if !coulomb {
                    assert_eq!(h, mj, "{label}: not the exact blocks");
                    continue;
                }
                for (hb, mb) in h.chunks(ns * ns).zip(mj.chunks(ns * ns)) {
                    let size = hb.iter().fold(0.0f64, |a, v| a.max(v.abs()));
                    for a in 0..ns {
                        for b in 0..ns {
                            assert!(mb[a * ns + b].is_finite(), "{label}");
                            let asym = (mb[a * ns + b] - mb[b * ns + a]).abs();
                            assert!(asym <= 1e-12 * size, "{label}: not symmetric ({asym})");
                            differs = differs.max((mb[a * ns + b] - hb[a * ns + b]).abs());
                        }
                    }
                    let form = |blk: &[f64], v: &[f64]| -> f64 {
                        (0..ns)
                            .map(|a| (0..ns).map(|b| v[a] * blk[a * ns + b] * v[b]).sum::<f64>())
                            .sum()
                    };
                    for _ in 0..200 {
                        let v: Vec<f64> = (0..ns).map(|_| rng.range(-1.0, 1.0)).collect();
                        let vv: f64 = v.iter().map(|x| x * x).sum();
                        let (qm, qh) = (form(mb, &v), form(hb, &v));
                        assert!(qm >= -1e-12 * size * vv, "{label}: M not PSD ({qm})");
                        assert!(
                            qm - qh >= -1e-10 * size * vv,
                            "{label}: M − H not PSD ({})",
                            qm - qh
                        );
                    }
                }
            }
            if coulomb {
                assert!(
                    differs > 0.0,
                    "{label}: the majorizer equals the exact Hessian"
                );
            }
        }
    }
}

#[test]
fn friction_is_smooth_at_rest() {
    // x = x_prev exactly (the first Newton iterate of a resting body): finite,
    // symmetric, positive semidefinite friction Hessian.
    let g = Ground::new(
        &[0.0, 0.0, 0.0],
        &[0.0, 0.0, 1.0],
        NormalLaw::Quadratic {
            stiffness: 1000.0,
            smoothing: 1e-3,
        },
        Some(Friction::SmoothCoulomb {
            mu: 0.5,
            mu_axis: None,
            slip_velocity: 1e-3,
        }),
    );
    let m = model(3, vec![Box::new(g)]);
    let mut q = m.q0().to_vec();
    for n in 0..5 {
        q[3 * n + 2] = -0.002; // all nodes penetrating
    }
    let p = vec![0.0];
    let s = at_rest(&q, &p);
    let mut h = vec![0.0; 5 * 9];
    m.energies()[0]
        .elements()
        .blocks(&s, Block::Hessian, &mut h);
    assert!(h.iter().all(|v| v.is_finite()));
    let mut hf = vec![0.0; 5 * 9];
    m.energies()[0]
        .elements()
        .fallback_blocks(&s, Block::Hessian, &mut hf);
    for (a, b) in h.iter().zip(&hf) {
        assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{a} vs {b}");
    }
    // Tangential stiffness = N μ K₂/(2h) at rest.
    let n = 1000.0 * (0.002 - 0.5e-3);
    let expected = n * 0.5 * (15.0 / 1e-3) / 2.0 / 0.01;
    assert!(
        (h[0] - expected).abs() < 1e-6 * expected,
        "{} vs {expected}",
        h[0]
    );
}

#[test]
fn shear_panel_derivatives() {
    // Nodes 0–3 and 1–4 make two panels sharing a side; 2-D and 3-D. Not at
    // the rest state, where the gradient vanishes and only FD noise is left.
    for dim in [2, 3] {
        let m = model(
            dim,
            vec![Box::new(ShearPanels {
                panels: vec![[0, 1, 2, 3], [1, 2, 3, 4]],
                stiffness: 300.0,
            })],
        );
        for (seed, scale) in [(1, 1e-3), (2, 1e-2), (3, 3e-2), (4, 1e-4)] {
            let (q, qp) = states(&m, seed, scale);
            let p = vec![0.003];
            let s = EvalState {
                q: &q,
                q_prev: &qp,
                p: &p,
                h: 0.01,
                dt: 0.01,
                t: 0.0,
            };
            let r = check(m.energies()[0].as_ref(), &s, &Tolerances::default());
            eprintln!("shear panel {dim}-D seed {seed}: {r:?}");
            r.assert_within(&Tolerances::default());
        }
    }
}
