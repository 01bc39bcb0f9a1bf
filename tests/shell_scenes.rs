//! The shell scenes of MAT-DiSMech §7.1, shortened and coarsened for the
//! test suite (the full runs are `cargo run --release --example shells`):
//! the manta ray swims forward along its axis by symmetric flapping
//! (Fig. 6e), and the parachute reaches the terminal velocity of its drag
//! law with an inverted-bowl canopy (Fig. 8).

use pliant::shell_scenes::{Manta, Parachute, node};

#[test]
fn manta_ray_advances_along_y_stays_on_its_axis_and_heaves() {
    let scene = Manta {
        cells: 8,
        dt: 5e-3,
        duration: 0.9,
        ..Manta::default()
    };
    let mut run = scene.build().unwrap();
    let y0 = node(run.sim.q(), run.leading)[1];
    let mut z = Vec::new();
    let mut max_x = 0.0f64;
    for _ in 0..run.steps {
        run.sim.step().unwrap();
        let p = node(run.sim.q(), run.leading);
        max_x = max_x.max(p[0].abs());
        z.push(p[2]);
    }
    let dy = node(run.sim.q(), run.leading)[1] - y0;
    // Turning points of z: the leading edge heaves up and down with the
    // flapping (3.4 Hz: about three turning points in 0.9 s).
    let turns = z
        .windows(3)
        .filter(|w| (w[1] - w[0]) * (w[2] - w[1]) < 0.0)
        .count();
    eprintln!("manta: Δy = {dy:.4} m, max |x| = {max_x:.2e} m, {turns} turning points of z");
    assert!(dy > 0.1, "the ray should swim towards +y: Δy = {dy}");
    assert!(max_x < 1e-9, "symmetric flapping keeps x = 0: {max_x}");
    assert!(turns >= 3, "z should oscillate: {turns} turning points");
}

#[test]
fn parachute_reaches_its_drag_law_terminal_velocity_as_an_inverted_bowl() {
    let scene = Parachute {
        n: 3,
        dt: 0.01,
        duration: 2.5,
        weld_ropes: false,
    };
    let mut run = scene.build().unwrap();
    let mut speeds = Vec::new();
    let mut areas = Vec::new();
    for _ in 0..run.steps {
        run.sim.step().unwrap();
        speeds.push(-run.sim.v()[3 * run.payload + 2]);
        areas.push(run.drag_area(run.sim.q()));
    }
    let tail = 50; // the last 0.5 s
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let v_end = mean(&speeds[speeds.len() - tail..]);
    let spread = speeds[speeds.len() - tail..]
        .iter()
        .fold(0.0f64, |m, v| m.max((v - v_end).abs()));
    let v_law = Parachute::drag_balance(run.mass, mean(&areas[areas.len() - tail..]));
    let q = run.sim.q();
    let bowl =
        node(q, run.centre)[2] - run.corners.iter().map(|&c| node(q, c)[2]).sum::<f64>() / 6.0;
    eprintln!(
        "parachute: v = {v_end:.3} m/s (±{spread:.3}), drag law {v_law:.3} m/s, bowl depth {bowl:.3} m"
    );
    assert!(
        spread < 0.05 * v_end,
        "not terminal yet: ±{spread} around {v_end}"
    );
    assert!((v_end / v_law - 1.0).abs() < 0.05, "{v_end} vs {v_law}");
    assert!(
        bowl > 0.1,
        "the canopy's centre should ride above its corners: {bowl}"
    );
}

/// Largest horizontal offset of the payload (m) and largest spread of the
/// six corners' heights (m) over `steps` steps of a small parachute.
fn asymmetry(weld: bool, steps: usize) -> (f64, f64) {
    let scene = Parachute {
        n: 3,
        dt: 0.01,
        duration: steps as f64 * 0.01,
        weld_ropes: weld,
    };
    let mut run = scene.build().unwrap();
    let (mut offset, mut spread) = (0.0f64, 0.0f64);
    for _ in 0..run.steps {
        run.sim.step().unwrap();
        let q = run.sim.q();
        let p = node(q, run.payload);
        offset = offset.max(p[0].hypot(p[1]));
        let z: Vec<f64> = run.corners.iter().map(|&c| node(q, c)[2]).collect();
        let (lo, hi) = z
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        spread = spread.max(hi - lo);
    }
    (offset, spread)
}

#[test]
fn the_parachute_keeps_its_six_fold_symmetry_pinned_or_welded() {
    // The descent is unstable to tilting (docs/results.md), so any
    // asymmetry of the model grows; only round-off may seed it. With the
    // rod–shell joints' frames picked by the label order, the welded
    // parachute was off by 2.2e-6 m after 1 s, and tilted after 2.5 s.
    for weld in [false, true] {
        let (offset, spread) = asymmetry(weld, 100);
        eprintln!(
            "welded {weld}: payload offset {offset:.2e} m, corner heights spread {spread:.2e} m"
        );
        assert!(
            offset < 1e-12,
            "welded {weld}: payload off axis by {offset} m"
        );
        assert!(
            spread < 1e-12,
            "welded {weld}: corner heights spread {spread} m"
        );
    }
}
