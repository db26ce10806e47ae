//! Canvas charts at their real size. Each canvas keeps the plot it shows;
//! it is drawn at its displayed CSS width × devicePixelRatio (height from
//! [`bplab_charts::height_for`]), again whenever its width changes (one
//! `ResizeObserver` for all canvases; widgets off screen are skipped by
//! `content-visibility: auto`, so theirs redraw when scrolled to) and
//! whenever the colour scheme
//! changes (`prefers-color-scheme`: dark charts on a dark page). After each
//! drawing the canvas carries the renderer's layout record in `data-layout`
//! (text boxes and font sizes, CSS px), which the browser tests check. A
//! drawing failure is logged and shown in `data-error`; it never takes the
//! page down.

use std::cell::RefCell;
use std::collections::HashMap;

use bplab_charts::{ChartError, Theme, height_for, limit_curve};
use bplab_core::calc::LimitInput;
use bplab_core::plot::Plot;
use plotters::prelude::IntoDrawingArea;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlCanvasElement, MediaQueryList, ResizeObserver, ResizeObserverEntry};

use crate::canvas::Canvas;
use crate::dom::{document, el, log_error};

/// Size drawn while a canvas is not laid out yet (hidden, detached), CSS px.
pub const FALLBACK_SIZE: (u32, u32) = (640, 400);
/// Size of a downloaded PNG, px (the CLI's size), always in light colours.
pub const PNG_SIZE: (u32, u32) = (960, 540);

struct Shown {
    canvas: HtmlCanvasElement,
    plot: Plot,
    /// CSS width and scheme it was last drawn at.
    drawn: Option<(u32, bool)>,
}

thread_local! {
    static SHOWN: RefCell<HashMap<String, Shown>> = RefCell::new(HashMap::new());
    static OBSERVER: RefCell<Option<ResizeObserver>> = const { RefCell::new(None) };
    static SCHEME: RefCell<Option<MediaQueryList>> = const { RefCell::new(None) };
}

/// Whether the page is in a dark colour scheme.
fn dark() -> bool {
    SCHEME.with(|s| {
        let mut s = s.borrow_mut();
        if s.is_none() {
            let mql = web_sys::window().and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten());
            if let Some(m) = &mql {
                let cb = Closure::<dyn FnMut()>::new(redraw_all);
                let _ = m.add_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
                cb.forget(); // lives as long as the page
            }
            *s = mql;
        }
        s.as_ref().is_some_and(MediaQueryList::matches)
    })
}

fn redraw_all() {
    let ids: Vec<String> = SHOWN.with(|m| m.borrow().keys().cloned().collect());
    ids.iter().for_each(|id| redraw(id, true));
}

fn on_resize(entries: js_sys::Array) {
    for e in entries.iter() {
        if let Ok(entry) = e.dyn_into::<ResizeObserverEntry>() {
            redraw(&entry.target().id(), false);
        }
    }
}

/// Starts observing `canvas`'s size (once per page, one observer).
fn observe(canvas: &Element) {
    OBSERVER.with(|o| {
        let mut o = o.borrow_mut();
        if o.is_none() {
            let cb = Closure::<dyn FnMut(js_sys::Array)>::new(on_resize);
            *o = ResizeObserver::new(cb.as_ref().unchecked_ref()).ok();
            cb.forget(); // lives as long as the page
        }
        if let Some(obs) = o.as_ref() {
            obs.observe(canvas);
        }
    });
}

/// A `<canvas>` for `title`, with an accessible name, observed for resizes.
pub fn canvas(doc: &Document, id: &str, title: &str) -> Result<HtmlCanvasElement, JsValue> {
    let (w, h) = (FALLBACK_SIZE.0.to_string(), FALLBACK_SIZE.1.to_string());
    let e: Element =
        el(doc, "canvas", &[("id", id), ("width", &w), ("height", &h), ("role", "img"), ("aria-label", title)])?;
    e.set_text_content(Some(title));
    observe(&e);
    e.dyn_into::<HtmlCanvasElement>().map_err(|_| JsValue::from_str("canvas"))
}

fn report_err(canvas: &HtmlCanvasElement, what: &str, e: &ChartError) {
    log_error(&format!("chart {what}: {e}"));
    let _ = canvas.set_attribute("data-error", &e.to_string());
}

/// Draws `plot` on `canvas` at `size` CSS px (`ratio` backing pixels per
/// CSS px, `None`: the screen's) in `theme`.
fn paint(canvas: &HtmlCanvasElement, plot: &Plot, size: (u32, u32), ratio: Option<f64>, theme: &Theme) {
    let backend = match ratio {
        Some(r) => Canvas::with_ratio(canvas, size, r),
        None => Canvas::new(canvas, size),
    };
    let Some(backend) = backend else { return };
    match bplab_charts::render(&backend.into_drawing_area(), plot, theme) {
        Ok(layout) => {
            let _ = canvas.set_attribute("data-layout", &layout.to_json());
            let _ = canvas.remove_attribute("data-error");
        }
        Err(e) => report_err(canvas, &plot.title, &e),
    }
}

/// Draws the plot stored for canvas `id` at its displayed width (skipped
/// when neither the width nor the scheme changed, unless `force`).
fn redraw(id: &str, force: bool) {
    SHOWN.with(|m| {
        let Ok(mut m) = m.try_borrow_mut() else { return };
        let Some(s) = m.get_mut(id) else { return };
        let css_w = u32::try_from(s.canvas.client_width()).unwrap_or(0);
        let scheme = dark();
        if !force && s.drawn == Some((css_w, scheme)) {
            return;
        }
        let size = if css_w == 0 { FALLBACK_SIZE } else { (css_w, height_for(css_w, &s.plot)) };
        if css_w > 0 {
            // The height follows the width; the stylesheet's aspect ratio is overridden.
            let _ = s.canvas.set_attribute("style", &format!("height:{}px", size.1));
        }
        paint(&s.canvas, &s.plot, size, None, &Theme::for_scheme(scheme));
        s.drawn = (css_w > 0).then_some((css_w, scheme));
    });
}

/// Shows `plot` on `canvas` (kept for later redraws and the PNG).
pub fn draw(canvas: &HtmlCanvasElement, plot: Plot) {
    let id = canvas.id();
    SHOWN.with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            m.insert(id.clone(), Shown { canvas: canvas.clone(), plot, drawn: None });
        }
    });
    redraw(&id, true);
}

/// Draws the limit-vs-budget curve with the current point.
pub fn draw_limit(canvas: &HtmlCanvasElement, input: &LimitInput, range_ms: (f64, f64)) {
    match limit_curve(input, range_ms) {
        Ok(plot) => draw(canvas, plot),
        Err(e) => report_err(canvas, "limit curve", &e),
    }
}

/// The figure shown on `canvas` as a PNG data URL of [`PNG_SIZE`] pixels in
/// light colours, whatever the screen size and scheme (for downloads).
pub fn png_data_url(canvas: &HtmlCanvasElement) -> Result<String, JsValue> {
    let plot = SHOWN.with(|m| m.try_borrow().ok().and_then(|m| m.get(&canvas.id()).map(|s| s.plot.clone())));
    let plot = plot.ok_or_else(|| JsValue::from_str("no figure on this canvas"))?;
    let doc = document().ok_or_else(|| JsValue::from_str("no document"))?;
    let off: HtmlCanvasElement = doc.create_element("canvas")?.dyn_into().map_err(|_| JsValue::from_str("canvas"))?;
    paint(&off, &plot, PNG_SIZE, Some(1.0), &Theme::LIGHT);
    off.to_data_url_with_type("image/png")
}
