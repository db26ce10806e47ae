//! Where everything goes. Fonts follow the canvas width (never under
//! 11 px); margins follow the measured tick labels; the axis descriptions
//! and vertical markers' labels sit in rows above the plotting area; the
//! legend goes inside the plotting area where it meets no data, else below
//! it; a horizontal marker's label goes beside its line where it meets
//! nothing, else into the legend.

use bplab_core::plot::{Plot, Role, Side, XAxis, compact};

use crate::geom::{P, Rect, hits};
use crate::layout::TextKind;
use crate::lines::{Slot, coincide};
use crate::scale::{Map, span, ticks};

/// Width in pixels of a text at a font size (measured by the backend).
pub(crate) type Measure<'a> = &'a dyn Fn(&str, f64) -> f64;

/// Outer padding, px.
pub(crate) const PAD: f64 = 6.0;
/// Legend sample line length and gap to its text, px.
pub(crate) const SAMPLE: f64 = 18.0;
const SAMPLE_GAP: f64 = 5.0;
/// Legend inner padding, px.
const LPAD: f64 = 5.0;
/// Series with at most this many points get a dot per point.
pub(crate) const DOTS_UP_TO: usize = 40;

/// Line height of a font size.
pub(crate) fn line_h(font: f64) -> f64 {
    (font * 1.25).ceil()
}

/// The tick font size for a canvas `width` px wide.
pub(crate) fn base_font(width: f64) -> f64 {
    (width / 48.0).round().clamp(11.0, 14.0)
}

/// How a text is coloured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Ink {
    Text,
    Muted,
    Role(Role),
}

/// One text with its box.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Placed {
    pub text: String,
    pub rect: Rect,
    pub font: f64,
    pub kind: TextKind,
    pub ink: Ink,
}

/// What a legend row shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum EntryKind {
    Series(usize),
    Band(usize),
    HLine(usize),
    Note,
}

/// One legend row: its sample's box (none for a note) and its text lines.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row {
    pub kind: EntryKind,
    pub sample: Option<Rect>,
    pub texts: Vec<Placed>,
}

/// The legend box and rows.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Legend {
    pub rect: Rect,
    pub inside: bool,
    pub rows: Vec<Row>,
}

/// What a label must not meet inside the plotting area.
#[derive(Clone, Debug, Default)]
pub(crate) struct Obstacles {
    segments: Vec<(P, P)>,
    boxes: Vec<Rect>,
    quads: Vec<[P; 4]>,
}

impl Obstacles {
    /// Whether `r` meets a line, dot, ring or band.
    pub fn hit(&self, r: &Rect) -> bool {
        self.segments.iter().any(|(a, b)| hits(*a, *b, r))
            || self.boxes.iter().any(|b| b.overlaps(r))
            || self.quads.iter().any(|q| quad_hits(q, r))
    }
}

fn quad_hits(q: &[P; 4], r: &Rect) -> bool {
    let edges = (0..4).any(|i| hits(q[i], q[(i + 1) % 4], r));
    let c = (r.x + r.w / 2.0, r.y + r.h / 2.0);
    let mut inside = false;
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 3) % 4]);
        if (a.1 > c.1) != (b.1 > c.1) && c.0 < (b.0 - a.0) * (c.1 - a.1) / (b.1 - a.1) + a.0 {
            inside = !inside;
        }
    }
    edges || inside
}

/// The whole geometry of one rendering.
pub(crate) struct Frame {
    pub width: f64,
    pub height: f64,
    pub plot: Rect,
    pub x: Map,
    pub y: Map,
    /// The right axis' map, when the plot has one.
    pub r: Option<Map>,
    pub grid_x: Vec<f64>,
    pub grid_y: Vec<f64>,
    /// Titles, axis descriptions, ticks and marker labels.
    pub texts: Vec<Placed>,
    pub legend: Option<Legend>,
    /// Per series, its pixel polyline (non-finite points dropped).
    pub polys: Vec<Vec<P>>,
    pub slots: Vec<Slot>,
    pub notes: Vec<String>,
    pub obstacles: Obstacles,
}

fn wrap(text: &str, max_w: f64, font: f64, m: Measure) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let trial = if cur.is_empty() { word.to_owned() } else { format!("{cur} {word}") };
        if cur.is_empty() || m(&trial, font) <= max_w {
            cur = trial;
        } else {
            lines.push(std::mem::replace(&mut cur, word.to_owned()));
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

fn placed(text: &str, x: f64, y: f64, font: f64, kind: TextKind, ink: Ink, m: Measure) -> Placed {
    Placed { text: text.to_owned(), rect: Rect::new(x, y, m(text, font).max(0.0), line_h(font)), font, kind, ink }
}

fn finite(points: impl Iterator<Item = (f64, f64)>) -> impl Iterator<Item = (f64, f64)> {
    points.filter(|p| p.0.is_finite() && p.1.is_finite())
}

/// `(lo, hi)` of one axis.
type Range = (f64, f64);

/// Data ranges: x, left y, right y (if a right axis).
fn ranges(plot: &Plot) -> (Range, Range, Option<Range>) {
    let right_axis = plot.right.as_ref();
    let on_right = |s: &&bplab_core::plot::Series| s.side == Side::Right && right_axis.is_some();
    let x = match &plot.x {
        XAxis::Linear => span(
            plot.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0))
                .chain(plot.bands.iter().flat_map(|b| b.points.iter().map(|p| p.0)))
                .chain(plot.vlines.iter().map(|m| m.at))
                .chain(plot.rings.iter().map(|r| r.0)),
            false,
        ),
        XAxis::Categories(c) => (-0.5, c.len().max(1) as f64 - 0.5),
    };
    let y = plot.y_range.filter(|(a, b)| a.is_finite() && b.is_finite() && b > a).unwrap_or_else(|| {
        let left = plot.series.iter().filter(|s| !on_right(s)).flat_map(|s| s.points.iter().map(|p| p.1));
        let bands = plot.bands.iter().flat_map(|b| b.points.iter().flat_map(|p| [p.1, p.2]));
        let marks = plot.hlines.iter().map(|m| m.at).chain(plot.rings.iter().map(|r| r.1));
        span(left.chain(bands).chain(marks), true)
    });
    let r = right_axis.map(|a| {
        a.range.filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && hi > lo).unwrap_or_else(|| {
            span(plot.series.iter().filter(on_right).flat_map(|s| s.points.iter().map(|p| p.1)), true)
        })
    });
    (x, y, r)
}

/// Tick labels along the x axis that do not overlap: the most ticks that fit.
fn x_ticks(plot: &Plot, x: &Map, y_top: f64, font: f64, width: f64, m: Measure) -> (Vec<f64>, Vec<Placed>) {
    let label_at = |v: f64, text: &str| {
        let w = m(text, font);
        let px = x.px(v);
        let lx = (px - w / 2.0).clamp(PAD, (width - PAD - w).max(PAD));
        (px, placed(text, lx, y_top, font, TextKind::Tick, Ink::Text, m))
    };
    let fits = |v: &[(f64, Placed)]| v.windows(2).all(|w| w[0].1.rect.right() + 6.0 <= w[1].1.rect.x);
    let candidates: Vec<Vec<(f64, Placed)>> = match &plot.x {
        XAxis::Linear => (2..=10)
            .rev()
            .map(|t| ticks(x.lo, x.hi, t).into_iter().map(|v| label_at(v, &compact(v))).collect())
            .collect(),
        XAxis::Categories(c) => (1..=c.len().max(1))
            .map(|every| c.iter().enumerate().step_by(every).map(|(i, cat)| label_at(i as f64, &cat.label)).collect())
            .collect(),
    };
    let best = candidates.iter().find(|v| fits(v)).or(candidates.last()).cloned().unwrap_or_default();
    let best = if fits(&best) { best } else { best.into_iter().take(1).collect() };
    best.into_iter().unzip()
}

/// The legend entries: series and bands with data, moved marker labels, notes.
fn entries(plot: &Plot, moved: &[usize], notes: &[String]) -> Vec<(EntryKind, String)> {
    let mut e: Vec<(EntryKind, String)> = Vec::new();
    for (i, b) in plot.bands.iter().enumerate().filter(|(_, b)| !b.points.is_empty()) {
        e.push((EntryKind::Band(i), b.name.clone()));
    }
    for (i, s) in plot.series.iter().enumerate().filter(|(_, s)| !s.points.is_empty()) {
        e.push((EntryKind::Series(i), s.name.clone()));
    }
    for &i in moved {
        if let Some(h) = plot.hlines.get(i) {
            e.push((EntryKind::HLine(i), h.label.clone()));
        }
    }
    e.extend(notes.iter().map(|n| (EntryKind::Note, n.clone())));
    e
}

/// The legend inside `area` at its first spot that meets no obstacle.
fn legend_inside(e: &[(EntryKind, String)], area: &Rect, font: f64, obs: &Obstacles, m: Measure) -> Option<Legend> {
    if e.is_empty() {
        return None;
    }
    let lh = line_h(font) + 2.0;
    let text_w = e.iter().map(|(k, t)| m(t, font) - if *k == EntryKind::Note { SAMPLE + SAMPLE_GAP } else { 0.0 });
    let w = 2.0 * LPAD + SAMPLE + SAMPLE_GAP + text_w.fold(0.0, f64::max);
    let h = 2.0 * LPAD + lh * e.len() as f64;
    if w > area.w - 8.0 || h > area.h - 8.0 {
        return None;
    }
    let (l, r, t, b) = (area.x + 4.0, area.right() - 4.0 - w, area.y + 4.0, area.bottom() - 4.0 - h);
    let (cx, cy) = (area.x + (area.w - w) / 2.0, area.y + (area.h - h) / 2.0);
    let spots = [(l, t), (r, t), (r, b), (l, b), (r, cy), (l, cy), (cx, t), (cx, b)];
    let (x, y) = spots.into_iter().find(|(x, y)| !obs.hit(&Rect::new(*x, *y, w, h).grow(2.0)))?;
    let rows = e
        .iter()
        .enumerate()
        .map(|(i, (kind, text))| {
            let ry = y + LPAD + lh * i as f64;
            let note = *kind == EntryKind::Note;
            let tx = if note { x + LPAD } else { x + LPAD + SAMPLE + SAMPLE_GAP };
            let ink = if note { Ink::Muted } else { Ink::Text };
            Row {
                kind: *kind,
                sample: (!note).then(|| Rect::new(x + LPAD, ry + 1.0, SAMPLE, lh - 2.0)),
                texts: vec![placed(text, tx, ry + 1.0, font, TextKind::Legend, ink, m)],
            }
        })
        .collect();
    Some(Legend { rect: Rect::new(x, y, w, h), inside: true, rows })
}

/// The legend as rows and columns across `width` from `top` (texts wrapped when too wide).
fn legend_below(e: &[(EntryKind, String)], width: f64, top: f64, font: f64, m: Measure) -> Option<Legend> {
    if e.is_empty() {
        return None;
    }
    let avail = width - 2.0 * PAD - 2.0 * LPAD;
    let lh = line_h(font) + 1.0;
    let item_w = |k: &EntryKind, t: &str| m(t, font) + if *k == EntryKind::Note { 0.0 } else { SAMPLE + SAMPLE_GAP };
    let notes_first = e.iter().position(|(k, _)| *k == EntryKind::Note).unwrap_or(e.len());
    let col_w = e[..notes_first].iter().map(|(k, t)| item_w(k, t)).fold(0.0, f64::max) + 14.0;
    let cols = (((avail + 14.0) / col_w).floor() as usize).clamp(1, notes_first.max(1));
    let col_w = if cols == 1 { avail } else { col_w };
    let mut rows = Vec::new();
    let mut y = top + LPAD;
    let mut i = 0;
    while i < e.len() {
        // Notes take a whole row; other entries fill `cols` columns.
        let n = if i >= notes_first { 1 } else { cols.min(notes_first - i) };
        let mut row_lines = 1;
        for (c, (kind, text)) in e[i..i + n].iter().enumerate() {
            let x = PAD + LPAD + c as f64 * col_w;
            let note = *kind == EntryKind::Note;
            let tx = if note { x } else { x + SAMPLE + SAMPLE_GAP };
            let lines = wrap(text, (avail - (tx - PAD - LPAD)).max(20.0), font, m);
            row_lines = row_lines.max(lines.len());
            let ink = if note { Ink::Muted } else { Ink::Text };
            let texts = lines
                .iter()
                .enumerate()
                .map(|(k, l)| placed(l, tx, y + lh * k as f64, font, TextKind::Legend, ink, m))
                .collect();
            let sample = (!note).then(|| Rect::new(x, y, SAMPLE, lh - 1.0));
            rows.push(Row { kind: *kind, sample, texts });
        }
        y += lh * row_lines as f64;
        i += n;
    }
    let rect = Rect::new(PAD, top, width - 2.0 * PAD, y - top + LPAD);
    Some(Legend { rect, inside: false, rows })
}

/// Marker-label rows above the plot: each label centred on its line, in
/// the first row where it meets no other label. Returns labels and row count.
fn vline_labels(
    plot: &Plot,
    x: &Map,
    area: &Rect,
    width: f64,
    top: f64,
    font: f64,
    m: Measure,
) -> (Vec<Placed>, usize) {
    let lh = line_h(font);
    let mut out: Vec<(usize, Placed)> = Vec::new();
    for v in &plot.vlines {
        let px = x.px(v.at);
        if !(v.at.is_finite() && px >= area.x - 0.5 && px <= area.right() + 0.5) {
            continue;
        }
        let w = m(&v.label, font);
        let lx = (px - w / 2.0).clamp(area.x, (width - PAD - w).max(area.x));
        let mut row = 0;
        while out.iter().any(|(r, p)| *r == row && p.rect.grow(3.0).overlaps(&Rect::new(lx, p.rect.y, w, lh))) {
            row += 1;
        }
        out.push((row, placed(&v.label, lx, top, font, TextKind::Marker, Ink::Role(v.role), m)));
    }
    let rows = out.iter().map(|(r, _)| r + 1).max().unwrap_or(0);
    // Row 0 is nearest the plot.
    let labels = out
        .into_iter()
        .map(|(r, mut p)| {
            p.rect.y = top + lh * (rows - 1 - r) as f64;
            p
        })
        .collect();
    (labels, rows)
}

/// Lays out `plot` on a `width × height` canvas.
pub(crate) fn frame(plot: &Plot, width: f64, height: f64, m: Measure) -> Frame {
    let mut moved: Vec<usize> = Vec::new();
    let mut notes: Option<(Vec<Slot>, Vec<String>)> = None;
    loop {
        let mut f = geometry(plot, width, height, m, 0.0);
        let (slots, note_texts) = notes.get_or_insert_with(|| {
            let (slots, groups) = coincide(&f.polys);
            let texts = groups.iter().map(|g| same_line_note(plot, g)).collect();
            (slots, texts)
        });
        let e = entries(plot, &moved, note_texts);
        let font = base_font(width);
        let mut legend = legend_inside(&e, &f.plot, font, &f.obstacles, m);
        if legend.is_none() && !e.is_empty() {
            let probe = legend_below(&e, width, 0.0, font, m).map_or(0.0, |l| l.rect.h);
            f = geometry(plot, width, height, m, probe + 6.0);
            legend = legend_below(&e, width, f.plot.bottom() + below_gap(plot, font, width, m), font, m);
        }
        let (labels, failed) = hline_labels(plot, &f, legend.as_ref(), &moved, font, m);
        if failed.is_empty() || moved.len() >= plot.hlines.len() {
            f.texts.extend(labels);
            f.legend = legend;
            f.slots = slots.clone();
            f.notes = note_texts.clone();
            return f;
        }
        moved.extend(failed);
    }
}

/// Pixels between the plot's bottom and the legend below it (ticks, x description).
fn below_gap(plot: &Plot, font: f64, width: f64, m: Measure) -> f64 {
    let desc = wrap(&plot.x_desc, width - 2.0 * PAD, font, m).len() as f64;
    tick_gap(font) + line_h(font) + 2.0 + desc * line_h(font) + 6.0
}

fn tick_gap(font: f64) -> f64 {
    (font * 0.6).ceil() + 3.0
}

fn same_line_note(plot: &Plot, group: &[usize]) -> String {
    let names: Vec<&str> = group.iter().filter_map(|i| plot.series.get(*i)).map(|s| s.name.as_str()).collect();
    let list = match names.as_slice() {
        [] => String::new(),
        [a] => (*a).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    format!("{list}: one line (equal values)")
}

/// Horizontal marker labels beside their lines (those already `moved` to
/// the legend are listed there once, not placed again); the indexes of those
/// that fit nowhere.
fn hline_labels(
    plot: &Plot,
    f: &Frame,
    legend: Option<&Legend>,
    moved: &[usize],
    font: f64,
    m: Measure,
) -> (Vec<Placed>, Vec<usize>) {
    let mut out: Vec<Placed> = Vec::new();
    let mut failed = Vec::new();
    let lh = line_h(font);
    let blocked = |r: &Rect, out: &[Placed]| {
        f.obstacles.hit(&r.grow(1.5))
            || legend.is_some_and(|l| l.inside && l.rect.grow(2.0).overlaps(r))
            || out.iter().any(|p| p.rect.grow(2.0).overlaps(r))
            || f.texts.iter().any(|p| p.rect.overlaps(r))
    };
    for (i, h) in plot.hlines.iter().enumerate().filter(|(i, _)| !moved.contains(i)) {
        let py = f.y.px(h.at);
        if !(h.at.is_finite() && py >= f.plot.y - 0.5 && py <= f.plot.bottom() + 0.5) {
            continue;
        }
        let w = m(&h.label, font);
        let a = &f.plot;
        let xs =
            [a.x + 4.0, a.right() - 4.0 - w, a.x + (a.w - w) / 2.0, a.x + (a.w - w) * 0.25, a.x + (a.w - w) * 0.75];
        let ys = [py - 3.0 - lh, py + 3.0];
        let spot = ys
            .iter()
            .flat_map(|y| xs.iter().map(move |x| Rect::new(*x, *y, w, lh)))
            .find(|r| a.contains(r) && !blocked(r, &out));
        match spot {
            Some(r) => out.push(Placed {
                text: h.label.clone(),
                rect: r,
                font,
                kind: TextKind::Marker,
                ink: Ink::Role(h.role),
            }),
            None => failed.push(i),
        }
    }
    (out, failed)
}

/// Everything but the legend and the horizontal markers' labels, with
/// `below` px kept under the x axis for a legend.
fn geometry(plot: &Plot, width: f64, height: f64, m: Measure, below: f64) -> Frame {
    let font = base_font(width);
    let title_font = font + 2.0;
    let lh = line_h(font);
    let ((x0, x1), (y0, y1), r) = ranges(plot);
    let mut texts: Vec<Placed> = Vec::new();
    // Title, centred, wrapped.
    let mut top = PAD;
    for line in wrap(&plot.title, width - 2.0 * PAD, title_font, m) {
        let w = m(&line, title_font);
        texts.push(placed(&line, ((width - w) / 2.0).max(PAD), top, title_font, TextKind::Title, Ink::Text, m));
        top += line_h(title_font);
    }
    top += 3.0;
    // Axis descriptions: left one at the left, right one at the right (next row if they meet).
    let left_desc = placed(&plot.y_desc, PAD, top, font, TextKind::Axis, Ink::Muted, m);
    let mut desc_rows = 1.0;
    if let Some(ra) = &plot.right {
        let w = m(&ra.desc, font);
        let mut rd = placed(&ra.desc, (width - PAD - w).max(PAD), top, font, TextKind::Axis, Ink::Muted, m);
        if rd.rect.grow(4.0).overlaps(&left_desc.rect) {
            rd.rect.y += lh;
            desc_rows = 2.0;
        }
        texts.push(rd);
    }
    texts.push(left_desc);
    top += desc_rows * lh + 2.0;
    // Bottom: x description, x tick labels.
    let desc_lines = wrap(&plot.x_desc, width - 2.0 * PAD, font, m);
    let bottom_band = tick_gap(font) + lh + 2.0 + desc_lines.len() as f64 * lh + below + PAD;
    // Left axis ticks (the count from an estimate of the plot height).
    let est_h = (height - top - bottom_band - if plot.vlines.is_empty() { 0.0 } else { lh + tick_gap(font) }).max(20.0);
    let y_count = ((est_h / (lh * 2.4)).floor() as usize).clamp(2, 8);
    let y_ticks = ticks(y0, y1, y_count);
    let r_ticks = r.map(|(a, b)| ticks(a, b, y_count));
    let tick_w = |v: &[f64]| v.iter().map(|t| m(&compact(*t), font)).fold(0.0, f64::max);
    let left = PAD + tick_w(&y_ticks) + 5.0;
    let right = match &r_ticks {
        Some(t) => PAD + tick_w(t) + 5.0,
        None => {
            let last = match &plot.x {
                XAxis::Linear => compact(ticks(x0, x1, 8).last().copied().unwrap_or(x1)),
                XAxis::Categories(c) => c.last().map(|c| c.label.clone()).unwrap_or_default(),
            };
            (PAD + m(&last, font) / 2.0).max(PAD + 4.0)
        }
    };
    let (px0, px1) = (left, (width - right).max(left + 10.0));
    let x = Map { lo: x0, hi: x1, p0: px0, p1: px1 };
    let horiz = Rect::new(px0, 0.0, px1 - px0, height);
    let (vlabels, rows) = vline_labels(plot, &x, &horiz, width, top, font, m);
    texts.extend(vlabels);
    if rows > 0 {
        top += rows as f64 * lh;
    }
    let py0 = top + tick_gap(font);
    let py1 = (height - bottom_band).max(py0 + 10.0);
    let area = Rect::new(px0, py0, px1 - px0, py1 - py0);
    let y = Map { lo: y0, hi: y1, p0: py1, p1: py0 };
    let rmap = r.map(|(a, b)| Map { lo: a, hi: b, p0: py1, p1: py0 });
    // Tick labels; a y label that would meet the previous one is left out.
    let mut grid_y = Vec::new();
    let mut add_y = |ticks: &[f64], map: &Map, at_right: bool, texts: &mut Vec<Placed>, grid: bool| {
        let mut last: Option<Rect> = None;
        for t in ticks {
            let py = map.px(*t);
            if grid {
                grid_y.push(py);
            }
            let label = compact(*t);
            let w = m(&label, font);
            let lx = if at_right { px1 + 5.0 } else { px0 - 5.0 - w };
            let p = placed(&label, lx, py - lh / 2.0, font, TextKind::Tick, Ink::Text, m);
            if last.is_some_and(|l| l.grow(1.0).overlaps(&p.rect)) {
                continue;
            }
            last = Some(p.rect);
            texts.push(p);
        }
    };
    add_y(&y_ticks, &y, false, &mut texts, true);
    if let (Some(t), Some(rm)) = (&r_ticks, &rmap) {
        add_y(t, rm, true, &mut texts, false);
    }
    let (grid_x, xlabels) = x_ticks(plot, &x, py1 + tick_gap(font), font, width, m);
    texts.extend(xlabels);
    let mut dy = py1 + tick_gap(font) + lh + 2.0;
    for line in &desc_lines {
        let w = m(line, font);
        let cx = (px0 + px1) / 2.0;
        let lx = (cx - w / 2.0).clamp(PAD, (width - PAD - w).max(PAD));
        texts.push(placed(line, lx, dy, font, TextKind::Axis, Ink::Muted, m));
        dy += lh;
    }
    // Pixel polylines and the obstacles.
    let right_axis = plot.right.is_some();
    let polys: Vec<Vec<P>> = plot
        .series
        .iter()
        .map(|s| {
            let map = if s.side == Side::Right && right_axis { rmap.as_ref().unwrap_or(&y) } else { &y };
            finite(s.points.iter().copied()).map(|(a, b)| (x.px(a), map.px(b))).collect()
        })
        .collect();
    let mut obs = Obstacles::default();
    for poly in &polys {
        for w in poly.windows(2) {
            if let Some(seg) = crate::geom::clip(w[0], w[1], &area) {
                obs.segments.push(seg);
            }
        }
        if poly.len() <= DOTS_UP_TO || poly.len() == 1 {
            obs.boxes.extend(
                poly.iter()
                    .filter(|p| area.grow(4.0).contains(&Rect::new(p.0, p.1, 0.0, 0.0)))
                    .map(|p| Rect::new(p.0 - 3.5, p.1 - 3.5, 7.0, 7.0)),
            );
        }
    }
    for b in &plot.bands {
        let pts: Vec<(f64, f64, f64)> =
            b.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite() && p.2.is_finite()).collect();
        for w in pts.windows(2) {
            let (a, c) = (w[0], w[1]);
            obs.quads.push([
                (x.px(a.0), y.px(a.1)),
                (x.px(c.0), y.px(c.1)),
                (x.px(c.0), y.px(c.2)),
                (x.px(a.0), y.px(a.2)),
            ]);
        }
    }
    for v in plot.vlines.iter().filter(|v| v.at.is_finite()) {
        let px = x.px(v.at);
        if px >= px0 - 0.5 && px <= px1 + 0.5 {
            obs.segments.push(((px, py0), (px, py1)));
        }
    }
    for h in plot.hlines.iter().filter(|h| h.at.is_finite()) {
        let py = y.px(h.at);
        if py >= py0 - 0.5 && py <= py1 + 0.5 {
            obs.segments.push(((px0, py), (px1, py)));
        }
    }
    for r in &plot.rings {
        obs.boxes.push(Rect::new(x.px(r.0) - 10.0, y.px(r.1) - 10.0, 20.0, 20.0));
    }
    Frame {
        width,
        height,
        plot: area,
        x,
        y,
        r: rmap,
        grid_x,
        grid_y,
        texts,
        legend: None,
        polys,
        slots: Vec::new(),
        notes: Vec::new(),
        obstacles: obs,
    }
}
