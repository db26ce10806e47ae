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

/// The height a figure `width` CSS px wide is drawn at: about 16:10, taller
/// (at least 260 px) on narrow screens where the legend goes below.
pub fn height_for(width: u32) -> u32 {
    (f64::from(width) * 0.62).clamp(260.0, 480.0).round() as u32
}

/// The smallest font any figure uses, CSS px.
pub const MIN_FONT_PX: f64 = 11.0;
