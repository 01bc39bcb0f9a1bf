//! Shell energies against closed forms: bending a flat sheet isometrically
//! into a closed tube costs the plate energy `D/2 · A/R²`; an equi-biaxial
//! stretch stores the membrane energy; a flat sheet at rest feels no force;
//! rigid motions of a curved, bent shell cost nothing.

use pliant_core::derivcheck::Rng;
use pliant_core::{Block, EvalState, Model, ModelBuilder};
use pliant_shell::generate::{MeshKind, rectangle};
use pliant_shell::{Bending, Shell, TriMesh};

const H: f64 = 1e-3;
const E: f64 = 1e9;

fn model(mesh: &TriMesh, bending: Bending, nu: f64) -> Model {
    let mut b = ModelBuilder::new(3).unwrap();
    for x in &mesh.nodes {
        b.add_node(x, 0.0).unwrap();
    }
    b.add(Shell::new(mesh.triangles.clone(), H, E, nu, 0.0).bending(bending));
    b.build().unwrap()
}

fn state<'a>(q: &'a [f64], q_prev: &'a [f64], p: &'a [f64]) -> EvalState<'a> {
    EvalState {
        q,
        q_prev,
        p,
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    }
}

/// Total energy (J) at `q` with the step starting at `q_prev`.
fn energy(m: &Model, q: &[f64], q_prev: &[f64]) -> f64 {
    let s = state(q, q_prev, &[]);
    m.energies().iter().map(|e| e.elements().value(&s)).sum()
}

/// Total gradient (N, and J per unit ξ).
fn gradient(m: &Model, q: &[f64], q_prev: &[f64]) -> Vec<f64> {
    let s = state(q, q_prev, &[]);
    let mut g = vec![0.0; q.len()];
    for e in m.energies() {
        let set = e.elements();
        let ns = set.stencil_size();
        let mut buf = vec![0.0; set.len() * ns];
        set.blocks(&s, Block::Gradient, &mut buf);
        let mut d = vec![0; ns];
        for k in 0..set.len() {
            set.dofs(k, &mut d);
            for (a, &dof) in d.iter().enumerate() {
                g[dof] += buf[k * ns + a];
            }
        }
    }
    g
}

/// The interior ξ DOFs minimizing the energy at node positions `q` (E is
/// quadratic in ξ: one Newton step on the ξ block of the Hessian);
/// the boundary ξ stay as given.
fn relax_interior_xi(m: &Model, q: &mut [f64], n_nodes: usize, boundary: &[usize]) {
    let xi: Vec<usize> = (3 * n_nodes..q.len())
        .filter(|i| !boundary.contains(&(i - 3 * n_nodes)))
        .collect();
    if xi.is_empty() {
        return;
    }
    let qp = q.to_vec();
    let g0 = gradient(m, q, &qp);
    let k = xi.len();
    let mut at = vec![usize::MAX; q.len()];
    for (r, &i) in xi.iter().enumerate() {
        at[i] = r;
    }
    let mut hm = nalgebra::DMatrix::zeros(k, k);
    let s = state(q, &qp, &[]);
    for e in m.energies() {
        let set = e.elements();
        let ns = set.stencil_size();
        let mut buf = vec![0.0; set.len() * ns * ns];
        set.blocks(&s, Block::Hessian, &mut buf);
        let mut d = vec![0; ns];
        for el in 0..set.len() {
            set.dofs(el, &mut d);
            for a in 0..ns {
                for b in 0..ns {
                    let (ra, rb) = (at[d[a]], at[d[b]]);
                    if ra != usize::MAX && rb != usize::MAX {
                        hm[(ra, rb)] += buf[el * ns * ns + a * ns + b];
                    }
                }
            }
        }
    }
    let b = nalgebra::DVector::from_iterator(k, xi.iter().map(|&i| -g0[i]));
    let dx = hm.lu().solve(&b).expect("the ξ block is positive definite");
    for (r, &i) in xi.iter().enumerate() {
        q[i] += dx[r];
    }
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn unit(a: [f64; 3]) -> [f64; 3] {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    a.map(|v| v / l)
}

#[test]
fn bending_a_sheet_into_a_cylinder_costs_the_plate_energy() {
    // A 0.1 × 0.05 m sheet wrapped onto a cylinder of radius 0.1 m along
    // x. Mid-edge: the boundary edges' mid-edge normals are set to the
    // cylinder's normal at their midpoints (a clamped-normal boundary, so
    // the closed form holds for the whole sheet), the interior ξ relax.
    let (len, wid, r) = (0.1, 0.05, 0.1);
    println!("| mesh | ν | mid-edge | hinge |");
    println!("|---|---|---|---|");
    for nu in [0.0, 0.3, 0.5] {
        let d = E * H.powi(3) / (12.0 * (1.0 - nu * nu));
        let exact = 0.5 * d * len * wid / (r * r);
        for kind in MeshKind::ALL {
            let mesh = rectangle(len, wid, 0.004, kind, 7).unwrap();
            let topo = mesh.topology().unwrap();
            let n = mesh.nodes.len();
            let mut row = Vec::new();
            for bending in [Bending::MidEdge, Bending::Hinge] {
                let m = model(&mesh, bending, nu);
                let mut q = m.q0().to_vec();
                let angle = |x: f64| x / r;
                for (i, x) in mesh.nodes.iter().enumerate() {
                    q[3 * i] = r * angle(x[0]).sin();
                    q[3 * i + 2] = r * (1.0 - angle(x[0]).cos());
                }
                if bending == Bending::MidEdge {
                    let pos = |i: usize| [q[3 * i], q[3 * i + 1], q[3 * i + 2]];
                    let mut xi = Vec::new();
                    for &e in &topo.boundary {
                        let [lo, hi] = topo.edges[e];
                        let t = topo.edge_triangles[e][0];
                        let [a, b, c] = mesh.triangles[t].map(pos);
                        let nf = unit(cross(
                            [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                            [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
                        ));
                        let (pl, ph) = (pos(lo), pos(hi));
                        let eg = unit([ph[0] - pl[0], ph[1] - pl[1], ph[2] - pl[2]]);
                        let tau = cross(nf, eg);
                        let am = angle(0.5 * (mesh.nodes[lo][0] + mesh.nodes[hi][0]));
                        let nt = [-am.sin(), 0.0, am.cos()];
                        xi.push((e, nt[0] * tau[0] + nt[1] * tau[1] + nt[2] * tau[2]));
                    }
                    for (e, v) in xi {
                        q[3 * n + e] = v;
                    }
                    relax_interior_xi(&m, &mut q, n, &topo.boundary);
                }
                row.push(energy(&m, &q, &q) / exact - 1.0);
            }
            println!(
                "| {} | {nu} | {:+.2} % | {:+.2} % |",
                kind.name(),
                100.0 * row[0],
                100.0 * row[1]
            );
            assert!(
                row[0].abs() < 0.02,
                "{kind:?} ν = {nu} mid-edge: {:+.4}",
                row[0]
            );
            if nu == 0.0 && matches!(kind, MeshKind::Equilateral | MeshKind::EquilateralAligned) {
                // With the code's k_b, hinges on equilateral meshes are
                // the ν = 0 plate (up to their free-edge deficit).
                assert!(row[1].abs() < 0.1, "{kind:?} hinge: {:+.4}", row[1]);
            }
        }
    }
}

#[test]
fn equi_biaxial_stretch_stores_the_membrane_energy_of_nu_one_third() {
    let mesh = rectangle(0.1, 0.1, 0.01, MeshKind::EquilateralAligned, 0).unwrap();
    let m = model(&mesh, Bending::None, 0.3);
    let eps = 1e-4;
    let q: Vec<f64> = m.q0().iter().map(|x| x * (1.0 + eps)).collect();
    let w = energy(&m, &q, &q) / mesh.area();
    let exact = E * H * eps * eps / (1.0 - 1.0 / 3.0);
    let err = w / exact - 1.0;
    // Boundary edges carry their full stiffness but border less area: a
    // boundary excess of order h/L.
    eprintln!(
        "membrane: {w:.4e} J/m² vs {exact:.4e} ({:+.2} %)",
        100.0 * err
    );
    assert!(err.abs() < 0.12, "{err:+.4}");
}

#[test]
fn a_flat_sheet_at_rest_feels_no_force_and_rigid_motions_cost_nothing() {
    let mesh = rectangle(0.1, 0.05, 0.01, MeshKind::Random, 3).unwrap();
    for bending in [Bending::MidEdge, Bending::Hinge] {
        let m = model(&mesh, bending, 0.3);
        let q0 = m.q0().to_vec();
        let g = gradient(&m, &q0, &q0);
        let gmax = g.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        assert!(gmax < 1e-9, "{bending:?}: force {gmax:.3e} at rest");
        // A bent state, then the same state rotated and translated (and its
        // step start with it): the same energy.
        let mut rng = Rng::new(11);
        let n = mesh.nodes.len();
        let mut q = q0.clone();
        for i in 0..n {
            let x = q[3 * i];
            q[3 * i + 2] = 0.3 * x * x + rng.range(-1e-4, 1e-4);
        }
        for v in q.iter_mut().skip(3 * n) {
            *v = rng.range(-0.01, 0.01);
        }
        let qp: Vec<f64> = q.iter().map(|v| v + rng.range(-1e-4, 1e-4)).collect();
        let e0 = energy(&m, &q, &qp);
        assert!(e0 > 0.0);
        let (a, b) = (0.7f64, -1.1f64);
        let rot = |x: [f64; 3]| {
            // R = R_z(a) R_x(b), then translate.
            let y = [
                x[0],
                b.cos() * x[1] - b.sin() * x[2],
                b.sin() * x[1] + b.cos() * x[2],
            ];
            [
                a.cos() * y[0] - a.sin() * y[1] + 0.3,
                a.sin() * y[0] + a.cos() * y[1] - 0.2,
                y[2] + 1.0,
            ]
        };
        let moved = |v: &[f64]| {
            let mut w = v.to_vec();
            for i in 0..n {
                let x = rot([v[3 * i], v[3 * i + 1], v[3 * i + 2]]);
                w[3 * i..3 * i + 3].copy_from_slice(&x);
            }
            w
        };
        let e1 = energy(&m, &moved(&q), &moved(&qp));
        assert!((e1 - e0).abs() < 1e-9 * e0, "{bending:?}: {e0} → {e1}");
    }
}

#[test]
fn a_stvk_membrane_has_the_given_poisson_ratio_on_any_mesh() {
    // Uniaxial stress: stretch along x by ε, let y contract freely (minimize
    // over a uniform transverse strain); the contraction is ν ε.
    for kind in [MeshKind::RightIsosceles, MeshKind::Random] {
        let mesh = rectangle(0.1, 0.1, 0.02, kind, 2).unwrap();
        for nu in [0.0, 0.3, 0.45] {
            let mut b = ModelBuilder::new(3).unwrap();
            for x in &mesh.nodes {
                b.add_node(x, 0.0).unwrap();
            }
            b.add(
                Shell::new(mesh.triangles.clone(), H, E, nu, 0.0)
                    .bending(Bending::None)
                    .membrane(pliant_shell::Membrane::Stvk),
            );
            let m = b.build().unwrap();
            let eps = 1e-5;
            let at = |ey: f64| {
                let q: Vec<f64> = m
                    .q0()
                    .iter()
                    .enumerate()
                    .map(|(i, v)| match i % 3 {
                        0 => v * (1.0 + eps),
                        1 => v * (1.0 + ey),
                        _ => *v,
                    })
                    .collect();
                energy(&m, &q, &q)
            };
            // The energy is quadratic in the transverse strain near its
            // minimum: three points give the minimizer.
            let d = 1e-6;
            let (em, e0, ep) = (at(-d), at(0.0), at(d));
            let ey = -d * (ep - em) / (2.0 * (ep - 2.0 * e0 + em));
            let measured = -ey / eps;
            assert!(
                (measured - nu).abs() < 1e-3,
                "{kind:?}: ν = {nu}, measured {measured}"
            );
            // And the energy at that point is E h ε² A / 2 (uniaxial stress).
            let w = at(ey);
            let exact = 0.5 * E * H * eps * eps * mesh.area();
            assert!((w / exact - 1.0).abs() < 1e-3, "{kind:?}: {w} vs {exact}");
        }
    }
}
