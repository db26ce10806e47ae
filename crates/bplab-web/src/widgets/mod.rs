//! The six widgets: Little's law and the limit, then one per experiment of
//! the core's registry (`EXPERIMENTS`), in article order.

mod experiment;
mod kinds;
mod littles;
mod shell;

use bplab_core::EXPERIMENTS;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

use crate::url_state::Query;

pub use experiment::csv_files;

/// Widget names, in page order.
pub fn names() -> impl Iterator<Item = &'static str> {
    std::iter::once(littles::NAME).chain(EXPERIMENTS.iter().map(|e| e.name))
}

/// Builds widget `name` under `parent`; `false` if no widget has that name.
pub fn mount(doc: &Document, parent: &Element, name: &str, q: &Query) -> Result<bool, JsValue> {
    if name == littles::NAME {
        littles::mount(doc, parent, q)?;
        return Ok(true);
    }
    match EXPERIMENTS.iter().find(|e| e.name == name) {
        Some(e) => experiment::mount(doc, parent, e, q).map(|()| true),
        None => Ok(false),
    }
}

/// Forgets the widgets of a previous mount (tests mount several pages).
pub fn clear() {
    experiment::clear();
}
