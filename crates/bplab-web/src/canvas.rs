//! The canvas drawing backend for plotters (in place of plotters-canvas).
//! Plotters sizes text by default through its web font module, which
//! appends a `<span>` to the page and reads `offsetHeight`: a forced layout
//! of the whole page per label, the dominant cost of a redraw (measured).
//! Here text is sized with the canvas's own `measureText`, which needs no
//! layout (and each width is measured once per font and text, then
//! remembered). Every style (font, alignment, fill and stroke colour, line
//! width) is set on the context only when it changes: each colour is a
//! string made in wasm, decoded in JS and parsed as CSS, and plotters draws
//! a dashed line as one path per dash, a band as one polygon per step.
//! Consecutive opaque lines of one style are stroked as one path (they
//! would cover the same pixels one by one).

use std::cell::RefCell;

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind, FontTransform,
};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// Line height as a multiple of the font size (what the span measured).
const LINE_HEIGHT: f64 = 1.15;

/// How many measured text widths are kept (then the cache starts over).
const WIDTHS_MAX: usize = 1024;

thread_local! {
    /// `measureText` widths by font and text, sorted by key: a redraw measures the same tick
    /// labels, legend entries and markers as the last one, and each
    /// measurement is a call into the canvas (and a font parse when the
    /// font changes).
    static WIDTHS: RefCell<Vec<(String, f64)>> = const { RefCell::new(Vec::new()) };
}

/// Styles last set on the context (empty = unknown), and whether a path of
/// opaque lines in the current stroke style is open (not stroked yet).
#[derive(Default)]
struct TextState {
    font: String,
    fill: Option<Ink>,
    align: String,
    baseline: String,
    stroke: Option<Ink>,
    width: f64,
    open: bool,
}

/// A colour as plotters gives it: `(rgb, alpha)`; compared before any
/// CSS string is made of it.
type Ink = ((u8, u8, u8), f64);

fn ink(c: BackendColor) -> Option<Ink> {
    Some((c.rgb, c.alpha))
}

/// Sets `slot` to `want` (and calls `apply`) only if it differs.
fn update(slot: &mut String, want: &str, apply: impl FnOnce(&str)) {
    if slot != want {
        apply(want);
        want.clone_into(slot);
    }
}

/// A canvas backend that measures text without touching the page layout,
/// and draws sharp on high-density screens: the backing store is the
/// logical size × `devicePixelRatio` and the context is scaled to match, so
/// the charts see the logical size.
pub struct Canvas {
    /// Size the charts draw at, CSS pixels.
    logical: (u32, u32),
    ctx: CanvasRenderingContext2d,
    /// Text state last set on the context: font, fill, align, baseline.
    text_state: RefCell<TextState>,
}

impl Canvas {
    /// The backend for `canvas` drawing at `logical` CSS pixels, if it has a 2d context.
    /// Resizes the backing store to `logical × devicePixelRatio` (1 to 4) when it differs.
    pub fn new(canvas: &HtmlCanvasElement, logical: (u32, u32)) -> Option<Canvas> {
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
        Canvas::with_ratio(canvas, logical, dpr)
    }

    /// The backend for `canvas` drawing at `logical` CSS pixels with a
    /// backing store of `logical × ratio` (1 to 4) pixels: 1 for a PNG file
    /// of exactly the logical size.
    pub fn with_ratio(canvas: &HtmlCanvasElement, logical: (u32, u32), ratio: f64) -> Option<Canvas> {
        let dpr = if ratio.is_finite() { ratio.clamp(1.0, 4.0) } else { 1.0 };
        let backing = |css: u32| (f64::from(css) * dpr).round() as u32;
        let (w, h) = (backing(logical.0), backing(logical.1));
        if canvas.width() != w {
            canvas.set_width(w);
        }
        if canvas.height() != h {
            canvas.set_height(h);
        }
        let ctx = canvas.get_context("2d").ok()??.dyn_into::<CanvasRenderingContext2d>().ok()?;
        let (sx, sy) = (f64::from(w) / f64::from(logical.0.max(1)), f64::from(h) / f64::from(logical.1.max(1)));
        ctx.set_transform(sx, 0.0, 0.0, sy, 0.0, 0.0).ok()?;
        Some(Canvas { logical, ctx, text_state: RefCell::default() })
    }

    /// Sets the text state entries that differ from the last ones set.
    fn set_text_state(&self, font: String, fill: BackendColor, align: &str, baseline: &str) {
        self.fill_style(fill);
        let Ok(mut st) = self.text_state.try_borrow_mut() else { return };
        update(&mut st.font, &font, |v| self.ctx.set_font(v));
        update(&mut st.align, align, |v| self.ctx.set_text_align(v));
        update(&mut st.baseline, baseline, |v| self.ctx.set_text_baseline(v));
    }

    /// Strokes the open path of opaque lines, if any.
    fn flush(&self) {
        if let Ok(mut st) = self.text_state.try_borrow_mut()
            && st.open
        {
            st.open = false;
            self.ctx.stroke();
        }
    }

    /// Sets the fill colour (after stroking what is open).
    fn fill_style(&self, c: BackendColor) {
        self.flush();
        let Ok(mut st) = self.text_state.try_borrow_mut() else { return };
        if st.fill != ink(c) {
            st.fill = ink(c);
            self.ctx.set_fill_style_str(&css_color(c));
        }
    }

    /// Sets the stroke colour and width of `style` (after stroking what is open).
    fn line_style<S: BackendStyle>(&self, style: &S) {
        self.flush();
        let Ok(mut st) = self.text_state.try_borrow_mut() else { return };
        if st.stroke != ink(style.color()) {
            st.stroke = ink(style.color());
            self.ctx.set_stroke_style_str(&css_color(style.color()));
        }
        let w = style.stroke_width() as f64;
        if st.width != w {
            st.width = w;
            self.ctx.set_line_width(w);
        }
    }
}

fn font_of<S: BackendTextStyle>(style: &S) -> String {
    // The same font string plotters-canvas uses.
    format!("{} {}px {}", style.style().as_str(), style.size(), style.family().as_str())
}

fn css_color(c: BackendColor) -> String {
    format!("rgba({},{},{},{})", c.rgb.0, c.rgb.1, c.rgb.2, c.alpha)
}

/// A failed canvas call, with the browser's message.
#[derive(Debug)]
pub struct CanvasError(String);

impl std::fmt::Display for CanvasError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "canvas: {}", self.0)
    }
}

impl std::error::Error for CanvasError {}

type Res = Result<(), DrawingErrorKind<CanvasError>>;

fn js_error(e: wasm_bindgen::JsValue) -> CanvasError {
    CanvasError(e.as_string().unwrap_or_else(|| format!("{e:?}")))
}

/// A vertical or horizontal line moved half a pixel, so that a 1 px line
/// covers one pixel column or row instead of blurring over two (what
/// plotters-canvas does).
fn sharp(from: BackendCoord, to: BackendCoord) -> ((f64, f64), (f64, f64)) {
    let (mut a, mut b) = ((f64::from(from.0), f64::from(from.1)), (f64::from(to.0), f64::from(to.1)));
    if a.0 == b.0 {
        a.0 -= 0.5;
        b.0 -= 0.5;
    }
    if a.1 == b.1 {
        a.1 -= 0.5;
        b.1 -= 0.5;
    }
    (a, b)
}

impl DrawingBackend for Canvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.logical
    }
    fn ensure_prepared(&mut self) -> Res {
        Ok(())
    }
    fn present(&mut self) -> Res {
        self.flush();
        Ok(())
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Res {
        if color.alpha == 0.0 {
            return Ok(());
        }
        self.fill_style(color);
        self.ctx.fill_rect(f64::from(point.0), f64::from(point.1), 1.0, 1.0);
        Ok(())
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Res {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (a, b) = sharp(from, to);
        self.line_style(style);
        self.ctx.begin_path();
        self.ctx.move_to(a.0, a.1);
        self.ctx.line_to(b.0, b.1);
        self.ctx.stroke();
        Ok(())
    }
    fn draw_rect<S: BackendStyle>(&mut self, ul: BackendCoord, br: BackendCoord, style: &S, fill: bool) -> Res {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (x, y, w, h) = (f64::from(ul.0), f64::from(ul.1), f64::from(br.0 - ul.0), f64::from(br.1 - ul.1));
        if fill {
            self.fill_style(style.color());
            self.ctx.fill_rect(x, y, w, h);
        } else {
            self.line_style(style);
            self.ctx.stroke_rect(x, y, w, h);
        }
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Res {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let mut path = path.into_iter();
        let Some(start) = path.next() else { return Ok(()) };
        // Opaque lines of the style already open join its path; any other
        // line is stroked on its own (a translucent one must not merge its overlaps).
        let joins = color.alpha >= 1.0
            && self
                .text_state
                .try_borrow()
                .is_ok_and(|st| st.open && st.stroke == ink(color) && st.width == style.stroke_width() as f64);
        if !joins {
            self.line_style(style);
            self.ctx.begin_path();
        }
        self.ctx.move_to(f64::from(start.0), f64::from(start.1));
        for p in path {
            self.ctx.line_to(f64::from(p.0), f64::from(p.1));
        }
        if color.alpha >= 1.0 {
            if let Ok(mut st) = self.text_state.try_borrow_mut() {
                st.open = true;
            }
        } else {
            self.ctx.stroke();
        }
        Ok(())
    }
    fn draw_circle<S: BackendStyle>(&mut self, center: BackendCoord, radius: u32, style: &S, fill: bool) -> Res {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        if fill {
            self.fill_style(style.color());
        } else {
            self.line_style(style);
        }
        self.ctx.begin_path();
        let (x, y) = (f64::from(center.0), f64::from(center.1));
        self.ctx
            .arc(x, y, f64::from(radius), 0.0, std::f64::consts::TAU)
            .map_err(|e| DrawingErrorKind::DrawingError(js_error(e)))?;
        if fill {
            self.ctx.fill();
        } else {
            self.ctx.stroke();
        }
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Res {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let mut vert = vert.into_iter();
        let Some(start) = vert.next() else { return Ok(()) };
        self.fill_style(style.color());
        self.ctx.begin_path();
        self.ctx.move_to(f64::from(start.0), f64::from(start.1));
        for p in vert {
            self.ctx.line_to(f64::from(p.0), f64::from(p.1));
        }
        self.ctx.close_path();
        self.ctx.fill();
        Ok(())
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Res {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let degrees: f64 = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        };
        let baseline = match style.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        };
        let align = match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        };
        self.flush();
        self.set_text_state(font_of(style), color, align, baseline);
        let (x, y) = (f64::from(pos.0), f64::from(pos.1));
        let r = if degrees == 0.0 {
            self.ctx.fill_text(text, x, y)
        } else {
            self.ctx.save();
            let r = self
                .ctx
                .translate(x, y)
                .and_then(|()| self.ctx.rotate(degrees.to_radians()))
                .and_then(|()| self.ctx.fill_text(text, 0.0, 0.0));
            self.ctx.restore();
            r
        };
        r.map_err(|e| DrawingErrorKind::DrawingError(js_error(e)))
    }
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        let font = font_of(style);
        // One string key, font then text (no font name holds a NUL).
        let key = format!("{font}\0{text}");
        let known = WIDTHS.with(|w| {
            let w = w.borrow();
            w.binary_search_by(|(k, _)| k.as_str().cmp(&key)).ok().and_then(|i| w.get(i)).map(|(_, v)| *v)
        });
        let width = match known {
            Some(w) => w,
            None => {
                if let Ok(mut st) = self.text_state.try_borrow_mut() {
                    update(&mut st.font, &font, |v| self.ctx.set_font(v));
                }
                let w = self.ctx.measure_text(text).map(|m| m.width()).unwrap_or(0.0);
                WIDTHS.with(|m| {
                    let mut m = m.borrow_mut();
                    if m.len() >= WIDTHS_MAX {
                        m.clear();
                    }
                    let at = m.partition_point(|(k, _)| k.as_str() < key.as_str());
                    m.insert(at, (key, w));
                });
                w
            }
        };
        let height = style.size() * LINE_HEIGHT;
        Ok((width.max(0.0).ceil() as u32, height.max(0.0).ceil() as u32))
    }
}
