//! Panics never cross the plugin boundary: everything the host calls in a
//! plugin runs inside `catch_unwind` compiled into the plugin itself.
//!
//! A spec built by a plugin is a [`GuardedSpec`] (its `declare`/`bind`
//! return an error on a panic), and the energy it binds to is a
//! [`PanicGuard`], which turns a panic into NaN values the solver reports as
//! a typed non-finite error. The structural getters of a plugin's element
//! set (`len`, `dofs`, `params`) are called directly and must not panic.

use crate::element::{Block, ElementSet};
use crate::energy::{CarriedTransition, Energy};
use crate::error::{CoreError, Result};
use crate::model::Declare;
use crate::registry::{EnergyInfo, SpecError};
use crate::spec::{BindInfo, EnergySpec, Named};
use crate::state::EvalState;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};

/// Builds a plugin energy's spec from its JSON text, inside the plugin.
pub type GuardFn =
    fn(&'static EnergyInfo, &str) -> std::result::Result<Box<dyn EnergySpec>, SpecError>;

/// The message of a caught panic.
pub fn panic_message(e: &Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| e.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// [`GuardFn`]: `info`'s constructor under `catch_unwind`, its spec wrapped
/// in a [`GuardedSpec`]. Runs in the plugin (it is compiled into it through
/// [`export_plugin!`](crate::export_plugin)).
pub fn guarded_construct(
    info: &'static EnergyInfo,
    json: &str,
) -> std::result::Result<Box<dyn EnergySpec>, SpecError> {
    let spec = catch_unwind(|| (info.construct)(json)).unwrap_or_else(|e| {
        Err(SpecError {
            field: String::new(),
            message: format!("constructor panicked: {}", panic_message(&e)),
        })
    })?;
    Ok(Box::new(GuardedSpec {
        inner: spec,
        name: info.name,
    }))
}

/// A plugin's spec whose `declare` and `bind` cannot unwind into the host.
#[derive(Debug)]
pub struct GuardedSpec {
    inner: Box<dyn EnergySpec>,
    name: &'static str,
}

impl Named for GuardedSpec {
    fn type_name(&self) -> &'static str {
        self.name
    }
}

impl serde::Serialize for GuardedSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.inner.serialize(s)
    }
}

fn panicked(name: &str, what: &'static str, e: &Box<dyn std::any::Any + Send>) -> CoreError {
    CoreError::Other(
        format!(
            "plugin energy `{name}` panicked in {what}: {}",
            panic_message(e)
        )
        .into(),
    )
}

impl EnergySpec for GuardedSpec {
    fn declare(&self, d: &mut Declare) -> Result<()> {
        catch_unwind(AssertUnwindSafe(|| self.inner.declare(d)))
            .unwrap_or_else(|e| Err(panicked(self.name, "declare", &e)))
    }
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let inner = catch_unwind(AssertUnwindSafe(|| self.inner.bind(info)))
            .unwrap_or_else(|e| Err(panicked(self.name, "bind", &e)))?;
        Ok(Box::new(PanicGuard {
            inner,
            name: self.name,
            poisoned: AtomicBool::new(false),
        }))
    }
}

/// A plugin energy whose panics become NaN values (and a logged message):
/// the solver then stops with a typed non-finite error. A panic in
/// `begin_step`/`end_step`/`reset` poisons the energy, so every later value
/// is NaN instead of using stale state.
#[derive(Debug)]
pub struct PanicGuard {
    inner: Box<dyn Energy>,
    name: &'static str,
    poisoned: AtomicBool,
}

impl PanicGuard {
    /// Runs `f` on `out`; on a panic, logs it and fills `out` with NaN.
    fn guard_fill(&self, out: &mut [f64], f: impl FnOnce(&mut [f64])) {
        if self.poisoned.load(Ordering::Relaxed) {
            out.fill(f64::NAN);
            return;
        }
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| f(&mut *out))) {
            log::error!(
                "plugin energy `{}` panicked: {}",
                self.name,
                panic_message(&e)
            );
            out.fill(f64::NAN);
        }
    }
    /// Logs a panic of `what` and poisons the energy.
    fn poison(&self, what: &str, e: &Box<dyn std::any::Any + Send>) {
        log::error!(
            "plugin energy `{}` panicked in {what}: {}",
            self.name,
            panic_message(e)
        );
        self.poisoned.store(true, Ordering::Relaxed);
    }
}

/// The guarded view of the plugin's element set: structural getters pass
/// through, evaluations are guarded.
impl ElementSet for PanicGuard {
    fn len(&self) -> usize {
        self.inner.elements().len()
    }
    fn stencil_size(&self) -> usize {
        self.inner.elements().stencil_size()
    }
    fn param_size(&self) -> usize {
        self.inner.elements().param_size()
    }
    fn uses_history(&self) -> bool {
        self.inner.elements().uses_history()
    }
    fn dofs(&self, i: usize, out: &mut [usize]) {
        self.inner.elements().dofs(i, out)
    }
    fn params(&self, i: usize, out: &mut [usize]) {
        self.inner.elements().params(i, out)
    }
    fn value(&self, s: &EvalState) -> f64 {
        let mut v = [0.0];
        self.guard_fill(&mut v, |o| o[0] = self.inner.elements().value(s));
        v[0]
    }
    fn blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        self.guard_fill(out, |o| self.inner.elements().blocks(s, kind, o))
    }
    fn fallback_blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        self.guard_fill(out, |o| self.inner.elements().fallback_blocks(s, kind, o))
    }
}

impl Energy for PanicGuard {
    fn elements(&self) -> &dyn ElementSet {
        self
    }
    fn begin_step(&mut self, q: &[f64], p: &[f64], dt: f64, t: f64) {
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| self.inner.begin_step(q, p, dt, t))) {
            self.poison("begin_step", &e);
        }
    }
    fn end_step(&mut self, q: &[f64], p: &[f64]) {
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| self.inner.end_step(q, p))) {
            self.poison("end_step", &e);
        }
    }
    fn reset(&mut self, q: &[f64]) {
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| self.inner.reset(q))) {
            self.poison("reset", &e);
        }
    }
    fn carried_state(&self) -> Vec<f64> {
        catch_unwind(AssertUnwindSafe(|| self.inner.carried_state())).unwrap_or_else(|e| {
            self.poison("carried_state", &e);
            Vec::new()
        })
    }
    fn restore_carried_state(&mut self, snapshot: &[f64]) -> Result<()> {
        let inner = &mut self.inner;
        catch_unwind(AssertUnwindSafe(|| inner.restore_carried_state(snapshot)))
            .unwrap_or_else(|e| Err(panicked(self.name, "restore_carried_state", &e)))
    }
    // A panicking (or poisoned) plugin reports a NaN entry, which the
    // engine refuses with a typed error: an empty answer would silently
    // drop the carried state's derivatives.
    fn carried_transition(&self, q: &[f64], p: &[f64]) -> Option<CarriedTransition> {
        let nan = || {
            Some(CarriedTransition {
                len: 1,
                dq: vec![(0, 0, f64::NAN)],
                dc: Vec::new(),
            })
        };
        if self.poisoned.load(Ordering::Relaxed) {
            return nan();
        }
        catch_unwind(AssertUnwindSafe(|| self.inner.carried_transition(q, p))).unwrap_or_else(|e| {
            self.poison("carried_transition", &e);
            nan()
        })
    }
    fn carried_block(&self, s: &EvalState) -> Vec<(usize, usize, f64)> {
        if self.poisoned.load(Ordering::Relaxed) {
            return vec![(0, 0, f64::NAN)];
        }
        catch_unwind(AssertUnwindSafe(|| self.inner.carried_block(s))).unwrap_or_else(|e| {
            self.poison("carried_block", &e);
            vec![(0, 0, f64::NAN)]
        })
    }
    fn structure_version(&self) -> u64 {
        self.inner.structure_version()
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        if self.poisoned.load(Ordering::Relaxed) {
            return Vec::new();
        }
        catch_unwind(AssertUnwindSafe(|| self.inner.observables(s))).unwrap_or_default()
    }
    fn geometry(&self, s: &EvalState) -> Vec<crate::geometry::Shape> {
        if self.poisoned.load(Ordering::Relaxed) {
            return Vec::new();
        }
        catch_unwind(AssertUnwindSafe(|| self.inner.geometry(s))).unwrap_or_default()
    }
}
