//! Runtime energy plugins: shared libraries loaded with libloading that hand
//! their energy types to a host-owned registry.
//!
//! # Safety rules the host enforces
//! - Tag mismatch ([`ABI_TAG`]), missing symbol, a file that is not a library, a
//!   missing file, a duplicate energy name: each a [`PluginError`], nothing
//!   registered.
//! - A loaded library is never unloaded (its own thread pool and the
//!   energies it created may run its code at any time), so nothing outlives
//!   its code.
//! - Panics never cross the boundary ([`guarded_construct`], [`PanicGuard`]).
//!
//! # Built-in and runtime energies in one scene format
//! A library's registrations live in its own copy of the link-time table, so
//! the host cannot see them by linking; loading copies them into this
//! registry. Scenes name energies by `"type"` either way: the runtime
//! registry is asked first, then the built-ins ([`crate::registry`]).
//! Loading refuses a name that is already built in or already loaded.

mod abi;
mod guard;
mod preflight;

pub use abi::{ABI_REVISION, ABI_SYMBOL, ABI_TAG, REGISTER_SYMBOL, Registrar, abi_tag};
pub use guard::{GuardFn, GuardedSpec, PanicGuard};
#[doc(hidden)]
pub use guard::{guarded_construct, panic_message};

use crate::registry::{EnergyInfo, SpecError};
use crate::spec::EnergySpec;
use libloading::Library;
use std::collections::BTreeMap;
use std::ffi::{CStr, c_char};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use thiserror::Error;

/// Why a plugin could not be loaded.
#[derive(Debug, Error)]
#[non_exhaustive]
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
    info: &'static EnergyInfo,
    guard: GuardFn,
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
            summary: e.info.summary.into(),
            library: e.path.clone(),
        })
        .collect()
}

/// Builds the runtime energy `name` from its JSON text, if such a runtime
/// energy is registered (the constructor runs in the plugin, guarded).
pub(crate) fn construct(
    name: &str,
    json: &str,
) -> Option<std::result::Result<Box<dyn EnergySpec>, SpecError>> {
    let (info, guard) = {
        let map = lock();
        let e = map.get(name)?;
        (e.info, e.guard)
    };
    Some(guard(info, json))
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
    let lib = open_checked(path, ABI_SYMBOL, abi_tag())?;
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
    let builtin: Vec<&str> = crate::registry::builtin().iter().map(|e| e.name).collect();
    let mut map = lock();
    // Check every name before inserting any, so a refused plugin leaves nothing behind.
    for (i, (info, _)) in reg.entries.iter().enumerate() {
        let name = info.name;
        let existing = if builtin.contains(&name) {
            Some("a built-in energy".to_string())
        } else if let Some(e) = map.get(name) {
            Some(e.path.display().to_string())
        } else if reg.entries[..i].iter().any(|(o, _)| o.name == name) {
            Some("the same plugin twice".to_string())
        } else {
            None
        };
        if let Some(existing) = existing {
            return Err(PluginError::DuplicateName {
                path: p,
                name: name.into(),
                existing,
            });
        }
    }
    let names = reg
        .entries
        .iter()
        .map(|(i, _)| i.name.to_string())
        .collect();
    for (info, guard) in reg.entries {
        map.insert(
            info.name.into(),
            Entry {
                info,
                guard,
                path: p.clone(),
            },
        );
    }
    // Never unloaded: see the module documentation.
    std::mem::forget(lib);
    log::info!("loaded plugin {} ({})", p.display(), abi_tag());
    Ok(names)
}

/// Opens the shared library at `path` after the checks every pliant plugin
/// kind shares: the file exists, is a complete shared library (parsed before
/// the loader maps it), loads, and exports `abi_symbol` (an
/// `extern "C" fn() -> *const c_char`) returning exactly `expected`. Only
/// then may the caller look up and call its registration entry point.
/// Other crates' plugin kinds (hardware export backends) use it with their
/// own symbols and tags.
pub fn open_checked(
    path: &Path,
    abi_symbol: &[u8],
    expected: &str,
) -> std::result::Result<Library, PluginError> {
    let p = path.to_path_buf();
    // A bare file name (no directory) is left to the dynamic loader's search path.
    let bare = path.parent().is_none_or(|d| d.as_os_str().is_empty());
    if !bare && !path.exists() {
        return Err(PluginError::MissingFile { path: p });
    }
    if !bare {
        preflight::check_shared_library(path)?;
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
        let f = unsafe { lib.get::<unsafe extern "C" fn() -> *const c_char>(abi_symbol) }.map_err(
            |_| PluginError::MissingEntryPoint {
                path: p.clone(),
                symbol: String::from_utf8_lossy(abi_symbol).into(),
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
    if found != expected {
        return Err(PluginError::AbiMismatch {
            path: p,
            expected: expected.into(),
            found,
        });
    }
    Ok(lib)
}

/// Whether two paths name the same file.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
