//! The scene form of an energy whose elements are its scene data:
//! `{"type": "muscle", "elements": [...]}`.

use super::{Element, Elements};
use crate::energy::Energy;
use crate::error::Result;
use crate::geometry::Drawing;
use crate::registry::Registered;
use crate::spec::{BindInfo, EnergySpec};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A list of elements as written in a scene; binds into [`Elements`]. Its
/// scene name is the one the element type was registered under
/// ([`register_energy!`](crate::register_energy)`(elements T = "name", …)`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(bound(serialize = "E: Serialize", deserialize = "E: Deserialize<'de>"))]
pub struct ElementList<E> {
    /// The elements.
    pub elements: Vec<E>,
}

impl<E> ElementList<E> {
    /// Wraps elements.
    pub fn new(elements: Vec<E>) -> Self {
        Self { elements }
    }
}

impl<E> EnergySpec for ElementList<E>
where
    E: Element + Registered + Clone + std::fmt::Debug + Serialize + DeserializeOwned,
{
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let set = Elements::bind(self.elements.clone(), info, "elements")?;
        Ok(Box::new(match E::CELL {
            Some(kind) => set.drawn_as(Drawing::Elements {
                name: E::NAME.to_string(),
                kind,
                measures: None,
            }),
            None => set,
        }))
    }
}
