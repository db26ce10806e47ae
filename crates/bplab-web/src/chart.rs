//! Canvas charts at their real size. Each canvas keeps the plot it shows;
//! it is drawn at its displayed CSS width × devicePixelRatio (height from
//! [`bplab_charts::height_for`]), again whenever its width changes (one
//! `ResizeObserver` for all canvases) and whenever the colour scheme
//! changes (`prefers-color-scheme`: dark charts on a dark page). After each
//! drawing the canvas carries the renderer's layout record in `data-layout`
//! (text boxes and font sizes, CSS px), which the browser tests check. A
//! drawing failure is logged and shown in `data-error`; it never takes the
//! page down.
//!
//! Drawing costs main-thread time (plotters; per chart in
//! `docs/performance.md`), so a new plot is only *stored* ([`show`]) and marked
//! `data-pending`; canvases in or near the viewport (their widget is
//! rendered: `content-visibility: auto`) are drawn by their widget in its frame
//! ([`draw_in_view`]), the others one per task afterwards, nearest the
//! top first. A section marked `data-await-charts` (its run is shown, only
//! charts are left) stops being `aria-busy` when its last canvas is drawn.
//! An embed has one widget: all its canvases count as in view, so its first
//! reported height is its real one.

use std::cell::{Cell, RefCell};

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
    /// The stored plot (or the width, or the scheme) is not drawn yet.
    dirty: bool,
    /// Its widget's section.
    section: Option<Element>,
    /// Its section is rendered, in or near the viewport (the browser's last word).
    in_view: bool,
}

thread_local! {
    /// Every canvas with a plot, in page order.
    static SHOWN: RefCell<Vec<Shown>> = const { RefCell::new(Vec::new()) };
    static OBSERVER: RefCell<Option<ResizeObserver>> = const { RefCell::new(None) };
    /// The browser tells when a section starts or stops being rendered.
    static VIEW: Cell<bool> = const { Cell::new(false) };
    static SCHEME: RefCell<Option<MediaQueryList>> = const { RefCell::new(None) };
    /// A draw of pending canvases is scheduled: (in a frame, in a task).
    static PUMPS: Cell<(bool, bool)> = const { Cell::new((false, false)) };
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

/// Every canvas is drawn again (the scheme changed), in view first.
fn redraw_all() {
    SHOWN.with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            m.iter_mut().for_each(|s| s.dirty = true);
        }
    });
    schedule();
}

/// Marks canvas `id` as needing a drawing when `f` says so; `true` if it does.
fn mark(id: &str, f: impl FnOnce(&mut Shown) -> bool) -> bool {
    SHOWN.with(|m| {
        let Ok(mut m) = m.try_borrow_mut() else { return false };
        let Some(s) = m.iter_mut().find(|s| s.canvas.id() == id) else { return false };
        let dirty = f(s);
        s.dirty |= dirty;
        dirty
    })
}

fn on_resize(entries: js_sys::Array) {
    let mut any = false;
    for e in entries.iter() {
        if let Ok(entry) = e.dyn_into::<ResizeObserverEntry>() {
            let scheme = dark();
            any |= mark(&entry.target().id(), |s| {
                let css_w = u32::try_from(s.canvas.client_width()).unwrap_or(0);
                s.drawn != Some((css_w, scheme))
            });
        }
    }
    if any {
        schedule();
    }
}

/// A section's `content-visibility: auto` state changed: its canvases are
/// in view when the browser renders it (it does so half a screen around
/// the viewport), so the browser's own test is used instead of an observer
/// of ours.
fn on_view(e: web_sys::Event) {
    let Some(target) = e.current_target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
    let skipped = js_sys::Reflect::get(&e, &JsValue::from_str("skipped")).ok().and_then(|v| v.as_bool());
    let seen = skipped == Some(false);
    SHOWN.with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            m.iter_mut().filter(|s| s.section.as_ref() == Some(&target)).for_each(|s| s.in_view = seen);
        }
    });
    if seen {
        schedule();
    }
}

/// All canvases count as in view: an embed (one widget, sized by its
/// content, always rendered), or a browser without
/// `ContentVisibilityAutoStateChangeEvent` (no way to tell).
fn all_in_view() -> bool {
    crate::url_state::embedding().is_some() || !VIEW.with(Cell::get)
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

/// Whether the browser reports `content-visibility: auto` state changes.
fn reports_view() -> bool {
    web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &JsValue::from_str("ContentVisibilityAutoStateChangeEvent")).ok())
        .is_some_and(|f| f.is_function())
}

/// Starts watching whether section `sec` is rendered (near the viewport).
fn observe_section(sec: &Element) {
    if !reports_view() {
        return;
    }
    VIEW.with(|v| v.set(true));
    let _ = crate::dom::on(sec, "contentvisibilityautostatechange", on_view);
}

/// The page's widgets have just entered the document under `at`: those
/// on screen are rendered from now on (`data-seen`: `content-visibility:
/// visible`), and their charts count as in view. A `content-visibility:
/// auto` widget arrives skipped: the browser finds out that it is near the
/// viewport only after the frame it arrives in, so its numbers and charts
/// would reach the screen frames after that frame marked them shown
/// (how much later: `docs/performance.md`). These stay rendered: back at
/// `auto` they would be skipped again until the browser looked.
pub fn first_view(at: &Element) {
    if crate::url_state::embedding().is_some() || !reports_view() {
        return;
    }
    let _ = crate::dom::mark_on_screen(at, "section.widget", SEEN);
    SHOWN.with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            m.iter_mut().filter(|s| s.section.as_ref().is_some_and(seen)).for_each(|s| s.in_view = true);
        }
    });
}

/// Marks a section rendered since the widgets arrived ([`first_view`]).
const SEEN: &str = "data-seen";

fn seen(sec: &Element) -> bool {
    sec.has_attribute(SEEN)
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

/// Draws the stored plots of `list` at their displayed widths. Every width
/// is read before any canvas is resized: one layout for the lot, not one
/// per canvas (a canvas's new height dirties the layout the next read
/// would force).
/// Stops once `budget_ms` is spent (after the first): the rest stay pending.
fn draw_many(list: &mut [&mut Shown], budget_ms: f64) {
    let widths: Vec<u32> = list.iter().map(|s| u32::try_from(s.canvas.client_width()).unwrap_or(0)).collect();
    let scheme = dark();
    let t0 = crate::worker::now();
    for (s, css_w) in list.iter_mut().zip(widths) {
        if crate::worker::now() - t0 > budget_ms {
            break;
        }
        s.dirty = false;
        let _ = s.canvas.remove_attribute("data-pending");
        if s.drawn == Some((css_w, scheme)) && s.canvas.has_attribute("data-layout") {
            continue;
        }
        let size = if css_w == 0 { FALLBACK_SIZE } else { (css_w, height_for(css_w, &s.plot)) };
        if css_w > 0 {
            // The height follows the width; the stylesheet's aspect ratio is overridden.
            let _ = s.canvas.set_attribute("style", &format!("height:{}px", size.1));
        }
        paint(&s.canvas, &s.plot, size, None, &Theme::for_scheme(scheme));
        s.drawn = (css_w > 0).then_some((css_w, scheme));
    }
}

/// Draws the pending canvases picked by `pick` (at most `max` of them,
/// within the frame budget), then ends the wait of every section whose
/// last pending canvas that was.
fn draw_where(max: usize, pick: impl Fn(&Shown) -> bool) {
    let drawn: Vec<HtmlCanvasElement> = SHOWN.with(|m| {
        let Ok(mut m) = m.try_borrow_mut() else { return Vec::new() };
        let mut list: Vec<&mut Shown> = m.iter_mut().filter(|s| s.dirty && pick(s)).take(max).collect();
        draw_many(&mut list, crate::dom::FRAME_BUDGET_MS);
        list.iter().filter(|s| !s.dirty).map(|s| s.canvas.clone()).collect()
    });
    for c in drawn {
        if let Ok(Some(sec)) = c.closest("section[data-await-charts]") {
            charts_done(&sec);
        }
    }
}

/// Draws one pending canvas out of view, the nearest the top of the page.
fn draw_some() {
    let t0 = crate::worker::now();
    draw_where(1, |_| true);
    crate::worker::measure("bplab:charts:later", t0);
}

/// Whether `sec` still has canvases to draw (only those in view, if `in_view`).
fn pending_in(sec: &Element, in_view: bool) -> bool {
    let all = all_in_view();
    SHOWN.with(|m| {
        m.try_borrow()
            .is_ok_and(|m| m.iter().any(|s| s.dirty && (!in_view || all || s.in_view) && sec.contains(Some(&s.canvas))))
    })
}

/// Ends `sec`'s waits: once no chart in view is pending, the answer it
/// waits for is marked shown (`data-shown`, `data-drawn-at`:
/// scripts/measure-page.mjs); once none at all is, a full answer ends the
/// section's busy state (and `data-drawn-at` is that time).
fn charts_done(sec: &Element) {
    if let Some(shown) = sec.get_attribute("data-await-shown").filter(|_| !pending_in(sec, true)) {
        let _ = sec.remove_attribute("data-await-shown");
        let _ = sec.set_attribute("data-drawn-at", &format!("{:.3}", crate::worker::now()));
        let _ = sec.set_attribute("data-shown", &shown);
        crate::answered();
    }
    if let Some(shown) = sec.get_attribute("data-await-charts").filter(|_| !pending_in(sec, false)) {
        let _ = sec.remove_attribute("data-await-charts");
        if !shown.ends_with(":preview") {
            let _ = sec.set_attribute("data-drawn-at", &format!("{:.3}", crate::worker::now()));
            let _ = sec.remove_attribute("aria-busy");
        }
    }
}

/// Schedules the drawing of pending canvases: those in view in the next
/// frame (within the frame budget), the rest one per task.
pub fn schedule() {
    let (in_view, rest) = SHOWN.with(|m| {
        m.try_borrow().map_or((false, false), |m| {
            let all = all_in_view();
            (m.iter().any(|s| s.dirty && (all || s.in_view)), m.iter().any(|s| s.dirty && !(all || s.in_view)))
        })
    });
    let (framed, tasked) = PUMPS.with(Cell::get);
    if in_view && !framed {
        PUMPS.with(|p| p.set((true, p.get().1)));
        crate::dom::in_frame(|| {
            PUMPS.with(|p| p.set((false, p.get().1)));
            let all = all_in_view();
            draw_where(usize::MAX, |s| all || s.in_view);
            schedule();
        });
    }
    if rest && !tasked {
        PUMPS.with(|p| p.set((p.get().0, true)));
        // After the answers waiting for a frame are drawn: a chart out of
        // view never delays a widget's numbers (at first load, every
        // widget's first answer comes before the charts nobody sees yet).
        crate::dom::after_frames(|| {
            PUMPS.with(|p| p.set((p.get().0, false)));
            draw_some();
            schedule();
        });
    }
}

/// Stores `plot` as what `canvas` shows (kept for later redraws and the
/// PNG) and marks it pending; nothing is drawn yet. A plot whose data is
/// not computed yet (`Plot::pending`: a preview's) leaves the figure the
/// canvas has until the full run brings its own; the same figure as the
/// one drawn is not drawn again (a preview's charts, when the full run
/// adds only numbers).
pub fn show(canvas: &HtmlCanvasElement, plot: Plot) {
    SHOWN.with(|m| {
        let Ok(mut m) = m.try_borrow_mut() else { return };
        let found = m.iter_mut().find(|s| s.canvas.id() == canvas.id());
        let keep = found
            .as_ref()
            .is_some_and(|s| (plot.pending && !s.plot.pending) || (!s.dirty && s.drawn.is_some() && s.plot == plot));
        if keep {
            return;
        }
        let _ = canvas.set_attribute("data-pending", "");
        match found {
            Some(s) => {
                s.plot = plot;
                s.dirty = true;
                s.drawn = None;
                s.canvas = canvas.clone();
            }
            None => {
                let section = canvas.closest("section").ok().flatten();
                if let Some(sec) = section.as_ref().filter(|sec| !m.iter().any(|s| s.section.as_ref() == Some(*sec))) {
                    observe_section(sec);
                }
                // A section rendered since the widgets arrived sends no state change ([`first_view`]).
                let in_view = section.as_ref().is_some_and(seen);
                m.push(Shown { canvas: canvas.clone(), plot, drawn: None, dirty: true, section, in_view });
            }
        }
    });
}

/// Draws now those of `canvases` that are pending and in view (the frame
/// budget applies between widgets, not within one answer); the others are
/// scheduled (one per task, once the page is built). Returns whether any of them is still pending.
pub fn draw_in_view(canvases: &[HtmlCanvasElement]) -> bool {
    let all = all_in_view();
    SHOWN.with(|m| {
        let Ok(mut m) = m.try_borrow_mut() else { return };
        let mut list: Vec<&mut Shown> =
            m.iter_mut().filter(|s| s.dirty && (all || s.in_view) && canvases.contains(&s.canvas)).collect();
        // All of them: an answer is on screen when every chart of it in view is.
        draw_many(&mut list, f64::INFINITY);
    });
    schedule();
    SHOWN.with(|m| m.try_borrow().is_ok_and(|m| m.iter().any(|s| s.dirty && canvases.contains(&s.canvas))))
}

/// Section `sec` is busy with edit `generation` (`data-gen`) until that
/// edit's full answer and its charts are drawn; what an earlier answer
/// still waited for no longer counts.
pub fn busy(sec: &Element, generation: u64) {
    let _ = sec.set_attribute("aria-busy", "true");
    let _ = sec.remove_attribute("data-await-charts");
    let _ = sec.remove_attribute("data-await-shown");
    let _ = sec.set_attribute("data-gen", &generation.to_string());
}

/// The answer `shown` (`<generation>:preview|full`) of section `sec` is
/// on screen but for its pending charts: it is marked shown when its last
/// canvas is drawn (now, if none is pending), and a full one then ends the
/// section's busy state.
pub fn await_charts(sec: &Element, shown: &str) {
    let _ = sec.set_attribute("data-await-shown", shown);
    let _ = sec.set_attribute("data-await-charts", shown);
    charts_done(sec);
}

/// Forgets every stored plot (a new page is being mounted).
pub fn clear() {
    SHOWN.with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            m.clear();
        }
    });
}

/// The limit-vs-budget curve with the current point, stored for `canvas` (see [`show`]).
pub fn show_limit(canvas: &HtmlCanvasElement, input: &LimitInput, range_ms: (f64, f64)) {
    match limit_curve(input, range_ms) {
        Ok(plot) => show(canvas, plot),
        Err(e) => report_err(canvas, "limit curve", &e),
    }
}

/// The figure shown on `canvas` as a PNG data URL of [`PNG_SIZE`] pixels in
/// light colours, whatever the screen size and scheme (for downloads).
pub fn png_data_url(canvas: &HtmlCanvasElement) -> Result<String, JsValue> {
    let plot = SHOWN.with(|m| {
        m.try_borrow().ok().and_then(|m| m.iter().find(|s| s.canvas.id() == canvas.id()).map(|s| s.plot.clone()))
    });
    let plot = plot.ok_or_else(|| JsValue::from_str("no figure on this canvas"))?;
    let doc = document().ok_or_else(|| JsValue::from_str("no document"))?;
    let off: HtmlCanvasElement = doc.create_element("canvas")?.dyn_into().map_err(|_| JsValue::from_str("canvas"))?;
    paint(&off, &plot, PNG_SIZE, Some(1.0), &Theme::LIGHT);
    off.to_data_url_with_type("image/png")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // a test fails loudly
mod tests {
    use bplab_core::plot::{Plot, Role, Series};
    use wasm_bindgen::JsCast;
    use wasm_bindgen_test::wasm_bindgen_test;
    use web_sys::HtmlCanvasElement;

    use super::{SHOWN, draw_in_view, show};

    wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

    fn stored(c: &HtmlCanvasElement) -> Plot {
        SHOWN.with(|m| m.borrow().iter().find(|s| s.canvas.id() == c.id()).unwrap().plot.clone())
    }

    // A pending plot (a preview's: its data not computed yet) leaves the
    // figure drawn there; the full run's plot replaces it; the same figure
    // again is not marked for drawing.
    #[wasm_bindgen_test]
    fn a_pending_plot_keeps_the_figure_on_show() {
        crate::dom::helpers_for_tests();
        let doc = crate::dom::document().unwrap();
        let c: HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
        c.set_id("chart-test-pending");
        c.set_attribute("style", "width:320px").unwrap();
        doc.body().unwrap().append_child(&c).unwrap();
        let mut drawn = Plot::new("t", "x", "x (ms)", "y");
        drawn.series.push(Series::new("a", Role::Series(0), vec![(0.0, 1.0), (1.0, 2.0)]));
        show(&c, drawn.clone());
        assert!(!draw_in_view(std::slice::from_ref(&c)), "drawn now");
        let pending = Plot { pending: true, series: Vec::new(), ..drawn.clone() };
        show(&c, pending);
        assert_eq!(stored(&c), drawn, "the figure on show stays");
        assert!(!c.has_attribute("data-pending"));
        show(&c, drawn.clone());
        assert!(!c.has_attribute("data-pending"), "the same figure is not drawn again");
        let mut next = drawn.clone();
        next.series[0].points.push((2.0, 3.0));
        show(&c, next.clone());
        assert_eq!(stored(&c), next);
        assert!(c.has_attribute("data-pending"), "a new figure is drawn");
        c.remove();
    }
}
