//! Everything a person looks at after a run, written as the run goes:
//! the ParaView series (a frame per recorded step, on disk at once), the
//! replay and the plots (bounded in memory, written at the end).

use crate::error::VizError;
use crate::plots::{Panel, TimeSeries, observable_unit, plot_panels};
use crate::replay::Replay;
use crate::snapshot::{Snapshot, StateView};
use crate::vtk::VtkWriter;
use pliant_core::{EvalState, Model, Simulator};

/// The state of `sim` with parameters `p`.
fn sim_view<'a>(sim: &'a Simulator, p: &'a [f64]) -> StateView<'a> {
    StateView {
        q: sim.q(),
        v: sim.v(),
        p,
        t: sim.time(),
        dt: sim.dt(),
    }
}
use std::path::{Path, PathBuf};

/// What to write.
#[derive(Debug, Clone, PartialEq)]
pub struct RecorderOptions {
    /// Write the ParaView series.
    pub vtk: bool,
    /// Write a ParaView frame every this many recorded frames (≥ 1; the
    /// first always).
    pub vtk_every: usize,
    /// Write `replay.html`.
    pub replay: bool,
    /// Write the SVG plots.
    pub plots: bool,
    /// Frames kept for the replay at most.
    pub max_replay_frames: usize,
    /// Samples kept for the plots at most.
    pub max_plot_samples: usize,
}

impl Default for RecorderOptions {
    fn default() -> Self {
        Self {
            vtk: true,
            vtk_every: 1,
            replay: true,
            plots: true,
            max_replay_frames: 1000,
            max_plot_samples: 4000,
        }
    }
}

/// Writes a run's pictures into one directory: `<name>.pvd` and its
/// frames, `replay.html`, `plots_com.svg`, `plots_energy.svg`,
/// `plots_observables.svg`.
#[derive(Debug)]
pub struct Recorder {
    dir: PathBuf,
    opts: RecorderOptions,
    vtk: Option<VtkWriter>,
    replay: Replay,
    series: TimeSeries,
    dim: usize,
    /// Names of the observables seen (for their panels).
    observables: Vec<String>,
    /// Energy curve names (`"energy.<type>"`), in model order.
    energy_names: Vec<String>,
    /// Frames offered so far.
    frames: usize,
    /// Time of the last ParaView frame written, s.
    last_vtk: Option<f64>,
}

impl Recorder {
    /// A recorder writing into `dir` (created if needed); `name` names the
    /// ParaView series, `title` the replay and plots.
    pub fn new(
        dir: &Path,
        name: &str,
        title: &str,
        model: &Model,
        opts: RecorderOptions,
    ) -> Result<Self, VizError> {
        std::fs::create_dir_all(dir).map_err(crate::error::io(dir))?;
        let vtk = if opts.vtk {
            Some(VtkWriter::new(dir, name)?)
        } else {
            None
        };
        let mut energy_names: Vec<String> = Vec::new();
        for k in 0..model.energies().len() {
            let n = format!("energy.{}", model.energy_name(k));
            if !energy_names.contains(&n) {
                energy_names.push(n);
            }
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            replay: Replay::new(title, model.dim(), opts.max_replay_frames),
            series: TimeSeries::new(opts.max_plot_samples),
            opts,
            vtk,
            dim: model.dim(),
            observables: Vec::new(),
            energy_names,
            frames: 0,
            last_vtk: None,
        })
    }

    /// The ParaView index, if one is written.
    pub fn pvd_path(&self) -> Option<PathBuf> {
        self.vtk.as_ref().map(VtkWriter::index_path)
    }

    /// The samples of one state: COM (m), COM velocity (m/s), kinetic
    /// energy and every energy type's total (J), observables.
    fn sample(
        &mut self,
        model: &Model,
        state: StateView,
        observables: &[(String, f64)],
    ) -> Vec<(String, f64)> {
        let axes = ["x", "y", "z"];
        let mut out = Vec::new();
        let com = model.center_of_mass(state.q);
        let vel = model.center_of_mass(state.v);
        for a in 0..self.dim {
            out.push((format!("com.{}", axes[a]), com[a]));
            out.push((format!("com_velocity.{}", axes[a]), vel[a]));
        }
        let kinetic: f64 = 0.5
            * state
                .v
                .iter()
                .zip(model.mass())
                .map(|(v, m)| m * v * v)
                .sum::<f64>();
        out.push(("energy.kinetic".into(), kinetic));
        let s = EvalState::at_rest(state.q, state.p, state.dt, state.t);
        let mut totals = vec![0.0; self.energy_names.len()];
        for (k, e) in model.energies().iter().enumerate() {
            let n = format!("energy.{}", model.energy_name(k));
            if let Some(i) = self.energy_names.iter().position(|m| *m == n) {
                totals[i] += e.elements().value(&s);
            }
        }
        out.extend(self.energy_names.iter().cloned().zip(totals));
        for (name, v) in observables {
            if !self.observables.contains(name) {
                self.observables.push(name.clone());
            }
            out.push((format!("obs.{name}"), *v));
        }
        out
    }

    /// Records a frame: a ParaView frame on disk now, a replay frame and a
    /// plot sample in memory (both bounded).
    pub fn frame(
        &mut self,
        model: &Model,
        state: StateView,
        observables: &[(String, f64)],
    ) -> Result<(), VizError> {
        let snap = Snapshot::take(model, state)?;
        if let Some(v) = &mut self.vtk
            && self.frames.is_multiple_of(self.opts.vtk_every.max(1))
        {
            v.write(&snap)?;
            self.last_vtk = Some(snap.time);
        }
        self.frames += 1;
        if self.opts.replay {
            self.replay.push(&snap);
        }
        let values = self.sample(model, state, observables);
        self.series.push(state.t, &values);
        Ok(())
    }

    /// Records a simulator's current state, with the parameters of the
    /// model's schedule at its time and its energies' observables.
    pub fn record(&mut self, sim: &Simulator) -> Result<(), VizError> {
        let p = sim.model().params_at(sim.time());
        self.frame(sim.model(), sim_view(sim, &p), &sim.observables(&p))
    }

    /// [`Recorder::finish`] at a simulator's current state.
    pub fn finish_at(self, sim: &Simulator) -> Result<Vec<PathBuf>, VizError> {
        let p = sim.model().params_at(sim.time());
        let obs = sim.observables(&p);
        self.finish(sim.model(), sim_view(sim, &p), &obs)
    }

    /// Records the run's last state (in every output that does not have it
    /// yet) and writes the replay and the plots; returns the files written.
    pub fn finish(
        mut self,
        model: &Model,
        last: StateView,
        observables: &[(String, f64)],
    ) -> Result<Vec<PathBuf>, VizError> {
        let snap = Snapshot::take(model, last)?;
        if let Some(v) = &mut self.vtk
            && self.last_vtk != Some(snap.time)
        {
            v.write(&snap)?;
        }
        if self.opts.replay {
            self.replay.push_last(&snap);
        }
        if self.opts.plots {
            let values = self.sample(model, last, observables);
            self.series.push_last(last.t, &values);
        }
        self.close()
    }

    /// Writes the replay and the plots of the frames recorded so far (for
    /// a run whose last state was recorded with [`Recorder::frame`]; else
    /// use [`Recorder::finish`]); returns the files written. Nothing is
    /// written for a recording without frames.
    pub fn close(self) -> Result<Vec<PathBuf>, VizError> {
        let mut written = Vec::new();
        if let Some(v) = self.vtk.as_ref().filter(|v| !v.is_empty()) {
            written.push(v.index_path());
        }
        if self.opts.replay && !self.replay.is_empty() {
            let path = self.dir.join("replay.html");
            self.replay.write(&path)?;
            written.push(path);
        }
        if self.opts.plots {
            written.extend(self.write_plots()?);
        }
        Ok(written)
    }

    fn curves(&self, prefix: &str, names: &[String]) -> Vec<(String, Vec<(f64, f64)>)> {
        names
            .iter()
            .filter_map(|n| {
                let c = self.series.curve(&format!("{prefix}{n}"))?;
                Some((
                    n.clone(),
                    self.series
                        .times()
                        .iter()
                        .copied()
                        .zip(c.iter().copied())
                        .collect(),
                ))
            })
            .collect()
    }

    fn write_plots(&self) -> Result<Vec<PathBuf>, VizError> {
        let axes: Vec<String> = ["x", "y", "z"][..self.dim]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut written = Vec::new();
        let path = self.dir.join("plots_com.svg");
        let com = plot_panels(
            &path,
            "time (s)",
            &[
                Panel {
                    title: "centre of mass: position".into(),
                    y_label: "position (m)".into(),
                    curves: self.curves("com.", &axes),
                },
                Panel {
                    title: "centre of mass: velocity".into(),
                    y_label: "velocity (m/s)".into(),
                    curves: self.curves("com_velocity.", &axes),
                },
            ],
        )?;
        if com {
            written.push(path);
        }
        let mut energies = vec!["kinetic".to_string()];
        energies.extend(
            self.energy_names
                .iter()
                .map(|n| n.trim_start_matches("energy.").to_string()),
        );
        let path = self.dir.join("plots_energy.svg");
        let energy = plot_panels(
            &path,
            "time (s)",
            &[Panel {
                title: "energy by type (potentials at rest: dissipative terms read 0)".into(),
                y_label: "energy (J)".into(),
                curves: self.curves("energy.", &energies),
            }],
        )?;
        if energy {
            written.push(path);
        }
        if !self.observables.is_empty() {
            // One panel per unit, in order of first appearance.
            let mut units: Vec<&str> = Vec::new();
            for n in &self.observables {
                let u = observable_unit(n);
                if !units.contains(&u) {
                    units.push(u);
                }
            }
            let panels: Vec<Panel> = units
                .iter()
                .map(|u| {
                    let names: Vec<String> = self
                        .observables
                        .iter()
                        .filter(|n| observable_unit(n) == *u)
                        .cloned()
                        .collect();
                    Panel {
                        title: format!("observables ({})", if u.is_empty() { "1" } else { u }),
                        y_label: if u.is_empty() {
                            "value".into()
                        } else {
                            format!("value ({u})")
                        },
                        curves: self.curves("obs.", &names),
                    }
                })
                .collect();
            let path = self.dir.join("plots_observables.svg");
            if plot_panels(&path, "time (s)", &panels)? {
                written.push(path);
            }
        }
        Ok(written)
    }
}
