//! The Tripod fidelity study (issue: the Tripod walked 1.28 body lengths
//! per minute against the cable paper's 6.1 in simulation, Table I).
//!
//! The paper describes the Tripod in words only (§IV-A): 14 cm long, 24 g
//! body, 44 g motors, "the outer two legs are unactuated and provide
//! stability. The inner leg is controlled by two motors, one of which bends
//! it to the left, and the other of which bends it to the right. When
//! cocontracted, the motors compress the center leg so that it no longer
//! contacts the ground." This example builds each plausible reading as a
//! scene ([`pliant::robots::TripodGeometry`]: which way "left/right" is
//! relative to the direction of travel, leg thickness and height, and the
//! mesh: `*_fine` on 5 mm voxels, `*_finer` on 3.3 mm) and each
//! friction law, and optimizes every one through the generic gait path
//! with the same budget: the paper's layout (24 + 2 × 72 steps of 33 ms,
//! four keyframes), the target of 8 body lengths per minute, N
//! Levenberg–Marquardt iterations from each of two seeds — the trot
//! ([`pliant::gait::GaitSetup::default_z0`]) and its mirror image with the
//! two motors swapped (which cable is "front" is only a name). It prints and writes
//! `OUT/tripod_study/study.csv` with the speed of each (body lengths of
//! 14 cm per minute over the cycles).
//!
//! Every reading varies the old base, `TripodGeometry::lengthwise()` (3 cm
//! legs, 1 cm voxels), on the study's table of μ = 0.6, except `adopted`:
//! the built-in Tripod (4 cm legs, 5 mm voxels) on today's table
//! (`pliant::gait::TABLE_MU` = 0.4), the reading this study led to.
//! `--refine`, `--mu` and `--foam-e` override every reading, `adopted`
//! included.
//!
//! `--random-seeds K` adds K seeds of random keyframes within the bounds
//! (a fixed-seed generator, the same on every run).
//!
//! `--target V` sets the target speed (body lengths/min, default 8).
//! `--mu MU` replaces every reading's friction by Coulomb's with
//! coefficient MU, `--foam-e PA` its foam's Young's modulus.
//! `--refine R` puts every reading on voxels split `R` times (`R = 2`:
//! 5 mm); `--trot-only` skips the mirrored seed; `--only` takes a
//! comma-separated list of tags.
//!
//! `cargo run --release --example tripod_study [-- --iters N] [--out out] [--only TAG[,TAG]] [--random-seeds K] [--refine R] [--trot-only] [--target V] [--mu MU] [--foam-e PA]`

use anyhow::Context;
use pliant::environment::Friction;
use pliant::fem::Material;
use pliant::gait::{
    ActuatorMap, Checkpoints, GaitRobot, GaitSetup, optimize_gait, table_friction,
    table_friction_with,
};

use pliant::robots::{FOAM_E, FOAM_NU, Robot, TripodGeometry};
use std::io::Write;
use std::path::PathBuf;

/// The study's table: Coulomb μ = 0.6, on which its readings were first
/// compared (`docs/results.md`). The built-in robots have walked on
/// `pliant::gait::TABLE_MU` = 0.4 since the study's best reading was
/// adopted; the `adopted` variant is that robot on that table.
fn study_table() -> Friction {
    table_friction_with(0.6)
}

struct Variant {
    tag: &'static str,
    what: &'static str,
    geometry: TripodGeometry,
    friction: Friction,
    /// The foam's Young's modulus, Pa (the paper does not give its fitted
    /// value; `robots::FOAM_E` by default).
    foam_e: f64,
}

fn variants() -> Vec<Variant> {
    let base = TripodGeometry::lengthwise();
    let geo = |sideways, leg_thickness, leg_height| TripodGeometry {
        sideways,
        leg_thickness,
        leg_height,
        ..TripodGeometry::lengthwise()
    };
    let rocking = |sideways, leg_height| TripodGeometry {
        middle_reach: 1,
        ..geo(sideways, 2, leg_height)
    };
    let v = |tag, what, geometry, friction| Variant {
        tag,
        what,
        geometry,
        friction,
        foam_e: FOAM_E,
    };
    let foam = |tag, what, foam_e| Variant {
        foam_e,
        ..v(tag, what, base.clone(), study_table())
    };
    vec![
        v(
            "adopted",
            "the built-in Tripod: lengthwise on 4 cm legs, 5 mm voxels, mu = 0.4",
            TripodGeometry::default(),
            table_friction(),
        ),
        v(
            "lengthwise",
            "walks along its long axis; left/right = forward/back",
            base.clone(),
            study_table(),
        ),
        v(
            "lengthwise_thin",
            "as lengthwise, 1 cm thick legs",
            geo(false, 1, 3),
            study_table(),
        ),
        v(
            "lengthwise_tall",
            "as lengthwise, 4 cm legs",
            geo(false, 2, 4),
            study_table(),
        ),
        v(
            "lengthwise_taller",
            "as lengthwise, 5 cm legs",
            geo(false, 2, 5),
            study_table(),
        ),
        v(
            "sideways",
            "walks across its long axis; left/right = towards/away from travel",
            geo(true, 2, 3),
            study_table(),
        ),
        v(
            "sideways_thin",
            "as sideways, 1 cm thick legs",
            geo(true, 1, 3),
            study_table(),
        ),
        v(
            "sideways_tall",
            "as sideways, 4 cm legs",
            geo(true, 2, 4),
            study_table(),
        ),
        v(
            "lengthwise_rocking",
            "as lengthwise, the middle leg 1 cm longer than the outer legs",
            rocking(false, 3),
            study_table(),
        ),
        v(
            "lengthwise_rocking_tall",
            "as lengthwise_rocking, 4 cm middle leg",
            rocking(false, 4),
            study_table(),
        ),
        v(
            "sideways_rocking",
            "as sideways, the middle leg 1 cm longer than the outer legs",
            rocking(true, 3),
            study_table(),
        ),
        v(
            "lengthwise_foot_tip",
            "as lengthwise, cables anchored at the foot's tip (1 mm up)",
            TripodGeometry {
                cable_anchor_height: 0.001,
                ..base.clone()
            },
            study_table(),
        ),
        v(
            "lengthwise_narrow_foot",
            "as lengthwise, a 2 cm wide foot under the middle leg",
            TripodGeometry {
                middle_foot_width: 2,
                ..base.clone()
            },
            study_table(),
        ),
        v(
            "lengthwise_narrow_tip",
            "as lengthwise, narrow foot and cables to its tip",
            TripodGeometry {
                middle_foot_width: 2,
                cable_anchor_height: 0.001,
                ..base.clone()
            },
            study_table(),
        ),
        v(
            "lengthwise_fine",
            "as lengthwise, on 5 mm voxels (each 1 cm voxel split in 8)",
            TripodGeometry {
                refinement: 2,
                ..base.clone()
            },
            study_table(),
        ),
        v(
            "lengthwise_finer",
            "as lengthwise, on 3.3 mm voxels (each 1 cm voxel split in 27)",
            TripodGeometry {
                refinement: 3,
                ..base.clone()
            },
            study_table(),
        ),
        v(
            "sideways_fine",
            "as sideways, on 5 mm voxels",
            TripodGeometry {
                refinement: 2,
                ..geo(true, 2, 3)
            },
            study_table(),
        ),
        v(
            "lengthwise_lagged",
            "as lengthwise, the paper's lagged friction (mu = 100 /m)",
            base.clone(),
            Friction::LaggedQuadratic {
                mu: 100.0,
                mu_axis: None,
            },
        ),
        v(
            "lengthwise_lagged_fine",
            "as lengthwise_lagged, on 5 mm voxels",
            TripodGeometry {
                refinement: 2,
                ..base.clone()
            },
            Friction::LaggedQuadratic {
                mu: 100.0,
                mu_axis: None,
            },
        ),
        v(
            "lengthwise_mu03",
            "as lengthwise, Coulomb friction mu = 0.3 (0.6 elsewhere but `adopted`)",
            base.clone(),
            table_friction_with(0.3),
        ),
        v(
            "lengthwise_mu10",
            "as lengthwise, Coulomb friction mu = 1.0",
            base.clone(),
            table_friction_with(1.0),
        ),
        foam(
            "lengthwise_soft",
            "as lengthwise, foam E = 25 kPa (50 kPa elsewhere)",
            2.5e4,
        ),
        foam("lengthwise_stiff", "as lengthwise, foam E = 100 kPa", 1e5),
        foam("lengthwise_stiffer", "as lengthwise, foam E = 200 kPa", 2e5),
        v(
            "sideways_lagged",
            "as sideways, the paper's lagged friction (mu = 100 /m)",
            geo(true, 2, 3),
            Friction::LaggedQuadratic {
                mu: 100.0,
                mu_axis: None,
            },
        ),
    ]
}

fn main() -> anyhow::Result<()> {
    pliant::init();
    let (mut iters, mut out, mut only) = (10u64, PathBuf::from("out"), None::<String>);
    let (mut random, mut refine, mut trot_only) = (0usize, None::<usize>, false);
    let mut target = 8.0;
    let (mut mu, mut foam_e) = (None::<f64>, None::<f64>);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--iters" => iters = it.next().context("--iters N")?.parse()?,
            "--out" => out = it.next().context("--out DIR")?.into(),
            "--only" => only = Some(it.next().context("--only TAG")?),
            "--random-seeds" => random = it.next().context("--random-seeds N")?.parse()?,
            "--refine" => refine = Some(it.next().context("--refine R")?.parse()?),
            "--trot-only" => trot_only = true,
            "--mu" => mu = Some(it.next().context("--mu MU")?.parse()?),
            "--foam-e" => foam_e = Some(it.next().context("--foam-e PA")?.parse()?),
            "--target" => target = it.next().context("--target BL_PER_MIN")?.parse()?,
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    let dir = out.join("tripod_study");
    if let Some(o) = &only {
        let tags: Vec<&str> = variants().iter().map(|v| v.tag).collect();
        if let Some(bad) = o.split(',').find(|t| !tags.contains(t)) {
            anyhow::bail!("--only: no reading `{bad}` (readings: {})", tags.join(", "));
        }
    }
    std::fs::create_dir_all(&dir)?;
    let mut csv = std::fs::File::create(dir.join("study.csv"))?;
    writeln!(
        csv,
        "variant,seed,description,seed_bl_per_min,seed_verdict,optimized_bl_per_min,optimized_verdict,objective,iterations,seconds"
    )?;
    println!(
        "{:<24} {:<9} {:>14} {:>16} {:>8}  reading",
        "variant", "seed", "seed bl/min", "optimized", "time"
    );
    for mut v in variants() {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|t| t == v.tag))
        {
            continue;
        }
        if let Some(r) = refine {
            v.geometry.refinement = r;
        }
        if let Some(mu) = mu {
            v.friction = table_friction_with(mu);
        }
        if let Some(e) = foam_e {
            v.foam_e = e;
        }
        let mut robot = Robot::tripod_with(&v.geometry)?;
        robot.foam = Material::Constant {
            youngs_modulus: v.foam_e,
            poisson_ratio: FOAM_NU,
        };
        // What the command line changed, in the printed and written reading.
        let mut what = v.what.to_string();
        for (set, note) in [
            (
                refine.is_some(),
                format!("voxels split {}", v.geometry.refinement),
            ),
            (
                mu.is_some(),
                format!("Coulomb mu = {}", mu.unwrap_or_default()),
            ),
            (foam_e.is_some(), format!("foam E = {} Pa", v.foam_e)),
        ] {
            if set {
                what = format!("{what}; {note}");
            }
        }
        let speed = target * robot.length / 60.0;
        let scene = GaitRobot::from_robot(&robot, [0.0, 0.0, -9.81], v.friction)?;
        let name = format!("tripod_{}", v.tag);
        let setup = GaitSetup::on_scene(&name, scene, &ActuatorMap::default(), speed, v.tag)?;
        // Which cable is "front" is a naming convention: the trot seed and
        // its mirror image (the two motors' keyframes swapped) each get the
        // same budget.
        let trot = setup.default_z0()?;
        let n = setup.gait.keyframes;
        let keys = setup.gait.keys_from_z(&trot)?;
        let mut swapped = keys[n..2 * n].to_vec();
        swapped.extend_from_slice(&keys[..n]);
        let mirrored = setup.gait.z_from_keys(&swapped)?;
        let method = pliant::gait::MethodName::LevenbergMarquardt.method();
        let mut seeds = vec![("trot".to_string(), trot)];
        if !trot_only {
            seeds.push(("mirrored".to_string(), mirrored));
        }
        // Optional random keyframes within the bounds (a fixed-seed
        // generator: the same seeds on every run).
        let (lo, hi) = setup.gait.bounds.unwrap_or((0.0, 0.008));
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for k in 0..random {
            let keys: Vec<f64> = (0..keys.len())
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    lo.max(0.0) + (hi - lo.max(0.0)) * (state >> 11) as f64 / (1u64 << 53) as f64
                })
                .collect();
            seeds.push((format!("random{k}"), setup.gait.z_from_keys(&keys)?));
        }
        for (seed_name, z0) in seeds {
            let seed_name = seed_name.as_str();
            let out = dir.join(seed_name);
            let seed = optimize_gait(&setup, &z0, method, 0, &out, Checkpoints::Off, None)?;
            let t = std::time::Instant::now();
            let run = optimize_gait(&setup, &z0, method, iters, &out, Checkpoints::Off, None)?;
            let secs = t.elapsed().as_secs_f64();
            // A robot that tips over "moves" its centre of mass too: a
            // change of heading beyond 30° (the axis between the body's end
            // faces, projected on the ground, flips when it rolls over) or a
            // centre of mass that ends more than 1 cm lower than it started
            // marks the run as fallen, not walking.
            let fell = |r: &pliant::gait::GaitRun| {
                r.summary.heading_change_degrees.abs() > 30.0
                    || r.summary.com_drop.is_nan()
                    || r.summary.com_drop > 0.01
            };
            let verdict = |r: &pliant::gait::GaitRun| if fell(r) { "fell" } else { "walks" };
            println!(
                "{:<24} {:<9} {:>8.2} {:<5} {:>10.2} {:<5} {:>7.0}s  {}",
                v.tag,
                seed_name,
                seed.summary.body_lengths_per_minute,
                verdict(&seed),
                run.summary.body_lengths_per_minute,
                verdict(&run),
                secs,
                what
            );
            writeln!(
                csv,
                "{},{},\"{}\",{:.3},{},{:.3},{},{:.6e},{},{:.1}",
                v.tag,
                seed_name,
                what,
                seed.summary.body_lengths_per_minute,
                verdict(&seed),
                run.summary.body_lengths_per_minute,
                verdict(&run),
                run.result.objective,
                run.result.iterations,
                secs
            )?;
        }
    }
    println!("wrote {}", dir.join("study.csv").display());
    Ok(())
}
