//! Renders the core's explanations (data, not prose): steps with formula and
//! substituted numbers, what it assumes, what it ignores, what would change
//! it; and the copyable record.

use bplab_core::calc::{Explanation, Record};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

use crate::dom::{add, el, on, text_el};

/// Shows `e` in `panel` (see [`render_all`]).
pub fn render(doc: &Document, panel: &Element, e: &Explanation) -> Result<(), JsValue> {
    render_all(doc, panel, std::slice::from_ref(e))
}

/// Shows every explanation in `all` in `panel`. When the panel already holds
/// explanations of the same shape (the same number of steps and list items),
/// only the texts are replaced, in place: a slider move then changes a few
/// text nodes instead of rebuilding the panel, which keeps the browser's
/// style and layout work per move small.
pub fn render_all(doc: &Document, panel: &Element, all: &[Explanation]) -> Result<(), JsValue> {
    let shape = shape(all);
    if panel.get_attribute("data-shape").as_deref() == Some(shape.as_str()) {
        let nodes = panel.query_selector_all("[data-t]")?;
        let texts: Vec<String> = all.iter().flat_map(texts).collect();
        if nodes.length() as usize == texts.len() {
            for (i, t) in texts.iter().enumerate() {
                let Some(node) = nodes.item(i as u32) else { break };
                if node.text_content().as_deref() != Some(t.as_str()) {
                    node.set_text_content(Some(t));
                }
            }
            return Ok(());
        }
    }
    panel.set_text_content(None);
    all.iter().try_for_each(|e| append(doc, panel, e))?;
    panel.set_attribute("data-shape", &shape)
}

/// Counts that decide the panel's element structure.
fn shape(all: &[Explanation]) -> String {
    all.iter()
        .map(|e| format!("{}.{}.{}.{}", e.steps.len(), e.assumes.len(), e.ignores.len(), e.would_change.len()))
        .collect::<Vec<_>>()
        .join("/")
}

const LISTS: [&str; 3] = ["It assumes", "It ignores", "What would change it"];

fn lists(e: &Explanation) -> [&[String]; 3] {
    [&e.assumes, &e.ignores, &e.would_change]
}

/// The text of every `[data-t]` element [`append`] creates, in document order.
fn texts(e: &Explanation) -> Vec<String> {
    let mut t = vec![format!("{}: {}", e.title, e.answer)];
    for s in &e.steps {
        t.extend([format!("{}: ", s.label), s.formula.clone(), s.substituted.clone(), s.value.clone()]);
    }
    for (heading, items) in LISTS.iter().zip(lists(e)) {
        if !items.is_empty() {
            t.push((*heading).to_owned());
            t.extend(items.iter().cloned());
        }
    }
    t
}

/// Appends `e` to `panel`; every element holding text gets `data-t`, in the
/// order [`texts`] lists them.
fn append(doc: &Document, panel: &Element, e: &Explanation) -> Result<(), JsValue> {
    let mut texts = texts(e).into_iter();
    let mut next = move || texts.next().unwrap_or_default();
    let t = [("data-t", "")];
    let sec = add(panel, el(doc, "div", &[("class", "explanation")])?)?;
    add(&sec, text_el(doc, "h3", &t, &next())?)?;
    let ol = add(&sec, el(doc, "ol", &[("class", "steps")])?)?;
    for _ in &e.steps {
        let li = add(&ol, el(doc, "li", &[])?)?;
        add(&li, text_el(doc, "span", &[("class", "step-label"), ("data-t", "")], &next())?)?;
        add(&li, text_el(doc, "code", &t, &next())?)?;
        add(&li, text_el(doc, "span", &[], " = ")?)?;
        add(&li, text_el(doc, "code", &t, &next())?)?;
        add(&li, text_el(doc, "span", &[], " = ")?)?;
        add(&li, text_el(doc, "strong", &t, &next())?)?;
    }
    for items in lists(e) {
        if items.is_empty() {
            continue;
        }
        add(&sec, text_el(doc, "h4", &t, &next())?)?;
        let ul = add(&sec, el(doc, "ul", &[])?)?;
        for _ in items {
            add(&ul, text_el(doc, "li", &t, &next())?)?;
        }
    }
    Ok(())
}

#[wasm_bindgen(js_namespace = bplabDom)] // web/dom-helpers.js
extern "C" {
    /// Copies `text`, reporting the outcome on `button` (never rejects unhandled).
    fn copy_text(text: &str, button: &Element);
}

/// Copies `text` to the clipboard, reporting the outcome on `button`.
pub fn copy(text: &str, button: &Element) {
    copy_text(text, button);
}

/// A record block: `<pre>` with the text and a Copy button. Returns the `<pre>`.
pub fn record_block(doc: &Document, parent: &Element, id: &str) -> Result<Element, JsValue> {
    let wrap = add(parent, el(doc, "div", &[("class", "record")])?)?;
    add(&wrap, text_el(doc, "h3", &[("id", &format!("{id}-title"))], "Record (copy into your design doc)")?)?;
    let pre =
        add(&wrap, el(doc, "pre", &[("id", id), ("aria-labelledby", &format!("{id}-title")), ("tabindex", "0")])?)?;
    let btn = add(&wrap, text_el(doc, "button", &[("type", "button"), ("id", &format!("{id}-copy"))], "Copy record")?)?;
    let (pre2, btn2) = (pre.clone(), btn.clone());
    on(&btn, "click", move |_| copy_text(&pre2.text_content().unwrap_or_default(), &btn2))?;
    Ok(pre)
}

/// Shows `r` in a record block.
pub fn show_record(pre: &Element, r: &Record) {
    pre.set_text_content(Some(&r.to_text()));
}
