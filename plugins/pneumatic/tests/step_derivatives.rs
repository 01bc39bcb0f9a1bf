//! Step derivatives of ideal-gas cavities under every integrator against
//! finite differences of re-solved steps. The gas's rank-one Hessian term
//! couples every node of its surface; implicit midpoint and symplectic
//! Euler put the Hessian into `∂g/∂x_{k−1}`, where it stays a rank-one term
//! applied as products (`SparsePlusLowRank`), so a cavity of any size is
//! differentiated in `O(nodes)` memory.

mod common;

use common::{box_corners, box_triangles, builder};
use pliant_core::sparse::mul_add;
use pliant_core::{Integrator, Model, NewtonSettings, Simulator, StepDerivatives};
use pliant_environment::{Spring, Springs};
use pliant_pneumatic::{ATMOSPHERE, Cavity};

fn tight() -> NewtonSettings {
    NewtonSettings {
        abs_tol: 1e-12,
        rel_tol: 1e-14,
        max_iterations: 100,
        ..NewtonSettings::default()
    }
}

/// A 10 cm box of gas at 1.2 atmospheres held by springs along its edges
/// and face diagonals (every pair of corners), corner 0 fixed.
fn gas_box() -> Model {
    let x = box_corners(0.1, 0.1, 0.1);
    let mut b = builder(&x, 0.01).unwrap();
    let mut springs = vec![];
    for i in 0..8 {
        for j in i + 1..8 {
            springs.push(Spring {
                nodes: [i, j],
                stiffness: 2e4,
                rest_length: None,
            });
        }
    }
    b.add(Springs::new(springs));
    b.add(Cavity::ideal_gas(box_triangles(), 1.2 * ATMOSPHERE));
    b.fix_node(0).unwrap();
    b.build().unwrap()
}

/// Re-solves the step from `(q, v)`; returns `x_k`.
fn resolve(sim: &mut Simulator, q: &[f64], v: &[f64], t: f64, k: usize, p: &[f64]) -> Vec<f64> {
    sim.set_state(q, v, t, k).unwrap();
    sim.step_with(p, false).unwrap();
    sim.q().to_vec()
}

/// `dx_k/dz · e = −(∂g/∂x_k)⁻¹ (∂g/∂z e)`.
fn predicted(d: &StepDerivatives, block: impl Fn(&[f64], &mut [f64]), e: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; e.len()];
    block(e, &mut r);
    d.solve(&r).iter().map(|v| -v).collect()
}

/// Largest difference between the blocks' `dx_k/dx_{k−1}` and `dx_k/dv_{k−1}`
/// columns `cols` and central differences, the largest FD entry, and the
/// step's derivatives.
fn compare(sim: &mut Simulator, cols: &[usize], eps: f64) -> (f64, f64, StepDerivatives) {
    let p = sim.model().params_at(sim.time());
    let (q, v, t, k) = (
        sim.q().to_vec(),
        sim.v().to_vec(),
        sim.time(),
        sim.steps_done(),
    );
    let (_, d) = sim.step_with(&p, true).unwrap();
    let d = d.unwrap();
    let n = q.len();
    let (mut worst, mut scale): (f64, f64) = (0.0, 0.0);
    for &j in cols {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        for wrt_v in [false, true] {
            let (mut qp, mut vp) = (q.clone(), v.clone());
            let z = if wrt_v { &mut vp } else { &mut qp };
            z[j] += eps;
            let xp = resolve(sim, &qp, &vp, t, k, &p);
            let z = if wrt_v { &mut vp } else { &mut qp };
            z[j] -= 2.0 * eps;
            let xm = resolve(sim, &qp, &vp, t, k, &p);
            let pred = if wrt_v {
                predicted(&d, |x, y| mul_add(&d.dg_dv_prev, x, y), &e)
            } else {
                predicted(&d, |x, y| d.dg_dx_prev.mul_add(x, y), &e)
            };
            for &i in d.free_dofs() {
                let fd = (xp[i] - xm[i]) / (2.0 * eps);
                worst = worst.max((pred[i] - fd).abs());
                scale = scale.max(fd.abs());
            }
        }
    }
    (worst, scale, d)
}

#[test]
fn gas_cavity_step_derivatives_match_finite_differences_under_every_integrator() {
    for (integrator, h) in [
        (Integrator::ImplicitMidpoint, 2e-3),
        (Integrator::SymplecticEuler, 1e-4),
        (Integrator::ImplicitEuler, 2e-3),
        (Integrator::Bdf1, 2e-3),
    ] {
        let mut sim = Simulator::new(gas_box(), integrator, h, tight()).unwrap();
        // Let the gas push the walls out and the springs swing back.
        for _ in 0..5 {
            sim.step().unwrap();
        }
        let cols: Vec<usize> = (3..24).collect();
        let (worst, scale, _) = compare(&mut sim, &cols, 1e-7);
        eprintln!("{integrator:?}: max |blocks − FD| = {worst:.2e} (scale {scale:.2e})");
        assert!(scale > 0.1, "{integrator:?}: scale {scale}");
        assert!(
            worst < 1e-6 * scale,
            "{integrator:?}: {worst} against {scale}"
        );
    }
}

/// The rank-one term is where the midpoint's `∂g/∂x_{k−1}` holds the gas:
/// dropping it makes the blocks disagree with finite differences (so the
/// test above sees it).
#[test]
fn the_gas_term_is_a_rank_one_part_of_the_midpoint_history_block() {
    let mut sim = Simulator::new(gas_box(), Integrator::ImplicitMidpoint, 2e-3, tight()).unwrap();
    sim.step().unwrap();
    let p = sim.model().params_at(sim.time());
    let (_, d) = sim.step_with(&p, true).unwrap();
    let mut d = d.unwrap();
    assert_eq!(d.dg_dx_prev.rank_one.len(), 1);
    assert_eq!(d.dg_dx_prev.rank_one[0].vector.len(), 24);
    let n = sim.q().len();
    let e: Vec<f64> = (0..n).map(|i| ((i * 7 % 5) as f64) - 2.0).collect();
    let (mut with, mut without) = (vec![0.0; n], vec![0.0; n]);
    d.dg_dx_prev.mul_add(&e, &mut with);
    d.dg_dx_prev.rank_one.clear();
    d.dg_dx_prev.mul_add(&e, &mut without);
    let gap = with
        .iter()
        .zip(&without)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let size = with.iter().map(|a| a.abs()).fold(0.0, f64::max);
    assert!(
        gap > 1e-3 * size,
        "the rank-one term adds only {gap} of {size}"
    );
}

/// A cavity of 2,562 nodes (a dense `∂g/∂x_{k−1}` would hold 4.7·10⁷
/// entries) is differentiated under implicit midpoint; one column of
/// `dx_k/dx_{k−1}` and of `dx_k/dv_{k−1}` against finite differences.
#[test]
fn a_large_ideal_gas_cavity_is_differentiated_under_implicit_midpoint() {
    let ball = pliant_mesh::SurfaceMesh::icosphere(0.1, [0.0; 3], 4);
    let n = ball.vertices.len();
    assert_eq!(n, 2562);
    let mut b = builder(&ball.vertices, 1e-4).unwrap();
    // 10 % above the ambient pressure at rest: it inflates.
    b.add(Cavity::ideal_gas(ball.triangles.clone(), 1.1 * ATMOSPHERE));
    let mut sim = Simulator::new(
        b.build().unwrap(),
        Integrator::ImplicitMidpoint,
        1e-3,
        tight(),
    )
    .unwrap();
    sim.step().unwrap();
    let (worst, scale, d) = compare(&mut sim, &[3 * 17 + 2], 1e-7);
    eprintln!("2,562-node cavity: max |blocks − FD| = {worst:.2e} (scale {scale:.2e})");
    assert!(scale > 0.1, "scale {scale}");
    assert!(worst < 1e-5 * scale, "{worst} against {scale}");
    // The gas stays one rank-one term of at most 3n entries (its exact
    // zeros left out), not a dense block.
    assert_eq!(d.dg_dx_prev.rank_one.len(), 1);
    let entries = d.dg_dx_prev.rank_one[0].vector.len();
    assert!(entries <= 3 * n && entries > 2 * n, "{entries} entries");
    assert!(d.dg_dx_prev.sparse.compute_nnz() < 100 * n);
}
