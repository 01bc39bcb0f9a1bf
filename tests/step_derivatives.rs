//! Each integrator's differentiation blocks against finite differences of a
//! complete step: `dx_k/dx_{k−1}`, `dx_k/dv_{k−1}` and `dx_k/dp_k` from the
//! blocks (implicit function theorem) vs re-solving the step with perturbed
//! inputs. The scene has everything that couples to history and parameters:
//! ground contact with friction, viscous damping, an actuated spring.

mod common;

use pliant::core::sparse::mul_add;
use pliant::core::{
    Integrator, ModelBuilder, NewtonSettings, ParamChannel, Simulator, StepDerivatives,
};
use pliant::environment::{Friction, Gravity, Springs, ViscousDamping};

fn scene(integrator: Integrator, friction: Friction) -> Simulator {
    let mut b = ModelBuilder::new(3).unwrap();
    let pts = [
        [0.0, 0.0, -0.002],
        [0.05, 0.0, -0.001],
        [0.0, 0.05, -0.0015],
        [0.02, 0.02, 0.04],
        [0.1, 0.1, 0.3],
    ];
    for p in pts {
        b.add_node(&p, 0.02).unwrap();
    }
    b.fix_node(4).unwrap();
    for i in 0..3 {
        b.set_velocity(3 * i, 0.2).unwrap();
    }
    b.add_param(ParamChannel::control("u", 0.004)).unwrap();
    let s = common::spring;
    b.add(Springs::new(vec![
        s(0, 1, 300.0),
        s(1, 2, 300.0),
        s(0, 2, 300.0),
        s(0, 3, 200.0),
        s(1, 3, 200.0),
        s(2, 3, 200.0),
    ]));
    b.add(Springs::with_contraction(vec![s(3, 4, 5.0)], "u"));
    b.add(Gravity::new(&[0.0, 0.0, -9.81]));
    b.add(ViscousDamping::uniform(0.01));
    let mut ground = common::ground(500.0, friction);
    ground.nodes = Some(vec![0, 1, 2, 3]);
    b.add(ground);
    let newton = NewtonSettings {
        abs_tol: 1e-13,
        rel_tol: 1e-13,
        max_iterations: 100,
        ..Default::default()
    };
    let h = if integrator == Integrator::SymplecticEuler {
        5e-4
    } else {
        0.005
    };
    Simulator::new(b.build().unwrap(), integrator, h, newton).unwrap()
}

/// Re-solves the step from `(q, v)` with `p`; returns `x_k`.
fn resolve(sim: &mut Simulator, q: &[f64], v: &[f64], t: f64, k: usize, p: &[f64]) -> Vec<f64> {
    sim.set_state(q, v, t, k).unwrap();
    sim.step_with(p, false).unwrap();
    sim.q().to_vec()
}

/// `dx_k/dz · e` from the blocks: `−(∂g/∂x_k)⁻¹ (∂g/∂z e)`.
fn predicted(d: &StepDerivatives, block: impl Fn(&[f64], &mut [f64]), e: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; d.dg_dv_prev.nrows()];
    block(e, &mut r);
    d.solve(&r).iter().map(|v| -v).collect()
}

fn check(integrator: Integrator, friction: Friction) {
    let mut sim = scene(integrator, friction);
    let p = vec![0.004];
    let pre = if integrator == Integrator::SymplecticEuler {
        60
    } else {
        6
    };
    for _ in 0..pre {
        sim.step_with(&p, false).unwrap(); // land and start sliding
    }
    let (q, v, t, k) = (
        sim.q().to_vec(),
        sim.v().to_vec(),
        sim.time(),
        sim.steps_done(),
    );
    let (_, d) = sim.step_with(&p, true).unwrap();
    let d = d.unwrap();
    let n = q.len();
    // Friction is active: the x-row of node 0 depends on its previous height
    // through the lagged normal force.
    let mut col = vec![0.0; n];
    let mut e2 = vec![0.0; n];
    e2[2] = 1.0;
    d.dg_dx_prev.mul_add(&e2, &mut col);
    assert!(
        col[0].abs() > 1e-9,
        "{integrator:?}: friction not active (∂g_x/∂z_prev = {})",
        col[0]
    );
    let free: Vec<usize> = d.free_dofs().to_vec();
    let eps = 1e-7;
    let mut worst: f64 = 0.0;
    let mut scale: f64 = 0.0;
    let mut compare = |pred: &[f64], fd: &[f64]| {
        for &i in &free {
            worst = worst.max((pred[i] - fd[i]).abs());
            scale = scale.max(fd[i].abs());
        }
    };
    // Columns of dx_k/dx_{k−1} and dx_k/dv_{k−1} for a few free DOFs, and dx_k/dp.
    for &j in &[0usize, 2, 4, 7, 11] {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        let mut qp = q.clone();
        qp[j] += eps;
        let xp = resolve(&mut sim, &qp, &v, t, k, &p);
        qp[j] -= 2.0 * eps;
        let xm = resolve(&mut sim, &qp, &v, t, k, &p);
        let fd: Vec<f64> = xp
            .iter()
            .zip(&xm)
            .map(|(a, b)| (a - b) / (2.0 * eps))
            .collect();
        compare(&predicted(&d, |x, y| d.dg_dx_prev.mul_add(x, y), &e), &fd);

        let mut vp = v.clone();
        vp[j] += eps;
        let xp = resolve(&mut sim, &q, &vp, t, k, &p);
        vp[j] -= 2.0 * eps;
        let xm = resolve(&mut sim, &q, &vp, t, k, &p);
        let fd: Vec<f64> = xp
            .iter()
            .zip(&xm)
            .map(|(a, b)| (a - b) / (2.0 * eps))
            .collect();
        compare(&predicted(&d, |x, y| mul_add(&d.dg_dv_prev, x, y), &e), &fd);
    }
    let xp = resolve(&mut sim, &q, &v, t, k, &[p[0] + eps]);
    let xm = resolve(&mut sim, &q, &v, t, k, &[p[0] - eps]);
    let fd: Vec<f64> = xp
        .iter()
        .zip(&xm)
        .map(|(a, b)| (a - b) / (2.0 * eps))
        .collect();
    compare(&predicted(&d, |x, y| mul_add(&d.dg_dp, x, y), &[1.0]), &fd);
    eprintln!("{integrator:?} {friction:?}: max |blocks − FD| = {worst:.3e} (scale {scale:.3e})");
    assert!(
        worst <= 1e-5 * scale.max(1e-3),
        "{integrator:?}: {worst} vs scale {scale}"
    );
}

const COULOMB: Friction = Friction::SmoothCoulomb {
    mu: 0.4,
    mu_axis: None,
    slip_velocity: 0.01,
};
const LAGGED: Friction = Friction::LaggedQuadratic {
    mu: 20.0,
    mu_axis: None,
};

#[test]
fn bdf1_blocks_match_finite_differences() {
    check(Integrator::Bdf1, COULOMB);
    check(Integrator::Bdf1, LAGGED);
}

#[test]
fn implicit_euler_blocks_match_finite_differences() {
    check(Integrator::ImplicitEuler, COULOMB);
}

#[test]
fn midpoint_blocks_match_finite_differences() {
    check(Integrator::ImplicitMidpoint, COULOMB);
    check(Integrator::ImplicitMidpoint, LAGGED);
}

#[test]
fn symplectic_euler_blocks_match_finite_differences() {
    check(Integrator::SymplecticEuler, COULOMB);
}

#[test]
fn static_blocks_match_finite_differences() {
    check(Integrator::Static, LAGGED);
}

#[test]
fn bdf1_three_term_form_is_the_cable_paper_recurrence() {
    // ∂g/∂x_{k−2} = M and ∂g/∂x_{k−1} = ∂g/∂x_{k−1}|_(x,v) − M for BDF1.
    let mut sim = scene(Integrator::Bdf1, LAGGED);
    let p = vec![0.004];
    sim.step_with(&p, false).unwrap();
    let (_, d) = sim.step_with(&p, true).unwrap();
    let d = d.unwrap();
    let (d1, d2) = d.three_term().unwrap();
    let n = sim.q().len();
    for j in [0, 5, 9] {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        let mut c2 = vec![0.0; n];
        mul_add(&d2, &e, &mut c2);
        assert!((c2[j] - sim.model().mass()[j]).abs() < 1e-15);
        let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
        mul_add(&d1, &e, &mut a);
        d.dg_dx_prev.mul_add(&e, &mut b);
        assert!((a[j] - (b[j] - sim.model().mass()[j])).abs() < 1e-12);
    }
}
