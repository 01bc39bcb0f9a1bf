//! Drops the Tripod or the Puppy (cable paper §IV) 5 mm onto a frictional
//! ground and lets it settle for 2 s at the paper's step h = 0.033 s. Writes a
//! ParaView series (`<out>/<robot>.pvd`: node velocity, contact force,
//! element energy density), `replay.html` and plots; prints the wall time
//! and how much faster than real time it ran.
//!
//! `cargo run --release --example robot_drop -- puppy [out-dir]`

use pliant::core::{Integrator, NewtonSettings, Simulator};
use pliant::robots::Robot;
use pliant::viz::Recorder;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    pliant::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let robot = match args.first().map(String::as_str).unwrap_or("puppy") {
        "tripod" => Robot::tripod()?,
        "puppy" => Robot::puppy()?,
        other => anyhow::bail!("unknown robot `{other}` (tripod or puppy)"),
    };
    let out = std::path::PathBuf::from(
        args.get(1)
            .cloned()
            .unwrap_or_else(|| format!("out/{}_drop", robot.name)),
    );
    let model = robot.on_ground(0.005, [0.0, 0.0, -9.81], pliant::gait::table_friction())?;
    println!(
        "{}: {} tetrahedra, {} nodes ({} DOFs), {:.0} g in total",
        robot.name,
        robot.mesh.tets.len(),
        robot.mesh.nodes.len(),
        model.n_dofs(),
        1e3 * model.total_mass()
    );
    let (h, steps) = (0.033, 61); // 2 s
    let mut sim = Simulator::new(model, Integrator::Bdf1, h, NewtonSettings::default())?;
    let title = format!("{} dropped 5 mm", robot.name);
    let mut pictures = Recorder::new(&out, robot.name, &title, sim.model(), Default::default())?;
    pictures.record(&sim)?;
    let mut compute = 0.0;
    let mut iterations = 0;
    for _ in 0..steps {
        let t = Instant::now();
        iterations += sim.step()?.newton.iterations;
        compute += t.elapsed().as_secs_f64();
        pictures.record(&sim)?;
    }
    let lowest = sim
        .q()
        .chunks(3)
        .map(|c| c[2])
        .fold(f64::INFINITY, f64::min);
    println!(
        "simulated {:.2} s in {:.3} s of computation ({:.1}× faster than real time), {iterations} Newton iterations ({:.1} per step); lowest node {lowest:.1e} m, kinetic energy {:.1e} J",
        sim.time(),
        compute,
        sim.time() / compute,
        iterations as f64 / steps as f64,
        sim.kinetic_energy()
    );
    for path in pictures.finish_at(&sim)? {
        println!("wrote {}", path.display());
    }
    Ok(())
}
