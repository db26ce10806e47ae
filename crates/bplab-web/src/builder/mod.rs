//! The lesson builder (`?build`): pick a widget, set its parameters with the
//! widget's own controls (in the preview), write the prompt and options (with
//! `{name}` computed values), and see the question live as a learner would.
//! Then copy the iframe or JS snippet, or download `bplab.html` (or a SCORM
//! 1.2 zip of it) with the question in its questions block.
//!
//! The download starts from a pristine copy of the page: the single file keeps
//! its own markup as parsed, before anything is mounted (its inline scripts
//! byte for byte, so their CSP hashes still match); served from `dist/`, the
//! builder fetches `bplab.html` beside the page instead.

mod package;

use std::cell::RefCell;
use std::rc::Rc;

use bplab_core::EXPERIMENTS;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Document, Element, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::dom::{add, el, on, show_msg, text_el};
use crate::question::{BUILT_IN, J, parse_one, quote};
use crate::url_state::{self, Query};
use crate::widgets;

/// Option rows in the form (a question takes 2 to 6; empty rows are left out).
const ROWS: usize = 6;

/// Whether the query asks for the builder (`?build`).
pub fn wanted(search: &str) -> bool {
    search.trim_start_matches('?').split('&').any(|kv| kv == "build" || kv.starts_with("build="))
}

struct Row {
    text: HtmlInputElement,
    value: HtmlInputElement,
    why: HtmlInputElement,
    /// The option's outcome and reason, each a condition evaluated on the
    /// widget's run (a statements answer: right only when both hold).
    outcome: HtmlInputElement,
    reason: HtmlInputElement,
}

struct Builder {
    doc: Document,
    widget: HtmlSelectElement,
    id: HtmlInputElement,
    prompt: HtmlTextAreaElement,
    vars: HtmlTextAreaElement,
    rows: Vec<Row>,
    answer: HtmlInputElement,
    /// A statements answer's text when no option's outcome and reason hold.
    otherwise: HtmlInputElement,
    title: HtmlInputElement,
    mastery: HtmlInputElement,
    msg: Element,
    json: HtmlTextAreaElement,
    preview: Element,
    /// The page as it was before mounting, when it is the single file.
    pristine: Option<String>,
    timer: Option<i32>,
    /// An edit since the last preview asked for the preview to be rebuilt:
    /// kept across a later edit of a package field (the title, the mastery
    /// score), which alone would not rebuild it (D6).
    remount: bool,
}

/// A field's text as JSON: itself when it is JSON (a number, `{…}`, `[…]`), else a JSON string.
fn json_or_text(s: &str) -> String {
    let t = s.trim();
    match J::parse(t) {
        Ok(v) if !matches!(v, J::Str(_)) => v.to_json(),
        _ => quote(t),
    }
}

fn texty(v: Option<&J>) -> String {
    match v {
        Some(J::Str(s)) => s.clone(),
        Some(other) => other.to_json(),
        None => String::new(),
    }
}

fn label(doc: &Document, parent: &Element, id: &str, text: &str) -> Result<(), JsValue> {
    add(parent, text_el(doc, "label", &[("for", id)], text)?).map(|_| ())
}

fn field<T: JsCast>(doc: &Document, parent: &Element, tag: &str, id: &str, text: &str) -> Result<T, JsValue> {
    let row = add(parent, el(doc, "div", &[("class", "control")])?)?;
    label(doc, &row, id, text)?;
    add(&row, el(doc, tag, &[("id", id)])?)?.dyn_into::<T>().map_err(|_| JsValue::from_str(tag))
}

/// The widget names with their titles.
fn widget_titles() -> Vec<(&'static str, &'static str)> {
    widgets::names()
        .map(|n| (n, EXPERIMENTS.iter().find(|e| e.name == n).map_or("Little's law and the limit", |e| e.title)))
        .collect()
}

impl Builder {
    /// The preview widget's parameters now (its non-default pairs).
    fn params(&self) -> Vec<(String, String)> {
        let q = url_state::query_now();
        q.trim_start_matches('?')
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .filter(|(k, _)| !["embed", "q", "qj", "explain"].contains(k))
            .map(|(k, v)| {
                let dec = js_sys::decode_uri_component(v).ok().and_then(|x| x.as_string()).unwrap_or_default();
                (k.to_owned(), dec)
            })
            .collect()
    }

    /// The question as JSON text from the form (params from the preview).
    fn compose(&self) -> String {
        let s = |x: &str| quote(x.trim());
        let params: Vec<String> = self.params().iter().map(|(k, v)| format!("{}: {}", s(k), s(v))).collect();
        let mut options = Vec::new();
        for r in &self.rows {
            if r.text.value().trim().is_empty() && r.why.value().trim().is_empty() {
                continue;
            }
            let value = if r.value.value().trim().is_empty() {
                String::new()
            } else {
                format!(", \"value\": {}", json_or_text(&r.value.value()))
            };
            let mut stated = String::new();
            for (key, f) in [("outcome", &r.outcome), ("reason", &r.reason)] {
                if !f.value().trim().is_empty() {
                    stated.push_str(&format!(", \"{key}\": {}", json_or_text(&f.value())));
                }
            }
            let text = r.text.value();
            let why = r.why.value();
            options.push(format!(
                "    {{ \"text\": {}{value}{stated}, \"why\": {} }}",
                json_or_text(&text),
                json_or_text(&why)
            ));
        }
        // Options that state an outcome and a reason are marked by them;
        // otherwise the option whose value is closest is right.
        let statements =
            self.rows.iter().any(|r| !r.outcome.value().trim().is_empty() || !r.reason.value().trim().is_empty());
        let answer = if statements {
            format!("{{ \"statements\": {{ \"otherwise\": {} }} }}", s(&self.otherwise.value()))
        } else {
            format!("{{ \"closest\": {} }}", json_or_text(&self.answer.value()))
        };
        let vars = if self.vars.value().trim().is_empty() { "{}".to_owned() } else { self.vars.value() };
        let prompt = self.prompt.value();
        let prompt = if prompt.trim_start().starts_with('[') { json_or_text(&prompt) } else { s(&prompt) };
        format!(
            "{{\n  \"id\": {},\n  \"widget\": {},\n  \"params\": {{ {} }},\n  \"prompt\": {prompt},\n  \"vars\": {},\n  \"options\": [\n{}\n  ],\n  \"answer\": {answer}\n}}",
            s(&self.id.value()),
            s(&self.widget.value()),
            params.join(", "),
            vars.trim(),
            options.join(",\n"),
        )
    }

    /// The question checked: its JSON, or the message naming the field.
    fn checked(&self) -> Result<String, String> {
        let text = self.compose();
        parse_one(&text, "question").map(|_| text)
    }

    /// Shows the JSON and the message; remounts the preview when `remount`.
    fn update(&self, remount: bool) {
        let text = self.compose();
        self.json.set_value(&text);
        match parse_one(&text, "question") {
            Ok(_) => {
                show_msg(&self.msg, self.mastery().err().as_deref());
                if remount {
                    let _ = self.mount_preview(&self.params(), Some(&text));
                }
            }
            Err(e) => show_msg(&self.msg, Some(&format!("The question is not ready: {e}"))),
        }
    }

    fn mount_preview(&self, params: &[(String, String)], question: Option<&str>) -> Result<(), JsValue> {
        let w = self.widget.value();
        let search = package::query(&w, params, question);
        widgets::clear();
        url_state::clear();
        url_state::set_embed(Some(&w));
        self.preview.set_text_content(None);
        widgets::mount(&self.doc, &self.preview, &w, &Query::parse(&search))?;
        Ok(())
    }

    /// Fills the form from the built-in question of the widget, if there is one.
    fn template(&self) {
        let w = self.widget.value();
        let all = J::parse(BUILT_IN).ok();
        let q = all.as_ref().and_then(|a| match a.get("questions") {
            Some(J::Arr(items)) => items.iter().find(|q| q.get("widget") == Some(&J::Str(w.clone()))).cloned(),
            _ => None,
        });
        let get = |k: &str| q.as_ref().and_then(|q| q.get(k));
        self.id.set_value(&format!("my-{}", texty(get("id")).if_empty(&w)));
        self.prompt.set_value(&texty(get("prompt")));
        self.vars.set_value(&get("vars").map(J::to_json).unwrap_or_else(|| "{}".to_owned()));
        let options = match get("options") {
            Some(J::Arr(o)) => o.clone(),
            _ => Vec::new(),
        };
        for (i, r) in self.rows.iter().enumerate() {
            let o = options.get(i);
            r.text.set_value(&texty(o.and_then(|o| o.get("text"))));
            r.value.set_value(&texty(o.and_then(|o| o.get("value"))));
            r.why.set_value(&texty(o.and_then(|o| o.get("why"))));
            r.outcome.set_value(&texty(o.and_then(|o| o.get("outcome"))));
            r.reason.set_value(&texty(o.and_then(|o| o.get("reason"))));
        }
        let answer = get("answer");
        self.answer.set_value(&texty(answer.and_then(|a| a.get("closest"))));
        let otherwise = answer.and_then(|a| a.get("statements")).and_then(|st| st.get("otherwise"));
        self.otherwise.set_value(&texty(otherwise));
        let title = widget_titles().into_iter().find(|(n, _)| *n == w).map(|(_, t)| t).unwrap_or_default();
        self.title.set_value(&format!("bplab: {title}"));
        let params: Vec<(String, String)> = match get("params") {
            Some(J::Obj(kv)) => kv.iter().map(|(k, v)| (k.clone(), texty(Some(v)))).collect(),
            _ => Vec::new(),
        };
        let _ = self.mount_preview(&params, None);
        self.update(true);
    }

    fn mastery(&self) -> Result<Option<f64>, String> {
        let t = self.mastery.value();
        if t.trim().is_empty() {
            return Ok(None);
        }
        match t.trim().parse::<f64>() {
            Ok(m) if (0.0..=100.0).contains(&m) => Ok(Some(m)),
            _ => Err(format!("mastery score: '{t}' is not accepted; expected a number from 0 to 100, or empty")),
        }
    }
}

trait IfEmpty {
    fn if_empty(self, other: &str) -> String;
}

impl IfEmpty for String {
    fn if_empty(self, other: &str) -> String {
        if self.is_empty() { other.to_owned() } else { self }
    }
}

/// Where the snippets point when the builder runs from a file: a course
/// page cannot load `file://` URLs, so the author replaces this with where
/// `dist/` is hosted (the message says so).
pub const HOST_PLACEHOLDER: &str = "https://your-site.example/bplab/";

/// The page's address without its query, and its folder: where the snippets
/// point; from `file://`, [`HOST_PLACEHOLDER`] (and `true`).
fn here() -> (String, String, bool) {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    snippet_base(&href)
}

/// [`here`] for the address `href`.
pub fn snippet_base(href: &str) -> (String, String, bool) {
    if href.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("file:")) {
        return (format!("{HOST_PLACEHOLDER}index.html"), HOST_PLACEHOLDER.to_owned(), true);
    }
    let base = href.split(['?', '#']).next().unwrap_or_default().to_owned();
    let dir = base.rsplit_once('/').map(|(d, _)| format!("{d}/")).unwrap_or_default();
    (base, dir, false)
}

/// The lesson file: the pristine page (or `bplab.html` fetched beside it) with the question inside.
fn with_page(b: &Rc<RefCell<Builder>>, done: impl FnOnce(Result<String, String>) + 'static) {
    let Ok(state) = b.try_borrow() else { return };
    if let Some(p) = &state.pristine {
        done(Ok(p.clone()));
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let why =
            |e: JsValue| format!("cannot read bplab.html beside this page ({e:?}); build it with scripts/build-web.sh");
        let text = async {
            let w = web_sys::window().ok_or_else(|| "no window".to_owned())?;
            let r: web_sys::Response =
                JsFuture::from(w.fetch_with_str("bplab.html")).await.map_err(why)?.unchecked_into();
            if !r.ok() {
                return Err(why(r.status().into()));
            }
            let t = JsFuture::from(r.text().map_err(why)?).await.map_err(why)?;
            t.as_string().ok_or_else(|| "bplab.html: not text".to_owned())
        };
        done(text.await);
    });
}

fn lesson_file(b: &Rc<RefCell<Builder>>, then: impl FnOnce(&Builder, String) + 'static) {
    let b2 = b.clone();
    with_page(b, move |page| {
        let Ok(state) = b2.try_borrow() else { return };
        let out = page.and_then(|p| {
            let q = state.checked()?;
            package::with_block(&p, &package::block(&state.widget.value(), &q))
        });
        match out {
            Ok(html) => then(&state, html),
            Err(e) => show_msg(&state.msg, Some(&e)),
        }
    });
}

fn button(doc: &Document, parent: &Element, id: &str, text: &str) -> Result<Element, JsValue> {
    add(parent, text_el(doc, "button", &[("type", "button"), ("id", id)], text)?)
}

/// Builds the builder under `root` (replacing what was there).
pub fn start(root: &Element) -> Result<(), JsValue> {
    let doc = crate::dom::document().ok_or_else(|| JsValue::from_str("no document"))?;
    // Before anything is mounted: the page as parsed.
    let single = doc.document_element().is_some_and(|h| h.has_attribute("data-single-file"));
    let pristine =
        if single { doc.document_element().map(|h| format!("<!doctype html>\n{}", h.outer_html())) } else { None };
    url_state::freeze();
    root.set_text_content(None);
    let sec = add(root, el(&doc, "section", &[("class", "builder"), ("aria-labelledby", "b-title")])?)?;
    add(&sec, text_el(&doc, "h2", &[("id", "b-title")], "Lesson builder")?)?;
    add(
        &sec,
        text_el(
            &doc,
            "p",
            &[],
            "Pick a widget, set its parameters with its own controls in the preview, and write the question: {name} shows a computed value or a parameter. The model computes the right option; the preview shows the question as a learner sees it.",
        )?,
    )?;
    let form = add(&sec, el(&doc, "div", &[("class", "builder-form")])?)?;
    let q = add(&form, el(&doc, "fieldset", &[("class", "controls")])?)?;
    add(&q, text_el(&doc, "legend", &[], "Question")?)?;
    let widget: HtmlSelectElement = field(&doc, &q, "select", "b-widget", "Widget")?;
    for (name, title) in widget_titles() {
        add(&widget, text_el(&doc, "option", &[("value", name)], title)?)?;
    }
    let id: HtmlInputElement = field(&doc, &q, "input", "b-id", "Question id (letters, digits, - and _)")?;
    let prompt: HtmlTextAreaElement =
        field(&doc, &q, "textarea", "b-prompt", "Prompt (text; a JSON list makes conditional text)")?;
    let vars: HtmlTextAreaElement =
        field(&doc, &q, "textarea", "b-vars", "Computed values (JSON object: name → value)")?;
    let mut rows = Vec::new();
    for i in 0..ROWS {
        let letter = char::from(b'A' + i as u8);
        let fs = add(&q, el(&doc, "fieldset", &[("class", "b-option")])?)?;
        add(&fs, text_el(&doc, "legend", &[], &format!("Option {letter} (leave empty to leave out)"))?)?;
        rows.push(Row {
            text: field(&doc, &fs, "input", &format!("b-opt-{i}-text"), &format!("Option {letter}: text"))?,
            value: field(
                &doc,
                &fs,
                "input",
                &format!("b-opt-{i}-value"),
                &format!("Option {letter}: value (number, $name or {{\"kind\": …}})"),
            )?,
            why: field(
                &doc,
                &fs,
                "input",
                &format!("b-opt-{i}-why"),
                &format!("Option {letter}: why it is right or wrong"),
            )?,
            outcome: field(
                &doc,
                &fs,
                "input",
                &format!("b-opt-{i}-outcome"),
                &format!("Option {letter}: its outcome holds when (condition, e.g. [\"$right\", \">\", 10])"),
            )?,
            reason: field(
                &doc,
                &fs,
                "input",
                &format!("b-opt-{i}-reason"),
                &format!("Option {letter}: its reason holds when (condition)"),
            )?,
        });
    }
    let answer: HtmlInputElement =
        field(&doc, &q, "input", "b-answer", "Right option: the one whose value is closest to")?;
    let otherwise: HtmlInputElement =
        field(&doc, &q, "input", "b-otherwise", "With outcomes and reasons: what to say when no option's both hold")?;
    let pk = add(&form, el(&doc, "fieldset", &[("class", "controls")])?)?;
    add(&pk, text_el(&doc, "legend", &[], "Package")?)?;
    let title: HtmlInputElement = field(&doc, &pk, "input", "b-lesson-title", "Lesson title (SCORM)")?;
    let mastery: HtmlInputElement =
        field(&doc, &pk, "input", "b-mastery", "Mastery score (SCORM, 0 to 100 %; empty: completed when answered)")?;
    mastery.set_attribute("inputmode", "decimal")?;
    let msg = add(&form, el(&doc, "p", &[("class", "msg"), ("role", "alert"), ("id", "b-msg"), ("hidden", "")])?)?;
    let json: HtmlTextAreaElement =
        field(&doc, &form, "textarea", "b-json", "The question as JSON (for the questions block)")?;
    json.set_read_only(true);
    json.set_rows(12);
    let actions = add(&form, el(&doc, "div", &[("class", "actions")])?)?;
    let copy_iframe = button(&doc, &actions, "b-copy-iframe", "Copy the iframe snippet")?;
    let copy_js = button(&doc, &actions, "b-copy-js", "Copy the JS snippet")?;
    let download = button(&doc, &actions, "b-download", "Download bplab.html with this question")?;
    let scorm = button(&doc, &actions, "b-scorm", "Download the SCORM 1.2 package (.zip)")?;
    add(&sec, text_el(&doc, "h2", &[("id", "b-preview-title")], "Preview: the question as a learner sees it")?)?;
    let preview = add(
        &sec,
        el(&doc, "div", &[("id", "b-preview"), ("role", "region"), ("aria-labelledby", "b-preview-title")])?,
    )?;

    let b = Rc::new(RefCell::new(Builder {
        doc: doc.clone(),
        widget,
        id,
        prompt,
        vars,
        rows,
        answer,
        otherwise,
        title,
        mastery,
        msg,
        json,
        preview: preview.clone(),
        pristine,
        timer: None,
        remount: false,
    }));
    b.borrow().template();

    // Typing in the form: recheck and remount the preview shortly after the last key.
    let b2 = b.clone();
    on(&form, "input", move |e| {
        let id = e.target().and_then(|t| t.dyn_into::<Element>().ok()).map(|t| t.id()).unwrap_or_default();
        if id == "b-widget" {
            return;
        }
        // The package fields do not change the question: no remount (the preview keeps its pick).
        let remount = !matches!(id.as_str(), "b-lesson-title" | "b-mastery");
        let Some(w) = web_sys::window() else { return };
        let Ok(mut s) = b2.try_borrow_mut() else { return };
        if let Some(t) = s.timer.take() {
            w.clear_timeout_with_handle(t);
        }
        s.remount |= remount;
        let b3 = b2.clone();
        let cb = Closure::once_into_js(move || {
            if let Ok(mut s) = b3.try_borrow_mut() {
                s.timer = None;
                let remount = std::mem::take(&mut s.remount);
                s.update(remount);
                let _ = s.preview.remove_attribute("aria-busy");
            }
        });
        // The preview is about to be rebuilt: say so (and tests wait for it to settle).
        let _ = s.preview.set_attribute("aria-busy", "true");
        s.timer = w.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), 250).ok();
    })?;
    let b2 = b.clone();
    let select: Element = b.borrow().widget.clone().into();
    on(&select, "change", move |_| {
        if let Ok(s) = b2.try_borrow() {
            s.template();
        }
    })?;
    // The preview's own controls set the question's params: keep the JSON current.
    for event in ["input", "change"] {
        let b2 = b.clone();
        on(&preview, event, move |_| {
            if let Ok(s) = b2.try_borrow() {
                s.json.set_value(&s.compose());
            }
        })?;
    }
    // The snippets: the iframe for the page's address, the JS for the JS API beside it.
    type Snippet = fn(&str, &str, &[(String, String)], &str) -> String;
    let snippets: [(Element, Snippet, bool); 2] = [(copy_iframe, package::iframe, true), (copy_js, package::js, false)];
    for (button, make, page) in snippets {
        let (b2, btn) = (b.clone(), button.clone());
        on(&button, "click", move |_| {
            let Ok(s) = b2.try_borrow() else { return };
            let (base, dir, local) = here();
            match s.checked() {
                Ok(q) => {
                    crate::explain::copy(
                        &make(if page { &base } else { &dir }, &s.widget.value(), &s.params(), &q),
                        &btn,
                    );
                    let note = format!(
                        "Opened from a file, so the snippet points at {HOST_PLACEHOLDER}: replace that with the address where you host dist/ (a course page cannot load file:// URLs)."
                    );
                    show_msg(&s.msg, local.then_some(note.as_str()));
                }
                Err(e) => show_msg(&s.msg, Some(&e)),
            }
        })?;
    }
    let b2 = b.clone();
    on(&download, "click", move |_| {
        lesson_file(&b2, |_, html| {
            let _ = crate::download::text_file("bplab.html", &html, "text/html;charset=utf-8");
        });
    })?;
    let b2 = b.clone();
    on(&scorm, "click", move |_| {
        lesson_file(&b2, |s, html| {
            let m = match s.mastery() {
                Ok(m) => m,
                Err(e) => return show_msg(&s.msg, Some(&e)),
            };
            let manifest = package::manifest(&s.id.value(), &s.title.value(), m);
            match package::zip(&[("imsmanifest.xml", manifest.as_bytes()), ("bplab.html", html.as_bytes())]) {
                Ok(z) => {
                    let _ = crate::download::bytes_file(
                        &format!("bplab-{}-scorm.zip", s.id.value().trim()),
                        &z,
                        "application/zip",
                    );
                }
                Err(e) => show_msg(&s.msg, Some(&e)),
            }
        });
    })?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::{HOST_PLACEHOLDER, snippet_base};

    wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    fn snippets_never_point_at_a_file() {
        let (base, dir, local) = snippet_base("file:///home/me/dist/bplab.html?build");
        assert!(local);
        assert_eq!(base, format!("{HOST_PLACEHOLDER}index.html"));
        assert_eq!(dir, HOST_PLACEHOLDER);
        assert!(snippet_base("FILE:///C:/dist/bplab.html").2);
        let (base, dir, local) = snippet_base("https://example.org/lab/index.html?build#x");
        assert!(!local);
        assert_eq!((base.as_str(), dir.as_str()), ("https://example.org/lab/index.html", "https://example.org/lab/"));
    }
}
