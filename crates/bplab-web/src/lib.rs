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

use std::rc::Rc;

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
    // The workers boot (and compile nothing: they get this page's module)
    // while the widgets are built; an embed's one widget needs one.
    worker::warm(if embedded(&Query::parse(&search)).is_some() { 1 } else { widgets::names().count() });
    let t0 = worker::now();
    match Mount::prepare(&root, &search) {
        Ok(m) => m.staged(t0),
        Err(e) => dom::log_error(&format!("bplab-web could not build the page: {e:?}")),
    }
}

/// The widget `q` embeds alone, if it names one (an unknown name shows the whole lab).
fn embedded(q: &Query) -> Option<&'static str> {
    q.embed.as_deref().and_then(|n| widgets::names().find(|w| *w == n))
}

/// A page being mounted: the widgets go under `at`, their links into `toc`.
struct Mount {
    doc: web_sys::Document,
    root: Element,
    q: Query,
    /// The one widget of an embed.
    embed: Option<&'static str>,
    at: Element,
    toc: Option<Element>,
    /// Where `toc` goes once every link is in it.
    nav: Option<Element>,
}

impl Mount {
    /// Clears `root` and builds what comes before the widgets.
    fn prepare(root: &Element, search: &str) -> Result<Mount, JsValue> {
        let doc = dom::document().ok_or_else(|| JsValue::from_str("no document"))?;
        dom::clear_listeners();
        widgets::clear();
        worker::forget_early();
        chart::clear();
        url_state::clear();
        root.set_text_content(None);
        question::show_block_error(&doc, root)?;
        let q = Query::parse(search);
        let body = doc.body();
        let embed = embedded(&q);
        if let Some(name) = embed {
            if let Some(b) = &body {
                b.class_list().add_1("embed")?;
            }
            url_state::set_embed(Some(name));
            return Ok(Mount { doc, root: root.clone(), q, embed, at: root.clone(), toc: None, nav: None });
        }
        if let Some(b) = &body {
            b.class_list().remove_1("embed")?;
        }
        if let Some(bad) = &q.embed {
            let known = widgets::names().collect::<Vec<_>>().join(", ");
            let msg = format!("embed: unknown widget '{bad}'; expected one of: {known}. Showing the whole lab.");
            add(root, text_el(&doc, "p", &[("class", "msg"), ("role", "alert")], &msg)?)?;
        }
        let nav = add(root, el(&doc, "nav", &[("aria-label", "Widgets"), ("class", "toc")])?)?;
        // Filled while detached and put in place by `finish`: a list that grew
        // one link per mount task would need a layout and a paint in every
        // frame that falls between two of those tasks.
        let toc = Some(el(&doc, "ul", &[])?);
        let at = add(root, el(&doc, "div", &[("class", "widgets")])?)?;
        Ok(Mount { doc, root: root.clone(), q, embed, at, toc, nav: Some(nav) })
    }

    /// The widgets to mount, in page order.
    fn names(&self) -> Vec<&'static str> {
        match self.embed {
            Some(name) => vec![name],
            None => widgets::names().collect(),
        }
    }

    /// Builds widget `name` (and its link in the table of contents).
    fn one(&self, name: &str) -> Result<(), JsValue> {
        if widgets::mount(&self.doc, &self.at, name, &self.q)?
            && let Some(ul) = &self.toc
        {
            // Found under `at`: it may not be in the document yet (`staged`).
            let title = (self.at.query_selector(&format!("#{name}-title")).ok().flatten())
                .and_then(|h| h.text_content())
                .unwrap_or_else(|| name.to_owned());
            let li = add(ul, el(&self.doc, "li", &[])?)?;
            add(&li, text_el(&self.doc, "a", &[("href", &format!("#w-{name}"))], &title)?)?;
        }
        Ok(())
    }

    /// After the last widget: links, the description, the embed's height.
    fn finish(&self) {
        if let (Some(nav), Some(ul)) = (&self.nav, &self.toc) {
            let _ = nav.append_child(ul);
        }
        url_state::refresh_links();
        describe_page(&self.doc);
        if let Some(name) = self.embed {
            embed::post_height(name);
        }
    }

    /// Mounts one widget per task, so that no task builds the whole page;
    /// the worker computes the first widgets' answers while the others are
    /// built. The widgets are laid out, and their answers drawn, once the
    /// last one is there (the root is `aria-busy` until then).
    fn staged(self, t0: f64) {
        let _ = self.root.set_attribute("aria-busy", "true");
        dom::hold_frames(true);
        // Not laid out until the last widget is there: one layout of the
        // whole page, not one per widget built. The page's widgets are built
        // out of the document altogether: Chrome's form autofill scans every
        // control of the document (forcing style and layout) each time
        // controls are added to it, once per widget task otherwise, and once
        // here when they all arrive together. An embed's one widget is
        // built in place, hidden.
        let detached = self.at != self.root;
        if detached {
            self.at.remove();
        } else {
            let _ = self.at.set_attribute("style", "display:none");
        }
        let names = self.names();
        fn step(m: Rc<Mount>, names: Rc<Vec<&'static str>>, i: usize, t0: f64) {
            let Some(name) = names.get(i) else {
                if m.at == m.root {
                    let _ = m.at.remove_attribute("style");
                } else {
                    let _ = m.root.append_child(&m.at);
                }
                m.finish(); // the links above the widgets are in place: their boxes are where they stay
                chart::first_view(&m.at);
                let _ = m.root.remove_attribute("aria-busy");
                dom::hold_frames(false);
                chart::schedule(); // the charts out of view, held back while the page was built
                worker::measure("bplab:mount", t0);
                question::scorm::mounted();
                return;
            };
            let t = worker::now();
            if let Err(e) = m.one(name) {
                dom::log_error(&format!("bplab-web could not build the {name} widget: {e:?}"));
            }
            worker::measure(&format!("bplab:mount:{name}"), t);
            dom::later(0, move || step(m, names, i + 1, t0));
        }
        // Not in this task either: it is the wasm's instantiation (compiling
        // and starting it), long enough at 4× CPU without a widget on top.
        // First every widget's first run is asked for, so that the workers
        // compute while the widgets are built (the last one built would
        // otherwise ask only once the others are there); each widget then
        // takes its answers when it is built.
        let (m, names) = (Rc::new(self), Rc::new(names));
        dom::later(0, move || {
            for name in names.iter() {
                widgets::prefetch(name, &m.q);
            }
            dom::later(0, move || step(m, names, 0, t0));
        });
    }
}

/// Builds the page (or, with `embed=<widget>` in `search`, that widget alone)
/// under `root`, replacing what was there, all in this task.
pub fn mount_page(root: &Element, search: &str) -> Result<(), JsValue> {
    let m = Mount::prepare(root, search)?;
    for name in m.names() {
        m.one(name)?;
    }
    m.finish();
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
