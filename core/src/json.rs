//! Reading a JSON document into a typed value with the path of the field
//! at fault (`energies[1].stiffness`), the way every pliant file (scenes,
//! gait, rollout and sweep specs) is read.

use serde::de::DeserializeOwned;

/// Why a document did not parse: the field's path (empty for the document
/// itself) and what was wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonFieldError {
    /// The field path (`controls[0].channel`), empty for the document.
    pub field: String,
    /// What was wrong.
    pub message: String,
}

/// Parses `text` as a `T`; text after the document is an error too
/// ("unexpected text after the {what}").
///
/// ```
/// #[derive(Debug, serde::Deserialize)]
/// struct Spec { steps: usize }
/// let e = pliant_core::json::from_str::<Spec>(r#"{"steps": "many"}"#, "spec").unwrap_err();
/// assert_eq!(e.field, "steps");
/// ```
pub fn from_str<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, JsonFieldError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value: T = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        JsonFieldError {
            field: if path == "." { String::new() } else { path },
            message: e.into_inner().to_string(),
        }
    })?;
    de.end().map_err(|e| JsonFieldError {
        field: String::new(),
        message: format!("unexpected text after the {what}: {e}"),
    })?;
    Ok(value)
}
