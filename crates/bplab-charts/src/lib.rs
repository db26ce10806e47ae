//! # bplab-charts
//!
//! Every bplab figure, drawn with plotters on whatever backend the caller
//! owns: the page passes a canvas backend, the CLI a bitmap or SVG backend.
//! This crate never creates a backend and never panics on data: empty,
//! single-point, all-zero and huge reports all draw.
//!
//! ```
//! use bplab_charts::{Focus, draw};
//! use bplab_core::{EXPERIMENTS, Scenario};
//! use plotters::prelude::*;
//!
//! # // Text needs a font when plotters' `ab_glyph` feature is on (the CLI's
//! # // build); the browser canvas measures text itself.
//! # let ttf = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../bplab/assets/DejaVuSans.ttf")).unwrap();
//! # plotters::style::register_font("sans-serif", plotters::style::FontStyle::Normal, Box::leak(ttf.into_boxed_slice())).ok();
//! let e = &EXPERIMENTS[1];
//! let report = Scenario::defaults(e.id).run();
//! let mut svg = String::new();
//! {
//!     let area = SVGBackend::with_string(&mut svg, (720, 400)).into_drawing_area();
//!     let focus = Focus { admission_limit: Some(20), ..Focus::default() };
//!     draw(&area, e.charts[0].id, &report, &focus).unwrap();
//! }
//! assert!(svg.contains(e.charts[0].title));
//! ```
#![warn(missing_docs)]

mod adaptive;
mod admission;
mod axis;
mod calc;
mod collapse;
mod common;
mod error;
mod legend;
mod lesson;
mod plot;
mod priority;
mod shaping;
mod shedding;

use bplab_core::{ChartId, EXPERIMENTS, Report};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};

pub use calc::{LIMIT_CURVE_TITLE, draw_limit_curve};
pub use error::ChartError;

/// Optional highlights chosen on the page. `Focus::default()` highlights
/// nothing; the model's own reference markers (capacity, B, the priority
/// ceiling, the SLO) are always drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Focus {
    /// Ringed on the admission limit sweep (B is marked regardless).
    pub admission_limit: Option<u32>,
    /// Vertical marker on the charts whose x axis is offered load, rps.
    pub offered_rps: Option<f64>,
    /// Ringed on the shaping burst sweep.
    pub burst: Option<u32>,
}

impl Focus {
    /// The highlights that follow a report's own chosen values (the
    /// plateau limit, the timeline burst).
    pub fn of(report: &Report) -> Focus {
        match report {
            Report::Admission(r) => Focus { admission_limit: Some(r.plateau_limit), ..Focus::default() },
            Report::Shaping(r) => Focus { burst: Some(r.timeline.burst), ..Focus::default() },
            _ => Focus::default(),
        }
    }
}

/// The registry title of `chart` (empty if the registry lacks it).
pub(crate) fn title(chart: ChartId) -> &'static str {
    EXPERIMENTS.iter().flat_map(|e| e.charts).find(|c| c.id == chart).map_or("", |c| c.title)
}

/// Draws `chart` from `report` on `area`, then presents the area.
///
/// Errors: [`ChartError::WrongReport`] when the chart belongs to another
/// experiment, [`ChartError::Drawing`] when the backend fails.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: ChartId,
    report: &Report,
    focus: &Focus,
) -> Result<(), ChartError> {
    use ChartId as C;
    let plot = match (chart, report) {
        (C::CollapseGoodput, Report::Collapse(r)) => collapse::goodput(r, focus),
        (C::CollapseAmplification, Report::Collapse(r)) => collapse::amplification(r, focus),
        (C::AdmissionLimitSweep, Report::Admission(r)) => admission::limit_sweep(r, focus),
        (C::AdmissionPlateau, Report::Admission(r)) => admission::plateau(r, focus),
        (C::ShapingTimeline, Report::Shaping(r)) => shaping::timeline(r),
        (C::ShapingBurstSweep, Report::Shaping(r)) => shaping::burst_sweep(r, focus),
        (C::SheddingSweep, Report::Shedding(r)) => shedding::sweep(r, focus),
        (C::SheddingHangover, Report::Shedding(r)) => shedding::hangover(r),
        (C::PriorityProtection, Report::Priority(r)) => priority::protection(r, focus),
        (C::PriorityBurst, Report::Priority(r)) => priority::burst(r),
        (C::LessonSweep, Report::Lesson(r)) => lesson::sweep(r),
        (C::LessonLatency, Report::Lesson(r)) => lesson::latency(r),
        (C::AdaptiveLimit, Report::Adaptive(r)) => adaptive::limit(r),
        (C::AdaptiveP99, Report::Adaptive(r)) => adaptive::p99(r),
        (C::AdaptiveOk, Report::Adaptive(r)) => adaptive::ok(r),
        (chart, report) => return Err(ChartError::WrongReport { chart, report: report.id() }),
    };
    plot::render(area, &plot)
}
