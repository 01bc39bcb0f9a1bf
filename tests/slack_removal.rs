//! Slack post-processing (cable paper §III-B.2): replaying a rollout with
//! `u_post = u + s` reproduces the motion. Taking in exactly the slack leaves
//! every cable at `Γ ≤ 0`, where `Q`, `Q'` and `Q''` vanish, so each step's
//! state stays a minimizer of the same potential.

use pliant::core::{Integrator, NewtonSettings, Simulator};
use pliant::gait::{GaitSetup, remove_slack};
use pliant::optim::{Memory, rollout};

#[test]
fn slack_free_controls_reproduce_the_motion() {
    pliant::init();
    let mut s = GaitSetup::tripod_walk().unwrap();
    s.gait.prep_steps = 3;
    s.gait.cycle_steps = 12;
    s.gait.cycles = 2;
    s.settle_steps = 10;
    let z = s.default_z0().unwrap();
    let (shooting, ctx) = s.problem(&z).unwrap();
    let tr = shooting.rollout_z(&z).unwrap();
    let u_post = remove_slack(&tr, &ctx.cables, &ctx.model, &ctx.motors).unwrap();
    let mut took_in = 0.0f64;
    let p_post: Vec<Vec<f64>> =
        tr.p.iter()
            .zip(&u_post)
            .map(|(p, u)| {
                let mut p = p.clone();
                for (m, v) in ctx.motors.iter().zip(u) {
                    let c = ctx.model.layout().param(&m.channels[0], "test").unwrap();
                    took_in = took_in.max(v - p[c]);
                    assert!(*v >= p[c], "slack removal never lets cable out");
                    p[c] = *v;
                }
                p
            })
            .collect();
    assert!(
        took_in > 1e-4,
        "the gait must have slack to remove: {took_in} m"
    );
    let model = s.robot.model().unwrap();
    let mut sim = Simulator::new(model, Integrator::Bdf1, s.h, NewtonSettings::default()).unwrap();
    let replay = rollout(&mut sim, &tr.x[0], &tr.v[0], &p_post, Memory::Recompute).unwrap();
    let worst =
        tr.x.iter()
            .zip(&replay.x)
            .flat_map(|(a, b)| a.iter().zip(b).map(|(a, b)| (a - b).abs()))
            .fold(0.0f64, f64::max);
    eprintln!(
        "took in up to {:.3} mm of slack; largest position difference {worst:.2e} m",
        1e3 * took_in
    );
    assert!(
        worst < 1e-7,
        "the slack-free controls move the robot differently: {worst} m"
    );
}
