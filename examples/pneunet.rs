//! A PneuNet bending actuator in FEM ([`pliant::pneunet_fem`]): six
//! closed chambers in an elastomer slab over a stiff strain-limiting
//! layer, inflated through `"cavity"` energies from 0 to `--max` kPa
//! (default 40) by static load steps. Writes into `DIR` (default
//! `out/pneunet`): `tip_angle.csv` (pressure in Pa, tip angle in degrees)
//! and `tip_angle.svg`, `snapshots.svg` (the slab at four pressures),
//! `pneunet.pvd` (ParaView, one frame per load step, with the chambers'
//! pressure; "time" is the load step) and `replay.html`; prints the curve
//! and the wall time.
//!
//! `cargo run --release --example pneunet [-- --out DIR --max KPA --steps N]`

use anyhow::Context;
use pliant::pneunet_fem::PneuNetFem;
use pliant::viz::Recorder;
use plotters::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

#[path = "common/output.rs"]
mod output;
use output::{csv, plot_lines, plot_snapshots};

fn main() -> anyhow::Result<()> {
    pliant::init();
    let mut out = PathBuf::from("out/pneunet");
    let (mut max_kpa, mut steps) = (40.0, 8usize);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = it.next().context("--out DIR")?.into(),
            "--max" => {
                max_kpa = it
                    .next()
                    .context("--max KPA")?
                    .parse()
                    .context("--max KPA")?
            }
            "--steps" => {
                steps = it
                    .next()
                    .context("--steps N")?
                    .parse()
                    .context("--steps N")?
            }
            a => anyhow::bail!("unknown argument `{a}` (--out DIR, --max KPA, --steps N)"),
        }
    }
    std::fs::create_dir_all(&out).with_context(|| out.display().to_string())?;
    let pressures: Vec<f64> = (1..=steps)
        .map(|k| max_kpa * 1e3 * k as f64 / steps as f64)
        .collect();
    let actuator = PneuNetFem::default();
    let mut pictures: Option<Recorder> = None;
    let mut frames: Vec<(String, Vec<[f64; 3]>)> = vec![];
    let mut faces = vec![];
    let started = Instant::now();
    let mut written = 0;
    let mut curve = vec![];
    let outcome = actuator.sweep(&pressures, |p, mesh, sim| {
        let q = sim.q();
        curve.push((p, PneuNetFem::tip_angle(mesh, q)));
        let x: Vec<[f64; 3]> = q.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
        if faces.is_empty() {
            faces = mesh.boundary_faces();
            frames.push(("0 kPa".into(), mesh.nodes.clone()));
        }
        written += 1;
        if pictures.is_none() {
            let title = "PneuNet inflation (time = load step)";
            match Recorder::new(&out, "pneunet", title, sim.model(), Default::default()) {
                Ok(r) => pictures = Some(r),
                Err(e) => eprintln!("warning: no ParaView series or replay: {e}"),
            }
        }
        if let Some(r) = &mut pictures
            && let Err(e) = r.record(sim)
        {
            eprintln!("warning: ParaView/replay frame not written: {e}");
        }
        let k = written;
        if k == steps / 3 || k == 2 * steps / 3 || k == steps {
            frames.push((format!("{:.0} kPa", p / 1e3), x));
        }
    });
    let wall = started.elapsed().as_secs_f64();
    let rows: Vec<Vec<f64>> = std::iter::once(vec![0.0, 0.0])
        .chain(curve.iter().map(|&(p, a)| vec![p, a.to_degrees()]))
        .collect();
    csv(
        &out.join("tip_angle.csv"),
        &["pressure_Pa", "tip_angle_deg"],
        &rows,
    )?;
    let pts: Vec<(f64, f64)> = rows.iter().map(|r| (r[0] / 1e3, r[1])).collect();
    plot_lines(
        &out.join("tip_angle.svg"),
        "PneuNet tip angle",
        "pressure (kPa)",
        "tip angle (°)",
        &[("FEM, cavities".into(), pts, BLUE)],
    )?;
    plot_snapshots(&out.join("snapshots.svg"), &frames, &faces, &[])?;
    if let Some(r) = pictures {
        r.close()?;
    }
    println!("PneuNet (FEM, six pressurized chambers): tip angle against gauge pressure");
    for r in &rows {
        println!("  {:6.1} kPa  {:7.2}°", r[0] / 1e3, r[1]);
    }
    println!(
        "  {} of {steps} static load steps in {wall:.1} s; outputs in {}",
        curve.len(),
        out.display()
    );
    // A load step that does not converge keeps (and writes) the curve so far.
    outcome.map(|_| ()).context("load stepping stopped")
}
