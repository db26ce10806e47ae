//! # bplab-charts
//!
//! Renders plot descriptions ([`bplab_core::plot::Plot`], built by each
//! experiment from its report) with plotters on whatever backend the caller
//! owns: the page passes a canvas backend, the CLI a bitmap or SVG backend.
//! Knows no experiment. The layout follows the canvas size: fonts never
//! under 11 px, legends and marker labels placed where they meet neither
//! each other nor the data, coinciding lines told apart, colours from a
//! [`Theme`] (light or dark). [`render`] returns the [`Layout`] record of
//! every text's box and size. Never creates a backend and never panics on
//! data: empty, single-point, all-zero and huge reports all draw.
//!
//! ```
//! use bplab_charts::{Theme, render};
//! use bplab_core::plot::Focus;
//! use bplab_core::{EXPERIMENTS, Scenario};
//! use plotters::prelude::*;
//!
//! # // Text needs a font when plotters' `ab_glyph` feature is on (the CLI's
//! # // build); the browser canvas measures text itself.
//! # let ttf = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../bplab/assets/DejaVuSans.ttf")).unwrap();
//! # plotters::style::register_font("sans-serif", plotters::style::FontStyle::Normal, Box::leak(ttf.into_boxed_slice())).ok();
//! let e = &EXPERIMENTS[1];
//! let report = Scenario::defaults(e.id).run();
//! let plots = report.plots(&Focus::ring("limit", 20.0));
//! let mut svg = String::new();
//! let layout = {
//!     let area = SVGBackend::with_string(&mut svg, (720, 400)).into_drawing_area();
//!     render(&area, &plots[0], &Theme::LIGHT).unwrap()
//! };
//! assert!(svg.contains(e.charts[0].title));
//! assert!(layout.problems(11.0).is_empty(), "{:?}", layout.problems(11.0));
//! ```
#![warn(missing_docs)]

mod calc;
mod error;
mod frame;
mod geom;
mod layout;
mod lines;
mod render;
mod scale;
mod theme;

pub use calc::{LIMIT_CURVE_TITLE, limit_curve};
pub use error::ChartError;
pub use geom::Rect;
pub use layout::{Layout, TextBox, TextKind};
pub use render::render;
pub use theme::Theme;

/// The height `plot` is drawn at on a canvas `width` CSS px wide: about
/// 16:10, at least 260 px, and on narrow canvases (under 560 px, where the
/// legend goes below the plot) one more line per expected legend row, so
/// that the plotting area keeps its height on a phone.
pub fn height_for(width: u32, plot: &bplab_core::plot::Plot) -> u32 {
    let base = (f64::from(width) * 0.62).clamp(260.0, 480.0);
    let extra = if width < 560 {
        let entries = plot.series.iter().filter(|s| !s.points.is_empty()).count() + plot.bands.len();
        let cols = ((f64::from(width) - 24.0) / 140.0).floor().max(1.0);
        (entries as f64 / cols).ceil() * frame::line_h(frame::base_font(f64::from(width)))
    } else {
        0.0
    };
    (base + extra).round() as u32
}

/// The smallest font any figure uses, CSS px.
pub const MIN_FONT_PX: f64 = 11.0;
