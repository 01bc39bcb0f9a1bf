//! Export backends, registered by name like energies: built-in ones at link
//! time ([`register_backend!`](crate::register_backend)), others from a
//! runtime plugin ([`crate::plugin`]).
//!
//! A backend writes a [`CommandTable`] in its format and decodes what it
//! wrote (every backend is round-trip tested: decode, map back through the
//! profile, recover the controls within one quantization step).
//!
//! ```
//! use pliant_hardware::{Backend, CommandTable, Decoded, HardwareProfile, Result};
//! use std::io::Write;
//!
//! /// One line per sample: the commands separated by spaces.
//! #[derive(Default)]
//! struct Lines;
//! impl Backend for Lines {
//!     fn name(&self) -> &str { "lines" }
//!     fn summary(&self) -> &str { "whitespace-separated commands, one sample per line" }
//!     fn extension(&self) -> &str { "txt" }
//!     fn write(&self, t: &CommandTable, w: &mut dyn Write) -> Result<()> {
//!         for i in 0..t.samples {
//!             let row: Vec<String> = t.channels.iter().map(|c| c.device[i].to_string()).collect();
//!             writeln!(w, "{}", row.join(" ")).map_err(pliant_hardware::HardwareError::from_io)?;
//!         }
//!         Ok(())
//!     }
//!     fn decode(&self, bytes: &[u8], _: &HardwareProfile) -> Result<Decoded> {
//!         Decoded::unsupported(self.name())
//!     }
//! }
//! pliant_hardware::register_backend!(Lines);
//! assert!(pliant_hardware::backend("lines").is_ok());
//! ```

use crate::error::{HardwareError, Result};
use crate::profile::HardwareProfile;
use crate::table::CommandTable;
use std::io::Write;
use std::path::Path;

/// An export format or sink.
pub trait Backend: Send + Sync {
    /// Name, as `--backend` takes it.
    fn name(&self) -> &str;
    /// One line for `pliant export --list`.
    fn summary(&self) -> &str;
    /// File extension of its output (without the dot).
    fn extension(&self) -> &str;
    /// Checks that the backend can drive every channel of `table` (and its
    /// link can carry it) before anything is written.
    fn check(&self, _table: &CommandTable) -> Result<()> {
        Ok(())
    }
    /// Writes `table` to `w`.
    fn write(&self, table: &CommandTable, w: &mut dyn Write) -> Result<()>;
    /// Sends `table` to `target`: by default writes a file there. Streaming
    /// backends (serial) open the device instead.
    fn deliver(&self, table: &CommandTable, target: &Path) -> Result<()> {
        self.check(table)?;
        let file = std::fs::File::create(target).map_err(HardwareError::io(target))?;
        let mut w = std::io::BufWriter::new(file);
        self.write(table, &mut w)?;
        w.flush().map_err(HardwareError::io(target))
    }
    /// Whether [`Backend::deliver`] streams to a device (its target is a
    /// port, not a file: the plot goes into the run directory instead).
    fn streams(&self) -> bool {
        false
    }
    /// Reads back what [`Backend::write`] wrote, in device units.
    fn decode(&self, bytes: &[u8], profile: &HardwareProfile) -> Result<Decoded>;
}

/// Commands read back from a backend's output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decoded {
    /// The rate, Hz, if the format records it.
    pub rate_hz: Option<f64>,
    /// Device commands per channel, by channel name.
    pub channels: Vec<(String, Vec<f64>)>,
}

impl Decoded {
    /// The error a backend without a decoder returns.
    pub fn unsupported(backend: &str) -> Result<Self> {
        Err(HardwareError::decode(
            backend,
            "this backend has no decoder",
        ))
    }
    /// The commands of `channel`.
    pub fn channel(&self, channel: &str) -> Option<&[f64]> {
        self.channels
            .iter()
            .find(|(n, _)| n == channel)
            .map(|(_, v)| v.as_slice())
    }
}

impl HardwareError {
    /// An I/O error while writing to a stream that has no path (a
    /// backend's `write`).
    pub fn from_io(e: std::io::Error) -> Self {
        HardwareError::Io {
            path: "<output>".into(),
            source: e,
        }
    }
}

/// A link-time registration: builds the backend.
#[doc(hidden)]
pub struct BackendFactory(pub fn() -> Box<dyn Backend>);

inventory::collect!(BackendFactory);

/// Registers a backend type (a unit struct or a `Default` type) by the name
/// its [`Backend::name`] returns.
#[macro_export]
macro_rules! register_backend {
    ($ty:ty) => {
        $crate::inventory::submit! {
            $crate::BackendFactory(|| ::std::boxed::Box::new(<$ty as ::std::default::Default>::default()))
        }
    };
}

/// One registered backend, as listed by [`backends`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendListing {
    /// Name.
    pub name: String,
    /// One-line summary.
    pub summary: String,
    /// Where it comes from: `built-in` or the plugin library's path.
    pub provider: String,
}

/// Every backend, built-in first, then those loaded from plugins; sorted by
/// name within each.
pub fn backends() -> Vec<BackendListing> {
    let mut builtin: Vec<BackendListing> = inventory::iter::<BackendFactory>
        .into_iter()
        .map(|f| {
            let b = (f.0)();
            BackendListing {
                name: b.name().into(),
                summary: b.summary().into(),
                provider: "built-in".into(),
            }
        })
        .collect();
    builtin.sort_by(|a, b| a.name.cmp(&b.name));
    builtin.extend(crate::plugin::listings());
    builtin
}

/// The backend named `name`.
pub fn backend(name: &str) -> Result<Box<dyn Backend>> {
    for f in inventory::iter::<BackendFactory> {
        let b = (f.0)();
        if b.name() == name {
            return Ok(b);
        }
    }
    if let Some(b) = crate::plugin::make(name) {
        return Ok(b);
    }
    Err(HardwareError::UnknownBackend {
        name: name.into(),
        known: backends().into_iter().map(|b| b.name).collect(),
    })
}
