//! Draws a [`Frame`] with plotters primitives in a theme's colours, and
//! returns the layout record.

use bplab_core::plot::{Plot, Role, Stroke};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::ChartError;
use crate::frame::{DOTS_UP_TO, EntryKind, Frame, Ink, Legend, Placed, frame};
use crate::geom::{P, Rect, clip, dashes};
use crate::layout::{Layout, TextBox, TextKind};
use crate::theme::Theme;

/// Length of one colour's dash where coinciding lines interleave, px.
const INTERLEAVE: f64 = 7.0;
/// A dashed series: on, period, px.
const DASH: (f64, f64) = (8.0, 13.0);

fn ip(p: P) -> (i32, i32) {
    (p.0.round() as i32, p.1.round() as i32)
}

fn ink(theme: &Theme, i: Ink) -> RGBColor {
    match i {
        Ink::Text => theme.text,
        Ink::Muted => theme.muted,
        Ink::Role(r) => theme.color(r),
    }
}

fn text_style(font: f64, color: RGBColor) -> TextStyle<'static> {
    ("sans-serif", font).into_font().color(&color).pos(Pos::new(HPos::Left, VPos::Top))
}

type Res = Result<(), ChartError>;

fn line<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, pts: Vec<(i32, i32)>, style: ShapeStyle) -> Res {
    if pts.len() >= 2 {
        area.draw(&PathElement::new(pts, style))?;
    }
    Ok(())
}

fn text<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Placed, theme: &Theme) -> Res {
    area.draw(&Text::new(p.text.clone(), ip((p.rect.x, p.rect.y)), text_style(p.font, ink(theme, p.ink))))?;
    Ok(())
}

/// A polyline with a dash pattern `(on, period, phase)` per segment
/// (`None`: solid), clipped to `clip_to`; solid runs are drawn as one path.
fn pattern_line<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    poly: &[P],
    clip_to: &Rect,
    dash: impl Fn(usize) -> Option<(f64, f64, f64)>,
    style: ShapeStyle,
) -> Res {
    let mut run: Vec<(i32, i32)> = Vec::new();
    let mut along = 0.0;
    for (k, w) in poly.windows(2).enumerate() {
        let len = ((w[1].0 - w[0].0).powi(2) + (w[1].1 - w[0].1).powi(2)).sqrt();
        let seg = clip(w[0], w[1], clip_to);
        match (dash(k), seg) {
            (None, Some((a, b))) => {
                if run.last() != Some(&ip(a)) {
                    line(area, std::mem::take(&mut run), style)?;
                    run.push(ip(a));
                }
                run.push(ip(b));
            }
            (Some((on, period, phase)), Some(_)) => {
                line(area, std::mem::take(&mut run), style)?;
                for (a, b) in dashes(w[0], w[1], along, period, phase, on) {
                    if let Some((a, b)) = clip(a, b, clip_to) {
                        line(area, vec![ip(a), ip(b)], style)?;
                    }
                }
            }
            (_, None) => line(area, std::mem::take(&mut run), style)?,
        }
        if len.is_finite() {
            along += len;
        }
    }
    line(area, run, style)
}

fn marker_style(theme: &Theme, role: Role) -> (ShapeStyle, bool) {
    let c = theme.color(role);
    match role {
        Role::Focus => (c.stroke_width(2), false),
        Role::Budget => (c.stroke_width(2), true),
        _ => (c.stroke_width(1), false),
    }
}

fn legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, plot: &Plot, l: &Legend, theme: &Theme) -> Res {
    let r = l.rect;
    let corners = [ip((r.x, r.y)), ip((r.right(), r.bottom()))];
    area.draw(&Rectangle::new(corners, theme.legend.filled()))?;
    area.draw(&Rectangle::new(corners, theme.axis.stroke_width(1)))?;
    for row in &l.rows {
        if let Some(s) = row.sample {
            let cy = s.y + s.h / 2.0;
            let (a, b) = ((s.x, cy), (s.right(), cy));
            let box_r = Rect::new(s.x - 1.0, s.y - 1.0, s.w + 2.0, s.h + 2.0);
            match row.kind {
                EntryKind::Series(i) => {
                    if let Some(se) = plot.series.get(i) {
                        let style = theme.color(se.role).stroke_width(if se.bold { 3 } else { 2 });
                        let dashed = se.stroke == Stroke::Dashed;
                        pattern_line(area, &[a, b], &box_r, |_| dashed.then_some((6.0, 10.0, 0.0)), style)?;
                    }
                }
                EntryKind::Band(i) => {
                    if let Some(b) = plot.bands.get(i) {
                        let c = theme.color(b.role).mix(0.3).filled();
                        area.draw(&Rectangle::new([ip((s.x, s.y + 2.0)), ip((s.right(), s.bottom() - 2.0))], c))?;
                    }
                }
                EntryKind::HLine(i) => {
                    if let Some(h) = plot.hlines.get(i) {
                        let (style, dashed) = marker_style(theme, h.role);
                        pattern_line(area, &[a, b], &box_r, |_| dashed.then_some((5.0, 8.0, 0.0)), style)?;
                    }
                }
                EntryKind::Note => {}
            }
        }
        for t in &row.texts {
            text(area, t, theme)?;
        }
    }
    Ok(())
}

/// Lays out and draws `plot` on `area` in `theme`'s colours, presents the
/// area and returns where every text went.
///
/// Errors: [`ChartError::Drawing`] when the backend fails.
pub fn render<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plot: &Plot,
    theme: &Theme,
) -> Result<Layout, ChartError> {
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (f64::from(w), f64::from(h));
    let measure = |s: &str, font: f64| -> f64 {
        let est = s.chars().count() as f64 * font * 0.6;
        match area.estimate_text_size(s, &text_style(font, theme.text)) {
            Ok((tw, _)) if tw > 0 || s.is_empty() => f64::from(tw),
            _ => est,
        }
    };
    let f: Frame = frame(plot, w, h, &measure);
    area.fill(&theme.background)?;
    let a = f.plot;
    for gx in &f.grid_x {
        line(area, vec![ip((*gx, a.y)), ip((*gx, a.bottom()))], theme.grid.stroke_width(1))?;
    }
    for gy in &f.grid_y {
        line(area, vec![ip((a.x, *gy)), ip((a.right(), *gy))], theme.grid.stroke_width(1))?;
    }
    let axis = theme.axis.stroke_width(1);
    line(area, vec![ip((a.x, a.y)), ip((a.x, a.bottom())), ip((a.right(), a.bottom()))], axis)?;
    if f.r.is_some() {
        line(area, vec![ip((a.right(), a.y)), ip((a.right(), a.bottom()))], axis)?;
    }
    for b in &plot.bands {
        let c = theme.color(b.role).mix(0.22).filled();
        let pts: Vec<(f64, f64, f64)> =
            b.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite() && p.2.is_finite()).collect();
        let cl = |x: f64, y: f64| ip((x.clamp(a.x, a.right()), y.clamp(a.y, a.bottom())));
        for s in pts.windows(2) {
            let (p, q) = (s[0], s[1]);
            let (xp, xq) = (f.x.px(p.0), f.x.px(q.0));
            let quad = vec![cl(xp, f.y.px(p.1)), cl(xq, f.y.px(q.1)), cl(xq, f.y.px(q.2)), cl(xp, f.y.px(p.2))];
            area.draw(&Polygon::new(quad, c))?;
        }
    }
    // Reference lines: horizontal ones across the plot, vertical ones up it.
    let across = plot.hlines.iter().map(|m| (m, f.y.px(m.at), a.y, a.bottom()));
    let up = plot.vlines.iter().map(|m| (m, f.x.px(m.at), a.x, a.right()));
    for (i, (m, p, lo, hi)) in across.chain(up).enumerate() {
        if m.at.is_finite() && p >= lo - 0.5 && p <= hi + 0.5 {
            let ends = if i < plot.hlines.len() { [(a.x, p), (a.right(), p)] } else { [(p, a.y), (p, a.bottom())] };
            let (style, dashed) = marker_style(theme, m.role);
            pattern_line(area, &ends, &a.grow(1.0), |_| dashed.then_some((6.0, 10.0, 0.0)), style)?;
        }
    }
    for (i, (s, poly)) in plot.series.iter().zip(&f.polys).enumerate() {
        let color = theme.color(s.role);
        let style = color.stroke_width(if s.bold { 3 } else { 2 });
        let slot = f.slots.get(i).cloned().unwrap_or_default();
        let dashed = s.stroke == Stroke::Dashed;
        pattern_line(
            area,
            poly,
            &a,
            |k| match slot.shared.get(k).copied().flatten() {
                // Coinciding lines take turns, each showing its colour for one
                // dash, over the first of them drawn whole (no gaps).
                Some((rank, size)) if rank > 0 => {
                    Some((INTERLEAVE, INTERLEAVE * size as f64, INTERLEAVE * rank as f64))
                }
                _ => dashed.then_some((DASH.0, DASH.1, 0.0)),
            },
            style,
        )?;
        if poly.len() <= DOTS_UP_TO {
            for p in poly.iter().filter(|p| a.grow(1.0).contains(&Rect::new(p.0, p.1, 0.0, 0.0))) {
                area.draw(&Circle::new(ip(*p), 3, color.filled()))?;
            }
        }
    }
    for r in &plot.rings {
        let p = (f.x.px(r.0), f.y.px(r.1));
        if r.0.is_finite() && r.1.is_finite() && a.grow(1.0).contains(&Rect::new(p.0, p.1, 0.0, 0.0)) {
            area.draw(&Circle::new(ip(p), 8, theme.focus.stroke_width(2)))?;
        }
    }
    for t in &f.texts {
        text(area, t, theme)?;
    }
    if let Some(l) = &f.legend {
        legend(area, plot, l, theme)?;
    }
    area.present()?;
    Ok(record(&f))
}

fn record(f: &Frame) -> Layout {
    let mut texts: Vec<TextBox> =
        f.texts.iter().map(|p| TextBox { text: p.text.clone(), kind: p.kind, rect: p.rect, font_px: p.font }).collect();
    let mut data_hits: Vec<String> = f
        .texts
        .iter()
        .filter(|p| p.kind == TextKind::Marker && f.plot.contains(&p.rect) && f.obstacles.hit(&p.rect))
        .map(|p| p.text.clone())
        .collect();
    if let Some(l) = &f.legend {
        texts.extend(l.rows.iter().flat_map(|r| {
            r.texts.iter().map(|p| TextBox { text: p.text.clone(), kind: p.kind, rect: p.rect, font_px: p.font })
        }));
        if l.inside && f.obstacles.hit(&l.rect) {
            data_hits.push("legend".to_owned());
        }
    }
    Layout {
        width: f.width,
        height: f.height,
        plot: f.plot,
        legend: f.legend.as_ref().map(|l| l.rect),
        legend_inside: f.legend.as_ref().is_some_and(|l| l.inside),
        texts,
        data_hits,
        notes: f.notes.clone(),
    }
}
