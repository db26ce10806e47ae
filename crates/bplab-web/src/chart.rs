//! Canvas charts: the shared chart functions drawn on a plotters canvas
//! backend. A drawing failure is logged and shown in the canvas's fallback
//! text; it never takes the page down.

use bplab_charts::{ChartError, Focus};
use bplab_core::calc::LimitInput;
use bplab_core::{ChartSpec, Report};
use plotters::prelude::IntoDrawingArea;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlCanvasElement};

use crate::canvas::Canvas;
use crate::dom::{el, log_error};

/// Canvas size in CSS pixels (scaled down by the stylesheet on narrow screens);
/// the backing store is this × `devicePixelRatio` (see `canvas::Canvas::new`).
pub const SIZE: (u32, u32) = (640, 360);

/// A `<canvas>` for `title`, with an accessible name.
pub fn canvas(doc: &Document, id: &str, title: &str) -> Result<HtmlCanvasElement, JsValue> {
    let w = SIZE.0.to_string();
    let h = SIZE.1.to_string();
    let e: Element =
        el(doc, "canvas", &[("id", id), ("width", &w), ("height", &h), ("role", "img"), ("aria-label", title)])?;
    e.set_text_content(Some(title));
    e.dyn_into::<HtmlCanvasElement>().map_err(|_| JsValue::from_str("canvas"))
}

use wasm_bindgen::JsCast;

fn report_err(canvas: &HtmlCanvasElement, what: &str, e: &ChartError) {
    log_error(&format!("chart {what}: {e}"));
    let _ = canvas.set_attribute("data-error", &e.to_string());
}

/// Draws one experiment chart on `canvas`.
pub fn draw(canvas: &HtmlCanvasElement, spec: &ChartSpec, report: &Report, focus: &Focus) {
    let Some(backend) = Canvas::new(canvas, SIZE) else { return };
    let area = backend.into_drawing_area();
    if let Err(e) = bplab_charts::draw(&area, spec.id, report, focus) {
        report_err(canvas, spec.file, &e);
    }
}

/// Draws the limit-vs-budget curve with the current point.
pub fn draw_limit(canvas: &HtmlCanvasElement, input: &LimitInput, range_ms: (f64, f64)) {
    let Some(backend) = Canvas::new(canvas, SIZE) else { return };
    let area = backend.into_drawing_area();
    if let Err(e) = bplab_charts::draw_limit_curve(&area, input, range_ms) {
        report_err(canvas, "limit curve", &e);
    }
}
