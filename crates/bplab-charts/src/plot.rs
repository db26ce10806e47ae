//! One renderer for every figure: a description ([`Plot`]) of series and
//! reference markers, drawn with plotters on any backend.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::ChartError;
use crate::axis::Axis;
use crate::common::{FOCUS, GREY, fmt_tick, span, ticks};
use crate::legend::{self, Corner, Entry};

/// One line of a figure.
pub(crate) struct Series {
    pub name: String,
    pub color: RGBColor,
    pub dashed: bool,
    /// Drawn against the right-hand axis (needs [`Plot::secondary`]).
    pub right: bool,
    /// Line width, px (wider lines drawn first keep overlapping series visible).
    pub width: u32,
    pub points: Vec<(f64, f64)>,
}

impl Series {
    pub fn new(name: impl Into<String>, color: RGBColor, points: Vec<(f64, f64)>) -> Self {
        Self { name: name.into(), color, dashed: false, right: false, width: 2, points }
    }
    pub fn dashed(mut self) -> Self {
        self.dashed = true;
        self
    }
    pub fn width(mut self, px: u32) -> Self {
        self.width = px;
        self
    }
    pub fn right(mut self) -> Self {
        self.right = true;
        self
    }
}

/// A labelled reference line at `at` (x for vertical, y for horizontal).
pub(crate) struct Marker {
    pub at: f64,
    pub label: String,
    pub color: RGBColor,
}

impl Marker {
    pub fn new(at: f64, label: impl Into<String>) -> Self {
        Self { at, label: label.into(), color: GREY }
    }
    pub fn focus(at: f64, label: impl Into<String>) -> Self {
        Self { at, label: label.into(), color: FOCUS }
    }
}

/// The x axis: numbers, or categories at 0, 1, 2, … labelled in order.
pub(crate) enum XAxis {
    Linear,
    Categories(Vec<String>),
}

/// Everything one figure shows.
pub(crate) struct Plot {
    pub title: &'static str,
    pub x_desc: &'static str,
    pub y_desc: &'static str,
    pub x: XAxis,
    pub series: Vec<Series>,
    /// Vertical markers; drawn only when inside the data's x range.
    pub vlines: Vec<Marker>,
    /// Horizontal markers; included in the y range.
    pub hlines: Vec<Marker>,
    /// Circled points (focus), in left-axis coordinates.
    pub rings: Vec<(f64, f64)>,
    /// Fixed left-axis range instead of the data's.
    pub y_fixed: Option<(f64, f64)>,
    /// Extra room above the data, as a fraction of the left axis (room for the legend).
    pub headroom: f64,
    /// Horizontal-marker labels at the right end instead of the left.
    pub labels_right: bool,
    /// Right-axis description and fixed range (`None` → from its series).
    pub secondary: Option<(&'static str, Option<(f64, f64)>)>,
    pub legend: Corner,
}

impl Plot {
    pub fn new(title: &'static str, x_desc: &'static str, y_desc: &'static str) -> Self {
        Self {
            title,
            x_desc,
            y_desc,
            x: XAxis::Linear,
            series: Vec::new(),
            vlines: Vec::new(),
            hlines: Vec::new(),
            rings: Vec::new(),
            y_fixed: None,
            headroom: 0.0,
            labels_right: false,
            secondary: None,
            legend: Corner::UpperLeft,
        }
    }

    /// Marks the page's offered rate, if any, with a vertical line.
    pub fn mark_offered(&mut self, focus: &crate::Focus) {
        if let Some(x) = focus.offered_rps {
            self.vlines.push(Marker::focus(x, format!("offered {}", fmt_tick(x))));
        }
    }
}

const LABEL_FONT: u32 = 13;
const MARKS_UP_TO: usize = 40;

/// Draws `plot` on `area` and presents it.
pub(crate) fn render<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, plot: &Plot) -> Result<(), ChartError> {
    area.fill(&WHITE)?;
    let (left, right): (Vec<&Series>, Vec<&Series>) =
        plot.series.iter().partition(|s| !s.right || plot.secondary.is_none());
    let (x0, x1) = match &plot.x {
        XAxis::Linear => span(plot.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)), false),
        XAxis::Categories(labels) => (-0.5, labels.len().max(1) as f64 - 0.5),
    };
    let (y0, y1) = plot.y_fixed.unwrap_or_else(|| {
        let data = left.iter().flat_map(|s| s.points.iter().map(|p| p.1));
        let (lo, hi) = span(data.chain(plot.hlines.iter().map(|m| m.at)), true);
        (lo, hi + (hi - lo) * plot.headroom.clamp(0.0, 4.0))
    });
    let (r0, r1) = match plot.secondary {
        Some((_, Some(r))) => r,
        _ => span(right.iter().flat_map(|s| s.points.iter().map(|p| p.1)), true),
    };
    let x_ticks = match &plot.x {
        XAxis::Linear => ticks(x0, x1, 8),
        XAxis::Categories(labels) => {
            let every = labels.len().div_ceil(14).max(1);
            (0..labels.len()).step_by(every).map(|i| i as f64).collect()
        }
    };
    let x_fmt = |v: &f64| match &plot.x {
        XAxis::Linear => fmt_tick(*v),
        XAxis::Categories(labels) => {
            let i = v.round();
            let label = (i >= 0.0 && (v - i).abs() < 1e-6).then(|| labels.get(i as usize)).flatten();
            label.cloned().unwrap_or_default()
        }
    };
    let y_fmt = |v: &f64| fmt_tick(*v);
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(plot.title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(62)
        .right_y_label_area_size(if plot.secondary.is_some() { 62 } else { 0 });
    let chart = builder.build_cartesian_2d(Axis::new(x0, x1, x_ticks), Axis::new(y0, y1, ticks(y0, y1, 6)))?;
    let mut chart = chart.set_secondary_coord(Axis::new(x0, x1, Vec::new()), Axis::new(r0, r1, ticks(r0, r1, 6)));
    chart
        .configure_mesh()
        .x_desc(plot.x_desc)
        .y_desc(plot.y_desc)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .bold_line_style(BLACK.mix(0.1))
        .label_style(("sans-serif", LABEL_FONT - 1))
        .axis_desc_style(("sans-serif", LABEL_FONT))
        .draw()?;
    if let Some((desc, _)) = plot.secondary {
        chart
            .configure_secondary_axes()
            .y_desc(desc)
            .y_label_formatter(&y_fmt)
            .label_style(("sans-serif", LABEL_FONT - 1))
            .axis_desc_style(("sans-serif", LABEL_FONT))
            .draw()?;
    }
    let font = ("sans-serif", LABEL_FONT).into_font();
    for m in &plot.hlines {
        let style = m.color.stroke_width(1);
        chart.draw_series(std::iter::once(PathElement::new(vec![(x0, m.at), (x1, m.at)], style)))?;
        let (x, dx, h) = if plot.labels_right { (x1, -4, HPos::Right) } else { (x0, 4, HPos::Left) };
        let text = font.color(&m.color).pos(Pos::new(h, VPos::Bottom));
        chart.draw_series(std::iter::once(EmptyElement::at((x, m.at)) + Text::new(m.label.clone(), (dx, -2), text)))?;
    }
    for m in plot.vlines.iter().filter(|m| m.at.is_finite() && m.at >= x0 && m.at <= x1) {
        let style = m.color.stroke_width(if m.color == FOCUS { 2 } else { 1 });
        chart.draw_series(std::iter::once(PathElement::new(vec![(m.at, y0), (m.at, y1)], style)))?;
        let text = font.color(&m.color);
        chart.draw_series(std::iter::once(EmptyElement::at((m.at, y1)) + Text::new(m.label.clone(), (4, 2), text)))?;
    }
    let mut entries = Vec::with_capacity(plot.series.len());
    for s in &plot.series {
        let on_right = s.right && plot.secondary.is_some();
        let style = s.color.stroke_width(s.width);
        let pts = s.points.clone();
        match (on_right, s.dashed) {
            (false, false) => chart.draw_series(LineSeries::new(pts, style))?,
            (false, true) => chart.draw_series(DashedLineSeries::new(pts, 8, 5, style))?,
            (true, false) => chart.draw_secondary_series(LineSeries::new(pts, style))?,
            (true, true) => chart.draw_secondary_series(DashedLineSeries::new(pts, 8, 5, style))?,
        };
        entries.push(Entry { name: s.name.clone(), style, dashed: s.dashed });
        if s.points.len() <= MARKS_UP_TO {
            let dots = s.points.iter().map(|&p| Circle::new(p, 3, s.color.filled()));
            if on_right {
                chart.draw_secondary_series(dots)?;
            } else {
                chart.draw_series(dots)?;
            }
        }
    }
    chart.draw_series(plot.rings.iter().map(|&p| Circle::new(p, 8, FOCUS.stroke_width(2))))?;
    legend::draw(&chart.plotting_area().strip_coord_spec(), &entries, plot.legend, LABEL_FONT - 1)?;
    area.present()?;
    Ok(())
}
