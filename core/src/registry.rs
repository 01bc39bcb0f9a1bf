//! The energy types a scene may name, in one table.
//!
//! [`register_energy!`](crate::register_energy) names a type once: it
//! implements [`Registered`] (name, summary, example) and submits an
//! [`EnergyInfo`] to a link-time list of built-in energies. Runtime plugins
//! hand their own lists to the host when they are loaded
//! ([`crate::plugin`]). A scene's `"type"` is looked up among the runtime
//! energies first, then among the built-ins ([`spec_from_json`]); the same
//! lookup deserializes `Box<dyn EnergySpec>` anywhere.

use crate::element::ElementList;
use crate::error::{CoreError, Result};
use crate::spec::{EnergySpec, Named};
use serde::de::DeserializeOwned;

/// An energy type registered under a scene name.
pub trait Registered: 'static {
    /// The `"type"` in scene files.
    const NAME: &'static str;
    /// One line: what it models, with units of its fields.
    const SUMMARY: &'static str;
    /// A minimal JSON object that deserializes to this energy.
    const EXAMPLE: &'static str;
    /// The scene form: the type itself for a spec, [`ElementList`] for an
    /// element type.
    type Spec: EnergySpec + DeserializeOwned;
}

impl<T: Registered> Named for T {
    fn type_name(&self) -> &'static str {
        T::NAME
    }
}

impl<E: Registered> Named for ElementList<E> {
    fn type_name(&self) -> &'static str {
        E::NAME
    }
}

/// Why an energy's JSON did not make an energy: the field path inside the
/// energy's object (empty for the object itself) and serde's message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{message}", if field.is_empty() { String::new() } else { format!("at `{field}`: ") })]
pub struct SpecError {
    /// Path of the offending field inside the energy (`springs[3].nodes`).
    pub field: String,
    /// What was wrong.
    pub message: String,
}

/// Builds a spec from its JSON text (the whole object, `"type"` included).
pub type Constructor = fn(&str) -> std::result::Result<Box<dyn EnergySpec>, SpecError>;

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
    /// Deserializes the spec.
    pub construct: Constructor,
}

inventory::collect!(EnergyInfo);

/// Deserializes `T::Spec` from the JSON text of an energy object (its
/// `"type"` is ignored), with the path of a failing field.
pub fn construct<T: Registered>(json: &str) -> std::result::Result<Box<dyn EnergySpec>, SpecError> {
    let mut v: serde_json::Value = serde_json::from_str(json).map_err(|e| SpecError {
        field: String::new(),
        message: e.to_string(),
    })?;
    if let Some(m) = v.as_object_mut() {
        m.remove("type");
    }
    serde_path_to_error::deserialize::<_, T::Spec>(v)
        .map(|s| Box::new(s) as Box<dyn EnergySpec>)
        .map_err(|e| {
            let path = e.path().to_string();
            SpecError {
                field: if path == "." { String::new() } else { path },
                message: e.into_inner().to_string(),
            }
        })
}

/// Registers an energy type of a built-in crate under its scene name:
/// implements [`Registered`] (the name is written only here) and adds the
/// type to the link-time list scene files are read with.
///
/// ```ignore
/// // A spec type (implements EnergySpec, Serialize, Deserialize):
/// pliant_core::register_energy!(Springs = "spring", "summary", r#"{"type": "spring", ...}"#);
/// // An element type whose scene form is {"type": "muscle", "elements": [...]}:
/// pliant_core::register_energy!(elements Muscle = "muscle", "summary", r#"{...}"#);
/// ```
///
/// A runtime plugin library registers its types with
/// [`export_plugin!`](crate::export_plugin) instead, in the same syntax.
#[macro_export]
macro_rules! register_energy {
    (elements $ty:ty = $name:literal, $summary:expr, $example:expr $(,)?) => {
        $crate::register_energy!(@registered $ty, $crate::ElementList<$ty>, $name, $summary, $example);
        $crate::register_energy!(@submit $ty, $name, $summary, $example);
    };
    ($ty:ty = $name:literal, $summary:expr, $example:expr $(,)?) => {
        $crate::register_energy!(@registered $ty, $ty, $name, $summary, $example);
        $crate::register_energy!(@submit $ty, $name, $summary, $example);
    };
    (@registered $ty:ty, $spec:ty, $name:literal, $summary:expr, $example:expr) => {
        impl $crate::registry::Registered for $ty {
            const NAME: &'static str = $name;
            const SUMMARY: &'static str = $summary;
            const EXAMPLE: &'static str = $example;
            type Spec = $spec;
        }
    };
    (@submit $ty:ty, $name:literal, $summary:expr, $example:expr) => {
        $crate::inventory::submit! {
            $crate::registry::EnergyInfo::of::<$ty>(env!("CARGO_PKG_NAME"))
        }
    };
}

impl EnergyInfo {
    /// The description of the registered type `T`, provided by crate `provider`.
    pub const fn of<T: Registered>(provider: &'static str) -> Self {
        Self {
            name: T::NAME,
            summary: T::SUMMARY,
            example: T::EXAMPLE,
            provider,
            construct: construct::<T>,
        }
    }
}

/// Every built-in energy type, sorted by name.
pub fn builtin() -> Vec<&'static EnergyInfo> {
    let mut v: Vec<_> = inventory::iter::<EnergyInfo>.into_iter().collect();
    v.sort_by_key(|e| e.name);
    v
}

/// Every energy type a scene may name now: the built-ins and those of the
/// loaded plugins, as `(name, summary, provider)`, sorted by name.
pub fn all() -> Vec<(String, String, String)> {
    let mut v: Vec<_> = builtin()
        .into_iter()
        .map(|e| (e.name.into(), e.summary.into(), e.provider.into()))
        .chain(
            crate::plugin::runtime_energies()
                .into_iter()
                .map(|r| (r.name, r.summary, r.library.display().to_string())),
        )
        .collect();
    v.sort();
    v
}

/// The spec a scene's energy object describes: a runtime (plugin) energy of
/// that `"type"` if one is loaded, otherwise a built-in one. `field` is the
/// object's path in the scene (`energies[1]`), which errors extend.
pub fn spec_from_json(
    v: &serde_json::Value,
    origin: &str,
    field: &str,
) -> Result<Box<dyn EnergySpec>> {
    let scene_err = |inner: String, message: String| CoreError::Scene {
        path: origin.to_string(),
        field: inner,
        message,
    };
    let name = v.get("type").and_then(|t| t.as_str()).ok_or_else(|| {
        scene_err(
            field.to_string(),
            "missing string field `type` naming the energy".into(),
        )
    })?;
    let json = v.to_string();
    let built = match crate::plugin::construct(name, &json) {
        Some(r) => r,
        None => match builtin().into_iter().find(|e| e.name == name) {
            Some(info) => (info.construct)(&json),
            None => {
                return Err(scene_err(
                    join(field, "type"),
                    format!(
                        "unknown energy type `{name}` (known: {})",
                        all()
                            .into_iter()
                            .map(|e| e.0)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        },
    };
    built.map_err(|e| scene_err(join(field, &e.field), e.message))
}

/// `a.b`, or whichever of them is not empty.
pub(crate) fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ if b.starts_with('[') => format!("{a}{b}"),
        _ => format!("{a}.{b}"),
    }
}

impl<'de> serde::Deserialize<'de> for Box<dyn EnergySpec> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        spec_from_json(&v, "<memory>", "").map_err(serde::de::Error::custom)
    }
}
