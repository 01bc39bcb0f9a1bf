//! The plugin ABI: the tag both sides compare before anything else, and the
//! entry points a plugin library exports.
//!
//! A plugin exports two symbols ([`export_plugin!`](crate::export_plugin)
//! writes both):
//! - `pliant_plugin_abi`: `extern "C" fn() -> *const c_char`, a NUL-terminated
//!   tag naming the plugin ABI revision, the pliant-core version and source
//!   hash, the rustc version, the target and the panic strategy
//!   ([`abi_tag`]). The host reads it through the C ABI only, and refuses the
//!   library unless it equals its own.
//! - `pliant_plugin_register`: `extern "C" fn(*mut Registrar) -> i32`, called
//!   only after the tag matched. Because both sides were then built by the
//!   same compiler from the same pliant-core, Rust types (`Box<dyn
//!   EnergySpec>`, `&str`, `Result`) may cross: their layouts and vtables
//!   agree. Host and plugin must use the default global allocator.

use super::guard::GuardFn;
use crate::registry::EnergyInfo;

/// Revision of the plugin calling convention (bump on any change to it).
pub const ABI_REVISION: u32 = 4;

/// The tag both sides must agree on, NUL-terminated: ABI revision,
/// pliant-core version and source hash, rustc version, target, panic strategy.
pub const ABI_TAG: &str = concat!(
    "pliant-plugin-abi 4; pliant-core ",
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

/// What a plugin hands to the host while registering: its energy types and
/// the (plugin-side) function that builds them without letting a panic
/// cross into the host.
#[derive(Debug, Default)]
pub struct Registrar {
    pub(crate) entries: Vec<(&'static EnergyInfo, GuardFn)>,
    /// Set by the entry point when registration panicked or failed.
    pub error: Option<String>,
}

impl Registrar {
    /// Registers an energy type described by `info`, built through `guard`.
    pub fn register(&mut self, info: &'static EnergyInfo, guard: GuardFn) {
        self.entries.push((info, guard));
    }
}

/// Registers a plugin library's energy types and exports its entry points,
/// in [`register_energy!`](crate::register_energy)'s syntax with one entry
/// per type (`elements` for an element type, `spec` for a spec type):
///
/// ```ignore
/// pliant_core::export_plugin! {
///     elements DeaSpring = "dea_spring", "summary", r#"{...}"#;
/// }
/// ```
///
/// The types are handed to the host when the library is loaded (they are
/// not added to any link-time list, so a host that also links the crate as
/// a library does not see them twice).
#[macro_export]
macro_rules! export_plugin {
    ($($kind:ident $ty:ty = $name:literal, $summary:expr, $example:expr);+ $(;)?) => {
        $(
            $crate::export_plugin!(@registered $kind $ty, $name, $summary, $example);
        )+

        /// The plugin ABI tag (see `pliant_core::plugin`).
        #[unsafe(no_mangle)]
        pub extern "C" fn pliant_plugin_abi() -> *const ::std::ffi::c_char {
            $crate::plugin::ABI_TAG.as_ptr().cast()
        }

        /// Registers this plugin's energies with the host.
        ///
        /// # Safety
        /// Called by the pliant host only after the ABI tag matched, with a
        /// valid, exclusive pointer.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn pliant_plugin_register(reg: *mut $crate::plugin::Registrar) -> i32 {
            let result = ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| {
                // SAFETY: the host passes a valid, exclusive pointer.
                let reg = unsafe { &mut *reg };
                $(
                    reg.register(
                        {
                            static INFO: $crate::registry::EnergyInfo =
                                $crate::registry::EnergyInfo::of::<$ty>(env!("CARGO_PKG_NAME"));
                            &INFO
                        },
                        $crate::plugin::guarded_construct,
                    );
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
    (@registered elements $ty:ty, $name:literal, $summary:expr, $example:expr) => {
        $crate::register_energy!(@registered $ty, $crate::ElementList<$ty>, $name, $summary, $example);
    };
    (@registered spec $ty:ty, $name:literal, $summary:expr, $example:expr) => {
        $crate::register_energy!(@registered $ty, $ty, $name, $summary, $example);
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
