//! The parts every widget shares: its section and heading, the readouts
//! (`<output>` with an accessible name), a chart figure with its PNG
//! download, and the explanation panel.

use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlCanvasElement};

use crate::dom::{add, el, on, text_el};
use crate::{chart, download};

/// A widget's section.
pub struct Shell {
    /// The `<section>`.
    pub section: Element,
}

/// `<section id="w-{name}">` with heading, source and lesson.
pub fn section(
    doc: &Document,
    parent: &Element,
    name: &str,
    title: &str,
    post: &str,
    lesson: &str,
) -> Result<Shell, JsValue> {
    let head_id = format!("{name}-title");
    let section = add(
        parent,
        el(
            doc,
            "section",
            &[("id", &format!("w-{name}")), ("class", "widget"), ("aria-labelledby", &head_id), ("data-widget", name)],
        )?,
    )?;
    // Embedded alone, the widget's heading is the document's level-one heading.
    let level = if crate::url_state::embedding().is_some() { "h1" } else { "h2" };
    add(&section, text_el(doc, level, &[("id", &head_id)], title)?)?;
    if !post.is_empty() {
        add(&section, text_el(doc, "p", &[("class", "post")], post)?)?;
    }
    add(&section, text_el(doc, "p", &[("class", "lesson")], lesson)?)?;
    Ok(Shell { section })
}

/// The two columns under the heading: `(side, charts)`; controls and
/// readouts go to the side, figures to the charts column. On a narrow
/// screen both columns are one (style.css): the headline readout, the main
/// chart and the main controls first, in that order, then the rest.
pub fn columns(doc: &Document, section: &Element) -> Result<(Element, Element), JsValue> {
    let cols = add(section, el(doc, "div", &[("class", "cols")])?)?;
    let side = add(&cols, el(doc, "div", &[("class", "side")])?)?;
    let charts = add(&cols, el(doc, "div", &[("class", "charts")])?)?;
    Ok((side, charts))
}

/// A `<dl>` of readouts; returns the `<output>`s in order (ids from `{name}-out-{start}`).
pub fn readouts(
    doc: &Document,
    parent: &Element,
    name: &str,
    start: usize,
    items: &[(&str, String)],
) -> Result<Vec<Element>, JsValue> {
    let dl = readouts_box(doc, parent)?;
    fill_readouts(doc, &dl, name, start, items)
}

/// An empty `<dl>` for readouts (filled when the widget's first answer lands).
pub fn readouts_box(doc: &Document, parent: &Element) -> Result<Element, JsValue> {
    add(parent, el(doc, "dl", &[("class", "readouts")])?)
}

/// An empty `<dl>` for the widget's headline readout: the number it is
/// about, kept beside the main chart and the main controls at every width.
pub fn headline_box(doc: &Document, parent: &Element) -> Result<Element, JsValue> {
    add(parent, el(doc, "dl", &[("class", "readouts headline")])?)
}

/// Fills `dl` with one `<dt>` + `<output>` per readout (ids from
/// `{name}-out-{start}`); returns the `<output>`s in order.
pub fn fill_readouts<L: AsRef<str>>(
    doc: &Document,
    dl: &Element,
    name: &str,
    start: usize,
    items: &[(L, String)],
) -> Result<Vec<Element>, JsValue> {
    let mut outs = Vec::with_capacity(items.len());
    for (i, (label, value)) in items.iter().enumerate() {
        let id = format!("{name}-out-{}", start + i);
        let label_id = format!("{id}-label");
        add(dl, text_el(doc, "dt", &[("id", &label_id)], label.as_ref())?)?;
        let dd = add(dl, el(doc, "dd", &[])?)?;
        let o = add(&dd, text_el(doc, "output", &[("id", &id), ("aria-labelledby", &label_id)], value)?)?;
        outs.push(o);
    }
    Ok(outs)
}

/// A `<figure>` with a canvas, its caption and a PNG download button.
pub fn figure(
    doc: &Document,
    parent: &Element,
    id: &str,
    title: &str,
    file: &str,
) -> Result<HtmlCanvasElement, JsValue> {
    let fig = add(parent, el(doc, "figure", &[])?)?;
    let canvas = chart::canvas(doc, id, title)?;
    fig.append_child(&canvas)?;
    // The title in its own box: on a phone it is visually hidden (the chart draws it too).
    let cap = add(&fig, el(doc, "figcaption", &[])?)?;
    add(&cap, text_el(doc, "span", &[("class", "fig-title")], title)?)?;
    let b = add(&cap, text_el(doc, "button", &[("type", "button"), ("class", "png")], &format!("PNG: {file}"))?)?;
    let (c2, f2) = (canvas.clone(), file.to_owned());
    on(&b, "click", move |_| {
        let _ = download::png(&c2, &f2);
    })?;
    Ok(canvas)
}

/// The explanation panel (a labelled region filled by `explain`), open or
/// one click away (closed unless the query asks: [`super::Extras`]).
pub fn explain_panel(doc: &Document, parent: &Element, name: &str, open: bool) -> Result<Element, JsValue> {
    let d = add(parent, el(doc, "details", &[("class", "explain"), ("id", &format!("{name}-explain-panel"))])?)?;
    if open {
        d.set_attribute("open", "")?;
    }
    add(&d, text_el(doc, "summary", &[], "How this is computed")?)?;
    add(&d, el(doc, "div", &[("id", &format!("{name}-explain")), ("aria-live", "off")])?)
}

/// The "widget alone (embed)" link; its href follows the widget's state.
pub fn embed_link(doc: &Document, actions: &Element, name: &str) -> Result<Element, JsValue> {
    let href = crate::url_state::embed_query(name, Vec::new());
    let attrs = [("class", "embed-link"), ("href", href.as_str())];
    add(actions, text_el(doc, "a", &attrs, "Link to this widget alone (embed)")?)
}

/// The "More settings" group: a closed `<details>` whose controls are built
/// the first time it opens (`build`); returns the `<details>` and the box
/// the controls go into.
pub fn more_settings(doc: &Document, parent: &Element, name: &str) -> Result<(Element, Element), JsValue> {
    let d = add(parent, el(doc, "details", &[("class", "more"), ("id", &format!("{name}-more"))])?)?;
    add(&d, text_el(doc, "summary", &[("id", &format!("{name}-more-label"))], "More settings")?)?;
    let body = add(
        &d,
        el(
            doc,
            "div",
            &[("class", "controls"), ("role", "group"), ("aria-labelledby", &format!("{name}-more-label"))],
        )?,
    )?;
    Ok((d, body))
}
