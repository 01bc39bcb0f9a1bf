//! Tests of the rod energy: derivative checks (analytic vs the dual-number
//! fallback of the literal definitions vs finite differences) at states
//! away from the lagged frames, invariances, analytic cases, validation and
//! scene round-trips.

use super::energy::tangents;
use super::*;
use crate::element::N;
use pliant_core::derivcheck::{Rng, Tolerances, check};
use pliant_core::vec3::{add, cross, dot, norm, scale, sub, unit};
use pliant_core::{
    BindInfo, Block, Ctx, DofKind, Element, ElementSet, Energy, EnergySpec, EvalState, Integrator,
    Model, ModelBuilder, NewtonSettings, ParamChannel, Scalar, Simulator, Stencil,
};
use std::f64::consts::PI;

const E: f64 = 1.0e6;
const RAD: f64 = 0.004;

/// `rod` bound to `model` outside it (a twin of the model's own rod, so
/// tests can step its frames by hand).
fn twin(rod: &Rod, model: &Model) -> RodEnergy {
    let twists = twist_dofs(model.layout());
    let info = BindInfo {
        extra_dofs: &twists,
        ..model.bind_info()
    };
    rod.bind_to(&info).unwrap()
}

/// Builds a model with nodes at `pos` (no mass of their own), control
/// channels `(name, value)` and `rod`, and returns it with a twin of the
/// rod bound to it.
pub(super) fn setup(rod: Rod, pos: &[[f64; 3]], channels: &[(&str, f64)]) -> (RodEnergy, Model) {
    let mut b = ModelBuilder::new(3).unwrap();
    for p in pos {
        b.add_node(p, 0.0).unwrap();
    }
    for (name, v) in channels {
        b.add_param(ParamChannel::control(name, *v)).unwrap();
    }
    b.add(rod.clone());
    let model = b.build().unwrap();
    (twin(&rod, &model), model)
}

fn eval<'a>(q: &'a [f64], p: &'a [f64]) -> EvalState<'a> {
    EvalState {
        q,
        q_prev: q,
        p,
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    }
}

/// A non-planar, non-straight chain of `n` nodes with ~2 cm edges.
pub(super) fn wiggly(n: usize, rng: &mut Rng) -> Vec<[f64; 3]> {
    let mut x = vec![[0.0; 3]];
    let mut dir = [1.0, 0.0, 0.0];
    for _ in 1..n {
        dir = unit(&add(
            &dir,
            &[
                rng.range(-0.5, 0.5),
                rng.range(-0.5, 0.5),
                rng.range(-0.5, 0.5),
            ],
        ));
        let last = *x.last().unwrap();
        x.push(add(&last, &scale(rng.range(0.015, 0.025), &dir)));
    }
    x
}

/// Node coordinates perturbed by `s` (m) and twist angles set to random
/// values in ±`th` (rad).
pub(super) fn perturb(model: &Model, q: &[f64], s: f64, th: f64, rng: &mut Rng) -> Vec<f64> {
    let mut out = q.to_vec();
    for (i, k) in model.layout().dof_kinds().iter().enumerate() {
        out[i] += match k {
            DofKind::Position { .. } => rng.range(-s, s),
            DofKind::Extra { .. } => rng.range(-th, th),
        };
    }
    out
}

fn tol() -> Tolerances {
    Tolerances {
        exact: 1e-12,
        fd: 1e-6,
        step: 1e-6,
    }
}

/// Runs the derivative check at a state where the tangents differ from the
/// lagged ones: begin_step at one perturbed state, evaluation at another.
fn check_away_from_lag(rod: &mut RodEnergy, model: &Model, p: &[f64], seed: u64) {
    let mut rng = Rng::new(seed);
    let q_prev = perturb(model, model.q0(), 2e-3, 0.6, &mut rng);
    rod.begin_step(&q_prev, p, 0.01, 0.0);
    let q = perturb(model, &q_prev, 2e-3, 0.6, &mut rng);
    let s = EvalState {
        q: &q,
        q_prev: &q_prev,
        p,
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    };
    // The lagged tangents really differ from the evaluation point's.
    let t_eval = tangents(rod.edge_node_dofs(), &q);
    let lag = &rod.frames().edges;
    assert!(
        t_eval
            .iter()
            .zip(lag)
            .all(|(t, f)| 1.0 - dot(t, &f.tangent) > 1e-6)
    );
    let r = check(&*rod, &s, &tol());
    r.assert_within(&tol());
    let v = rod.elements().value(&s);
    assert!(v > 0.0);
    // The value path is bit for bit the derivative path's value.
    let set = &rod.set;
    for i in 0..set.len() {
        let (a, b) = set.with_local(i, &s, |e, l| {
            (e.value_parts(l.x, l.p), e.eval::<false>(l.x, l.p).parts)
        });
        assert_eq!(a, b);
    }
    // The analytic value is the literal one.
    let fb = rod.literal_value(&s);
    assert!((v - fb).abs() <= 1e-12 * fb.abs());
}

pub(super) fn actuated_chain(n: usize) -> Rod {
    Rod::chain(&(0..n).collect::<Vec<_>>(), RAD, E, 0.3, 1000.0)
        .actuate(Actuation::curvature("k1", 1, Some(vec![0, 1])))
        .actuate(Actuation::curvature("k2", 2, Some(vec![2])).with_gain(-0.7))
        .actuate(Actuation::twist("tw", None).with_gain(1.3))
        .actuate(Actuation::stretch("s", Some(vec![0, n - 2])))
}

pub(super) const CHANNELS: [(&str, f64); 4] = [("k1", 3.0), ("k2", -2.0), ("tw", 1.5), ("s", 0.04)];

#[test]
fn derivatives_of_an_actuated_wiggly_rod_away_from_the_lagged_frames() {
    let mut rng = Rng::new(1);
    let pos = wiggly(6, &mut rng);
    let rod = actuated_chain(6).with_rest_lengths_from(&pos).unwrap();
    let (mut rod, model) = setup(rod, &pos, &CHANNELS);
    let p = model.params_at(0.0);
    for seed in [11, 12, 13] {
        check_away_from_lag(&mut rod, &model, &p, seed);
    }
}

#[test]
fn derivatives_of_each_energy_alone() {
    let mut rng = Rng::new(2);
    let pos = wiggly(5, &mut rng);
    let off = |s: usize, b: bool, t: bool| SpringOverride {
        spring: s,
        bend_stiffness: b.then_some(0.0),
        twist_stiffness: t.then_some(0.0),
        ..Default::default()
    };
    let no_stretch = |rod: Rod| {
        (0..4).fold(rod, |r, e| {
            r.with_edge_override(EdgeOverride {
                edge: e,
                stretch_stiffness: Some(0.0),
            })
        })
    };
    let base = || actuated_chain(5).with_rest_lengths_from(&pos).unwrap();
    let stretch_only = (0..3).fold(base(), |r, s| r.with_spring_override(off(s, true, true)));
    let bend_only = (0..3).fold(no_stretch(base()), |r, s| {
        r.with_spring_override(off(s, false, true))
    });
    let twist_only = (0..3).fold(no_stretch(base()), |r, s| {
        r.with_spring_override(off(s, true, false))
    });
    for (k, rod) in [stretch_only, bend_only, twist_only]
        .into_iter()
        .enumerate()
    {
        let (mut rod, model) = setup(rod, &pos, &CHANNELS);
        let p = model.params_at(0.0);
        check_away_from_lag(&mut rod, &model, &p, 20 + k as u64);
        let mut rng = Rng::new(30 + k as u64);
        let q = perturb(&model, model.q0(), 2e-3, 0.5, &mut rng);
        let e = rod.energies(&eval(&q, &p));
        let parts = [e.stretch, e.bend, e.twist];
        for (j, v) in parts.iter().enumerate() {
            assert_eq!(*v > 0.0, j == k, "energy {k}: parts {parts:?}");
        }
    }
}

#[test]
fn derivatives_without_channels_and_with_a_lone_edge() {
    // A chain plus an edge that belongs to no spring (stretch-only element).
    let mut rng = Rng::new(3);
    let mut pos = wiggly(4, &mut rng);
    pos.push([0.1, 0.1, 0.1]);
    pos.push([0.12, 0.1, 0.11]);
    let rod = Rod::network(vec![[0, 1], [1, 2], [2, 3], [4, 5]], RAD, E, 0.45, 1000.0)
        .with_rest_lengths_from(&pos)
        .unwrap();
    let (mut rod, model) = setup(rod, &pos, &[]);
    // No channel: every parameter slot of every element is unused.
    let set = rod.elements();
    let mut slots = vec![0; set.param_size()];
    for i in 0..set.len() {
        set.params(i, &mut slots);
        assert!(slots.iter().all(|&p| p == pliant_core::element::NO_PARAM));
    }
    assert_eq!(rod.elements().len(), 3);
    check_away_from_lag(&mut rod, &model, &[], 4);
}

fn rot(axis: &[f64; 3], ang: f64, v: &[f64; 3]) -> [f64; 3] {
    let (s, c) = ang.sin_cos();
    let k = unit(axis);
    let kxv = cross(&k, v);
    let kv = dot(&k, v);
    std::array::from_fn(|i| v[i] * c + kxv[i] * s + k[i] * kv * (1.0 - c))
}

/// Applies `f` to every node position of `q` (twist angles unchanged).
fn map_nodes(model: &Model, q: &[f64], f: impl Fn([f64; 3]) -> [f64; 3]) -> Vec<f64> {
    let mut out = q.to_vec();
    for &b in model.layout().node_base() {
        let x = f([q[b], q[b + 1], q[b + 2]]);
        out[b..b + 3].copy_from_slice(&x);
    }
    out
}

#[test]
fn rigid_motions_leave_the_energy_unchanged() {
    let mut rng = Rng::new(5);
    let pos = wiggly(6, &mut rng);
    let (axis, ang, shift) = ([0.3, -0.5, 0.8], 1.1, [0.3, -0.2, 0.5]);
    let d0 = [0.0, 0.0, 1.0];
    let make = |pos: &[[f64; 3]], d: [f64; 3]| {
        let rod = actuated_chain(6)
            .with_first_director(d)
            .with_rest_lengths_from(pos)
            .unwrap();
        setup(rod, pos, &CHANNELS)
    };
    let (mut a, model) = make(&pos, d0);
    let moved: Vec<[f64; 3]> = pos
        .iter()
        .map(|x| add(&rot(&axis, ang, x), &shift))
        .collect();
    let (mut b, _) = make(&moved, rot(&axis, ang, &d0));
    let p = model.params_at(0.0);
    let motion = |q: &[f64]| map_nodes(&model, q, |x| add(&rot(&axis, ang, &x), &shift));
    // Frames carried along: transport commutes with rotations.
    let q1 = perturb(&model, model.q0(), 2e-3, 0.4, &mut rng);
    a.begin_step(&q1, &p, 0.01, 0.0);
    b.begin_step(&motion(&q1), &p, 0.01, 0.0);
    let q = perturb(&model, &q1, 2e-3, 0.4, &mut rng);
    let (ea, eb) = (
        a.elements().value(&eval(&q, &p)),
        b.elements().value(&eval(&motion(&q), &p)),
    );
    assert!(ea > 0.0 && (ea - eb).abs() < 1e-10 * ea, "{ea} vs {eb}");
    // Translation of the same rod.
    let tq = map_nodes(&model, &q, |x| add(&x, &shift));
    let et = a.elements().value(&eval(&tq, &p));
    assert!((ea - et).abs() < 1e-10 * ea);
    // A planar rod rotated about its plane's normal, with the frames
    // time-parallel transported to the rotated state by begin_step.
    let flat: Vec<[f64; 3]> = pos.iter().map(|x| [x[0], x[1], 0.0]).collect();
    let (mut c, model) = make(&flat, d0);
    let mut q = model.q0().to_vec();
    for (i, k) in model.layout().dof_kinds().iter().enumerate() {
        match k {
            DofKind::Position { axis, .. } if *axis < 2 => q[i] *= 1.05 + 0.02 * i as f64,
            DofKind::Extra { .. } => q[i] = 0.1 * i as f64,
            _ => {}
        }
    }
    c.begin_step(&q, &p, 0.01, 0.0);
    let e0 = c.elements().value(&eval(&q, &p));
    let qr = map_nodes(&model, &q, |x| rot(&[0.0, 0.0, 1.0], 2.5, &x));
    c.begin_step(&qr, &p, 0.01, 0.0);
    let e1 = c.elements().value(&eval(&qr, &p));
    assert!(e0 > 0.0 && (e0 - e1).abs() < 1e-10 * e0, "{e0} vs {e1}");
}

#[test]
fn a_straight_untwisted_rod_at_rest_has_zero_force() {
    let n = 8;
    let pos: Vec<[f64; 3]> = (0..n).map(|k| [0.01 * k as f64, 0.0, 0.0]).collect();
    let rod = Rod::chain(&(0..n).collect::<Vec<_>>(), RAD, E, 0.3, 1000.0)
        .with_rest_lengths_from(&pos)
        .unwrap();
    let (mut rod, model) = setup(rod, &pos, &[]);
    for _ in 0..2 {
        let s = eval(model.q0(), &[]);
        assert_eq!(rod.elements().value(&s), 0.0);
        let set = rod.elements();
        let mut g = vec![1.0; set.len() * N];
        rod.elements().blocks(&s, Block::Gradient, &mut g);
        assert!(g.iter().all(|v| v.abs() < 1e-12), "{g:?}");
        rod.begin_step(model.q0(), &[], 0.01, 0.0);
    }
}

#[test]
fn twisting_one_end_stores_gj_dtheta_squared_over_2l() {
    let (n, l, nu) = (11, 0.01, 0.3);
    let pos: Vec<[f64; 3]> = (0..n).map(|k| [l * k as f64, 0.0, 0.0]).collect();
    let rod = Rod::chain(&(0..n).collect::<Vec<_>>(), RAD, E, nu, 1000.0)
        .with_rest_lengths_from(&pos)
        .unwrap();
    let (rod, model) = setup(rod, &pos, &[]);
    let th = rod.twist_dofs().to_vec();
    let dtheta = 2.5; // rad, more than π/2 between the ends
    let mut q = model.q0().to_vec();
    let ne = n - 1;
    for (k, &d) in th.iter().enumerate() {
        q[d] = dtheta * k as f64 / (ne - 1) as f64;
    }
    let gj = E / (2.0 * (1.0 + nu)) * PI * RAD.powi(4) / 2.0;
    // Twist DOFs sit at edges, so the twisted length is between the first
    // and last edge midpoints: (n_edges − 1) l.
    let big_l = (ne - 1) as f64 * l;
    let expect = gj * dtheta * dtheta / (2.0 * big_l);
    let s = eval(&q, &[]);
    let e = rod.energies(&s);
    assert!(
        (e.twist - expect).abs() < 1e-12 * expect,
        "{} vs {expect}",
        e.twist
    );
    assert!(e.bend.abs() < 1e-20 && e.stretch.abs() < 1e-20);
    // Linear θ is an equilibrium for the interior angles; the ends carry the
    // torque ∓GJ Δθ/L.
    let mut g = vec![0.0; rod.elements().len() * N];
    rod.elements().blocks(&s, Block::Gradient, &mut g);
    let mut gt = vec![0.0; model.n_dofs()];
    let mut d = [0; N];
    for i in 0..rod.elements().len() {
        rod.elements().dofs(i, &mut d);
        for (k, &dof) in d.iter().enumerate() {
            gt[dof] += g[i * N + k];
        }
    }
    let torque = gj * dtheta / big_l;
    assert!((gt[th[0]] + torque).abs() < 1e-9 * torque);
    assert!((gt[th[ne - 1]] - torque).abs() < 1e-9 * torque);
    for &dof in &th[1..ne - 1] {
        assert!(gt[dof].abs() < 1e-9 * torque);
    }
}

/// Three two-edge arms from node 0, out of plane: arm 1 points away from
/// the junction, arm 2 into it, arm 3 mixed (springs with both orientation
/// signs). Node positions (m) and edges.
pub(super) fn junction() -> (Vec<[f64; 3]>, Vec<[usize; 2]>) {
    let pos = vec![
        [0.0, 0.0, 0.0],
        [0.02, 0.0, 0.005],
        [0.04, 0.003, 0.01],
        [-0.01, 0.017, 0.0],
        [-0.02, 0.035, -0.004],
        [-0.01, -0.017, 0.002],
        [-0.021, -0.033, 0.006],
    ];
    let edges = vec![[0, 1], [1, 2], [4, 3], [3, 0], [0, 5], [6, 5]];
    (pos, edges)
}

#[test]
fn a_three_edge_junction_network() {
    let (pos, edges) = junction();
    let rod = Rod::network(edges, RAD, E, 0.3, 1000.0)
        .with_rest_lengths_from(&pos)
        .unwrap()
        .actuate(Actuation::curvature("k1", 1, None));
    let (mut rod, model) = setup(rod, &pos, &[("k1", 0.0)]);
    let net = rod.network().clone();
    let at_junction = net.springs().iter().filter(|s| s.node == 0).count();
    assert_eq!((net.springs().len(), at_junction), (6, 3));
    // Zero force at rest (channel at 0), after a begin_step too.
    for _ in 0..2 {
        let s = eval(model.q0(), &[0.0]);
        let mut g = vec![1.0; rod.elements().len() * N];
        rod.elements().blocks(&s, Block::Gradient, &mut g);
        assert!(g.iter().all(|v| v.abs() < 1e-12));
        rod.begin_step(model.q0(), &[0.0], 0.01, 0.0);
    }
    check_away_from_lag(&mut rod, &model, &[4.0], 7);
    // Mass: ρ A |ē| in total, lumped on the nodes.
    let total: f64 = (0..7)
        .map(|n| model.mass()[model.layout().node_base()[n]])
        .sum();
    let len: f64 = rod
        .network()
        .edges()
        .iter()
        .map(|&[a, b]| norm(&sub(&pos[b], &pos[a])))
        .sum();
    assert!((total - 1000.0 * PI * RAD * RAD * len).abs() < 1e-15);
}

/// Builds a model through ModelBuilder with the rod (and `extra` energies)
/// inside, the nodes in `fixed` held, and a twin of the rod bound to the
/// same model for queries. The rod's own `fixed_twists` hold twist angles.
fn model_with_rod(
    make: impl Fn() -> Rod,
    pos: &[[f64; 3]],
    params: Vec<ParamChannel>,
    extra: Vec<Box<dyn EnergySpec>>,
    fixed: &[usize],
) -> (Model, RodEnergy) {
    let mut b = ModelBuilder::new(3).unwrap();
    for p in pos {
        b.add_node(p, 0.0).unwrap();
    }
    for &n in fixed {
        b.fix_node(n).unwrap();
    }
    for c in params {
        b.add_param(c).unwrap();
    }
    b.add(make());
    for e in extra {
        b.add_boxed(e);
    }
    let model = b.build().unwrap();
    let probe = twin(&make(), &model);
    (model, probe)
}

#[test]
fn a_natural_curvature_relaxes_the_rod_to_that_curvature() {
    let (n, l) = (13, 0.01);
    let pos: Vec<[f64; 3]> = (0..n).map(|k| [l * k as f64, 0.0, 0.0]).collect();
    let kappa = 20.0; // 1/m: radius 5 cm, the 12 cm rod bends through ~140°
    let make = || {
        Rod::chain(&(0..n).collect::<Vec<_>>(), RAD, E, 0.3, 1000.0)
            .with_rest_lengths_from(&pos)
            .unwrap()
            .with_first_director([0.0, 0.0, 1.0])
            .actuate(Actuation::curvature("kappa", 1, None))
    };
    let channel =
        ParamChannel::control("kappa", 0.0).with_keyframes(vec![(0.0, 0.0), (1.0, kappa)]);
    // The first edge clamped: its two nodes and its twist angle.
    let clamped = || make().fix_twist(0);
    let (model, probe) = model_with_rod(clamped, &pos, vec![channel], vec![], &[0, 1]);
    let mut sim =
        Simulator::new(model, Integrator::Static, 0.1, NewtonSettings::default()).unwrap();
    for _ in 0..10 {
        sim.step().unwrap();
    }
    let q = sim.q().to_vec();
    let p = sim.model().params_at(sim.time());
    let mut probe = probe;
    probe.begin_step(&q, &p, 0.1, sim.time());
    let st = probe.strains(&q, &p);
    // Every spring (free ones) sits at its natural curvature κ̄ = κ Δl.
    for k in 0..n - 2 {
        assert!(
            (st.curvature[k][0] - kappa * l).abs() < 1e-7,
            "{:?}",
            st.curvature[k]
        );
        assert!(st.curvature[k][1].abs() < 1e-7 && st.twist[k].abs() < 1e-7);
    }
    assert!(st.stretch.iter().all(|e| e.abs() < 1e-7));
    // It is an arc in the (x, z) plane (towards m₁ = z): equal turning
    // angles φ = 2 atan(κ l/2), nodes on a circle of radius l/(2 sin(φ/2)).
    let phi = 2.0 * (kappa * l / 2.0).atan();
    let rho = l / (2.0 * (phi / 2.0).sin());
    let x = |k: usize| {
        let b = sim.model().layout().node_base()[k];
        [q[b], q[b + 1], q[b + 2]]
    };
    // The circle's tangent at node 1 bisects edges 0 and 1 (turned by φ/2).
    let centre = [
        x(1)[0] - rho * (phi / 2.0).sin(),
        0.0,
        rho * (phi / 2.0).cos(),
    ];
    for k in 1..n {
        let r = norm(&sub(&x(k), &centre));
        assert!((r - rho).abs() < 1e-6 * rho, "node {k}: {r} vs {rho}");
        assert!(x(k)[1].abs() < 1e-9);
    }
}

#[test]
fn a_cantilever_under_a_tip_load_matches_euler_bernoulli() {
    let (n, len) = (41, 0.1);
    let l = len / (n - 1) as f64;
    let pos: Vec<[f64; 3]> = (0..n).map(|k| [l * k as f64, 0.0, 0.0]).collect();
    let e = 2.0e9; // stiff: small deflection
    let make = || {
        Rod::chain(&(0..n).collect::<Vec<_>>(), 0.001, e, 0.5, 1200.0)
            .with_rest_lengths_from(&pos)
            .unwrap()
    };
    let force = 0.005; // N, downwards at the tip (1% deflection: linear regime)
    let load = pliant_core::ElementList::new(vec![Tip {
        node: [n - 1],
        force: [0.0, 0.0, -force],
    }]);
    let clamped = || make().fix_twist(0);
    let (model, _) = model_with_rod(clamped, &pos, vec![], vec![Box::new(load)], &[0, 1]);
    let mut sim =
        Simulator::new(model, Integrator::Static, 1.0, NewtonSettings::default()).unwrap();
    sim.step().unwrap();
    let q = sim.q();
    let tip = q[sim.model().layout().node_base()[n - 1] + 2];
    // Clamping the first edge clamps the beam at that edge's midpoint (the
    // first spring's Voronoi region starts there): free length L − l/2.
    let ei = e * PI * 0.001f64.powi(4) / 4.0;
    let span = len - l / 2.0;
    let expect = force * span.powi(3) / (3.0 * ei);
    assert!(
        (-tip - expect).abs() < 2e-3 * expect,
        "tip {tip} m vs {expect} m"
    );
}

/// A constant point force (test helper): `E = −F·x`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Tip {
    node: [usize; 1],
    force: [f64; 3],
}
impl Element for Tip {
    type Size = Stencil<3>;
    fn nodes(&self) -> &[usize] {
        &self.node
    }
    fn energy<D: Scalar>(&self, x: &[D], _: &[D], _: &[D], _: &Ctx) -> D {
        -(x[0] * self.force[0] + x[1] * self.force[1] + x[2] * self.force[2])
    }
}
pliant_core::register_energy!(elements Tip = "rod_test_tip_load", "test", "{}");

fn build_err(rod: Rod, pos: &[[f64; 3]], channels: &[&str]) -> String {
    let mut b = ModelBuilder::new(3).unwrap();
    for p in pos {
        b.add_node(p, 0.0).unwrap();
    }
    for c in channels {
        b.add_param(ParamChannel::control(c, 0.0)).unwrap();
    }
    b.add(rod);
    b.build().unwrap_err().to_string()
}

#[test]
fn coincident_nodes_are_a_zero_length_edge() {
    let pos = [[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.01, 0.0, 0.0]];
    let e = build_err(Rod::chain(&[0, 1, 2], RAD, E, 0.3, 1000.0), &pos, &[]);
    assert!(
        e.contains("edge 1 (nodes 1 and 2) has zero length in the initial state"),
        "{e}"
    );
}

#[test]
fn bad_input_is_rejected_with_the_field_named() {
    let pos: Vec<[f64; 3]> = (0..4).map(|k| [0.01 * k as f64, 0.0, 0.0]).collect();
    let ok = || Rod::chain(&[0, 1, 2, 3], RAD, E, 0.3, 1000.0).with_rest_lengths(vec![0.01; 3]);
    let cases: Vec<(Rod, &str)> = vec![
        (
            Rod::network(vec![], RAD, E, 0.3, 1000.0),
            "`edges` is empty",
        ),
        (
            Rod::network(vec![[0, 1], [1, 1]], RAD, E, 0.3, 1000.0)
                .with_rest_lengths(vec![0.01; 2]),
            "edge 1 repeats node 1",
        ),
        (
            Rod::network(vec![[0, 1], [1, 9]], RAD, E, 0.3, 1000.0)
                .with_rest_lengths(vec![0.01; 2]),
            "edge 1 refers to node 9, but the model has 4 nodes",
        ),
        (
            Rod::network(vec![[0, 1], [1, 0]], RAD, E, 0.3, 1000.0)
                .with_rest_lengths(vec![0.01; 2]),
            "edges 0 and 1 both join nodes 1 and 0",
        ),
        (
            Rod::chain(&[0, 1, 2, 3], -1.0, E, 0.3, 1000.0).with_rest_lengths(vec![0.01; 3]),
            "`radius` must be positive",
        ),
        (
            Rod::chain(&[0, 1, 2, 3], RAD, 0.0, 0.3, 1000.0).with_rest_lengths(vec![0.01; 3]),
            "`youngs_modulus` must be positive",
        ),
        (
            Rod::chain(&[0, 1, 2, 3], RAD, E, 0.6, 1000.0).with_rest_lengths(vec![0.01; 3]),
            "`poisson_ratio` must be in (−1, 0.5], got 0.6",
        ),
        (
            Rod::chain(&[0, 1, 2, 3], RAD, E, -1.0, 1000.0).with_rest_lengths(vec![0.01; 3]),
            "`poisson_ratio`",
        ),
        (
            Rod::chain(&[0, 1, 2, 3], RAD, E, 0.3, 0.0).with_rest_lengths(vec![0.01; 3]),
            "`density` must be positive",
        ),
        (
            Rod::chain(&[0, 1, 2, 3], RAD, E, 0.3, 1000.0).fix_twist(7),
            "`fixed_twists[0]` names edge 7, but the rod has 3 edges",
        ),
        (
            Rod::chain(&[0, 1, 2, 3], RAD, E, 0.3, 1000.0).with_rest_lengths(vec![0.01; 2]),
            "`rest_lengths` has 2 entries for 3 edges",
        ),
        (
            Rod::chain(&[0, 1, 2, 3], RAD, E, 0.3, 1000.0).with_rest_lengths(vec![0.01, 0.0, 0.01]),
            "`rest_lengths[1]` must be positive",
        ),
        (
            ok().with_edge_override(EdgeOverride {
                edge: 3,
                stretch_stiffness: Some(1.0),
            }),
            "`edge_overrides[0].edge` names edge 3, but the rod has 3 edges",
        ),
        (
            ok().with_spring_override(SpringOverride {
                spring: 0,
                bend_stiffness: Some(-1.0),
                ..Default::default()
            }),
            "`spring_overrides[0].bend_stiffness` must be finite and ≥ 0",
        ),
        (
            ok().actuate(Actuation::curvature("k", 1, Some(vec![0, 2]))),
            "`actuation[0].springs[1]` names spring 2, but the rod has 2 bend–twist springs",
        ),
        (
            ok().actuate(Actuation::curvature("k", 3, None)),
            "`actuation[0].axis` must be 1 (κ̄⁽¹⁾) or 2 (κ̄⁽²⁾), got 3",
        ),
        (
            ok().actuate(Actuation::twist("k", None))
                .actuate(Actuation::twist("k", Some(vec![1]))),
            "twist of spring 1 is driven by both `actuation[0]` and `actuation[1]`",
        ),
        (
            ok().actuate(Actuation::stretch("missing", None)),
            "unknown parameter channel `missing`",
        ),
        (
            ok().with_first_director([1.0, 0.0, 0.0]),
            "`first_director` (1.000, 0.000, 0.000) is zero, not finite or parallel to edge 0",
        ),
    ];
    for (rod, msg) in cases {
        let e = build_err(rod, &pos, &["k"]);
        assert!(e.contains(msg), "expected `{msg}` in: {e}");
        assert!(e.contains("rod `rod`"), "{e}");
    }
    // Zero-length edge in the initial state.
    let mut pos2 = pos.clone();
    pos2[2] = pos2[1];
    let e = build_err(ok(), &pos2, &[]);
    assert!(e.contains("edge 1 (nodes 1 and 2) has zero length"), "{e}");
    // 2-D models.
    let mut b = ModelBuilder::new(2).unwrap();
    b.add_node(&[0.0, 0.0], 0.0).unwrap();
    b.add_node(&[1.0, 0.0], 0.0).unwrap();
    b.add(Rod::chain(&[0, 1], RAD, E, 0.3, 1000.0));
    let e = b.build().unwrap_err();
    assert!(
        matches!(
            e.innermost(),
            pliant_core::CoreError::Dimension {
                expected: 3,
                found: 2,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn json_round_trip_and_a_scene_that_runs() {
    let rod = Rod::chain(&[0, 1, 2, 3], 0.001, 2e6, 0.5, 1200.0)
        .named("snake")
        .with_rest_lengths(vec![0.03; 3])
        .with_first_director([0.0, 0.0, 1.0])
        .with_spring_override(SpringOverride {
            spring: 1,
            bend_stiffness: Some(1e-7),
            natural_curvature: Some([2.0, 0.0]),
            ..Default::default()
        })
        .with_edge_override(EdgeOverride {
            edge: 0,
            stretch_stiffness: Some(5.0),
        })
        .actuate(Actuation::curvature("k0", 1, Some(vec![0])))
        .actuate(Actuation::curvature("k1", 1, Some(vec![1])).with_gain(0.5))
        .actuate(Actuation::stretch("s", None));
    let text = pliant_core::to_json(&rod).unwrap().to_string();
    let back: Box<dyn EnergySpec> = serde_json::from_str(&text).unwrap();
    assert_eq!(
        pliant_core::to_json(back.as_ref()).unwrap().to_string(),
        text
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["type"], "rod");
    assert_eq!(v["actuation"][1]["gain"], 0.5);
    // Unknown fields are refused.
    let bad = text.replace("\"radius\"", "\"radius\":0.001,\"radus\"");
    assert!(serde_json::from_str::<Box<dyn EnergySpec>>(&bad).is_err());
    // A whole scene: a hanging snake segment actuated by its channels.
    let scene = format!(
        r#"{{"dim": 3, "nodes": [[0,0,0],[0.03,0,0],[0.06,0,0],[0.09,0,0]], "mass": 0.0,
            "params": [{{"name": "k0", "kind": "control", "keyframes": [[0, 0], [0.05, 10]]}},
                       {{"name": "k1", "kind": "control"}},
                       {{"name": "s", "kind": "control", "value": -0.01}}],
            "constraints": [{{"node": 0}}, {{"node": 1}}],
            "energies": [{text}],
            "integrator": "implicit_euler", "dt": 0.01, "steps": 5}}"#
    );
    let sc = pliant_core::scene::Scene::from_json(&scene, "test").unwrap();
    let run = sc.into_simulator().unwrap();
    let mut sim = run.simulator;
    for _ in 0..run.settings.steps {
        sim.step().unwrap();
    }
    let obs = sim.observables(&sim.model().params_at(sim.time()));
    let names: Vec<&str> = obs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "snake.stretch_energy",
            "snake.bend_energy",
            "snake.twist_energy"
        ]
    );
    assert!(obs[1].1 > 0.0);
    // Twist DOFs were allocated by the rod: one per edge, with inertia ρJ|ē|.
    let th = twist_dofs(sim.model().layout());
    assert_eq!(th.len(), 3);
    let inertia = 1200.0 * PI * 0.001f64.powi(4) / 2.0 * 0.03;
    assert!(
        th.iter()
            .all(|&d| (sim.model().mass()[d] - inertia).abs() < 1e-22)
    );
    // The registered example deserializes.
    let info = pliant_core::registry::builtin()
        .into_iter()
        .find(|e| e.name == "rod")
        .unwrap();
    let _: Box<dyn EnergySpec> = serde_json::from_str(info.example).unwrap();
}

#[test]
fn begin_step_is_idempotent() {
    let mut rng = Rng::new(8);
    let pos = wiggly(5, &mut rng);
    let rod = actuated_chain(5).with_rest_lengths_from(&pos).unwrap();
    let (mut rod, model) = setup(rod, &pos, &CHANNELS);
    let p = model.params_at(0.0);
    let q1 = perturb(&model, model.q0(), 3e-3, 0.3, &mut rng);
    rod.begin_step(&q1, &p, 0.01, 0.0);
    let f1 = rod.frames().clone();
    let q = perturb(&model, &q1, 1e-3, 0.3, &mut rng);
    let e1 = rod.elements().value(&eval(&q, &p));
    rod.begin_step(&q1, &p, 0.01, 0.0);
    assert_eq!(rod.frames(), &f1);
    assert_eq!(rod.elements().value(&eval(&q, &p)), e1);
    // Going back to the start and forward again reproduces the frames
    // (transport is invertible) up to round-off.
    rod.begin_step(model.q0(), &p, 0.01, 0.0);
    rod.begin_step(&q1, &p, 0.01, 0.0);
    let f2 = rod.frames();
    for (a, b) in f1.edges.iter().zip(&f2.edges) {
        assert!(norm(&sub(&a.director, &b.director)) < 1e-14);
    }
    for (a, b) in f1.ref_twist.iter().zip(&f2.ref_twist) {
        assert!((a - b).abs() < 1e-13);
    }
}

#[test]
fn carried_frames_snapshot_restore_and_reset() {
    let mut rng = Rng::new(9);
    let pos = wiggly(5, &mut rng);
    let rod = actuated_chain(5).with_rest_lengths_from(&pos).unwrap();
    let (mut rod, model) = setup(rod, &pos, &CHANNELS);
    let p = model.params_at(0.0);
    let init = rod.frames().clone();
    let q1 = perturb(&model, model.q0(), 3e-3, 0.3, &mut rng);
    rod.begin_step(&q1, &p, 0.01, 0.0);
    let snap = rod.carried_state();
    assert_eq!(snap.len(), 6 * 4 + 3);
    let q = perturb(&model, &q1, 1e-3, 0.3, &mut rng);
    let (f1, e1) = (rod.frames().clone(), rod.elements().value(&eval(&q, &p)));
    let q2 = perturb(&model, &q1, 3e-3, 0.3, &mut rng);
    rod.begin_step(&q2, &p, 0.01, 0.0);
    assert_ne!(rod.elements().value(&eval(&q, &p)), e1);
    rod.restore_carried_state(&snap).unwrap();
    assert_eq!(rod.frames(), &f1);
    assert_eq!(rod.elements().value(&eval(&q, &p)), e1);
    let e = rod
        .restore_carried_state(&snap[1..])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("rod frame snapshot: 26 values given, expected 27"),
        "{e}"
    );
    // Reset to the initial state gives the binding-time frames back.
    rod.reset(model.q0());
    assert_eq!(rod.frames(), &init);
    rod.reset(&q1);
    rod.begin_step(&q1, &p, 0.01, 0.0);
    assert_eq!(rod.frames(), &f1);
}

#[test]
fn a_natural_stretch_changes_the_edge_length() {
    // Earthworm-like: two edges, the first contracted by 10 % through its channel.
    let pos = [[0.0, 0.0, 0.0], [0.05, 0.0, 0.0], [0.1, 0.0, 0.0]];
    let make = || {
        Rod::chain(&[0, 1, 2], 0.001, 2e8, 0.5, 1200.0)
            .with_rest_lengths_from(&pos)
            .unwrap()
            .actuate(Actuation::stretch("worm", Some(vec![0])).with_gain(-1.0))
    };
    let channel = ParamChannel::control("worm", 0.1);
    let held = || make().fix_twist(0);
    let (model, probe) = model_with_rod(held, &pos, vec![channel], vec![], &[0]);
    let mut sim =
        Simulator::new(model, Integrator::Static, 1.0, NewtonSettings::default()).unwrap();
    sim.step().unwrap();
    let q = sim.q();
    let x = |n: usize| {
        let b = sim.model().layout().node_base()[n];
        [q[b], q[b + 1], q[b + 2]]
    };
    assert!((norm(&sub(&x(1), &x(0))) - 0.045).abs() < 1e-12);
    assert!((norm(&sub(&x(2), &x(1))) - 0.05).abs() < 1e-12);
    // Strains are measured against the natural (actuated) length.
    let st = probe.strains(q, &[0.1]);
    assert!(
        st.stretch.iter().all(|e| e.abs() < 1e-10),
        "{:?}",
        st.stretch
    );
}

#[test]
fn reset_to_a_state_with_a_reversed_edge_stays_finite() {
    // Edge 2 of a straight rod folded back onto itself (its tangent opposite
    // to the binding one): a single transport from the binding frame would
    // divide by 1 + a·t = 0.
    let pos: Vec<[f64; 3]> = (0..5).map(|k| [0.01 * k as f64, 0.0, 0.0]).collect();
    let rod = actuated_chain(5).with_rest_lengths_from(&pos).unwrap();
    let (mut rod, model) = setup(rod, &pos, &CHANNELS);
    let p = model.params_at(0.0);
    let mut q = model.q0().to_vec();
    // A U-turn: edge 2 = x3 − x2 points exactly along −x, its neighbours
    // turn by less than 180°.
    for (k, p) in [
        [0.0, 0.0, 0.0],
        [0.01, 0.0, 0.0],
        [0.015, 0.008, 0.0],
        [0.005, 0.008, 0.0],
        [-0.005, 0.0, 0.0],
    ]
    .iter()
    .enumerate()
    {
        q[3 * k..3 * k + 3].copy_from_slice(p);
    }
    rod.reset(&q);
    for f in &rod.frames().edges {
        assert!(f.director.iter().all(|c| c.is_finite()), "{f:?}");
    }
    let v = rod.elements().value(&eval(&q, &p));
    assert!(v.is_finite(), "energy {v}");
}

#[test]
fn drawn_rod_is_its_edges_with_radius_strain_and_twist() {
    use pliant_core::geometry::{CellKind, Point, Shape};
    // A junction: nodes 10..14 of a model with other nodes before them.
    let pos: Vec<[f64; 3]> = (0..14)
        .map(|k| [0.01 * k as f64, 0.002 * (k % 3) as f64, 0.0])
        .collect();
    let rod = Rod::network(vec![[10, 11], [11, 12], [13, 11]], RAD, E, 0.4, 1000.0)
        .with_rest_lengths_from(&pos)
        .unwrap();
    let mut b = ModelBuilder::new(3).unwrap();
    for p in &pos {
        b.add_node(p, 0.0).unwrap();
    }
    b.add(rod);
    let model = b.build().unwrap();
    let energy = model.energies_of::<RodEnergy>()[0];
    let mut q = model.q0().to_vec();
    q[energy.twist_dofs()[1]] = 0.7;
    q[model.layout().node_base()[12]] += 0.001; // stretch edge 1
    let s = EvalState::at_rest(&q, &[], 0.01, 0.0);
    let [Shape::Cells(c)] = &energy.geometry(&s)[..] else {
        panic!("one set of lines")
    };
    c.check().unwrap();
    assert_eq!((c.kind, c.len()), (CellKind::Line, 3));
    // Points are the rod's 4 nodes, cells its edges.
    let nodes: Vec<usize> = c
        .connectivity
        .iter()
        .map(|&i| match c.points[i] {
            Point::Node(n) => n,
            Point::At(_) => panic!("rod points are nodes"),
        })
        .collect();
    assert_eq!(nodes, [10, 11, 11, 12, 13, 11]);
    let field = |n: &str| &c.fields.iter().find(|f| f.name == n).unwrap().values;
    assert_eq!(field("radius"), &vec![RAD; 3]);
    assert_eq!(field("theta"), &vec![0.0, 0.7, 0.0]);
    let strain = field("strain");
    assert!(strain[1] > 0.0 && strain[0].abs() < 1e-12, "{strain:?}");
}
