//! `pliant.Rollout`: a differentiable rollout from a spec (dict or file):
//! the objective's value, its terms and their adjoint gradients with
//! respect to control keyframes and design parameters, as numpy arrays.

use crate::arrays::two;
use crate::errors::{PliantError, from_rollout, guard};
use crate::scene::PyScene;
use crate::spec_source::text_of;
use numpy::{PyArray1, PyReadonlyArray1};
use pliant::rollout::{Rollout, RolloutSpec};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

/// A rollout spec built into a differentiable problem.
#[pyclass(module = "pliant._native", name = "Rollout", frozen)]
pub(crate) struct PyRollout {
    inner: Rollout,
    weights: Vec<f64>,
}

impl PyRollout {
    fn z_or_default(&self, z: Option<PyReadonlyArray1<'_, f64>>) -> Vec<f64> {
        match z {
            Some(z) => z.as_array().to_vec(),
            None => self.inner.z0().to_vec(),
        }
    }
}

#[pymethods]
impl PyRollout {
    /// A rollout from a spec: a dict (its `scene` a file path, a scene
    /// dict or a `pliant.Scene`), or the path of a spec file. Relative
    /// paths in a dict resolve against `base_dir` (default: the working
    /// directory).
    #[new]
    #[pyo3(signature = (spec, base_dir=None))]
    fn new(py: Python<'_>, spec: &Bound<'_, PyAny>, base_dir: Option<PathBuf>) -> PyResult<Self> {
        // A `pliant.Scene` as the spec's scene goes in as its document,
        // resolving its own paths against its directory.
        let mut scene_dir = None;
        let spec = match spec.cast::<PyDict>() {
            Ok(d) => {
                let d = d.copy()?;
                if let Some(s) = d.get_item("scene")?
                    && let Ok(sc) = s.cast::<PyScene>()
                {
                    let sc = sc.get();
                    scene_dir = sc.base_dir.clone();
                    d.set_item(
                        "scene",
                        py.import("json")?.call_method1("loads", (&sc.text,))?,
                    )?;
                }
                d.into_any()
            }
            Err(_) => spec.clone(),
        };
        let (text, origin, dir) = text_of(py, &spec, scene_dir.or(base_dir))?;
        guard(|| {
            let mut s = RolloutSpec::from_json(&text, &origin).map_err(|e| from_rollout(py, &e))?;
            s.base_dir = dir;
            let weights = s.objectives.iter().map(|o| o.weight()).collect();
            let inner = py
                .detach(|| Rollout::new(&s))
                .map_err(|e| from_rollout(py, &e))?;
            Ok(Self { inner, weights })
        })
    }
    /// The variables' initial values (the scene's schedules and design values).
    #[getter]
    fn z0<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.z0())
    }
    /// One name per variable (`channel@t s` or the design channel).
    #[getter]
    fn variables(&self) -> Vec<String> {
        self.inner.variable_names().to_vec()
    }
    /// The objective terms' labels.
    #[getter]
    fn objectives(&self) -> Vec<String> {
        self.inner.objective_labels().to_vec()
    }
    /// The terms' weights as the spec gives them.
    #[getter]
    fn weights(&self) -> Vec<f64> {
        self.weights.clone()
    }
    /// Steps K.
    #[getter]
    fn steps(&self) -> usize {
        self.inner.steps()
    }
    /// Step size, s.
    #[getter]
    fn dt(&self) -> f64 {
        self.inner.dt()
    }
    /// Rolls out with `z` (default `z0`): a dict with `value`, `terms`
    /// (array, one per objective term), `gradient` (∇_z O by the adjoint,
    /// if `gradient`), `term_gradients` (terms × variables, if `per_term`),
    /// `states` (K+1 × DOFs) and `newton_iterations`.
    #[pyo3(signature = (z=None, gradient=true, per_term=false))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        z: Option<PyReadonlyArray1<'py, f64>>,
        gradient: bool,
        per_term: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let z = self.z_or_default(z);
        guard(|| {
            let e = py
                .detach(|| {
                    if per_term {
                        self.inner.evaluate_terms(&z)
                    } else {
                        self.inner.evaluate(&z, gradient)
                    }
                })
                .map_err(|e| from_rollout(py, &e))?;
            let d = PyDict::new(py);
            d.set_item("value", e.value)?;
            d.set_item("terms", PyArray1::from_vec(py, e.terms))?;
            if gradient || per_term {
                d.set_item("gradient", PyArray1::from_vec(py, e.gradient))?;
            }
            if per_term {
                d.set_item("term_gradients", two(py, &e.term_gradients, z.len())?)?;
            }
            let n = e.states.first().map_or(0, Vec::len);
            d.set_item("states", two(py, &e.states, n)?)?;
            d.set_item("newton_iterations", e.newton_iterations)?;
            Ok(d)
        })
    }
    /// `(O, ∇_z O)` at `z` (default `z0`). With `weights` (one per term),
    /// the objective is the Python-side sum `Σ_i weights[i] · O_i` of the
    /// spec's terms `O_i` (each already carrying its spec weight), and the
    /// gradient is the same sum of the terms' adjoint gradients.
    #[pyo3(signature = (z=None, weights=None))]
    fn value_and_gradient<'py>(
        &self,
        py: Python<'py>,
        z: Option<PyReadonlyArray1<'py, f64>>,
        weights: Option<Vec<f64>>,
    ) -> PyResult<(f64, Bound<'py, PyArray1<f64>>)> {
        let z = self.z_or_default(z);
        if let Some(w) = &weights {
            if w.len() != self.weights.len() {
                return Err(PliantError::new_err(format!(
                    "weights: {} given, the rollout has {} objective terms ({})",
                    w.len(),
                    self.weights.len(),
                    self.inner.objective_labels().join(", ")
                )));
            }
            if let Some(x) = w.iter().find(|x| !x.is_finite()) {
                return Err(PliantError::new_err(format!("weights: {x} is not finite")));
            }
        }
        guard(|| {
            let (v, g) = py
                .detach(|| match &weights {
                    None => self.inner.evaluate(&z, true).map(|e| (e.value, e.gradient)),
                    Some(w) => self.inner.evaluate_terms(&z).map(|e| {
                        let mut g = vec![0.0; z.len()];
                        let mut v = 0.0;
                        for ((m, t), tg) in w.iter().zip(&e.terms).zip(&e.term_gradients) {
                            v += m * t;
                            for (gi, ti) in g.iter_mut().zip(tg) {
                                *gi += m * ti;
                            }
                        }
                        (v, g)
                    }),
                })
                .map_err(|e| from_rollout(py, &e))?;
            Ok((v, PyArray1::from_vec(py, g)))
        })
    }
    /// ∇_z O by central differences of whole rollouts (relative step `eps`),
    /// to check the adjoint.
    #[pyo3(signature = (z=None, eps=1e-6))]
    fn gradient_fd<'py>(
        &self,
        py: Python<'py>,
        z: Option<PyReadonlyArray1<'py, f64>>,
        eps: f64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let z = self.z_or_default(z);
        guard(|| {
            let g = py
                .detach(|| self.inner.gradient_fd(&z, eps))
                .map_err(|e| from_rollout(py, &e))?;
            Ok(PyArray1::from_vec(py, g))
        })
    }
    fn __repr__(&self) -> String {
        format!(
            "Rollout(steps={}, variables={:?}, objectives={:?})",
            self.inner.steps(),
            self.inner.variable_names(),
            self.inner.objective_labels()
        )
    }
}
