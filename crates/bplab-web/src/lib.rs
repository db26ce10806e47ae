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

use std::cell::{Cell, RefCell};
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
        Ok(m) => m.start(t0),
        Err(e) => dom::log_error(&format!("bplab-web could not build the page: {e:?}")),
    }
}

/// The widget `q` embeds alone, if it names one (an unknown name shows the whole lab).
fn embedded(q: &Query) -> Option<&'static str> {
    q.embed.as_deref().and_then(|n| widgets::names().find(|w| *w == n))
}

/// A page being mounted: the widgets go under `at`, each first as a
/// placeholder (its heading in a `section.stub`), built when it nears the
/// viewport, when a link asks for it, or before printing.
struct Mount {
    doc: web_sys::Document,
    root: Element,
    q: Query,
    /// The one widget of an embed.
    embed: Option<&'static str>,
    at: Element,
    /// Widgets waiting to be built, the next first.
    queue: RefCell<Vec<&'static str>>,
    /// [`IDLE`], [`SCHEDULED`], [`WAITING`] (for the last one built to answer) or [`RESUMING`].
    phase: Cell<u8>,
    /// The widget a link asked for: scrolled to once built.
    target: Cell<Option<&'static str>>,
    /// When the page started (for the `bplab:mount` mark), until the first widget is built.
    t0: Cell<Option<f64>>,
}

thread_local! {
    /// The page mounted last.
    static PAGE: RefCell<Option<Rc<Mount>>> = const { RefCell::new(None) };
}

impl Mount {
    /// Clears `root` and puts every widget's placeholder and link in it.
    fn prepare(root: &Element, search: &str) -> Result<Mount, JsValue> {
        let doc = dom::document().ok_or_else(|| JsValue::from_str("no document"))?;
        PAGE.with(|p| p.borrow_mut().take());
        dom::clear_listeners();
        widgets::clear();
        worker::forget_early();
        chart::clear();
        url_state::clear();
        root.set_text_content(None);
        question::show_block_error(&doc, root)?;
        let q = Query::parse(search);
        url_state::set_start(&q);
        let body = doc.body();
        let embed = embedded(&q);
        let mount = |at: Element| Mount {
            doc: doc.clone(),
            root: root.clone(),
            q: q.clone(),
            embed,
            at,
            queue: RefCell::new(Vec::new()),
            phase: Cell::new(IDLE),
            target: Cell::new(None),
            t0: Cell::new(None),
        };
        if let Some(name) = embed {
            if let Some(b) = &body {
                b.class_list().add_1("embed")?;
            }
            url_state::set_embed(Some(name));
            return Ok(mount(root.clone()));
        }
        if let Some(b) = &body {
            b.class_list().remove_1("embed")?;
        }
        if let Some(bad) = &q.embed {
            let known = widgets::names().collect::<Vec<_>>().join(", ");
            let msg = format!("embed: unknown widget '{bad}'; expected one of: {known}. Showing the whole lab.");
            add(root, text_el(&doc, "p", &[("class", "msg"), ("role", "alert")], &msg)?)?;
        }
        // Built detached, then put in place at once: one layout.
        let nav = el(&doc, "nav", &[("aria-label", "Widgets"), ("class", "toc")])?;
        let ul = add(&nav, el(&doc, "ul", &[])?)?;
        let at = el(&doc, "div", &[("class", "widgets")])?;
        for name in widgets::names() {
            let title = widgets::title(name);
            let li = add(&ul, el(&doc, "li", &[])?)?;
            add(&li, text_el(&doc, "a", &[("href", &format!("#w-{name}"))], title)?)?;
            let head = format!("{name}-title");
            let stub = add(
                &at,
                el(&doc, "section", &[("id", &format!("w-{name}")), ("class", "stub"), ("aria-labelledby", &head)])?,
            )?;
            add(&stub, text_el(&doc, "h2", &[("id", &head)], title)?)?;
        }
        root.append_child(&nav)?;
        root.append_child(&at)?;
        Ok(mount(at))
    }

    /// The widgets to mount, in page order.
    fn names(&self) -> Vec<&'static str> {
        match self.embed {
            Some(name) => vec![name],
            None => widgets::names().collect(),
        }
    }

    /// The placeholder of widget `name`, if it is not built yet.
    fn stub(&self, name: &str) -> Option<Element> {
        self.doc.get_element_by_id(&format!("w-{name}")).filter(|e| e.class_list().contains("stub"))
    }

    /// Builds widget `name` in place of its placeholder (an embed's under the root).
    fn one(&self, name: &str) -> Result<(), JsValue> {
        if self.embed.is_some() {
            widgets::mount(&self.doc, &self.at, name, &self.q)?;
            return Ok(());
        }
        let Some(stub) = self.stub(name) else { return Ok(()) };
        // Out of the document while it is built: Chrome's form autofill
        // scans the document's controls (forcing style and layout) each
        // time controls are added to it.
        let holder = el(&self.doc, "div", &[])?;
        widgets::mount(&self.doc, &holder, name, &self.q)?;
        if let Some(sec) = holder.first_element_child() {
            stub.replace_with_with_node_1(&sec)?;
        }
        Ok(())
    }

    /// Builds `name` and notes it; the first build ends the mount.
    fn build(&self, name: &'static str) {
        let t = worker::now();
        if let Err(e) = self.one(name) {
            dom::log_error(&format!("bplab-web could not build the {name} widget: {e:?}"));
        }
        worker::measure(&format!("bplab:mount:{name}"), t);
        url_state::refresh_links();
        chart::first_view(&self.at);
        if let Some(t0) = self.t0.take() {
            let _ = self.root.remove_attribute("aria-busy");
            worker::measure("bplab:mount", t0);
            question::scorm::mounted();
            if let Some(name) = self.embed {
                embed::post_height(name);
            }
        }
        chart::schedule();
        if self.target.get() == Some(name) {
            self.target.set(None);
            if let Some(sec) = self.doc.get_element_by_id(&format!("w-{name}")) {
                sec.scroll_into_view();
            }
        }
    }
}

/// Asks for widget `name` of the page: queued to be built (first, when a
/// link asks: `jump`, and then scrolled to), its first run asked of the
/// worker now. Nothing for a widget built already or an unknown name.
fn want(name: &str, jump: bool) {
    let Some(m) = PAGE.with(|p| p.borrow().clone()) else { return };
    let Some(name) = widgets::names().find(|n| *n == name) else { return };
    // A placeholder's widget, or the embed's.
    let stub = m.stub(name);
    if stub.is_none() && m.embed != Some(name) {
        return;
    }
    let mut queue = m.queue.borrow_mut();
    let fresh = !queue.contains(&name);
    if !(fresh || jump) {
        return;
    }
    queue.retain(|n| *n != name);
    let at = if jump { 0 } else { queue.len() };
    queue.insert(at, name);
    drop(queue);
    if let (true, Some(stub)) = (jump, stub) {
        m.target.set(Some(name));
        stub.scroll_into_view();
    }
    if fresh {
        widgets::prefetch(name, &m.q);
    }
    pump(&m);
}

const IDLE: u8 = 0;
const SCHEDULED: u8 = 1;
const WAITING: u8 = 2;
const RESUMING: u8 = 3;

/// Builds the next widget waiting, in a task of its own.
fn pump(m: &Mount) {
    if m.phase.get() != IDLE {
        return;
    }
    m.phase.set(SCHEDULED);
    dom::later(0, || {
        let Some(m) = PAGE.with(|p| p.borrow().clone()) else { return };
        let next = {
            let mut queue = m.queue.borrow_mut();
            (!queue.is_empty()).then(|| queue.remove(0))
        };
        let Some(name) = next else {
            m.phase.set(IDLE);
            return;
        };
        m.build(name);
        // The next waits until this one has answered ([`answered`]), or a
        // while if it never does: nothing else takes the main thread from
        // the widget the reader is looking at.
        m.phase.set(WAITING);
        dom::later(ANSWER_WAIT_MS, answered);
    });
}

/// Longest a widget built waits for the one before it to answer (ms).
const ANSWER_WAIT_MS: i32 = 1_000;

/// A widget has shown an answer: the next one waiting is built once the
/// main thread is idle.
pub(crate) fn answered() {
    if let Some(m) = PAGE.with(|p| p.borrow().clone())
        && m.phase.get() == WAITING
    {
        m.phase.set(RESUMING);
        url_state::when_idle(|| {
            if let Some(m) = PAGE.with(|p| p.borrow().clone())
                && m.phase.get() == RESUMING
            {
                m.phase.set(IDLE);
                pump(&m);
            }
        });
    }
}

/// Every widget not built yet, built now (the page is about to be printed).
fn build_all() {
    let Some(m) = PAGE.with(|p| p.borrow().clone()) else { return };
    m.queue.borrow_mut().clear();
    for name in m.names() {
        if m.stub(name).is_some() {
            m.build(name);
        }
    }
}

impl Mount {
    /// Starts the page: an embed's widget at once; on the page, the widget
    /// the address's `#w-<name>` names, then those near the viewport
    /// (an `IntersectionObserver`, on screen or a screen below it) as they
    /// come near. The root is `aria-busy` until the first is built.
    fn start(self, t0: f64) {
        let _ = self.root.set_attribute("aria-busy", "true");
        self.t0.set(Some(t0));
        for name in self.names() {
            widgets::count_question(name, &self.q);
        }
        let m = Rc::new(self);
        PAGE.with(|p| *p.borrow_mut() = Some(m.clone()));
        describe_page(&m.doc);
        if let Some(name) = m.embed {
            want(name, false);
            return;
        }
        follow_hash();
        if let Some(w) = web_sys::window() {
            let _ = dom::on(&w, "hashchange", |_| follow_hash());
            let _ = dom::on(&w, "beforeprint", |_| build_all());
        }
        let near = Closure::<dyn FnMut(String)>::new(|name: String| want(&name, false));
        let _ = dom::watch(&m.at, &near);
        near.forget(); // one per page load
    }
}

/// The widget the address's `#w-<name>` names, built first and scrolled to.
fn follow_hash() {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    if let Some(name) = hash.strip_prefix("#w-") {
        want(name, true);
    }
}

/// Builds the page (or, with `embed=<widget>` in `search`, that widget alone)
/// under `root`, replacing what was there, all in this task.
pub fn mount_page(root: &Element, search: &str) -> Result<(), JsValue> {
    let m = Mount::prepare(root, search)?;
    for name in m.names() {
        m.one(name)?;
    }
    url_state::refresh_links();
    describe_page(&m.doc);
    if let Some(name) = m.embed {
        embed::post_height(name);
    }
    Ok(())
}

/// The page's meta description, from the registry: how many widgets and their titles.
pub fn description() -> String {
    let titles: Vec<&str> = widgets::names().map(widgets::title).collect();
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
