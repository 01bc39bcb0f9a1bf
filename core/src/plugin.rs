//! Runtime energy plugins: shared libraries loaded with libloading that
//! register energy constructors into a host-owned registry.
//!
//! # ABI
//! A plugin exports two symbols (the [`export_plugin!`](crate::export_plugin)
//! macro writes both):
//! - `pliant_plugin_abi`: `extern "C" fn() -> *const c_char`, a NUL-terminated
//!   tag naming the plugin ABI revision, the pliant-core version, the rustc
//!   version and the target it was built with ([`abi_tag`]). The host reads it
//!   through the C ABI only, and refuses the library unless it equals its own.
//! - `pliant_plugin_register`: `extern "C" fn(*mut Registrar) -> i32`, called
//!   only after the tag matched. Because both sides were then built by the same
//!   compiler from the same pliant-core, Rust types (`Box<dyn Energy>`, `&str`,
//!   `Result`) may cross: their layouts and vtables agree. Host and plugin must
//!   use the default global allocator.
//!
//! # Safety rules the host enforces
//! - Tag mismatch, missing symbol, a file that is not a library, a missing
//!   file, a duplicate energy name: each a [`PluginError`], nothing loaded.
//! - A loaded library is never unloaded (its own thread pool and the energies
//!   it created may run its code at any time), so nothing outlives its code.
//! - Panics never cross the boundary: the macro-generated entry point and
//!   constructors catch them, and every plugin energy is wrapped in
//!   [`PanicGuard`] (compiled into the plugin), which turns a panic into an
//!   error from `bind`/`declare` or NaN values that the solver reports as a
//!   typed non-finite error.
//!
//! # Built-in and runtime energies in one scene format
//! typetag's table is built once per binary and cannot see types from a
//! library loaded later (each library has its own copy). Scene files name
//! energies by `"type"` either way: the scene builder first looks the name up
//! in this runtime registry, then falls back to typetag's built-in table.
//! Loading refuses a runtime name that is already built in or already loaded.

use crate::element::ElementSet;
use crate::energy::{BindInfo, Energy, EvalState};
use crate::error::{CoreError, Result};
use crate::model::ModelBuilder;
use libloading::Library;
use std::collections::BTreeMap;
use std::ffi::{CStr, c_char};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use thiserror::Error;

/// Revision of the plugin calling convention (bump on any change to it).
pub const ABI_REVISION: u32 = 2;

/// The tag both sides must agree on, NUL-terminated: ABI revision,
/// pliant-core version and source hash, rustc version, target, panic strategy.
pub const ABI_TAG: &str = concat!(
    "pliant-plugin-abi 2; pliant-core ",
    env!("CARGO_PKG_VERSION"),
    " (source ",
    env!("PLIANT_SOURCE_HASH"),
    "); ",
    env!("PLIANT_RUSTC_VERSION"),
    "; ",
    env!("PLIANT_TARGET"),
    "; panic=",
    env!("PLIANT_PANIC"),
    "\0"
);

/// The ABI tag without its NUL terminator.
pub fn abi_tag() -> &'static str {
    ABI_TAG.trim_end_matches('\0')
}

/// Symbol of the ABI tag function.
pub const ABI_SYMBOL: &[u8] = b"pliant_plugin_abi";
/// Symbol of the registration function.
pub const REGISTER_SYMBOL: &[u8] = b"pliant_plugin_register";

/// Builds an energy from its scene JSON (the whole object, `"type"` included).
pub type Constructor = fn(&str) -> std::result::Result<Box<dyn Energy>, String>;

/// What a plugin hands to the host while registering.
#[derive(Debug, Default)]
pub struct Registrar {
    entries: Vec<(String, String, Constructor)>,
    /// Set by the entry point when registration panicked or failed.
    pub error: Option<String>,
}

impl Registrar {
    /// Registers an energy type `name` with a one-line `summary`.
    pub fn register(&mut self, name: &str, summary: &str, constructor: Constructor) {
        self.entries
            .push((name.to_string(), summary.to_string(), constructor));
    }
}

/// Why a plugin could not be loaded.
#[derive(Debug, Error)]
pub enum PluginError {
    /// The path does not exist.
    #[error("plugin {path}: file not found")]
    MissingFile {
        /// The path given.
        path: PathBuf,
    },
    /// The file exists but the dynamic loader refused it.
    #[error("plugin {path}: not a loadable shared library ({reason})")]
    NotALibrary {
        /// The path given.
        path: PathBuf,
        /// The loader's message.
        reason: String,
    },
    /// A required symbol is missing.
    #[error(
        "plugin {path}: no `{symbol}` entry point; is it a pliant plugin built with `pliant_core::export_plugin!`?"
    )]
    MissingEntryPoint {
        /// The path given.
        path: PathBuf,
        /// The missing symbol.
        symbol: String,
    },
    /// Built against another pliant-core, compiler or target.
    #[error(
        "plugin {path} was built for `{found}`, this host is `{expected}`; rebuild the plugin with the same rustc against the same pliant-core"
    )]
    AbiMismatch {
        /// The path given.
        path: PathBuf,
        /// The host's tag.
        expected: String,
        /// The plugin's tag.
        found: String,
    },
    /// An energy name is taken already.
    #[error("plugin {path}: energy `{name}` is already provided by {existing}")]
    DuplicateName {
        /// The path given.
        path: PathBuf,
        /// The name.
        name: String,
        /// Who provides it.
        existing: String,
    },
    /// The registration function failed or panicked.
    #[error("plugin {path}: registration failed: {message}")]
    Registration {
        /// The path given.
        path: PathBuf,
        /// What it said.
        message: String,
    },
}

struct Entry {
    summary: String,
    constructor: Constructor,
    path: PathBuf,
}

fn registry() -> &'static Mutex<BTreeMap<String, Entry>> {
    static R: OnceLock<Mutex<BTreeMap<String, Entry>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(BTreeMap::new()))
}

fn lock() -> std::sync::MutexGuard<'static, BTreeMap<String, Entry>> {
    registry().lock().unwrap_or_else(|p| p.into_inner())
}

/// A runtime energy type, as listed by [`runtime_energies`].
#[derive(Debug, Clone)]
pub struct RuntimeInfo {
    /// Scene `"type"` name.
    pub name: String,
    /// One-line summary.
    pub summary: String,
    /// Library it came from.
    pub library: PathBuf,
}

/// Every runtime energy type loaded so far, by name.
pub fn runtime_energies() -> Vec<RuntimeInfo> {
    lock()
        .iter()
        .map(|(n, e)| RuntimeInfo {
            name: n.clone(),
            summary: e.summary.clone(),
            library: e.path.clone(),
        })
        .collect()
}

/// Loads the plugin at `path` and registers its energies; returns their names.
pub fn load(path: &Path) -> std::result::Result<Vec<String>, PluginError> {
    let p = path.to_path_buf();
    // Loading is serialized, and loading a file already loaded returns its names.
    static LOADING: Mutex<()> = Mutex::new(());
    let _serial = LOADING.lock().unwrap_or_else(|e| e.into_inner());
    let same: Vec<String> = lock()
        .iter()
        .filter(|(_, e)| same_file(&e.path, path))
        .map(|(n, _)| n.clone())
        .collect();
    if !same.is_empty() {
        return Ok(same);
    }
    // A bare file name (no directory) is left to the dynamic loader's search path.
    let bare = path.parent().is_none_or(|d| d.as_os_str().is_empty());
    if !bare && !path.exists() {
        return Err(PluginError::MissingFile { path: p });
    }
    // SAFETY: loading runs the library's initializers. We accept that for a
    // file the user named as a plugin; everything after is checked.
    let lib = unsafe { Library::new(path) }.map_err(|e| {
        let mut reason = e.to_string();
        let mut src = std::error::Error::source(&e);
        while let Some(s) = src {
            reason.push_str(": ");
            reason.push_str(&s.to_string());
            src = s.source();
        }
        PluginError::NotALibrary {
            path: p.clone(),
            reason,
        }
    })?;
    let found = {
        // SAFETY: the symbol is declared by the ABI as `extern "C" fn() -> *const c_char`.
        let f = unsafe { lib.get::<unsafe extern "C" fn() -> *const c_char>(ABI_SYMBOL) }.map_err(
            |_| PluginError::MissingEntryPoint {
                path: p.clone(),
                symbol: String::from_utf8_lossy(ABI_SYMBOL).into(),
            },
        )?;
        // SAFETY: C ABI call; the result is checked for null and read as a C string.
        let ptr = unsafe { f() };
        if ptr.is_null() {
            String::from("<null>")
        } else {
            // SAFETY: non-null pointer to a NUL-terminated static string, per the ABI.
            unsafe { CStr::from_ptr(ptr) }
                .to_string_lossy()
                .into_owned()
        }
    };
    if found != abi_tag() {
        return Err(PluginError::AbiMismatch {
            path: p,
            expected: abi_tag().into(),
            found,
        });
    }
    let mut reg = Registrar::default();
    let code = {
        // SAFETY: the ABI tag matched, so the plugin was built by this compiler
        // from this pliant-core and `Registrar` has the same layout on both sides.
        let f = unsafe { lib.get::<unsafe extern "C" fn(*mut Registrar) -> i32>(REGISTER_SYMBOL) }
            .map_err(|_| PluginError::MissingEntryPoint {
                path: p.clone(),
                symbol: String::from_utf8_lossy(REGISTER_SYMBOL).into(),
            })?;
        // SAFETY: as above; the entry point catches panics (export_plugin!).
        unsafe { f(&mut reg) }
    };
    if code != 0 || reg.error.is_some() {
        return Err(PluginError::Registration {
            path: p,
            message: reg
                .error
                .unwrap_or_else(|| format!("entry point returned {code}")),
        });
    }
    let builtin: Vec<&str> = crate::registry::energies().iter().map(|e| e.name).collect();
    let mut map = lock();
    // Check every name before inserting any, so a refused plugin leaves nothing behind.
    for (i, (name, _, _)) in reg.entries.iter().enumerate() {
        if builtin.contains(&name.as_str()) {
            return Err(PluginError::DuplicateName {
                path: p,
                name: name.clone(),
                existing: "a built-in energy".into(),
            });
        }
        if let Some(e) = map.get(name) {
            return Err(PluginError::DuplicateName {
                path: p,
                name: name.clone(),
                existing: e.path.display().to_string(),
            });
        }
        if reg.entries[..i].iter().any(|(n, _, _)| n == name) {
            return Err(PluginError::DuplicateName {
                path: p,
                name: name.clone(),
                existing: "the same plugin twice".into(),
            });
        }
    }
    let names = reg.entries.iter().map(|(n, _, _)| n.clone()).collect();
    for (name, summary, constructor) in reg.entries {
        map.insert(
            name,
            Entry {
                summary,
                constructor,
                path: p.clone(),
            },
        );
    }
    // Never unloaded: see the module documentation.
    std::mem::forget(lib);
    log::info!("loaded plugin {} ({})", p.display(), abi_tag());
    Ok(names)
}

/// Whether two paths name the same file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Builds the runtime energy `name` from its scene JSON, if such a runtime
/// energy is registered.
pub fn construct(name: &str, json: &str) -> Option<Result<Box<dyn Energy>>> {
    let (constructor, path) = {
        let map = lock();
        let e = map.get(name)?;
        (e.constructor, e.path.clone())
    };
    Some(match constructor(json) {
        Ok(inner) => Ok(Box::new(RuntimeEnergy { inner })),
        Err(m) => Err(CoreError::Model(format!(
            "energy `{name}` from plugin {}: {m}",
            path.display()
        ))),
    })
}

/// An energy created by a plugin (its library is never unloaded).
#[derive(Debug)]
pub struct RuntimeEnergy {
    inner: Box<dyn Energy>,
}

/// Energies that only exist at run time are not re-serialized.
fn no_serialize<S: serde::Serializer>(what: &str, _s: S) -> std::result::Result<S::Ok, S::Error> {
    Err(serde::ser::Error::custom(format!(
        "{what} cannot be serialized; write the scene JSON it was built from"
    )))
}

impl serde::Serialize for RuntimeEnergy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        no_serialize("a runtime plugin energy", s)
    }
}
impl<'de> serde::Deserialize<'de> for RuntimeEnergy {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> std::result::Result<Self, D::Error> {
        Err(serde::de::Error::custom(
            "runtime energies are built through the plugin registry",
        ))
    }
}

#[typetag::serde(name = "pliant_runtime_energy")]
impl Energy for RuntimeEnergy {
    fn declare(&mut self, b: &mut ModelBuilder) -> Result<()> {
        self.inner.declare(b)
    }
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        self.inner.bind(info)
    }
    fn elements(&self) -> &dyn ElementSet {
        self.inner.elements()
    }
    fn begin_step(&mut self, q: &[f64], p: &[f64], dt: f64, t: f64) {
        self.inner.begin_step(q, p, dt, t)
    }
    fn end_step(&mut self, q: &[f64], p: &[f64]) {
        self.inner.end_step(q, p)
    }
    fn structure_version(&self) -> u64 {
        self.inner.structure_version()
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        self.inner.observables(s)
    }
    fn carried_state(&self) -> Vec<f64> {
        self.inner.carried_state()
    }
    fn restore_carried_state(&mut self, snapshot: &[f64]) -> Result<()> {
        self.inner.restore_carried_state(snapshot)
    }
    fn reset(&mut self, q: &[f64]) {
        self.inner.reset(q)
    }
    fn value(&self, s: &EvalState) -> f64 {
        self.inner.value(s)
    }
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.inner.gradient_blocks(s, out)
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.inner.hessian_blocks(s, out)
    }
    fn history_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.inner.history_blocks(s, out)
    }
    fn param_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.inner.param_blocks(s, out)
    }
    fn param_gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.inner.param_gradient_blocks(s, out)
    }
}

/// Wraps a plugin energy so that a panic inside it never unwinds into the
/// host: `declare`/`bind` return an error, values and blocks become NaN (the
/// solver then stops with a typed non-finite error), and the message is logged.
/// Built inside the plugin by [`export_plugin!`](crate::export_plugin).
#[derive(Debug)]
pub struct PanicGuard {
    inner: Box<dyn Energy>,
    name: String,
    /// Set when `begin_step`/`end_step` panicked: every later value is NaN,
    /// so the step fails with a typed error instead of using stale state.
    poisoned: AtomicBool,
}

impl PanicGuard {
    /// Guards `inner`, a plugin energy called `name`.
    pub fn new(inner: Box<dyn Energy>, name: &str) -> Self {
        Self {
            inner,
            name: name.to_string(),
            poisoned: AtomicBool::new(false),
        }
    }
    /// Runs `f` on `out`; on a panic, logs it and fills `out` with NaN.
    fn guard_fill(&self, out: &mut [f64], f: impl FnOnce(&mut [f64])) {
        if self.poisoned.load(Ordering::Relaxed) {
            out.fill(f64::NAN);
            return;
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut *out)));
        if let Err(e) = r {
            log::error!(
                "plugin energy `{}` panicked: {}",
                self.name,
                panic_message(&e)
            );
            out.fill(f64::NAN);
        }
    }
}

/// The message of a caught panic.
pub fn panic_message(e: &Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| e.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

impl serde::Serialize for PanicGuard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        no_serialize("a runtime plugin energy", s)
    }
}
impl<'de> serde::Deserialize<'de> for PanicGuard {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> std::result::Result<Self, D::Error> {
        Err(serde::de::Error::custom(
            "plugin energies are built through the plugin registry",
        ))
    }
}

#[typetag::serde(name = "pliant_panic_guard")]
impl Energy for PanicGuard {
    fn declare(&mut self, b: &mut ModelBuilder) -> Result<()> {
        let name = self.name.clone();
        let inner = &mut self.inner;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.declare(b))).unwrap_or_else(
            |e| {
                Err(CoreError::Model(format!(
                    "plugin energy `{name}` panicked in declare: {}",
                    panic_message(&e)
                )))
            },
        )
    }
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        let name = self.name.clone();
        let inner = &mut self.inner;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.bind(info))).unwrap_or_else(
            |e| {
                Err(CoreError::Model(format!(
                    "plugin energy `{name}` panicked in bind: {}",
                    panic_message(&e)
                )))
            },
        )
    }
    fn elements(&self) -> &dyn ElementSet {
        self.inner.elements()
    }
    fn begin_step(&mut self, q: &[f64], p: &[f64], dt: f64, t: f64) {
        let name = self.name.clone();
        let inner = &mut self.inner;
        if let Err(e) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            inner.begin_step(q, p, dt, t)
        })) {
            log::error!(
                "plugin energy `{name}` panicked in begin_step: {}",
                panic_message(&e)
            );
            self.poisoned.store(true, Ordering::Relaxed);
        }
    }
    fn end_step(&mut self, q: &[f64], p: &[f64]) {
        let name = self.name.clone();
        let inner = &mut self.inner;
        if let Err(e) =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.end_step(q, p)))
        {
            log::error!(
                "plugin energy `{name}` panicked in end_step: {}",
                panic_message(&e)
            );
            self.poisoned.store(true, Ordering::Relaxed);
        }
    }
    fn carried_state(&self) -> Vec<f64> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.inner.carried_state()))
            .unwrap_or_else(|e| {
                log::error!(
                    "plugin energy `{}` panicked in carried_state: {}",
                    self.name,
                    panic_message(&e)
                );
                self.poisoned.store(true, Ordering::Relaxed);
                Vec::new()
            })
    }
    fn restore_carried_state(&mut self, snapshot: &[f64]) -> Result<()> {
        let name = self.name.clone();
        let inner = &mut self.inner;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            inner.restore_carried_state(snapshot)
        }))
        .unwrap_or_else(|e| {
            Err(CoreError::Model(format!(
                "plugin energy `{name}` panicked in restore_carried_state: {}",
                panic_message(&e)
            )))
        })
    }
    fn reset(&mut self, q: &[f64]) {
        let name = self.name.clone();
        let inner = &mut self.inner;
        if let Err(e) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.reset(q))) {
            log::error!(
                "plugin energy `{name}` panicked in reset: {}",
                panic_message(&e)
            );
            self.poisoned.store(true, Ordering::Relaxed);
        }
    }
    fn structure_version(&self) -> u64 {
        self.inner.structure_version()
    }
    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        if self.poisoned.load(Ordering::Relaxed) {
            return Vec::new();
        }
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.inner.observables(s)))
            .unwrap_or_default()
    }
    fn value(&self, s: &EvalState) -> f64 {
        let mut v = [0.0];
        self.guard_fill(&mut v, |o| o[0] = self.inner.value(s));
        v[0]
    }
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.guard_fill(out, |o| self.inner.gradient_blocks(s, o))
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.guard_fill(out, |o| self.inner.hessian_blocks(s, o))
    }
    fn history_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.guard_fill(out, |o| self.inner.history_blocks(s, o))
    }
    fn param_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.guard_fill(out, |o| self.inner.param_blocks(s, o))
    }
    fn param_gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.guard_fill(out, |o| self.inner.param_gradient_blocks(s, o))
    }
}

/// Exports a plugin's entry points. List each energy type with its scene
/// name and summary; each type must implement `Energy` and `Deserialize`:
///
/// ```ignore
/// pliant_core::export_plugin!(DeaSprings => "dea_spring", "dielectric-elastomer spring actuator");
/// ```
#[macro_export]
macro_rules! export_plugin {
    ($($ty:ty => $name:literal, $summary:literal);+ $(;)?) => {
        /// The plugin ABI tag (see `pliant_core::plugin`).
        #[unsafe(no_mangle)]
        pub extern "C" fn pliant_plugin_abi() -> *const ::std::ffi::c_char {
            $crate::plugin::ABI_TAG.as_ptr().cast()
        }

        /// Registers this plugin's energies with the host.
        ///
        /// # Safety
        /// Called by the pliant host only after the ABI tag matched.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn pliant_plugin_register(reg: *mut $crate::plugin::Registrar) -> i32 {
            let result = ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| {
                // SAFETY: the host passes a valid, exclusive pointer.
                let reg = unsafe { &mut *reg };
                $(
                    reg.register($name, $summary, |json: &str| {
                        ::std::panic::catch_unwind(|| {
                            let e: $ty = $crate::serde_json::from_str(json).map_err(|e| e.to_string())?;
                            Ok(Box::new($crate::plugin::PanicGuard::new(Box::new(e), $name)) as Box<dyn $crate::Energy>)
                        })
                        .unwrap_or_else(|e| Err(format!("constructor panicked: {}", $crate::plugin::panic_message(&e))))
                    });
                )+
            }));
            match result {
                Ok(()) => 0,
                Err(e) => {
                    // SAFETY: as above.
                    unsafe { &mut *reg }.error = Some(format!("panicked: {}", $crate::plugin::panic_message(&e)));
                    1
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn abi_tag_carries_the_revision_and_ends_with_nul() {
        assert!(super::ABI_TAG.starts_with(&format!("pliant-plugin-abi {};", super::ABI_REVISION)));
        assert!(super::ABI_TAG.ends_with('\0') && !super::abi_tag().contains('\0'));
    }
}
