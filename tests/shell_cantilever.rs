//! MAT-DiSMech §7.2, Figs. 11 and 12: a cantilever plate under gravity,
//! hinge and mid-edge bending, against Euler–Bernoulli and the elastica,
//! and the mesh study over the five mesh types of Fig. 12.
//!
//! Resolution: 2.5 mm triangles (41 × 9 nodes on a rectangular grid). At
//! this spacing the discrete clamp (a row of fixed triangles) adds an O(h)
//! compliance of a few per cent; `docs/results.md` has the finer meshes.

use pliant::shell::Bending;
use pliant::shell::generate::MeshKind;
use pliant::shell_cantilever::ShellCantilever;

fn cantilever(youngs: f64, bending: Bending, kind: MeshKind, spacing: f64) -> ShellCantilever {
    ShellCantilever {
        youngs,
        bending,
        kind,
        spacing,
        seed: 1,
        poisson: 0.5,
    }
}

/// Tip deflection relative to Euler–Bernoulli and to the elastica.
fn errors(c: &ShellCantilever) -> (f64, f64, f64) {
    let (w, _) = c.static_tip().unwrap();
    (
        w,
        w / c.euler_bernoulli().unwrap() - 1.0,
        w / c.elastica().unwrap() - 1.0,
    )
}

#[test]
fn cantilever_plate_matches_euler_bernoulli_when_stiff_and_the_elastica_always() {
    println!("| E | bending | tip (mm) | vs Euler–Bernoulli | vs elastica |");
    println!("|---|---|---|---|---|");
    for youngs in [20e9, 2e9, 200e6, 20e6] {
        for bending in [Bending::MidEdge, Bending::Hinge] {
            let c = cantilever(youngs, bending, MeshKind::Equilateral, 0.0025);
            let (w, eb, el) = errors(&c);
            println!(
                "| {youngs:.0e} Pa | {bending:?} | {:.5} | {:+.2} % | {:+.2} % |",
                1e3 * w,
                100.0 * eb,
                100.0 * el
            );
            // Mid-edge bending has the plate's ν: at 20 MPa the strip curls
            // enough (w²/(R h) ≈ 1) to stiffen towards E/(1 − ν²), a few
            // per cent below the beam's elastica.
            let tol = if bending == Bending::MidEdge {
                0.06
            } else {
                0.1
            };
            assert!(
                el.abs() < tol,
                "{youngs:e} {bending:?}: {el:+.4} from the elastica"
            );
            if youngs == 20e6 {
                // Large deflection: Euler–Bernoulli overshoots, the shell does not.
                assert!(eb < -0.25, "{bending:?}: {eb:+.4} from Euler–Bernoulli");
            }
        }
    }
}

#[test]
fn mesh_study_of_fig_12_mid_edge_is_mesh_independent_hinge_is_not() {
    println!("| mesh | mid-edge vs EB | hinge vs EB |");
    println!("|---|---|---|");
    let (mut mid, mut hinge) = (Vec::new(), Vec::new());
    for kind in MeshKind::ALL {
        let (_, m, _) = errors(&cantilever(2e9, Bending::MidEdge, kind, 0.0025));
        let (_, h, _) = errors(&cantilever(2e9, Bending::Hinge, kind, 0.0025));
        println!(
            "| {} | {:+.2} % | {:+.2} % |",
            kind.name(),
            100.0 * m,
            100.0 * h
        );
        mid.push(m.abs());
        hinge.push(h.abs());
    }
    let worst = |v: &[f64]| v.iter().fold(0.0f64, |a, &b| a.max(b));
    assert!(worst(&mid) < 0.07, "mid-edge worst {:+.4}", worst(&mid));
    assert!(
        worst(&hinge) > 2.0 * worst(&mid),
        "hinge worst {:.4} vs mid-edge {:.4}",
        worst(&hinge),
        worst(&mid)
    );
}

#[test]
fn mid_edge_converges_on_a_random_mesh() {
    let err = |spacing| {
        errors(&cantilever(
            2e9,
            Bending::MidEdge,
            MeshKind::Random,
            spacing,
        ))
        .1
        .abs()
    };
    let (coarse, fine) = (err(0.005), err(0.0025));
    eprintln!("random mesh: {coarse:.4} at 5 mm, {fine:.4} at 2.5 mm");
    assert!(fine < 0.5 * coarse, "{fine} vs {coarse}");
}

/// Fig. 12 carried to convergence: the mid-edge error is O(h), so the
/// normalized tips at 1.25 and 0.625 mm extrapolate (`2 w(h/2) − w(h)`) to
/// the plate's converged answer. Every mesh type must reach the same one,
/// and with ν = 0 (no anticlastic curl for the clamp to suppress) that
/// answer must be Euler–Bernoulli; with ν = 0.5 the plate is stiffer than
/// the beam. The full study (four spacings, all five types, three ν) is in
/// `docs/results.md`.
#[test]
fn mid_edge_converges_to_one_plate_answer_on_every_mesh_type() {
    let normalized = |kind, spacing, poisson| {
        let c = ShellCantilever {
            poisson,
            ..cantilever(2e9, Bending::MidEdge, kind, spacing)
        };
        errors(&c).1 + 1.0
    };
    let converged = |kind, poisson| {
        2.0 * normalized(kind, 0.000625, poisson) - normalized(kind, 0.00125, poisson)
    };
    let beam = converged(MeshKind::Equilateral, 0.0);
    eprintln!(
        "ν = 0, equilateral, extrapolated: {:+.3} % vs EB",
        100.0 * (beam - 1.0)
    );
    assert!((beam - 1.0).abs() < 0.005, "ν = 0 converges to {beam} × EB");
    let reference = converged(MeshKind::Equilateral, 0.5);
    eprintln!(
        "ν = 0.5, equilateral, extrapolated: {:+.3} % vs EB",
        100.0 * (reference - 1.0)
    );
    assert!(
        (0.90..0.96).contains(&reference),
        "ν = 0.5 converges to {reference} × EB"
    );
    for kind in [
        MeshKind::RightIsosceles,
        MeshKind::NonUniform,
        MeshKind::Random,
        MeshKind::EquilateralAligned,
    ] {
        let w = converged(kind, 0.5);
        eprintln!(
            "ν = 0.5, {}: {:+.3} % vs the equilateral mesh",
            kind.name(),
            100.0 * (w / reference - 1.0)
        );
        assert!(
            (w / reference - 1.0).abs() < 0.01,
            "{}: {w} vs {reference}",
            kind.name()
        );
    }
}
