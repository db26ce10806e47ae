//! The whole page state in the URL query, so a copied link reproduces the
//! view. Page mode: `?<widget>.<param>=v`; embed mode: `?embed=<widget>&<param>=v`.
//! Only values that differ from the article defaults are written. Writes are
//! debounced (browsers throttle rapid `replaceState`).

use std::cell::{Cell, RefCell};

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// One widget's non-default `(param, value)` pairs.
pub type Pairs = Vec<(String, String)>;

/// Something that contributes to the URL: its widget name and its pairs.
pub struct Source {
    /// Widget name.
    pub widget: &'static str,
    /// Current non-default pairs.
    pub pairs: Box<dyn Fn() -> Pairs>,
    /// Where to show this widget's embed link.
    pub embed_link: Option<web_sys::Element>,
}

thread_local! {
    static SOURCES: RefCell<Vec<Source>> = const { RefCell::new(Vec::new()) };
    static PENDING: Cell<Option<i32>> = const { Cell::new(None) };
    /// Set by the lesson builder: its preview widget must not write the address.
    static FROZEN: Cell<bool> = const { Cell::new(false) };
    static EMBED: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Pairs kept in the URL as they came (`q=<id>`, `explain=open`): `(widget, key, value)`.
    static KEPT: RefCell<Vec<(String, String, String)>> = const { RefCell::new(Vec::new()) };
    /// The page's query as it came: a widget not built yet keeps its pairs from it.
    static START: RefCell<Vec<(String, String)>> = const { RefCell::new(Vec::new()) };
}

/// The parsed query string.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pairs: Vec<(String, String)>,
    /// `embed=<widget>`, if present.
    pub embed: Option<String>,
}

fn decode(s: &str) -> String {
    let s = s.replace('+', " ");
    js_sys::decode_uri_component(&s).ok().and_then(|v| v.as_string()).unwrap_or(s)
}

fn encode(s: &str) -> String {
    String::from(js_sys::encode_uri_component(s)).replace("%2C", ",")
}

impl Query {
    /// Parses `?a=b&c=d` (leading `?` optional).
    pub fn parse(search: &str) -> Query {
        let pairs: Vec<(String, String)> = search
            .trim_start_matches('?')
            .split('&')
            .filter(|kv| !kv.is_empty())
            .map(|kv| match kv.split_once('=') {
                Some((k, v)) => (decode(k), decode(v)),
                None => (decode(kv), String::new()),
            })
            .collect();
        let embed = pairs.iter().find(|(k, _)| k == "embed").map(|(_, v)| v.clone());
        Query { pairs, embed }
    }

    /// This query with `widget`'s `defaults` added before its own pairs (its own win).
    pub fn with_defaults(&self, widget: &str, defaults: &[(String, String)]) -> Query {
        let mut pairs: Vec<(String, String)> =
            defaults.iter().map(|(k, v)| (format!("{widget}.{k}"), v.clone())).collect();
        pairs.extend(self.pairs.iter().cloned());
        Query { pairs, embed: self.embed.clone() }
    }

    /// The value for `widget`'s `param`: `widget.param`, or plain `param` when embedding `widget`.
    pub fn get(&self, widget: &str, param: &str) -> Option<&str> {
        let prefixed = format!("{widget}.{param}");
        let plain = self.embed.as_deref() == Some(widget);
        self.pairs.iter().rev().find(|(k, _)| *k == prefixed || (plain && k == param)).map(|(_, v)| v.as_str())
    }
}

/// The query the page starts from (what a widget not built yet keeps in the URL).
pub fn set_start(q: &Query) {
    START.with(|s| s.borrow_mut().clone_from(&q.pairs));
}

/// Sets the embed mode (the widget shown alone), if any.
pub fn set_embed(widget: Option<&str>) {
    EMBED.with(|e| *e.borrow_mut() = widget.map(str::to_owned));
}

/// The widget shown alone, if embedding.
pub fn embedding() -> Option<String> {
    EMBED.with(|e| e.borrow().clone())
}

/// Keeps `key=value` of `widget` in the URL (it is not a parameter the widget reports).
pub fn keep(widget: &str, key: &str, value: &str) {
    KEPT.with(|k| k.borrow_mut().push((widget.to_owned(), key.to_owned(), value.to_owned())));
}

/// `widget`'s pairs followed by its kept ones.
fn with_kept(widget: &str, mut pairs: Pairs) -> Pairs {
    KEPT.with(|k| {
        pairs.extend(k.borrow().iter().filter(|(w, _, _)| w == widget).map(|(_, key, v)| (key.clone(), v.clone())))
    });
    pairs
}

/// Registers a contributor.
pub fn register(source: Source) {
    SOURCES.with(|s| s.borrow_mut().push(source));
}

fn join(pairs: impl Iterator<Item = (String, String)>) -> String {
    pairs.map(|(k, v)| format!("{}={}", encode(&k), encode(&v))).collect::<Vec<_>>().join("&")
}

/// The query for one widget embedded alone.
pub fn embed_query(widget: &str, pairs: Pairs) -> String {
    let q = join(std::iter::once(("embed".to_owned(), widget.to_owned())).chain(pairs));
    format!("?{q}")
}

/// The query of the whole current state. Fills every widget's embed link
/// on the way (written only where it changed: one pass over the widgets).
pub fn query_now() -> String {
    let embed = EMBED.with(|e| e.borrow().clone());
    SOURCES.with(|s| {
        let s = s.borrow();
        let mut all = Vec::new();
        let mut q = String::new();
        // In page order, whichever widget was built first.
        for name in crate::widgets::names() {
            let mut built = false;
            for src in s.iter().filter(|src| src.widget == name) {
                built = true;
                let pairs = with_kept(name, (src.pairs)());
                let own = embed_query(name, pairs.clone());
                if let Some(a) = src.embed_link.as_ref().filter(|a| a.get_attribute("href").as_deref() != Some(&own)) {
                    let _ = a.set_attribute("href", &own);
                }
                match &embed {
                    Some(w) if w == name && q.is_empty() => q = own,
                    Some(_) => {}
                    None => all.extend(pairs.into_iter().map(|(k, v)| (format!("{name}.{k}"), v))),
                }
            }
            if !built && embed.is_none() {
                // Not built yet: its pairs as they came.
                START.with(|st| {
                    let mine = st
                        .borrow()
                        .iter()
                        .filter(|(k, _)| k.split_once('.').is_some_and(|(w, _)| w == name))
                        .cloned()
                        .collect::<Vec<_>>();
                    all.extend(mine);
                });
            }
        }
        if embed.is_none() {
            let joined = join(all.into_iter());
            if !joined.is_empty() {
                q = format!("?{joined}");
            }
        }
        q
    })
}

/// Stops writing the address bar (the lesson builder's preview).
pub fn freeze() {
    FROZEN.with(|f| f.set(true));
}

fn write_now() {
    let t0 = crate::worker::now();
    write_url();
    crate::worker::measure("bplab:url", t0);
}

fn write_url() {
    PENDING.with(|p| p.set(None));
    if FROZEN.with(Cell::get) {
        return;
    }
    let Some(w) = web_sys::window() else { return };
    let q = query_now();
    let path = w.location().pathname().unwrap_or_default();
    let hash = w.location().hash().unwrap_or_default();
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{q}{hash}")));
    }
}

/// Schedules a URL update: debounced by 150 ms, then written when the main
/// thread is idle ([`when_idle`]). The write (every widget's state, the embed
/// links, `history.replaceState`) is long enough on a phone's core (see
/// `docs/performance.md`) that, fired by the timer alone, it could land
/// between an input and its next frame, or before an answer's draw.
pub fn changed() {
    let Some(w) = web_sys::window() else { return };
    if let Some(id) = PENDING.with(Cell::get) {
        w.clear_timeout_with_handle(id);
    }
    let cb = Closure::once_into_js(|| when_idle(write_now));
    if let Ok(id) = w.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), 150) {
        PENDING.with(|p| p.set(Some(id)));
    }
}

/// Runs `f` in an idle period of the main thread (`requestIdleCallback`,
/// within a second even when none comes), or now where the browser has no
/// idle callbacks (Safari).
pub fn when_idle(f: fn()) {
    let Some(w) = web_sys::window() else { return };
    let ric = js_sys::Reflect::get(&w, &JsValue::from_str("requestIdleCallback"))
        .ok()
        .and_then(|v| v.dyn_into::<js_sys::Function>().ok());
    let Some(ric) = ric else {
        f();
        return;
    };
    let opts = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&opts, &JsValue::from_str("timeout"), &JsValue::from_f64(1000.0));
    if ric.call2(&w, &Closure::once_into_js(f), &opts).is_err() {
        f();
    }
}

/// Fills the embed links from the current state (without touching the address).
pub fn refresh_links() {
    let _ = query_now();
}

/// Forgets every contributor (a new page is being mounted).
pub fn clear() {
    SOURCES.with(|s| s.borrow_mut().clear());
    KEPT.with(|k| k.borrow_mut().clear());
    START.with(|s| s.borrow_mut().clear());
    set_embed(None);
}
