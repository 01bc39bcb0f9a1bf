//! The `pliant` command line.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use pliant::gait::{MethodName, OptimizeSpec};
use pliant::provenance::{PluginRecord, RunRecord};
use pliant::simulate::run;
use pliant_core::scene::Scene;
use pliant_core::{Simulator, plugin, registry};
use std::path::PathBuf;

mod cli;
use cli::optimize::{export_and_report, optimize_and_report};

/// The built-in demos.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Demo {
    /// A short gait optimization of the cable-driven Tripod.
    Gait,
    /// A soft lattice block thrown onto frictional ground.
    Lattice,
}

/// The solvers `--method` may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Method {
    /// Levenberg–Marquardt (the default).
    LevenbergMarquardt,
    /// Gauss–Newton with Armijo backtracking.
    GaussNewton,
    /// L-BFGS with Moré–Thuente line search.
    Lbfgs,
}

impl From<Method> for MethodName {
    fn from(m: Method) -> Self {
        match m {
            Method::LevenbergMarquardt => MethodName::LevenbergMarquardt,
            Method::GaussNewton => MethodName::GaussNewton,
            Method::Lbfgs => MethodName::Lbfgs,
        }
    }
}

/// How Levenberg–Marquardt's damping follows its trials (`--damping`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Damping {
    /// Nielsen's continuous update: μ·max(1/3, 1 − (2ρ − 1)³), and 2μ, 4μ,
    /// 8μ… per rejected trial (the default).
    Nielsen,
    /// Marquardt's steps: μ/3 after a well-predicted decrease, 2μ after a
    /// poorly predicted one, 4μ per rejected trial.
    Marquardt,
}

impl From<Damping> for pliant::optim::Damping {
    fn from(d: Damping) -> Self {
        match d {
            Damping::Marquardt => pliant::optim::Damping::Marquardt,
            Damping::Nielsen => pliant::optim::Damping::Nielsen,
        }
    }
}

#[derive(Parser)]
#[command(name = "pliant", version, about = "Differentiable soft-robot physics")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the energy types a scene file may use (built-in and from plugins).
    Energies {
        /// Plugin library to load first (repeatable).
        #[arg(long = "plugin", value_name = "PATH")]
        plugins: Vec<PathBuf>,
    },
    /// Simulate a scene file and write its trajectory (CSV and JSON), a
    /// ParaView series, `replay.html` and plots.
    Simulate {
        /// Scene file (JSON).
        scene: PathBuf,
        /// Output directory.
        #[arg(long, default_value = "out")]
        out: PathBuf,
        /// Override the scene's number of steps.
        #[arg(long)]
        steps: Option<usize>,
        /// Write every N-th step (the initial and the last state always).
        /// Without it, a run whose output would exceed 1 GiB is refused.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        every: Option<u64>,
        /// Plugin library to load before reading the scene (repeatable).
        #[arg(long = "plugin", value_name = "PATH")]
        plugins: Vec<PathBuf>,
        /// Do not write the ParaView series (`.pvd` + `.vtk` frames).
        #[arg(long)]
        no_vtk: bool,
        /// Do not write `replay.html`.
        #[arg(long)]
        no_replay: bool,
    },
    /// Mesh a body: fill a closed STL/OBJ surface with tetrahedra from
    /// voxels, or convert a Gmsh/TetGen mesh; writes Gmsh MSH 2.2 with the
    /// physical groups `body` and `surface` (and a `.msh` input's own named
    /// groups).
    Mesh {
        /// Input: `.stl`, `.obj` (closed surfaces), `.msh`, `.node`/`.ele`.
        input: PathBuf,
        /// Output `.msh` file.
        #[arg(long)]
        out: PathBuf,
        /// Voxel size for surfaces, m (e.g. 0.002).
        #[arg(long, value_name = "H")]
        voxel: Option<f64>,
        /// Multiply the input's coordinates (0.001 for a file in mm).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
    },
    /// Run a built-in demo (no files needed): by default a short gait
    /// optimization of the cable-driven Tripod; `lattice`: a soft lattice
    /// block thrown onto a frictional ground.
    Demo {
        /// Which demo.
        #[arg(value_enum, default_value_t = Demo::Gait)]
        which: Demo,
        /// Output directory.
        #[arg(long, default_value = "out/demo")]
        out: PathBuf,
    },
    /// Optimize a gait described in a JSON spec (robot, target, gait layout,
    /// weights, solver); writes controls, COM path and plot, VTK and a
    /// summary into OUT/<name>/, checkpointing so a killed run resumes.
    Optimize {
        /// Optimization spec (JSON).
        spec: PathBuf,
        /// Output directory.
        #[arg(long, default_value = "out")]
        out: PathBuf,
        /// Override the spec's iteration budget.
        #[arg(long)]
        iterations: Option<u64>,
        /// Override the spec's solver.
        #[arg(long, value_enum)]
        method: Option<Method>,
        /// Override how Levenberg–Marquardt's damping follows its trials
        /// (the spec's `damping`).
        #[arg(long, value_enum)]
        damping: Option<Damping>,
        /// Run every Levenberg–Marquardt trial until its cost passes the
        /// current one, never giving it up on the Gauss–Newton model's
        /// forecast of its remaining steps (the spec's `"forecast_cuts":
        /// false`).
        #[arg(long)]
        no_forecast_cuts: bool,
        /// Start afresh: discard the checkpoint and history of an earlier
        /// run of the same spec instead of resuming it.
        #[arg(long)]
        fresh: bool,
        /// At the end, export the optimized controls with this hardware
        /// profile (JSON) through `--export-backend`.
        #[arg(long, value_name = "PROFILE")]
        export: Option<PathBuf>,
        /// Backend of `--export`.
        #[arg(long, value_name = "NAME", default_value = "csv", requires = "export")]
        export_backend: String,
        /// `--export` saturates commands at the limits and reports, instead of
        /// failing (the optimization's outputs are kept either way).
        #[arg(long, requires = "export")]
        export_clip: bool,
    },
    /// Differentiate a rollout: the objective of a rollout spec (scene,
    /// steps, keyframed controls and design channels as variables `z`,
    /// weighted objective terms) and its adjoint gradient `∇_z O`, printed
    /// and written as JSON.
    Gradient {
        /// Rollout spec (JSON).
        spec: PathBuf,
        /// Variables `z` as a JSON array (default: the scene's own values).
        #[arg(long, value_name = "JSON")]
        z: Option<String>,
        /// Also check the gradient against central differences of whole
        /// rollouts with this relative step.
        #[arg(long, value_name = "EPS")]
        check: Option<f64>,
        /// Write `{variables, z, value, terms, gradient[, fd_gradient]}` here.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Run a design sweep: a base scene, rollout or gait spec with
    /// parameters changed by JSON pointer over a grid, random or
    /// Latin-hypercube design. Each point writes OUT/<name>/point_KKKK/
    /// (a re-run skips finished points); the results are gathered into
    /// OUT/<name>/results.csv and a plot.
    Sweep {
        /// Sweep spec (JSON).
        spec: PathBuf,
        /// Output directory.
        #[arg(long, default_value = "out")]
        out: PathBuf,
        /// Points run at once on this machine.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        jobs: u64,
        /// Run only point K (0-based; a Slurm array's $SLURM_ARRAY_TASK_ID)
        /// and do not gather.
        #[arg(long, value_name = "K", conflicts_with_all = ["gather", "list"])]
        task_id: Option<usize>,
        /// Only gather the points' results into the table and plot.
        #[arg(long, conflicts_with = "list")]
        gather: bool,
        /// List the points and exit.
        #[arg(long)]
        list: bool,
    },
    /// Export a run's optimized controls to hardware: resample them at the
    /// controller rate, map them through a hardware profile to encoder
    /// counts, regulator voltages or servo pulses, check every limit and
    /// write them with a backend (or stream them to a serial port); plots
    /// the commands over the controls next to the output.
    Export {
        /// Run directory (a `pliant optimize` output OUT/<name>/, or any
        /// directory with a controls.csv).
        #[arg(required_unless_present = "list")]
        run: Option<PathBuf>,
        /// Hardware profile (JSON; shipped ones are in examples/hardware/).
        #[arg(long, required_unless_present = "list")]
        profile: Option<PathBuf>,
        /// Backend (`--list` shows them).
        #[arg(long, default_value = "csv")]
        backend: String,
        /// Controller rate, Hz (default: the profile's).
        #[arg(long, value_name = "HZ")]
        rate: Option<f64>,
        /// Output file (default RUN/commands_<backend>.<ext>); the port for
        /// `serial`.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Saturate commands at the limits and report, instead of failing.
        #[arg(long, conflicts_with = "warn_limits")]
        clip: bool,
        /// Write commands that break a limit unchanged and report the
        /// violations as warnings (bench tests; motors faster than their
        /// profile says).
        #[arg(long)]
        warn_limits: bool,
        /// List the backends and exit.
        #[arg(long)]
        list: bool,
        /// Backend plugin library to load first (repeatable).
        #[arg(long = "plugin", value_name = "PATH")]
        plugins: Vec<PathBuf>,
    },
}

/// A run stopped by SIGINT/SIGTERM after this many steps (exit status 130).
#[derive(Debug)]
struct Interrupted(usize);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "interrupted after {} steps (the steps before were written)",
            self.0
        )
    }
}

impl std::error::Error for Interrupted {}

/// Output a run may write without an explicit `--every`, bytes.
const OUTPUT_BUDGET: u64 = 1 << 30;

fn finish(
    sim: &Simulator,
    res: pliant::simulate::RunResult,
    out: &std::path::Path,
    started: std::time::Instant,
) -> Result<()> {
    let last = &res.last;
    let com: Vec<String> = last.com.iter().map(|c| format!("{c:.4}")).collect();
    println!(
        "{} steps of {} s ({:?}) in {:.2} s wall time, {} Newton iterations; final t = {:.6} s, centre of mass [{}] m, kinetic energy {:.3e} J",
        last.step,
        sim.dt(),
        sim.integrator(),
        started.elapsed().as_secs_f64(),
        res.newton_iterations,
        last.time,
        com.join(", "),
        last.kinetic
    );
    println!(
        "wrote {1} frames to {0}/trajectory.csv and {0}/trajectory.json",
        out.display(),
        res.frames_written
    );
    for p in &res.pictures {
        println!("wrote {}", p.display());
    }
    if let Some(e) = &res.pictures_error {
        eprintln!("warning: the pictures are incomplete (the trajectory is whole): {e}");
    }
    if res.interrupted {
        return Err(Interrupted(last.step).into());
    }
    if let Some(e) = res.error {
        bail!(
            "stopped early after {} steps (the steps before were written): {e}",
            last.step
        );
    }
    Ok(())
}

fn load_plugins(paths: &[PathBuf]) -> Result<Vec<PluginRecord>> {
    let mut loaded = Vec::new();
    for p in paths {
        let names = plugin::load(p)?;
        log::info!("{}: {}", p.display(), names.join(", "));
        loaded.push(PluginRecord {
            path: p.display().to_string(),
            names,
            abi_tag: plugin::abi_tag().to_string(),
        });
    }
    Ok(loaded)
}

fn main() -> std::process::ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`pliant energies
    // | head`) would panic; restore the default: end quietly.
    #[cfg(unix)]
    // SAFETY: setting a signal disposition before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    match run_cli() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", report(&e));
            if e.downcast_ref::<Interrupted>().is_some() {
                std::process::ExitCode::from(130)
            } else {
                std::process::ExitCode::FAILURE
            }
        }
    }
}

/// The error and its causes on one line, `: `-separated. pliant's error
/// messages already include their source's message (so that `{e}` alone
/// says everything), so a cause whose message the previous one contains
/// is not repeated.
fn report(e: &anyhow::Error) -> String {
    let mut out = String::new();
    let mut last = String::new();
    for cause in e.chain() {
        let m = cause.to_string();
        if !last.is_empty() && last.contains(&m) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&m);
        last = m;
    }
    out
}

fn run_cli() -> Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    pliant::init();
    let cli = Cli::parse();
    match cli.command {
        Command::Mesh {
            input,
            out,
            voxel,
            scale,
        } => {
            let r = pliant::mesh_file::mesh_file(&input, &out, voxel, scale)?;
            if let Some((v, n)) = r.surface {
                println!(
                    "{}: closed surface of {n} triangles enclosing {v:.6e} m³",
                    input.display()
                );
                println!(
                    "filled with {} tetrahedra ({} nodes) of volume {:.6e} m³ ({:+.2} % of the surface's) in {:.3} s",
                    r.tets,
                    r.nodes,
                    r.volume,
                    100.0 * (r.volume / v - 1.0),
                    r.seconds
                );
            } else {
                println!(
                    "{}: {} tetrahedra, {} nodes, volume {:.6e} m³",
                    input.display(),
                    r.tets,
                    r.nodes,
                    r.volume
                );
            }
            let carried: String = r.carried.iter().map(|n| format!(", `{n}`")).collect();
            println!(
                "wrote {} (groups `body`: the tetrahedra, `surface`: {} boundary triangles{})",
                out.display(),
                r.boundary,
                if carried.is_empty() {
                    String::new()
                } else {
                    format!("; from the input{carried}")
                }
            );
        }
        Command::Energies { plugins } => {
            load_plugins(&plugins)?;
            println!("built-in energies:");
            for e in registry::builtin() {
                println!("  {:<18} {}  [{}]", e.name, e.summary, e.provider);
                println!("  {:<18} e.g. {}", "", e.example);
            }
            let runtime = plugin::runtime_energies();
            if !runtime.is_empty() {
                println!("plugin energies:");
                for e in runtime {
                    println!("  {:<18} {}  [{}]", e.name, e.summary, e.library.display());
                }
            }
        }
        Command::Simulate {
            scene,
            out,
            steps,
            every,
            plugins,
            no_vtk,
            no_replay,
        } => {
            let loaded = load_plugins(&plugins)?;
            let sc = Scene::from_file(&scene)?;
            let record = RunRecord::start(
                Some(&scene),
                pliant_core::scene::read_limited(&scene).ok().as_deref(),
                loaded,
                "steps",
            );
            let mut prepared = sc
                .into_simulator()
                .with_context(|| format!("building the model of {}", scene.display()))?;
            let sim = &mut prepared.simulator;
            let steps = steps.unwrap_or(prepared.settings.steps);
            let explicit_every = every.is_some();
            let every = every.unwrap_or(1);
            let observables = sim.observables(&sim.model().params_at(0.0)).len();
            let mut per_frame = pliant::simulate::frame_bytes(sim.model().n_dofs(), observables);
            if !no_vtk {
                per_frame =
                    per_frame.saturating_add(pliant::simulate::vtk_frame_bytes(sim.model()));
            }
            let frames = (steps as u64 / every).saturating_add(2);
            if !explicit_every && frames.saturating_mul(per_frame) > OUTPUT_BUDGET {
                let need = frames.saturating_mul(per_frame).div_ceil(OUTPUT_BUDGET);
                bail!(
                    "{steps} steps of {} DOFs would write about {:.1} GB; pass --every N to write every N-th step (N = {need} or more keeps it under 1 GiB), or --no-vtk to leave out the ParaView series",
                    sim.model().n_dofs(),
                    frames as f64 * per_frame as f64 / 1e9
                );
            }
            let name = scene
                .file_stem()
                .map_or("scene".into(), |s| s.to_string_lossy().into_owned());
            let opts = pliant::viz::RecorderOptions {
                vtk: !no_vtk,
                replay: !no_replay,
                ..Default::default()
            };
            let pictures = pliant::viz::Recorder::new(&out, &name, &name, sim.model(), opts)
                .with_context(|| format!("writing output to {}", out.display()))?;
            let stop = pliant::simulate::stop_on_signals();
            let t = std::time::Instant::now();
            let res = run(
                sim,
                steps,
                every.try_into().unwrap_or(usize::MAX),
                &out,
                &stop,
                true,
                Some(pictures),
            )
            .with_context(|| format!("writing output to {}", out.display()))?;
            let stopped = match (&res.error, res.interrupted) {
                (_, true) => "interrupted".to_string(),
                (Some(e), _) => format!("error: {e}"),
                (None, false) => "finished".to_string(),
            };
            if let Err(e) = record.finish(&out, t, res.last.step as u64, stopped) {
                // The trajectory is written; a missing record is not worth an error.
                log::warn!("run.json not written: {e}");
            }
            finish(sim, res, &out, t)?;
        }
        Command::Demo {
            which: Demo::Gait,
            out,
        } => {
            println!(
                "demo: optimizing a short walking gait for the cable-driven Tripod (cable paper §IV)"
            );
            optimize_and_report(
                &pliant::gait::demo_spec(),
                &out,
                pliant::gait::Checkpoints::Off,
                None,
                None,
            )?;
        }
        Command::Optimize {
            spec,
            out,
            iterations,
            method,
            damping,
            no_forecast_cuts,
            fresh,
            export,
            export_backend,
            export_clip,
        } => {
            let mut s = OptimizeSpec::from_file(&spec)?;
            if let Some(n) = iterations {
                s.iterations = n;
            }
            if let Some(m) = method {
                s.method = m.into();
            }
            if let Some(d) = damping {
                s.damping = Some(d.into());
            }
            if no_forecast_cuts {
                s.forecast_cuts = Some(false);
            }
            if let Some(p) = &export {
                // Check the export's inputs before a long optimization, not after.
                pliant_hardware::HardwareProfile::from_file(p)
                    .with_context(|| format!("--export {}", p.display()))?;
                pliant_hardware::backend(&export_backend)?;
            }
            let checkpoints = if fresh {
                pliant::gait::Checkpoints::Fresh
            } else {
                pliant::gait::Checkpoints::Resume
            };
            optimize_and_report(
                &s,
                &out,
                checkpoints,
                export.as_deref().map(|p| {
                    let limits = if export_clip {
                        pliant_hardware::LimitPolicy::Clip
                    } else {
                        pliant_hardware::LimitPolicy::Fail
                    };
                    (p, export_backend.as_str(), limits)
                }),
                Some(&spec),
            )?;
        }
        Command::Export {
            run,
            profile,
            backend,
            rate,
            out,
            clip,
            warn_limits,
            list,
            plugins,
        } => {
            for p in &plugins {
                let names = pliant_hardware::plugin::load(p)?;
                log::info!("{}: {}", p.display(), names.join(", "));
            }
            if list {
                println!("export backends:");
                for b in pliant_hardware::backends() {
                    println!("  {:<12} {}  [{}]", b.name, b.summary, b.provider);
                }
                return Ok(());
            }
            let (Some(run), Some(profile)) = (run, profile) else {
                bail!("give a run directory and --profile (or --list)");
            };
            export_and_report(
                &run,
                &profile,
                &backend,
                pliant_hardware::ExportOptions {
                    rate_hz: rate,
                    limits: if clip {
                        pliant_hardware::LimitPolicy::Clip
                    } else if warn_limits {
                        pliant_hardware::LimitPolicy::Warn
                    } else {
                        pliant_hardware::LimitPolicy::Fail
                    },
                },
                out.as_deref(),
            )?;
        }
        Command::Gradient {
            spec,
            z,
            check,
            out,
        } => cli::gradient::gradient(spec, z, check, out)?,
        Command::Sweep {
            spec,
            out,
            jobs,
            task_id,
            gather,
            list,
        } => cli::sweep::sweep(spec, out, jobs, task_id, gather, list)?,
        Command::Demo {
            which: Demo::Lattice,
            out,
        } => {
            let d = pliant::lattice::lattice_drop()?;
            println!(
                "demo: a 6 x 6 x 4 spring-lattice block (60 g, {} DOFs) thrown at 0.3 m/s onto ground with friction (mu = 0.5)",
                d.model.n_dofs()
            );
            let r = &d.settings;
            let mut sim = Simulator::new(d.model, r.integrator, r.dt, r.newton)?;
            let pictures = pliant::viz::Recorder::new(
                &out,
                "lattice",
                "spring-lattice drop",
                sim.model(),
                Default::default(),
            )?;
            let stop = pliant::simulate::stop_on_signals();
            let t = std::time::Instant::now();
            let res = run(&mut sim, r.steps, 1, &out, &stop, true, Some(pictures))
                .with_context(|| format!("writing output to {}", out.display()))?;
            finish(&sim, res, &out, t)?;
        }
    }
    Ok(())
}
