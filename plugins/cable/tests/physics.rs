//! Cable behaviour against hand computations: slack cables are inert, a
//! stretched straight cable pulls its end nodes with `k(Γ − ε/2)` along
//! itself, tension control pulls with `τ`, a tendon pair shares one parameter
//! column and balances in a static solve, `Γ`'s gradient for regularizers,
//! and collapsed segments at run time.

use pliant_cable::{Cable, CableControl, CableEnergy, CableVertex};
use pliant_core::{
    Block, CoreError, Energy, EvalState, Integrator, Model, ModelBuilder, NewtonSettings,
    ParamChannel, Simulator,
};

/// Unit direction of the test cable, (1, 2, 2)/3.
const E: [f64; 3] = [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0];
const A: [f64; 3] = [0.01, 0.02, 0.03];

fn channel(name: &str, value: f64) -> ParamChannel {
    ParamChannel::control(name, value)
}

/// Nodes `A`, `A + 0.3 E` and `A + 0.5 E` (m); channels `u` (m), `tau` (N).
fn line_model() -> Model {
    let mut b = ModelBuilder::new(3).unwrap();
    for s in [0.0, 0.3, 0.5] {
        let x: Vec<f64> = (0..3).map(|a| A[a] + s * E[a]).collect();
        b.add_node(&x, 0.01).unwrap();
    }
    b.add_param(channel("u", 0.0)).unwrap();
    b.add_param(channel("tau", 0.0)).unwrap();
    b.build().unwrap()
}

fn bind(c: Cable, m: &Model) -> CableEnergy {
    c.bind_to(&m.bind_info()).unwrap()
}

fn straight(control: CableControl, m: &Model) -> CableEnergy {
    bind(
        Cable::new(
            "c",
            vec![CableVertex::on_node(0), CableVertex::on_node(1)],
            control,
            800.0,
        ),
        m,
    )
}

fn length_ctl() -> CableControl {
    CableControl::Length {
        channel: "u".into(),
    }
}

fn tension_ctl() -> CableControl {
    CableControl::Tension {
        channel: "tau".into(),
    }
}

fn st<'a>(q: &'a [f64], p: &'a [f64]) -> EvalState<'a> {
    EvalState {
        q,
        q_prev: q,
        p,
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    }
}

/// All blocks of a one-element energy: (value, gradient, Hessian, param
/// block, param gradient).
fn blocks(c: &dyn Energy, s: &EvalState) -> (f64, Vec<f64>, Vec<f64>, Vec<f64>, f64) {
    let n = c.elements().stencil_size();
    let (mut g, mut h, mut pb, mut pg) = (vec![9.0; n], vec![9.0; n * n], vec![9.0; n], [9.0]);
    let set = c.elements();
    set.blocks(s, Block::Gradient, &mut g);
    set.blocks(s, Block::Hessian, &mut h);
    set.blocks(s, Block::Param, &mut pb);
    set.blocks(s, Block::ParamGradient, &mut pg);
    (set.value(s), g, h, pb, pg[0])
}

fn obs(c: &dyn Energy, s: &EvalState, what: &str) -> f64 {
    c.observables(s)
        .into_iter()
        .find(|(n, _)| n == &format!("c.{what}"))
        .unwrap_or_else(|| panic!("no observable c.{what}"))
        .1
}

/// `q0` with node 1 moved by `d` (m) along the cable.
fn stretched(m: &Model, d: f64) -> Vec<f64> {
    let mut q = m.q0().to_vec();
    for a in 0..3 {
        q[3 + a] += d * E[a];
    }
    q
}

#[test]
fn a_slack_cable_stores_no_energy_and_exerts_no_force() {
    let m = line_model();
    let c = straight(length_ctl(), &m);
    let q = stretched(&m, 0.01); // L = 0.31 m, α0 = 0.3 m
    for (u, slack) in [(-0.02, 0.01), (-0.01, 0.0)] {
        // Γ = 0.31 − 0.3 + u = −0.01 (slack) and 0 (just taut: Q(0) = 0).
        let p = [u, 0.0];
        let s = st(&q, &p);
        let (e, g, h, pb, pg) = blocks(&c, &s);
        assert_eq!(e, 0.0);
        assert!(g.iter().chain(&h).chain(&pb).all(|&v| v == 0.0));
        assert_eq!(pg, 0.0);
        assert_eq!(obs(&c, &s, "tension"), 0.0);
        assert!((obs(&c, &s, "slack") - slack).abs() < 1e-15);
        assert!((obs(&c, &s, "length") - 0.31).abs() < 1e-15);
        // The fallback agrees.
        let mut gf = vec![1.0; 6];
        c.elements().blocks(&s, Block::Gradient, &mut gf);
        assert!(gf.iter().all(|&v| v == 0.0));
    }
}

#[test]
fn tension_of_a_stretched_straight_cable_matches_a_hand_computation() {
    let m = line_model();
    let (k, eps) = (800.0, 1e-4);
    let c = straight(length_ctl(), &m);
    assert!((c.length(m.q0()) - 0.3).abs() < 1e-15);
    let q = stretched(&m, 0.01);
    let u = 0.002;
    let p = [u, 0.0];
    let s = st(&q, &p);
    let gamma = 0.31 - 0.3 + u; // 0.012 m ≫ ε: quadratic regime
    let tension = k * (gamma - eps / 2.0); // N
    let energy = k * (gamma * gamma / 2.0 - eps * gamma / 2.0 + eps * eps / 6.0);
    let (e, g, h, pb, pg) = blocks(&c, &s);
    assert!((e - energy).abs() < 1e-12 * energy, "{e} vs {energy}");
    assert!((c.tension(&q, &p) - tension).abs() < 1e-10);
    assert!((obs(&c, &s, "tension") - tension).abs() < 1e-10);
    assert_eq!(obs(&c, &s, "slack"), 0.0);
    // Force f = −∂E/∂x: node 0 pulled towards node 1 (+T e), node 1 back (−T e).
    for a in 0..3 {
        assert!((-g[a] - tension * E[a]).abs() < 1e-10, "node 0 axis {a}");
        assert!(
            (-g[3 + a] + tension * E[a]).abs() < 1e-10,
            "node 1 axis {a}"
        );
    }
    // ∂E/∂u = T; ∂²E/∂x₁∂u = k e (Q'' = 1).
    assert!((pg - tension).abs() < 1e-10);
    for a in 0..3 {
        assert!((pb[3 + a] - k * E[a]).abs() < 1e-10);
    }
    // Hessian block of node 1: k e eᵀ + (T/L)(I − e eᵀ).
    for a in 0..3 {
        for b in 0..3 {
            let id = if a == b { 1.0 } else { 0.0 };
            let want = k * E[a] * E[b] + tension / 0.31 * (id - E[a] * E[b]);
            assert!((h[(3 + a) * 6 + 3 + b] - want).abs() < 1e-9);
            assert!((h[a * 6 + 3 + b] + want).abs() < 1e-9);
        }
    }
    // In the smoothing zone: T = k Γ²/(2ε).
    let p = [-0.01 + 5e-5, 0.0];
    let t = c.tension(&q, &p);
    assert!((t - k * 5e-5 * 5e-5 / (2.0 * eps)).abs() < 1e-9, "{t}");
}

#[test]
fn tension_control_pulls_with_the_prescribed_tension() {
    let m = line_model();
    let c = straight(tension_ctl(), &m);
    let q = stretched(&m, -0.05);
    let tau = 12.5;
    let p = [0.0, tau];
    let s = st(&q, &p);
    let (e, g, _, pb, pg) = blocks(&c, &s);
    assert!((e - tau * 0.25).abs() < 1e-13);
    assert!((pg - 0.25).abs() < 1e-15, "∂E/∂τ = L");
    for a in 0..3 {
        assert!((g[a] + tau * E[a]).abs() < 1e-12);
        assert!((g[3 + a] - tau * E[a]).abs() < 1e-12);
        assert!((pb[3 + a] - E[a]).abs() < 1e-15, "∂²E/∂x∂τ = ∇L");
    }
    assert_eq!(obs(&c, &s, "tension"), tau);
    assert_eq!(obs(&c, &s, "slack"), 0.0);
    assert!((obs(&c, &s, "length") - 0.25).abs() < 1e-15);
    let d = c.deformation(&q, &p);
    assert_eq!(d.gamma, 0.0);
    assert!(d.dq.is_empty() && d.dp.is_empty());
    assert_eq!(c.assembly_length(), None);
}

/// A tendon pair on the line model: node 0 → node 1 and node 1 → node 2,
/// both reading channel `u`.
fn tendon_pair(m: &Model, k: [f64; 2]) -> [CableEnergy; 2] {
    [
        bind(
            Cable::new(
                "left",
                vec![CableVertex::on_node(0), CableVertex::on_node(1)],
                length_ctl(),
                k[0],
            ),
            m,
        ),
        bind(
            Cable::new(
                "right",
                vec![CableVertex::on_node(1), CableVertex::on_node(2)],
                length_ctl(),
                k[1],
            ),
            m,
        ),
    ]
}

#[test]
fn a_tendon_pair_writes_its_parameter_blocks_into_one_column() {
    let m = line_model();
    let pair = tendon_pair(&m, [100.0, 300.0]);
    let q = m.q0().to_vec();
    let p = [0.01, 0.0];
    let s = st(&q, &p);
    // Dense ∂²E/∂q∂p of both energies (9 DOFs × 2 channels).
    let mut dense = [0.0; 9 * 2];
    for c in &pair {
        let set = c.elements();
        let (mut d, mut pi) = (vec![0; set.stencil_size()], [0]);
        set.dofs(0, &mut d);
        set.params(0, &mut pi);
        assert_eq!(pi, [0], "both cables read channel u");
        let mut pb = vec![0.0; d.len()];
        set.blocks(&s, Block::Param, &mut pb);
        assert!(pb.iter().any(|&v| v != 0.0));
        for (r, v) in d.iter().zip(pb) {
            dense[r * 2 + pi[0]] += v;
        }
    }
    for r in 0..9 {
        assert_eq!(dense[r * 2 + 1], 0.0, "no entry in the tau column");
    }
    // Node 1 is pulled back by the left cable (k₀ e) and forward by the right
    // one (−k₁ e): ∂²E/∂x₁∂u = (k₀ − k₁) e.
    for a in 0..3 {
        assert!((dense[(3 + a) * 2] - (100.0 - 300.0) * E[a]).abs() < 1e-10);
        assert!((dense[a * 2] + 100.0 * E[a]).abs() < 1e-10);
        assert!((dense[(6 + a) * 2] - 300.0 * E[a]).abs() < 1e-10);
    }
}

#[test]
fn a_tendon_pair_balances_in_a_static_solve() {
    // Node 1 between fixed nodes 0 and 2, held by the two cables; both
    // contract by u. Equal tensions k₀(Γ₀ − ε/2) = k₁(Γ₁ − ε/2) with
    // Γ₀ = u + δ, Γ₁ = u − δ give δ = (k₁ − k₀)(u − ε/2)/(k₀ + k₁) along e.
    let (k0, k1, u, eps) = (100.0, 300.0, 0.01, 1e-4);
    let mut b = ModelBuilder::new(3).unwrap();
    for s in [0.0, 0.3, 0.6] {
        let x: Vec<f64> = (0..3).map(|a| A[a] + s * E[a]).collect();
        b.add_node(&x, 0.01).unwrap();
    }
    b.add_param(channel("u", u)).unwrap();
    b.fix_node(0).unwrap();
    b.fix_node(2).unwrap();
    for (name, nodes, k) in [("left", [0, 1], k0), ("right", [1, 2], k1)] {
        b.add(Cable::new(
            name,
            nodes.map(CableVertex::on_node).to_vec(),
            length_ctl(),
            k,
        ));
    }
    let m = b.build().unwrap();
    let q0 = m.q0().to_vec();
    let mut sim = Simulator::new(m, Integrator::Static, 1.0, NewtonSettings::default()).unwrap();
    sim.step().unwrap();
    let q = sim.q().to_vec();
    let delta = (k1 - k0) * (u - eps / 2.0) / (k0 + k1);
    for a in 0..3 {
        assert!(
            (q[3 + a] - q0[3 + a] - delta * E[a]).abs() < 1e-9,
            "axis {a}: {} vs {}",
            q[3 + a] - q0[3 + a],
            delta * E[a]
        );
    }
    let p = [u];
    let s = st(&q, &p);
    let t: Vec<f64> = sim
        .model()
        .energies()
        .iter()
        .map(|e| e.observables(&s)[0].1)
        .collect();
    let want = k0 * (u + delta - eps / 2.0);
    assert!(
        (t[0] - want).abs() < 1e-6 && (t[1] - want).abs() < 1e-6,
        "{t:?} vs {want}"
    );
}

#[test]
fn deformation_gradient_matches_finite_differences() {
    let m = line_model();
    let c = bind(
        Cable::new(
            "c",
            vec![
                CableVertex::on_node(0),
                CableVertex::new(vec![1, 2], vec![0.3, 0.7]),
                CableVertex::on_node(1),
            ],
            length_ctl(),
            50.0,
        )
        .with_assembly_length(0.35),
        &m,
    );
    let mut q = stretched(&m, 0.02);
    q[4] += 0.03; // bend it
    let p = [0.004, 0.0];
    let d = c.deformation(&q, &p);
    assert!((d.gamma - (c.length(&q) - 0.35 + 0.004)).abs() < 1e-15);
    assert_eq!(d.dp, vec![(0, 1.0)]);
    assert_eq!(
        d.dq.iter().map(|x| x.0).collect::<Vec<_>>(),
        (0..9).collect::<Vec<_>>()
    );
    let h = 1e-6;
    for &(i, gi) in &d.dq {
        let (mut qp, mut qm) = (q.clone(), q.clone());
        qp[i] += h;
        qm[i] -= h;
        let fd = (c.deformation(&qp, &p).gamma - c.deformation(&qm, &p).gamma) / (2.0 * h);
        assert!((gi - fd).abs() < 1e-8, "DOF {i}: {gi} vs {fd}");
    }
}

#[test]
fn a_segment_collapsed_at_run_time_is_nan_only_where_its_direction_matters() {
    let m = line_model();
    let three = |control| {
        bind(
            Cable::new(
                "c",
                (0..3).map(CableVertex::on_node).collect(),
                control,
                800.0,
            ),
            &m,
        )
    };
    // Node 1 moved onto node 2: segment 1 has zero length, L = 0.5 m.
    let mut q = m.q0().to_vec();
    q.copy_within(6..9, 3);
    let finite = |c: &CableEnergy, p: [f64; 2]| {
        let s = st(&q, &p);
        let (e, g, h, pb, pg) = blocks(c, &s);
        assert!(e.is_finite() && pg.is_finite());
        assert!(c.observables(&s).iter().all(|o| o.1.is_finite()));
        g.iter().chain(&h).chain(&pb).all(|v| v.is_finite())
    };
    let len = three(length_ctl());
    assert!((len.length(&q) - 0.5).abs() < 1e-15);
    // Taut (Γ = 0.5 − 0.5 + 0.01): the force direction of segment 1 is
    // undefined → NaN blocks, which the assembler turns into a typed error.
    assert!(!finite(&len, [0.01, 0.0]));
    // Slack: exactly zero, no NaN.
    assert!(finite(&len, [-0.01, 0.0]));
    let ten = three(tension_ctl());
    assert!(!finite(&ten, [0.0, 2.0]));

    // In a simulation the taut collapsed cable is a typed error, not a
    // silently NaN state (Newton reports the non-finite residual at the
    // initial guess; the assembler would report NaN Hessian blocks).
    let mut b = ModelBuilder::new(3).unwrap();
    for k in 0..3 {
        b.add_node(&m.q0()[3 * k..3 * k + 3], 0.01).unwrap();
    }
    b.add_param(channel("u", 0.01)).unwrap();
    b.add_param(channel("tau", 0.0)).unwrap();
    b.fix_node(0).unwrap();
    b.fix_node(2).unwrap();
    b.add(Cable::new(
        "c",
        (0..3).map(CableVertex::on_node).collect(),
        length_ctl(),
        800.0,
    ));
    let mut sim = Simulator::new(
        b.build().unwrap(),
        Integrator::Static,
        1.0,
        NewtonSettings::default(),
    )
    .unwrap();
    sim.set_state(&q, &[0.0; 9], 0.0, 0).unwrap();
    let err = sim.step().unwrap_err();
    assert!(
        matches!(
            err,
            CoreError::NewtonDiverged { .. } | CoreError::NonFinite { .. }
        ),
        "{err}"
    );
    assert_eq!(sim.q(), &q[..], "the state is kept");
}
