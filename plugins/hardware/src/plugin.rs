//! Runtime backend plugins: a shared library (cdylib) that exports backends
//! with [`export_backends!`](crate::export_backends), loaded with
//! [`load`] (`pliant export --plugin PATH`).
//!
//! The same rules as pliant-core's energy plugins apply
//! ([`pliant_core::plugin`]): the library is parsed before it is mapped,
//! its ABI tag — pliant-core's tag plus pliant-hardware's version and source
//! hash, since `Box<dyn Backend>` crosses the boundary — must equal the
//! host's, names may not clash, it is never unloaded (not even when its
//! registration is refused), and every call into it runs under
//! `catch_unwind` compiled into the plugin (a panic becomes a
//! [`HardwareError::PluginPanic`]). Host and plugin must use the default
//! global allocator: a plugin's boxes are freed by the host.

use crate::backend::{Backend, BackendListing, Decoded};
use crate::error::{HardwareError, Result};
use crate::profile::HardwareProfile;
use crate::table::CommandTable;
use std::ffi::{CStr, CString};
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Symbol of the backend ABI tag function.
pub const ABI_SYMBOL: &[u8] = b"pliant_hardware_abi";
/// Symbol of the backend registration function.
pub const REGISTER_SYMBOL: &[u8] = b"pliant_hardware_register";

/// The backend-plugin ABI tag: pliant-core's plugin tag, then
/// pliant-hardware's version and source hash.
pub fn abi_tag() -> &'static CStr {
    static TAG: OnceLock<CString> = OnceLock::new();
    TAG.get_or_init(|| {
        CString::new(format!(
            "{}; pliant-hardware {} (source {})",
            pliant_core::plugin::abi_tag(),
            env!("CARGO_PKG_VERSION"),
            env!("PLIANT_HARDWARE_SOURCE_HASH")
        ))
        .expect("no NUL in the tag")
    })
}

/// What a plugin hands the host: its backends, already guarded.
#[derive(Default)]
pub struct BackendRegistrar {
    entries: Vec<Box<dyn Backend>>,
    /// Set by the entry point when registration panicked.
    pub error: Option<String>,
}

impl BackendRegistrar {
    /// Registers `backend`, wrapped so that no panic leaves the plugin.
    pub fn register(&mut self, backend: Box<dyn Backend>) {
        self.entries.push(Box::new(Guarded {
            name: backend.name().to_string(),
            summary: backend.summary().to_string(),
            extension: backend.extension().to_string(),
            streams: backend.streams(),
            inner: backend,
        }));
    }
}

/// Exports backend types (each `Default`) from a plugin library:
///
/// ```ignore
/// pliant_hardware::export_backends!(MyFormat, MyOtherFormat);
/// ```
#[macro_export]
macro_rules! export_backends {
    ($($ty:ty),+ $(,)?) => {
        /// The backend-plugin ABI tag (see `pliant_hardware::plugin`).
        #[unsafe(no_mangle)]
        pub extern "C" fn pliant_hardware_abi() -> *const ::std::ffi::c_char {
            $crate::plugin::abi_tag().as_ptr()
        }

        /// Registers this plugin's backends with the host.
        ///
        /// # Safety
        /// Called by the host only after the ABI tag matched, with a valid,
        /// exclusive pointer.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn pliant_hardware_register(reg: *mut $crate::plugin::BackendRegistrar) -> i32 {
            let result = ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| {
                // SAFETY: the host passes a valid, exclusive pointer.
                let reg = unsafe { &mut *reg };
                $(
                    reg.register(::std::boxed::Box::new(<$ty as ::std::default::Default>::default()));
                )+
            }));
            match result {
                Ok(()) => 0,
                Err(e) => {
                    // SAFETY: as above.
                    unsafe { &mut *reg }.error =
                        Some(format!("panicked: {}", $crate::plugin::panic_message(&e)));
                    1
                }
            }
        }
    };
}

#[doc(hidden)]
pub use pliant_core::plugin::panic_message;

/// A plugin's backend; its methods are compiled into the plugin (this type
/// is built there by [`BackendRegistrar::register`]) and catch panics.
struct Guarded {
    // Read once at registration (inside the registration's catch_unwind).
    name: String,
    summary: String,
    extension: String,
    streams: bool,
    inner: Box<dyn Backend>,
}

impl Guarded {
    fn guard<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|e| {
            Err(HardwareError::PluginPanic {
                backend: self.name.clone(),
                message: panic_message(&e),
            })
        })
    }
}

impl Backend for Guarded {
    fn name(&self) -> &str {
        &self.name
    }
    fn summary(&self) -> &str {
        &self.summary
    }
    fn extension(&self) -> &str {
        &self.extension
    }
    fn streams(&self) -> bool {
        self.streams
    }
    fn check(&self, table: &CommandTable) -> Result<()> {
        self.guard(|| self.inner.check(table))
    }
    fn write(&self, table: &CommandTable, w: &mut dyn Write) -> Result<()> {
        self.guard(|| self.inner.write(table, w))
    }
    fn deliver(&self, table: &CommandTable, target: &Path) -> Result<()> {
        self.guard(|| self.inner.deliver(table, target))
    }
    fn decode(&self, bytes: &[u8], profile: &HardwareProfile) -> Result<Decoded> {
        self.guard(|| self.inner.decode(bytes, profile))
    }
}

struct Loaded {
    backend: Arc<dyn Backend>,
    path: PathBuf,
}

fn registry() -> std::sync::MutexGuard<'static, Vec<Loaded>> {
    static R: Mutex<Vec<Loaded>> = Mutex::new(Vec::new());
    R.lock().unwrap_or_else(|p| p.into_inner())
}

/// Host-side handle on a loaded backend (delegates through the guarded
/// vtable).
struct Shared(Arc<dyn Backend>);

impl Backend for Shared {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn summary(&self) -> &str {
        self.0.summary()
    }
    fn extension(&self) -> &str {
        self.0.extension()
    }
    fn streams(&self) -> bool {
        self.0.streams()
    }
    fn check(&self, table: &CommandTable) -> Result<()> {
        self.0.check(table)
    }
    fn write(&self, table: &CommandTable, w: &mut dyn Write) -> Result<()> {
        self.0.write(table, w)
    }
    fn deliver(&self, table: &CommandTable, target: &Path) -> Result<()> {
        self.0.deliver(table, target)
    }
    fn decode(&self, bytes: &[u8], profile: &HardwareProfile) -> Result<Decoded> {
        self.0.decode(bytes, profile)
    }
}

pub(crate) fn make(name: &str) -> Option<Box<dyn Backend>> {
    registry()
        .iter()
        .find(|l| l.backend.name() == name)
        .map(|l| Box::new(Shared(l.backend.clone())) as Box<dyn Backend>)
}

pub(crate) fn listings() -> Vec<BackendListing> {
    let mut v: Vec<BackendListing> = registry()
        .iter()
        .map(|l| BackendListing {
            name: l.backend.name().into(),
            summary: l.backend.summary().into(),
            provider: l.path.display().to_string(),
        })
        .collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// Loads the backend plugin at `path`; returns the names of its backends.
/// Loading the same file twice returns its names again.
pub fn load(path: &Path) -> Result<Vec<String>> {
    static LOADING: Mutex<()> = Mutex::new(());
    let _serial = LOADING.lock().unwrap_or_else(|e| e.into_inner());
    let same: Vec<String> = registry()
        .iter()
        .filter(|l| same_file(&l.path, path))
        .map(|l| l.backend.name().to_string())
        .collect();
    if !same.is_empty() {
        return Ok(same);
    }
    let tag = abi_tag().to_str().expect("ASCII tag");
    let lib = pliant_core::plugin::open_checked(path, ABI_SYMBOL, tag).map_err(|e| match e {
        pliant_core::plugin::PluginError::MissingEntryPoint { path, symbol } => {
            HardwareError::NotABackendPlugin { path, symbol }
        }
        e => e.into(),
    })?;
    // From here on the library's code has run: it stays loaded whatever
    // happens (unloading code that registered things is never safe).
    let lib = std::mem::ManuallyDrop::new(lib);
    let mut reg = BackendRegistrar::default();
    let code = {
        // SAFETY: the tag matched: same compiler, pliant-core and
        // pliant-hardware on both sides, so `BackendRegistrar` agrees.
        let f = unsafe {
            lib.get::<unsafe extern "C" fn(*mut BackendRegistrar) -> i32>(REGISTER_SYMBOL)
        }
        .map_err(|_| HardwareError::NotABackendPlugin {
            path: path.to_path_buf(),
            symbol: String::from_utf8_lossy(REGISTER_SYMBOL).into(),
        })?;
        // SAFETY: as above; the entry point catches panics (export_backends!).
        unsafe { f(&mut reg) }
    };
    if code != 0 || reg.error.is_some() {
        return Err(pliant_core::plugin::PluginError::Registration {
            path: path.to_path_buf(),
            message: reg
                .error
                .unwrap_or_else(|| format!("entry point returned {code}")),
        }
        .into());
    }
    let builtin: Vec<String> = inventory::iter::<crate::backend::BackendFactory>
        .into_iter()
        .map(|f| (f.0)().name().to_string())
        .collect();
    let mut map = registry();
    for (i, b) in reg.entries.iter().enumerate() {
        let name = b.name();
        let existing = if builtin.iter().any(|n| n == name) {
            Some("a built-in backend".to_string())
        } else if let Some(l) = map.iter().find(|l| l.backend.name() == name) {
            Some(l.path.display().to_string())
        } else if reg.entries[..i].iter().any(|o| o.name() == name) {
            Some("the same plugin twice".to_string())
        } else {
            None
        };
        if let Some(existing) = existing {
            return Err(HardwareError::DuplicateBackend {
                path: path.to_path_buf(),
                name: name.into(),
                existing,
            });
        }
    }
    let names = reg.entries.iter().map(|b| b.name().to_string()).collect();
    for b in reg.entries {
        map.push(Loaded {
            backend: Arc::from(b),
            path: path.to_path_buf(),
        });
    }
    // Never unloaded (ManuallyDrop above): the backends' code lives in it.
    log::info!("loaded backend plugin {}", path.display());
    Ok(names)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_tag_extends_the_core_tag() {
        let t = super::abi_tag().to_str().unwrap();
        assert!(t.starts_with(pliant_core::plugin::abi_tag()));
        assert!(t.contains("pliant-hardware "));
    }
}
