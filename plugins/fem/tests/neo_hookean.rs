//! The neo-Hookean tetrahedra against the fallback, finite differences and
//! analytic solutions: derivative checks (material blocks included), rigid
//! motions, the patch test, uniaxial stretch, bad input.

use pliant_core::assembly::Assembler;
use pliant_core::derivcheck::{Rng, Tolerances, check};
use pliant_core::{
    CoreError, EvalState, Integrator, Model, ModelBuilder, Motion, NewtonSettings, ParamChannel,
    Simulator,
};
use pliant_fem::{Material, TetMesh};

const E: f64 = 1e5;
const NU: f64 = 0.35;

fn constant() -> Material {
    Material::Constant {
        youngs_modulus: E,
        poisson_ratio: NU,
    }
}

fn block(n: [i64; 3], h: f64, material: Material) -> (TetMesh, Model) {
    let mesh = TetMesh::from_voxel_boxes(&[([0, 0, 0], n)], h, [0.0; 3]).unwrap();
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_param(ParamChannel::design("E", E)).unwrap();
    b.add_param(ParamChannel::design("nu", NU)).unwrap();
    mesh.add_to(&mut b, 100.0, material).unwrap();
    (mesh, b.build().unwrap())
}

/// The state at positions `q` (m) with no motion since the previous step
/// (h = 10 ms) and material parameters `p` = [E (Pa), ν].
fn still<'a>(q: &'a [f64], p: &'a [f64]) -> EvalState<'a> {
    EvalState {
        q,
        q_prev: q,
        p,
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    }
}

#[test]
fn derivatives_match_fallback_and_finite_differences() {
    let channels = Material::Channels {
        youngs_modulus: "E".into(),
        poisson_ratio: "nu".into(),
    };
    for material in [constant(), channels] {
        let (_, m) = block([2, 1, 1], 0.01, material);
        let mut rng = Rng::new(3);
        // Random, strongly stretched and nearly flattened states.
        for (label, scale) in [
            ("random", 1e-3),
            ("stretched", 0.0),
            ("near-degenerate", -1.0),
        ] {
            let q: Vec<f64> = match label {
                "random" => m
                    .q0()
                    .iter()
                    .map(|x| x + rng.range(-scale, scale))
                    .collect(),
                "stretched" => m
                    .q0()
                    .chunks(3)
                    .flat_map(|p| [1.6 * p[0], 0.8 * p[1], 0.9 * p[2] + 0.3 * p[0]])
                    .collect(),
                _ => m
                    .q0()
                    .chunks(3)
                    .flat_map(|p| [p[0], p[1], 0.05 * p[2]])
                    .collect(),
            };
            let p = [E, NU];
            let s = still(&q, &p);
            let tol = Tolerances {
                exact: 1e-8,
                fd: 1e-5,
                step: 1e-8,
            };
            let r = check(m.energies()[0].as_ref(), &s, &tol);
            eprintln!("{label}: {r:?}");
            r.assert_within(&tol);
            // The tetrahedra's own value-and-gradient pass (line searches)
            // is bitwise their value and gradient.
            assert_eq!(r.fused_vs_separate, 0.0, "{label}");
        }
    }
}

fn energy_and_forces(m: &Model, q: &[f64]) -> (f64, Vec<f64>) {
    let mut asm = Assembler::new(m).unwrap();
    let p = [E, NU];
    let s = still(q, &p);
    let mut g = vec![0.0; q.len()];
    asm.add_gradient(m, &s, 1.0, &mut g);
    (asm.energy(m, &s), g)
}

#[test]
fn rigid_motions_store_no_energy_and_exert_no_force() {
    let (_, m) = block([2, 2, 1], 0.01, constant());
    let (a, b, c) = (0.3f64, -0.7f64, 1.1f64);
    // R = Rz(c) Ry(b) Rx(a).
    let rx = [
        [1.0, 0.0, 0.0],
        [0.0, a.cos(), -a.sin()],
        [0.0, a.sin(), a.cos()],
    ];
    let ry = [
        [b.cos(), 0.0, b.sin()],
        [0.0, 1.0, 0.0],
        [-b.sin(), 0.0, b.cos()],
    ];
    let rz = [
        [c.cos(), -c.sin(), 0.0],
        [c.sin(), c.cos(), 0.0],
        [0.0, 0.0, 1.0],
    ];
    let mul = |x: [[f64; 3]; 3], y: [[f64; 3]; 3]| {
        let mut r = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                r[i][j] = (0..3).map(|k| x[i][k] * y[k][j]).sum();
            }
        }
        r
    };
    let r = mul(rz, mul(ry, rx));
    let q: Vec<f64> = m
        .q0()
        .chunks(3)
        .flat_map(|p| {
            (0..3).map(move |i| (0..3).map(|k| r[i][k] * p[k]).sum::<f64>() + [0.5, -0.2, 0.1][i])
        })
        .collect();
    let (e, g) = energy_and_forces(&m, &q);
    assert!(e.abs() < 1e-12, "energy {e}");
    assert!(
        g.iter().all(|v| v.abs() < 1e-9),
        "forces {:?}",
        g.iter().fold(0.0f64, |a, b| a.max(b.abs()))
    );
    // A deformed state rotated rigidly keeps its energy and rotates its forces.
    let qd: Vec<f64> = m
        .q0()
        .iter()
        .enumerate()
        .map(|(i, x)| x + 1e-3 * ((i * 37 % 11) as f64 / 11.0))
        .collect();
    let qr: Vec<f64> = qd
        .chunks(3)
        .flat_map(|p| (0..3).map(move |i| (0..3).map(|k| r[i][k] * p[k]).sum::<f64>()))
        .collect();
    let ((e1, g1), (e2, g2)) = (energy_and_forces(&m, &qd), energy_and_forces(&m, &qr));
    assert!((e1 - e2).abs() < 1e-12 * e1.abs().max(1e-12));
    for (n, f) in g1.chunks(3).enumerate() {
        for i in 0..3 {
            let rf: f64 = (0..3).map(|k| r[i][k] * f[k]).sum();
            assert!((rf - g2[3 * n + i]).abs() < 1e-9 * (1.0 + rf.abs()));
        }
    }
}

#[test]
fn patch_test_affine_deformation_balances_interior_nodes() {
    let (mesh, m) = block([3, 3, 3], 0.01, constant());
    let f = [[1.2, 0.1, -0.05], [0.03, 0.9, 0.08], [-0.02, 0.04, 1.1]];
    let q: Vec<f64> = m
        .q0()
        .chunks(3)
        .flat_map(|p| (0..3).map(move |i| (0..3).map(|k| f[i][k] * p[k]).sum::<f64>()))
        .collect();
    let (_, g) = energy_and_forces(&m, &q);
    let boundary = mesh.boundary_nodes();
    let interior: Vec<usize> = (0..mesh.nodes.len())
        .filter(|n| !boundary.contains(n))
        .collect();
    assert_eq!(interior.len(), 8);
    let scale = g.iter().fold(0.0f64, |a, b| a.max(b.abs()));
    for n in interior {
        for i in 0..3 {
            assert!(
                g[3 * n + i].abs() < 1e-10 * scale,
                "interior node {n}: {}",
                g[3 * n + i]
            );
        }
    }
    // And the total force on the body is zero (equilibrium of internal forces).
    for i in 0..3 {
        let s: f64 = g.iter().skip(i).step_by(3).sum();
        assert!(s.abs() < 1e-10 * scale);
    }
}

/// Uniaxial stress of the neo-Hookean law: lateral stretch `t` with
/// `P_yy = μ(t − 1/t) + λ ln(s t²)/t = 0`, then `P_xx = μ(s − 1/s) + λ ln(s t²)/s`.
fn uniaxial(s: f64) -> f64 {
    let mu = E / (2.0 * (1.0 + NU));
    let la = E * NU / ((1.0 + NU) * (1.0 - 2.0 * NU));
    let py = |t: f64| mu * (t - 1.0 / t) + la * (s * t * t).ln() / t;
    let (mut lo, mut hi) = (0.3, 1.5);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if py(mid) > 0.0 { hi = mid } else { lo = mid }
    }
    let t = 0.5 * (lo + hi);
    mu * (s - 1.0 / s) + la * (s * t * t).ln() / s
}

#[test]
fn uniaxial_stretch_matches_the_analytic_stress_stretch_curve() {
    let h = 0.01;
    let (mesh, _) = block([4, 2, 2], h, constant());
    let (lx, area) = (4.0 * h, 4.0 * h * h);
    for stretch in [0.8, 1.1, 1.3, 1.6] {
        let mut b = ModelBuilder::new(3).unwrap();
        mesh.add_to(&mut b, 100.0, constant()).unwrap();
        // x = 0 face: x fixed (roller); x = L face pulled to stretch·L; one
        // node pinned in y, z and one more in z to remove rigid motions.
        let left = mesh.nodes_where(|p| p[0] < 1e-9);
        let right = mesh.nodes_where(|p| p[0] > lx - 1e-9);
        for &n in &left {
            b.constrain(3 * n, Motion::Fixed).unwrap();
        }
        for &n in &right {
            b.constrain(
                3 * n,
                Motion::Linear {
                    velocity: (stretch - 1.0) * lx,
                },
            )
            .unwrap();
        }
        b.constrain(3 * left[0] + 1, Motion::Fixed).unwrap();
        b.constrain(3 * left[0] + 2, Motion::Fixed).unwrap();
        let far = *left
            .iter()
            .max_by(|&&a, &&c| mesh.nodes[a][1].total_cmp(&mesh.nodes[c][1]))
            .unwrap();
        b.constrain(3 * far + 2, Motion::Fixed).unwrap();
        let m = b.build().unwrap();
        // Quasi-static load stepping to t = 1.
        let mut sim =
            Simulator::new(m, Integrator::Static, 0.1, NewtonSettings::default()).unwrap();
        for _ in 0..10 {
            sim.step().unwrap();
        }
        let (_, g) = energy_and_forces(sim.model(), sim.q());
        let force: f64 = right.iter().map(|&n| g[3 * n]).sum();
        let expected = uniaxial(stretch) * area;
        eprintln!("stretch {stretch}: reaction {force:.6} N, analytic {expected:.6} N");
        assert!(
            (force - expected).abs() < 1e-6 * expected.abs(),
            "{force} vs {expected}"
        );
    }
}

#[test]
fn bad_material_and_mesh_input_is_reported() {
    let mesh = TetMesh::from_voxel_boxes(&[([0, 0, 0], [1, 1, 1])], 0.01, [0.0; 3]).unwrap();
    let mut b = ModelBuilder::new(3).unwrap();
    mesh.add_to(
        &mut b,
        100.0,
        Material::Constant {
            youngs_modulus: -5.0,
            poisson_ratio: 0.3,
        },
    )
    .unwrap();
    let e = b.build().unwrap_err();
    assert!(
        matches!(e.innermost(), CoreError::Invalid(i) if i.field == "material.youngs_modulus" && i.value == -5.0),
        "{e}"
    );
    assert!(
        e.to_string().contains("energies[0] (neo_hookean_tets)"),
        "{e}"
    );
    let mut b = ModelBuilder::new(3).unwrap();
    mesh.add_to(
        &mut b,
        100.0,
        Material::Constant {
            youngs_modulus: 1e5,
            poisson_ratio: 0.5,
        },
    )
    .unwrap();
    let e = b.build().unwrap_err();
    assert!(
        matches!(e.innermost(), CoreError::Invalid(i) if i.field == "material.poisson_ratio"),
        "{e}"
    );
    // An inverted tetrahedron in the rest state is named.
    let json = r#"{"type": "neo_hookean_tets", "tets": [[0, 2, 1, 3]], "material": {"type": "constant", "youngs_modulus": 1e5, "poisson_ratio": 0.3}}"#;
    let mut b = ModelBuilder::new(3).unwrap();
    for p in [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ] {
        b.add_node(&p, 1.0).unwrap();
    }
    b.add_boxed(serde_json::from_str(json).unwrap());
    let e = b.build().unwrap_err();
    assert!(
        matches!(e.innermost(), CoreError::Degenerate { field, problem } if field == "tets[0]" && problem.contains("negative rest volume")),
        "{e}"
    );
    // A node index out of range.
    let json = json.replace("[0, 2, 1, 3]", "[0, 1, 2, 9]");
    let mut b = ModelBuilder::new(3).unwrap();
    for p in [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ] {
        b.add_node(&p, 1.0).unwrap();
    }
    b.add_boxed(serde_json::from_str(&json).unwrap());
    let e = b.build().unwrap_err();
    assert!(
        matches!(e.innermost(), CoreError::NodeOutOfRange { field, index: 9, count: 4 } if field == "tets[0]"),
        "{e}"
    );
}

#[test]
fn newton_never_accepts_an_inverted_element() {
    // Crush a cube with a huge prescribed motion in one step: either the
    // solver converges to a state with every J > 0 or it fails with a typed
    // error; it never returns an inverted state.
    let (mesh, _) = block([1, 1, 1], 0.01, constant());
    let mut b = ModelBuilder::new(3).unwrap();
    mesh.add_to(&mut b, 100.0, constant()).unwrap();
    for n in mesh.nodes_where(|p| p[2] < 1e-9) {
        b.fix_node(n).unwrap();
    }
    for n in mesh.nodes_where(|p| p[2] > 0.01 - 1e-9) {
        b.constrain(3 * n + 2, Motion::Linear { velocity: -0.009 })
            .unwrap();
    }
    let mut sim = Simulator::new(
        b.build().unwrap(),
        Integrator::Static,
        1.0,
        NewtonSettings::default(),
    )
    .unwrap();
    if sim.step().is_ok() {
        for t in &mesh.tets {
            let p = t.map(|n| {
                let b = 3 * n;
                [sim.q()[b], sim.q()[b + 1], sim.q()[b + 2]]
            });
            assert!(pliant_fem::mesh::tet_volume(p) > 0.0);
        }
    }
}

/// The assembled lower triangle equals the element blocks summed entry by
/// entry (as triplets) plus the diagonal; re-projection and a shifted
/// diagonal re-assemble from the same blocks.
#[test]
fn assembled_hessian_sums_the_element_blocks() {
    let (_, m) = block([2, 2, 1], 0.01, constant());
    let mut rng = Rng::new(11);
    // Squashed to 40 % in z with noise: some element Hessians are indefinite.
    let q: Vec<f64> = m
        .q0()
        .iter()
        .enumerate()
        .map(|(i, &x)| if i % 3 == 2 { 0.4 * x } else { x } + rng.range(-1e-3, 1e-3))
        .collect();
    let p = [E, NU];
    let s = still(&q, &p);
    let mut asm = Assembler::new(&m).unwrap();
    let n = asm.n_free();
    let diag: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
    let dense = |asm: &Assembler, scale: f64, shift: f64| {
        let mut t = Vec::new();
        asm.last_hessian_triplets(scale, &mut t);
        let mut d = vec![0.0; n * n];
        for e in t {
            d[e.row * n + e.col] += e.val;
        }
        for (i, v) in diag.iter().enumerate() {
            d[i * n + i] += v + shift;
        }
        d
    };
    // The stored lower triangle (values, column pointers, row indices)
    // against a dense matrix.
    let compare = |val: &[f64], cp: &[usize], ri: &[usize], d: &[f64]| {
        let scale = d.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut seen = 0;
        for c in 0..n {
            for k in cp[c]..cp[c + 1] {
                let r = ri[k];
                assert!(r >= c, "upper entry ({r}, {c}) stored");
                let want = d[r * n + c];
                assert!(
                    (val[k] - want).abs() <= 1e-12 * scale,
                    "({r}, {c}): {} vs {want}",
                    val[k]
                );
                seen += 1;
            }
        }
        // Every non-zero of the lower triangle is stored.
        let nonzero = (0..n)
            .flat_map(|r| (0..=r).map(move |c| (r, c)))
            .filter(|&(r, c)| d[r * n + c] != 0.0)
            .count();
        assert!(seen >= nonzero);
    };
    let parts = |a: &Assembler| {
        let p = a.symbolic();
        (p.col_ptr().to_vec(), p.row_idx().to_vec())
    };
    let (cp, ri) = parts(&asm);
    let first = asm
        .hessian(&m, &s, 2.0, &diag, false)
        .unwrap()
        .val()
        .to_vec();
    compare(&first, &cp, &ri, &dense(&asm, 2.0, 0.0));
    let projected = asm.reproject(2.0, &diag).val().to_vec();
    assert!(projected != first, "nothing was indefinite");
    compare(&projected, &cp, &ri, &dense(&asm, 2.0, 0.0));
    let shifted: Vec<f64> = diag.iter().map(|v| v + 0.5).collect();
    let with_shift = asm.with_diagonal(&shifted).val().to_vec();
    compare(&with_shift, &cp, &ri, &dense(&asm, 2.0, 0.5));
}

#[test]
fn drawn_tetrahedra_carry_the_neo_hookean_energy_density() {
    use pliant_core::geometry::{CellKind, Shape};
    let (mesh, model) = block([2, 1, 1], 0.01, constant());
    // Stretch 10 % along x: every cell's energy density is Ψ(F) of the
    // material law, and the cells are the mesh's tetrahedra.
    let q: Vec<f64> = model
        .q0()
        .chunks(3)
        .flat_map(|x| [1.1 * x[0], x[1], x[2]])
        .collect();
    let shapes = model.energies()[0].geometry(&still(&q, &[E, NU]));
    let [Shape::Cells(c)] = &shapes[..] else {
        panic!("{shapes:?}")
    };
    assert_eq!((c.kind, c.len()), (CellKind::Tetra, mesh.tets.len()));
    c.check().unwrap();
    let (mu, lambda) = pliant_fem::material::lame(E, NU);
    let f = [1.1, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let psi = pliant_fem::material::psi(&f, mu, lambda);
    let density = c
        .fields
        .iter()
        .find(|f| f.name == "energy_density")
        .unwrap();
    assert_eq!(density.unit, "J/m^3");
    for &d in &density.values {
        assert!((d - psi).abs() < 1e-9 * psi, "{d} vs Ψ = {psi}");
    }
}
