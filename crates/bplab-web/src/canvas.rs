//! The canvas drawing backend: plotters-canvas with one change. Plotters
//! sizes text by default through its web font module, which appends a
//! `<span>` to the page and reads `offsetHeight`: a forced layout of the
//! whole page per label, the dominant cost of a redraw (measured). Here text
//! is sized with the canvas's own `measureText`, which needs no layout (and
//! each width is measured once per font and text, then remembered), and
//! text is drawn here so the font, alignment and colour are only set on the
//! context when they change (setting `font` parses CSS every time).

use std::cell::RefCell;

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind, FontTransform,
};
use plotters_canvas::CanvasBackend;
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

/// Text state last set on the context (empty = unknown).
#[derive(Default)]
struct TextState {
    font: String,
    fill: String,
    align: String,
    baseline: String,
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
    inner: CanvasBackend,
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
        Some(Canvas {
            inner: CanvasBackend::with_canvas_object(canvas.clone())?,
            logical,
            ctx,
            text_state: RefCell::default(),
        })
    }

    /// Sets the text state entries that differ from the last ones set.
    fn set_text_state(&self, font: String, fill: String, align: &str, baseline: &str) {
        let Ok(mut st) = self.text_state.try_borrow_mut() else { return };
        update(&mut st.font, &font, |v| self.ctx.set_font(v));
        update(&mut st.fill, &fill, |v| self.ctx.set_fill_style_str(v));
        update(&mut st.align, align, |v| self.ctx.set_text_align(v));
        update(&mut st.baseline, baseline, |v| self.ctx.set_text_baseline(v));
    }

    /// Forgets the cached fill style (shape drawing sets its own).
    fn forget_fill(&self) {
        if let Ok(mut st) = self.text_state.try_borrow_mut() {
            st.fill.clear();
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
type Inner = <CanvasBackend as DrawingBackend>::ErrorType;

fn conv(r: Result<(), DrawingErrorKind<Inner>>) -> Res {
    r.map_err(|e| match e {
        DrawingErrorKind::DrawingError(e) => DrawingErrorKind::DrawingError(CanvasError(e.to_string())),
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    })
}

fn js_error(e: wasm_bindgen::JsValue) -> CanvasError {
    CanvasError(e.as_string().unwrap_or_else(|| format!("{e:?}")))
}

impl DrawingBackend for Canvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.logical
    }
    fn ensure_prepared(&mut self) -> Res {
        conv(self.inner.ensure_prepared())
    }
    fn present(&mut self) -> Res {
        conv(self.inner.present())
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Res {
        self.forget_fill();
        conv(self.inner.draw_pixel(point, color))
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Res {
        self.forget_fill();
        conv(self.inner.draw_line(from, to, style))
    }
    fn draw_rect<S: BackendStyle>(&mut self, ul: BackendCoord, br: BackendCoord, style: &S, fill: bool) -> Res {
        self.forget_fill();
        conv(self.inner.draw_rect(ul, br, style, fill))
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Res {
        self.forget_fill();
        conv(self.inner.draw_path(path, style))
    }
    fn draw_circle<S: BackendStyle>(&mut self, center: BackendCoord, radius: u32, style: &S, fill: bool) -> Res {
        self.forget_fill();
        conv(self.inner.draw_circle(center, radius, style, fill))
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Res {
        self.forget_fill();
        conv(self.inner.fill_polygon(vert, style))
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
        self.set_text_state(font_of(style), css_color(color), align, baseline);
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
