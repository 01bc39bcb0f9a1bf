//! The list of energy types a scene may name.
//!
//! Built-in energies deserialize through typetag (`"type": "<name>"`), whose
//! table cannot be listed; each energy crate therefore also submits an
//! [`EnergyInfo`] with [`register_energy!`](crate::register_energy), carrying
//! its name, a one-line summary and a minimal JSON example. A test checks that
//! every listed example deserializes to an energy of that name, which keeps
//! the two tables in step.

/// Description of one registered energy type.
#[derive(Debug)]
pub struct EnergyInfo {
    /// The `"type"` tag used in scene files.
    pub name: &'static str,
    /// One line: what it models, with units of its fields.
    pub summary: &'static str,
    /// A minimal JSON object that deserializes to this energy.
    pub example: &'static str,
    /// Crate that provides it.
    pub provider: &'static str,
}

inventory::collect!(EnergyInfo);

/// Registers an energy type in the list (`name`, `summary`, `example` JSON).
#[macro_export]
macro_rules! register_energy {
    ($name:expr, $summary:expr, $example:expr $(,)?) => {
        $crate::inventory::submit! {
            $crate::registry::EnergyInfo {
                name: $name,
                summary: $summary,
                example: $example,
                provider: env!("CARGO_PKG_NAME"),
            }
        }
    };
}

/// Every registered energy type, sorted by name.
pub fn energies() -> Vec<&'static EnergyInfo> {
    let mut v: Vec<_> = inventory::iter::<EnergyInfo>.into_iter().collect();
    v.sort_by_key(|e| e.name);
    v
}
