//! Cable derivatives: analytic gradient, Hessian, parameter block and
//! parameter gradient vs the dual-number fallback vs central finite
//! differences, for length and tension control, taut, in and near the
//! smoothing zone of `Q` and slack, with vertices bound inside tetrahedra
//! (4 weights), on surface triangles (3) and directly on nodes (1).

mod common;

use common::{mixed_vertices, model, node_vertices, perturbed, tet_vertices};
use pliant_cable::{Cable, CableControl, CableEnergy, CableVertex};
use pliant_core::derivcheck::{CheckReport, Tolerances, check};
use pliant_core::{Block, ElementSet, Energy, EvalState, Model};

fn bound(c: Cable, m: &Model) -> CableEnergy {
    c.bind_to(&m.bind_info()).unwrap()
}

fn length_cable(name: &str, v: Vec<CableVertex>) -> Cable {
    Cable::new(
        name,
        v,
        CableControl::Length {
            channel: "u".into(),
        },
        500.0,
    )
}

fn tension_cable(name: &str, v: Vec<CableVertex>) -> Cable {
    Cable::new(
        name,
        v,
        CableControl::Tension {
            channel: "tau".into(),
        },
        500.0,
    )
}

fn cables() -> Vec<(&'static str, Vec<CableVertex>)> {
    vec![
        ("in_tets", tet_vertices()),
        ("on_nodes", node_vertices()),
        ("mixed", mixed_vertices()),
    ]
}

fn state<'a>(q: &'a [f64], p: &'a [f64]) -> EvalState<'a> {
    EvalState {
        q,
        q_prev: q,
        p,
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    }
}

fn fold_max(acc: &mut CheckReport, r: &CheckReport) {
    let f = |a: &mut f64, b: f64| *a = a.max(b);
    f(&mut acc.gradient_vs_fallback, r.gradient_vs_fallback);
    f(&mut acc.hessian_vs_fallback, r.hessian_vs_fallback);
    f(&mut acc.history_vs_fallback, r.history_vs_fallback);
    f(&mut acc.param_vs_fallback, r.param_vs_fallback);
    f(&mut acc.gradient_vs_fd, r.gradient_vs_fd);
    f(&mut acc.hessian_vs_fd, r.hessian_vs_fd);
    f(&mut acc.history_vs_fd, r.history_vs_fd);
    f(&mut acc.param_vs_fd, r.param_vs_fd);
    f(&mut acc.param_gradient_vs_fd, r.param_gradient_vs_fd);
}

/// Deformations `Γ` (m) checked with smoothing `ε = 1e-4` m: taut, inside
/// the cubic zone of `Q` (mid, near 0, near ε), just past ε, just slack and
/// slack.
const GAMMAS: [f64; 7] = [5e-3, 5e-5, 1e-5, 9e-5, 1.2e-4, -1e-5, -1e-3];

/// Tolerances for a check at deformation `gamma`. In the cubic zone the
/// central difference of `Q` has relative truncation error `(h/Γ)²/3`
/// (1e-4 at Γ = 5e-5 with h = 1e-6), so near the kink the step is 1e-8 m,
/// which also keeps every sample on one piece of `Q` (≥ 1e-5 m from a joint).
fn tol_at(gamma: f64) -> Tolerances {
    Tolerances {
        step: if gamma.abs() < 1e-3 { 1e-8 } else { 1e-6 },
        ..Tolerances::default()
    }
}

#[test]
fn length_control_derivatives() {
    let m = model(vec![]);
    let mut worst = CheckReport::default();
    for (name, v) in cables() {
        let c = bound(length_cable(name, v), &m);
        let alpha0 = c.assembly_length().unwrap();
        assert!((alpha0 - c.length(m.q0())).abs() < 1e-15);
        for (seed, scale) in [(1, 2e-3), (2, 1e-2), (3, 0.0)] {
            let q = perturbed(&m, seed, scale);
            let l = c.length(&q);
            for gamma in GAMMAS {
                // Γ = L − α0 + u.
                let p = vec![gamma - l + alpha0, 0.0, 0.0];
                let s = state(&q, &p);
                assert!((c.deformation(&q, &p).gamma - gamma).abs() < 1e-12);
                let tol = tol_at(gamma);
                let r = check(&c, &s, &tol);
                eprintln!("length {name} seed {seed} Γ = {gamma:e}: {r:?}");
                r.assert_within(&tol);
                fold_max(&mut worst, &r);
            }
        }
    }
    eprintln!("length control, worst: {worst:#?}");
}

#[test]
fn tension_control_derivatives() {
    let m = model(vec![]);
    let tol = Tolerances::default();
    let mut worst = CheckReport::default();
    for (name, v) in cables() {
        let c = bound(tension_cable(name, v), &m);
        for (seed, scale) in [(1, 2e-3), (2, 1e-2), (3, 0.0)] {
            let q = perturbed(&m, seed, scale);
            for tau in [3.5, 0.0, -0.7, 120.0] {
                let p = vec![0.0, 0.0, tau];
                let r = check(&c, &state(&q, &p), &tol);
                eprintln!("tension {name} seed {seed} τ = {tau}: {r:?}");
                r.assert_within(&tol);
                fold_max(&mut worst, &r);
            }
        }
    }
    eprintln!("tension control, worst: {worst:#?}");
}

#[test]
fn wide_smoothing_and_explicit_assembly_length() {
    // ε = 5 mm: the FD steps sample well inside the cubic zone; α0 given.
    let m = model(vec![]);
    let tol = Tolerances::default();
    for (name, v) in cables() {
        let c = bound(
            length_cable(name, v)
                .with_smoothing(5e-3)
                .with_assembly_length(0.2),
            &m,
        );
        assert_eq!(c.assembly_length(), Some(0.2));
        let q = perturbed(&m, 9, 3e-3);
        let l = c.length(&q);
        for gamma in [1e-3, 2.5e-3, 4e-3, 6e-3] {
            let p = vec![gamma - l + 0.2, 0.0, 0.0];
            let r = check(&c, &state(&q, &p), &tol);
            eprintln!("wide {name} Γ = {gamma:e}: {r:?}");
            r.assert_within(&tol);
        }
    }
}

/// Which derivative a [`Faulty`] cable gets wrong.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// One Hessian entry off by this fraction of the largest entry.
    Hessian(f64),
    /// `∂Γ/∂u` taken as −1 instead of +1.
    ParamSign,
}

/// A cable whose analytic derivatives carry a deliberate bug, to show the
/// checks above can fail.
#[derive(Debug)]
struct Faulty {
    inner: CableEnergy,
    fault: Fault,
}

impl ElementSet for Faulty {
    fn len(&self) -> usize {
        1
    }
    fn stencil_size(&self) -> usize {
        self.inner.stencil_size()
    }
    fn param_size(&self) -> usize {
        1
    }
    fn uses_history(&self) -> bool {
        false
    }
    fn dofs(&self, i: usize, out: &mut [usize]) {
        self.inner.dofs(i, out)
    }
    fn params(&self, i: usize, out: &mut [usize]) {
        self.inner.params(i, out)
    }
    fn value(&self, s: &EvalState) -> f64 {
        self.inner.value(s)
    }
    fn fallback_blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        self.inner.fallback_blocks(s, kind, out)
    }
    fn blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        ElementSet::blocks(&self.inner, s, kind, out);
        match (kind, self.fault) {
            (Block::Hessian, Fault::Hessian(rel)) => {
                let big = out.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                out[1] += rel * big;
            }
            (Block::Param, Fault::ParamSign) => out.iter_mut().for_each(|v| *v = -*v),
            _ => {}
        }
    }
}

impl Energy for Faulty {
    fn elements(&self) -> &dyn ElementSet {
        self
    }
}

#[test]
fn the_check_rejects_wrong_derivatives() {
    let m = model(vec![]);
    let tol = Tolerances::default();
    let q = perturbed(&m, 1, 2e-3);
    let run = |fault: Fault| {
        let c = bound(length_cable("faulty", tet_vertices()), &m);
        let l = c.length(&q);
        let p = vec![5e-3 - l + c.assembly_length().unwrap(), 0.0, 0.0];
        let f = Faulty { inner: c, fault };
        let r = check(&f, &state(&q, &p), &tol);
        let rejected =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| r.assert_within(&tol)))
                .is_err();
        (r, rejected)
    };
    // The unperturbed wrapper passes.
    let (r, rejected) = run(Fault::Hessian(0.0));
    assert!(!rejected, "{r:?}");
    // 1e-6 of the largest entry: caught against the fallback.
    let (r, rejected) = run(Fault::Hessian(1e-6));
    assert!(rejected && r.hessian_vs_fallback > 1e-7, "{r:?}");
    // 1e-3: caught against finite differences as well.
    let (r, rejected) = run(Fault::Hessian(1e-3));
    assert!(rejected && r.hessian_vs_fd > 1e-4, "{r:?}");
    // Sign of ∂Γ/∂u: caught against both.
    let (r, rejected) = run(Fault::ParamSign);
    assert!(
        rejected && r.param_vs_fallback > 1.0 && r.param_vs_fd > 1.0,
        "{r:?}"
    );
}

#[test]
fn drawn_cable_is_its_polyline_with_the_observed_tension() {
    use pliant_core::geometry::{CellKind, Point, Shape};
    let m = model(vec![]);
    let c = bound(length_cable("belly", tet_vertices()), &m);
    let q = perturbed(&m, 7, 1e-3);
    // u (m) and τ (N) channels: pull 4 mm so the cable is taut.
    let mut p = vec![0.0; m.layout().n_params()];
    p[m.layout().param("u", "test").unwrap()] = 0.004;
    let s = state(&q, &p);
    let [Shape::Cells(cells)] = &c.geometry(&s)[..] else {
        panic!("one polyline")
    };
    cells.check().unwrap();
    assert_eq!(cells.kind, CellKind::Line);
    assert_eq!(cells.points.len(), tet_vertices().len());
    assert_eq!(cells.len(), tet_vertices().len() - 1);
    // The polyline's length is the cable's, and each span carries the
    // tension it reports as an observable.
    let pts: Vec<[f64; 3]> = cells
        .points
        .iter()
        .map(|p| match p {
            Point::At(x) => *x,
            Point::Node(_) => panic!("cable points are bound positions"),
        })
        .collect();
    let len: f64 = pts
        .windows(2)
        .map(|w| {
            (0..3)
                .map(|a| (w[1][a] - w[0][a]).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .sum();
    let obs = c.observables(&s);
    let get = |n: &str| obs.iter().find(|o| o.0 == format!("belly.{n}")).unwrap().1;
    assert!((len - get("length")).abs() < 1e-12);
    let tension = &cells.fields[0];
    assert_eq!(
        (tension.name.as_str(), tension.unit.as_str()),
        ("tension", "N")
    );
    assert!(get("tension") > 0.0, "taut");
    assert!(tension.values.iter().all(|&t| t == get("tension")));
}
