//! The six widgets: Little's law and the limit, then one per experiment of
//! the core's registry (`EXPERIMENTS`), in article order.

mod experiment;
mod littles;
mod shell;

use bplab_core::EXPERIMENTS;
use bplab_core::calc::CALC_PARAMS;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

use crate::question::{self, Found};
use crate::url_state::{self, Query};

/// What every widget gets besides its parameters: the question asked of it
/// (`q=<id>`) and whether its explanation starts open.
pub struct Extras {
    /// The question, if the query asks for one.
    pub question: Found,
    /// The explanation panel starts open: only when the query asks
    /// (`<widget>.explain=open`, or `explain=open` in its embed). Closed, a
    /// panel is one click away and an experiment's is filled only when it
    /// opens: at first load the page neither writes nor lays out nine
    /// explanations nobody has asked for yet (`docs/performance.md`).
    pub explain_open: bool,
}

/// The URL/CLI names of widget `name`'s parameters.
fn param_names(name: &str) -> Vec<&'static str> {
    if name == littles::NAME {
        return CALC_PARAMS.iter().map(|p| p.spec.name).collect();
    }
    EXPERIMENTS.iter().find(|e| e.name == name).map_or_else(Vec::new, |e| e.params.iter().map(|s| s.name).collect())
}

pub use experiment::csv_files;
pub use littles::{NAME as LITTLES, check as littles_check, keys as littles_keys};

/// Widget names, in page order.
pub fn names() -> impl Iterator<Item = &'static str> {
    std::iter::once(littles::NAME).chain(EXPERIMENTS.iter().map(|e| e.name))
}

/// Widget `name`'s title (its heading), or its name if it has none.
pub fn title(name: &'static str) -> &'static str {
    if name == littles::NAME {
        return littles::TITLE;
    }
    EXPERIMENTS.iter().find(|e| e.name == name).map_or(name, |e| e.title)
}

/// Builds widget `name` under `parent`; `false` if no widget has that name.
pub fn mount(doc: &Document, parent: &Element, name: &str, q: &Query) -> Result<bool, JsValue> {
    let question = question::find(name, &param_names(name), q);
    let q = starting(name, q, &question);
    let explain = q.get(name, "explain");
    if explain == Some("open") {
        url_state::keep(name, "explain", "open");
    }
    let extras = Extras { question, explain_open: explain == Some("open") };
    if name == littles::NAME {
        littles::mount(doc, parent, &q, extras)?;
        return Ok(true);
    }
    match EXPERIMENTS.iter().find(|e| e.name == name) {
        Some(e) => experiment::mount(doc, parent, e, &q, extras).map(|()| true),
        None => Ok(false),
    }
}

/// Counts widget `name`'s question, if it has one, among the page's for the
/// LMS before the widget is built: a score is out of every question on the
/// page, built or not.
pub fn count_question(name: &str, q: &Query) {
    if let (Some(Ok(x)), _) = question::lookup(name, &param_names(name), q) {
        question::scorm::register(&format!("{name}:{}", x.id));
    }
}

/// Asks the worker now for the first run widget `name` will show (see
/// [`experiment::prefetch`]), from its question's parameters if it has one
/// (looked up, not kept: [`mount`] keeps it); nothing for Little's law
/// (computed where it is drawn).
pub fn prefetch(name: &str, q: &Query) {
    if let Some(e) = EXPERIMENTS.iter().find(|e| e.name == name) {
        let (question, _) = question::lookup(name, &param_names(name), q);
        experiment::prefetch(e, &starting(name, q, &question));
    }
}

/// The state widget `name` starts from: a question's `params`, then the URL's values, which win.
fn starting(name: &str, q: &Query, question: &Found) -> Query {
    match question {
        Some(Ok(x)) => q.with_defaults(name, &x.params),
        _ => q.clone(),
    }
}

/// Forgets the widgets of a previous mount (tests mount several pages).
pub fn clear() {
    experiment::clear();
}
