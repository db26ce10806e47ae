//! # bplab-web
//!
//! The browser lab: live widgets (Little's law and the limit, then one per
//! experiment of the core's registry) wired to the wasm core. The core
//! computes and validates, `bplab-charts` draws on a canvas backend, this
//! crate only wires: DOM built from `EXPERIMENTS` and each experiment's
//! parameter specs, the state in
//! the URL query, CSV and PNG downloads, inline messages for refused values.
//! Runs and sweeps are computed in a Web Worker holding the same wasm
//! (`worker`), or on the main thread where workers are unavailable.
//!
//! The page root is `<main id="bplab">`; `?embed=<widget>` renders one
//! widget alone, sized for an iframe. Without the root (e.g. under
//! wasm-bindgen-test) the start function does nothing.
#![warn(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod api;
mod builder;
mod canvas;
mod chart;
mod control;
mod dom;
mod download;
mod embed;
mod explain;
pub mod proof;
pub mod question;
mod ranges;
mod url_state;
mod widgets;
mod worker;

use wasm_bindgen::prelude::*;
use web_sys::Element;

use crate::dom::{add, el, text_el};
use crate::url_state::Query;

pub use widgets::csv_files;
pub use worker::View;

/// The query string of the page's current state (what the address bar gets).
pub fn query_now() -> String {
    url_state::query_now()
}

/// Id of the element the page is mounted into.
pub const ROOT_ID: &str = "bplab";

fn install_panic_hook() {
    // No input path panics by design; if one ever does, say so in the console.
    std::panic::set_hook(Box::new(|info| dom::log_error(&format!("bplab-web panicked: {info}"))));
}

/// Entry point: mounts the page into `#bplab` with the state from the URL,
/// or does nothing when that element is absent.
#[wasm_bindgen(start)]
pub fn start() {
    install_panic_hook();
    let Some(root) = dom::document().and_then(|d| d.get_element_by_id(ROOT_ID)) else { return };
    let mut search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    // Questions at run time: the page's own block (and the LMS, if any) before mounting.
    if let Some(doc) = dom::document() {
        question::read_block(&doc);
    }
    question::scorm::start();
    if let Some(w) = question::block_embed().filter(|_| Query::parse(&search).embed.is_none()) {
        search = format!("{search}{}embed={w}", if search.len() > 1 { "&" } else { "?" });
    }
    if builder::wanted(&search) {
        if let Err(e) = builder::start(&root) {
            dom::log_error(&format!("bplab-web could not build the lesson builder: {e:?}"));
        }
        return;
    }
    let t0 = worker::now();
    if let Err(e) = mount_page(&root, &search) {
        dom::log_error(&format!("bplab-web could not build the page: {e:?}"));
    }
    worker::measure("bplab:mount", t0);
    question::scorm::mounted();
}

/// Builds the page (or, with `embed=<widget>` in `search`, that widget alone)
/// under `root`, replacing what was there.
pub fn mount_page(root: &Element, search: &str) -> Result<(), JsValue> {
    let doc = dom::document().ok_or_else(|| JsValue::from_str("no document"))?;
    dom::clear_listeners();
    widgets::clear();
    url_state::clear();
    root.set_text_content(None);
    question::show_block_error(&doc, root)?;
    let q = Query::parse(search);
    let body = doc.body();
    let embed = q.embed.as_deref().filter(|n| widgets::names().any(|w| w == *n));
    if let Some(name) = embed {
        if let Some(b) = &body {
            b.class_list().add_1("embed")?;
        }
        url_state::set_embed(Some(name));
        widgets::mount(&doc, root, name, &q)?;
        embed::post_height(name);
    } else {
        if let Some(b) = &body {
            b.class_list().remove_1("embed")?;
        }
        if let Some(bad) = &q.embed {
            let known = widgets::names().collect::<Vec<_>>().join(", ");
            let msg = format!("embed: unknown widget '{bad}'; expected one of: {known}. Showing the whole lab.");
            add(root, text_el(&doc, "p", &[("class", "msg"), ("role", "alert")], &msg)?)?;
        }
        let nav = add(root, el(&doc, "nav", &[("aria-label", "Widgets"), ("class", "toc")])?)?;
        let ul = add(&nav, el(&doc, "ul", &[])?)?;
        let mount_at = add(root, el(&doc, "div", &[("class", "widgets")])?)?;
        for name in widgets::names() {
            if widgets::mount(&doc, &mount_at, name, &q)? {
                let title = doc
                    .get_element_by_id(&format!("{name}-title"))
                    .and_then(|h| h.text_content())
                    .unwrap_or_else(|| name.to_owned());
                let li = add(&ul, el(&doc, "li", &[])?)?;
                add(&li, text_el(&doc, "a", &[("href", &format!("#w-{name}"))], &title)?)?;
            }
        }
    }
    url_state::refresh_links();
    describe_page(&doc);
    Ok(())
}

/// The page's meta description, from the registry: how many widgets and their titles.
pub fn description() -> String {
    let titles: Vec<&str> =
        std::iter::once("Little's law and the limit").chain(bplab_core::EXPERIMENTS.iter().map(|e| e.title)).collect();
    format!(
        "{} live widgets on backpressure, computed in your browser by the same models as the articles' CSVs: {}.",
        titles.len(),
        titles.join("; ")
    )
}

fn describe_page(doc: &web_sys::Document) {
    if let Ok(Some(m)) = doc.query_selector("meta[name=description]") {
        let _ = m.set_attribute("content", &description());
    }
}

/// How many event listeners the mounted page holds (a re-mount must not grow it).
#[doc(hidden)]
pub fn listener_count() -> usize {
    dom::listener_count()
}
