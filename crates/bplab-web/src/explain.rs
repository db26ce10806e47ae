//! Renders the core's explanations (data, not prose): steps with formula and
//! substituted numbers, what it assumes, what it ignores, what would change
//! it; and the copyable record.

use bplab_core::calc::{Explanation, Record};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

use crate::dom::{add, el, list, on, text_el};

/// Replaces `panel`'s content with `e`.
pub fn render(doc: &Document, panel: &Element, e: &Explanation) -> Result<(), JsValue> {
    panel.set_text_content(None);
    append(doc, panel, e)
}

/// Replaces `panel`'s content with every explanation in `all`.
pub fn render_all(doc: &Document, panel: &Element, all: &[Explanation]) -> Result<(), JsValue> {
    panel.set_text_content(None);
    all.iter().try_for_each(|e| append(doc, panel, e))
}

/// Appends `e` to `panel`.
pub fn append(doc: &Document, panel: &Element, e: &Explanation) -> Result<(), JsValue> {
    let sec = add(panel, el(doc, "div", &[("class", "explanation")])?)?;
    add(&sec, text_el(doc, "h3", &[], &format!("{}: {}", e.title, e.answer))?)?;
    let ol = add(&sec, el(doc, "ol", &[("class", "steps")])?)?;
    for s in &e.steps {
        let li = add(&ol, el(doc, "li", &[])?)?;
        add(&li, text_el(doc, "span", &[("class", "step-label")], &format!("{}: ", s.label))?)?;
        add(&li, text_el(doc, "code", &[], &s.formula)?)?;
        add(&li, text_el(doc, "span", &[], " = ")?)?;
        add(&li, text_el(doc, "code", &[], &s.substituted)?)?;
        add(&li, text_el(doc, "span", &[], " = ")?)?;
        add(&li, text_el(doc, "strong", &[], &s.value)?)?;
    }
    list(doc, &sec, "It assumes", &e.assumes)?;
    list(doc, &sec, "It ignores", &e.ignores)?;
    list(doc, &sec, "What would change it", &e.would_change)?;
    Ok(())
}

#[wasm_bindgen(inline_js = "export function copy_text(t, b) {
  const say = (m) => { b.textContent = m; };
  if (!navigator.clipboard) { say('Select the text to copy'); return; }
  navigator.clipboard.writeText(t).then(() => say('Copied'), () => say('Copy blocked: select the text'));
}")]
extern "C" {
    /// Copies `text`, reporting the outcome on `button` (never rejects unhandled).
    fn copy_text(text: &str, button: &Element);
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
