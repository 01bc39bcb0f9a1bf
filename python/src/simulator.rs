//! `pliant.Simulator`: step a scene from Python, with controls set per
//! call, reading states, velocities, observables and energies as numpy
//! arrays. The GIL is released while it steps.

use crate::arrays::two;
use crate::errors::{PliantError, SimulationError, from_core, guard};
use crate::scene::PyScene;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pliant::core::Simulator;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// A simulator of one scene.
#[pyclass(module = "pliant._native", name = "Simulator", frozen)]
pub(crate) struct PySimulator {
    sim: Mutex<Simulator>,
    /// Steps the scene asks for.
    scene_steps: usize,
    channels: Vec<String>,
    /// DOFs of each node (`dim` each), for `positions`.
    node_dofs: Vec<usize>,
    dim: usize,
    initial: (Vec<f64>, Vec<f64>, Vec<Vec<f64>>),
}

impl PySimulator {
    pub(crate) fn from_scene(py: Python<'_>, scene: &PyScene) -> PyResult<Self> {
        let sc = scene.scene(py)?;
        guard(|| {
            let prepared = py
                .detach(|| sc.into_simulator())
                .map_err(|e| from_core(py, &e))?;
            let sim = prepared.simulator;
            let layout = sim.model().layout();
            let dim = layout.dim();
            let mut node_dofs = Vec::with_capacity(layout.n_nodes() * dim);
            for n in 0..layout.n_nodes() {
                for a in 0..dim {
                    node_dofs.push(
                        layout
                            .node_dof(n, a, "positions")
                            .map_err(|e| from_core(py, &e))?,
                    );
                }
            }
            let channels = sim
                .model()
                .params()
                .iter()
                .map(|c| c.name.clone())
                .collect();
            let initial = (sim.q().to_vec(), sim.v().to_vec(), sim.carried_state());
            Ok(Self {
                sim: Mutex::new(sim),
                scene_steps: prepared.settings.steps,
                channels,
                node_dofs,
                dim,
                initial,
            })
        })
    }

    /// The simulator, for a call that holds the GIL: never waits (a
    /// thread stepping it may need the GIL to check for Ctrl-C), so a
    /// simulator busy in another thread is an error.
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Simulator>> {
        match self.sim.try_lock() {
            Ok(g) => Ok(g),
            Err(std::sync::TryLockError::Poisoned(e)) => Ok(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => Err(PliantError::new_err(
                "this simulator is stepping in another thread: use it when that call returns",
            )),
        }
    }

    /// The simulator, for a call that released the GIL (may wait).
    fn wait(&self) -> std::sync::MutexGuard<'_, Simulator> {
        self.sim.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Parameter overrides `(index, value)` from a `controls` dict.
    fn overrides(&self, controls: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(usize, f64)>> {
        let mut out = Vec::new();
        let Some(c) = controls else { return Ok(out) };
        for (k, v) in c.iter() {
            let name: String = k.extract()?;
            let value: f64 = v.extract()?;
            let i = self
                .channels
                .iter()
                .position(|c| *c == name)
                .ok_or_else(|| {
                    PliantError::new_err(format!(
                        "controls: the scene has no channel `{name}` (channels: {})",
                        self.channels.join(", ")
                    ))
                })?;
            if !value.is_finite() {
                return Err(PliantError::new_err(format!(
                    "controls: `{name}` = {value}: give a finite number"
                )));
            }
            out.push((i, value));
        }
        Ok(out)
    }
}

/// One recorded state (a row of `run`'s arrays).
#[derive(Default)]
struct Rows {
    t: Vec<f64>,
    q: Vec<Vec<f64>>,
    v: Vec<Vec<f64>>,
    com: Vec<Vec<f64>>,
    kinetic: Vec<f64>,
    potential: Vec<f64>,
    newton: Vec<f64>,
    observables: BTreeMap<String, Vec<f64>>,
    names: Vec<String>,
}

impl Rows {
    fn push(&mut self, sim: &Simulator, p: &[f64], newton: usize) {
        self.t.push(sim.time());
        self.q.push(sim.q().to_vec());
        self.v.push(sim.v().to_vec());
        self.com.push(sim.model().center_of_mass(sim.q()));
        self.kinetic.push(sim.kinetic_energy());
        self.potential.push(sim.potential_energy(p));
        self.newton.push(newton as f64);
        for (n, v) in sim.observables(p) {
            if !self.observables.contains_key(&n) {
                self.names.push(n.clone());
            }
            self.observables.entry(n).or_default().push(v);
        }
    }
    fn into_dict<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let two = |rows: &[Vec<f64>]| two(py, rows, rows.first().map_or(0, Vec::len));
        d.set_item("t", PyArray1::from_vec(py, self.t))?;
        d.set_item("q", two(&self.q)?)?;
        d.set_item("v", two(&self.v)?)?;
        d.set_item("com", two(&self.com)?)?;
        d.set_item("kinetic_energy", PyArray1::from_vec(py, self.kinetic))?;
        d.set_item("potential_energy", PyArray1::from_vec(py, self.potential))?;
        d.set_item("newton_iterations", PyArray1::from_vec(py, self.newton))?;
        let obs = PyDict::new(py);
        let mut map = self.observables;
        for n in self.names {
            if let Some(v) = map.remove(&n) {
                obs.set_item(n, PyArray1::from_vec(py, v))?;
            }
        }
        d.set_item("observables", obs)?;
        Ok(d)
    }
}

#[pymethods]
impl PySimulator {
    /// A simulator of `scene` at its initial state.
    #[new]
    fn new(py: Python<'_>, scene: &PyScene) -> PyResult<Self> {
        Self::from_scene(py, scene)
    }
    /// Positions and extra DOFs `q` (m, rad), a copy.
    #[getter]
    fn q<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(PyArray1::from_slice(py, self.lock()?.q()))
    }
    /// Velocities `v` (m/s, rad/s), a copy.
    #[getter]
    fn v<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(PyArray1::from_slice(py, self.lock()?.v()))
    }
    /// Node positions as an `(n_nodes, dim)` array, m.
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let sim = self.lock()?;
        let q = sim.q();
        let flat: Vec<f64> = self.node_dofs.iter().map(|&d| q[d]).collect();
        PyArray1::from_vec(py, flat).reshape([self.node_dofs.len() / self.dim, self.dim])
    }
    /// Time, s.
    #[getter]
    fn time(&self) -> PyResult<f64> {
        Ok(self.lock()?.time())
    }
    /// Steps taken.
    #[getter]
    fn step_count(&self) -> PyResult<usize> {
        Ok(self.lock()?.steps_done())
    }
    /// Step size, s.
    #[getter]
    fn dt(&self) -> PyResult<f64> {
        Ok(self.lock()?.dt())
    }
    /// Number of DOFs.
    #[getter]
    fn n_dofs(&self) -> PyResult<usize> {
        Ok(self.lock()?.model().n_dofs())
    }
    /// The steps the scene asks for.
    #[getter]
    fn scene_steps(&self) -> usize {
        self.scene_steps
    }
    /// The parameter channels' names (controls and design parameters).
    #[getter]
    fn channels(&self) -> Vec<String> {
        self.channels.clone()
    }
    /// The channels' values at the current time (the scene's schedules).
    fn params(&self) -> PyResult<BTreeMap<String, f64>> {
        let sim = self.lock()?;
        let p = sim.model().params_at(sim.time());
        Ok(self.channels.iter().cloned().zip(p).collect())
    }
    /// The observables (cable tensions, output-group centroids, …) now.
    fn observables(&self) -> PyResult<Vec<(String, f64)>> {
        let sim = self.lock()?;
        let p = sim.model().params_at(sim.time());
        Ok(sim.observables(&p))
    }
    /// Kinetic energy `½ vᵀ M v`, J.
    fn kinetic_energy(&self) -> PyResult<f64> {
        Ok(self.lock()?.kinetic_energy())
    }
    /// Potential energy of every energy term at the current state, J.
    fn potential_energy(&self) -> PyResult<f64> {
        let sim = self.lock()?;
        let p = sim.model().params_at(sim.time());
        Ok(sim.potential_energy(&p))
    }
    /// Takes `n` steps; `controls` (channel → value) hold over them in
    /// place of the scene's schedule. Returns the Newton iterations. A
    /// failed step raises `SimulationError` and leaves the state at the
    /// last converged step.
    #[pyo3(signature = (n=1, controls=None))]
    fn step(
        &self,
        py: Python<'_>,
        n: usize,
        controls: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<usize> {
        let over = self.overrides(controls)?;
        guard(|| {
            let mut iters = 0;
            py.detach(|| {
                let mut sim = self.wait();
                advance(&mut sim, n, &over, |_, _, i| iters += i)
            })
            .map_err(|stop| stop.into_py(py, None))?;
            Ok(iters)
        })
    }
    /// Steps `steps` times (default: the scene's), or until time `until`
    /// (s), recording every state: a dict of arrays `t` (K+1), `q`, `v`
    /// (K+1 × DOFs), `com` (K+1 × dim), `kinetic_energy`,
    /// `potential_energy`, `newton_iterations` and `observables` (name →
    /// array). Row 0 is the state before the first step. On a failed step,
    /// `SimulationError.partial` holds the rows computed before it.
    #[pyo3(signature = (steps=None, until=None, controls=None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        steps: Option<usize>,
        until: Option<f64>,
        controls: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let over = self.overrides(controls)?;
        if let Some(t) = until
            && !t.is_finite()
        {
            return Err(PliantError::new_err(format!(
                "until = {t}: give a finite time in s"
            )));
        }
        guard(|| {
            let mut rows = Rows::default();
            let r = py.detach(|| {
                let mut sim = self.wait();
                let n = match until {
                    Some(t) => ((t - sim.time()) / sim.dt() - 1e-9).ceil().max(0.0) as usize,
                    None => steps.unwrap_or(self.scene_steps),
                };
                let p0 = sim.model().params_at(sim.time());
                rows.push(&sim, &p0, 0);
                advance(&mut sim, n, &over, |sim, p, i| rows.push(sim, p, i))
            });
            match r {
                Ok(()) => rows.into_dict(py),
                Err(stop) => {
                    let partial = rows.into_dict(py)?;
                    Err(stop.into_py(py, Some(partial)))
                }
            }
        })
    }
    /// Sets the state: `q`, `v` (DOFs each) and optionally the time `t`
    /// (s; default: unchanged).
    #[pyo3(signature = (q, v, t=None))]
    fn set_state(
        &self,
        py: Python<'_>,
        q: PyReadonlyArray1<'_, f64>,
        v: PyReadonlyArray1<'_, f64>,
        t: Option<f64>,
    ) -> PyResult<()> {
        let q = q.as_array().to_vec();
        let v = v.as_array().to_vec();
        if let Some(t) = t
            && !t.is_finite()
        {
            return Err(PliantError::new_err(format!(
                "t = {t}: give a finite time in s"
            )));
        }
        guard(|| {
            let mut sim = self.lock()?;
            let (t0, k) = (sim.time(), sim.steps_done());
            sim.set_state(&q, &v, t.unwrap_or(t0), k)
                .map_err(|e| from_core(py, &e))
        })
    }
    /// Back to the scene's initial state at t = 0.
    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        guard(|| {
            let mut sim = self.lock()?;
            let (q, v, c) = &self.initial;
            sim.set_state(q, v, 0.0, 0).map_err(|e| from_core(py, &e))?;
            sim.restore_carried_state(c).map_err(|e| from_core(py, &e))
        })
    }
    fn __repr__(&self) -> String {
        match self.lock() {
            Ok(sim) => format!(
                "Simulator(dofs={}, t={} s, steps={}, dt={} s)",
                sim.model().n_dofs(),
                sim.time(),
                sim.steps_done(),
                sim.dt()
            ),
            Err(_) => "Simulator(stepping in another thread)".into(),
        }
    }
}

/// Why a stepping loop ended early.
enum Stop {
    /// Step `.0` (1-based) failed.
    Failed(usize, pliant::core::CoreError),
    /// Python asked to stop (Ctrl-C: `KeyboardInterrupt`).
    Interrupted(PyErr),
}

impl Stop {
    /// The Python exception, with what was computed before it (`partial`).
    fn into_py(self, py: Python<'_>, partial: Option<Bound<'_, PyDict>>) -> PyErr {
        let (err, step) = match self {
            Stop::Failed(step, e) => (
                SimulationError::new_err(format!(
                    "step {step}: {e} (the state is the last converged step's)"
                )),
                Some(step),
            ),
            Stop::Interrupted(e) => (e, None),
        };
        let v = err.value(py);
        if let Some(step) = step {
            let _ = v.setattr("step", step);
        }
        let _ = v.setattr("partial", partial);
        err
    }
}

/// Steps `sim` `n` times with the scheduled parameters, `over` replacing
/// some, calling `each(sim, p, newton iterations)` after every step. Checks
/// for Ctrl-C about every 0.2 s (taking the GIL for that moment).
fn advance(
    sim: &mut Simulator,
    n: usize,
    over: &[(usize, f64)],
    mut each: impl FnMut(&Simulator, &[f64], usize),
) -> Result<(), Stop> {
    let mut checked = std::time::Instant::now();
    for _ in 0..n {
        if checked.elapsed() > std::time::Duration::from_millis(200) {
            Python::attach(|py| py.check_signals()).map_err(Stop::Interrupted)?;
            checked = std::time::Instant::now();
        }
        let mut p = sim.model().params_at(sim.time() + sim.dt());
        for &(i, v) in over {
            p[i] = v;
        }
        let step = sim.steps_done() + 1;
        match sim.step_with(&p, false) {
            Ok((rep, _)) => each(sim, &p, rep.newton.iterations),
            Err(e) => return Err(Stop::Failed(step, e)),
        }
    }
    Ok(())
}
