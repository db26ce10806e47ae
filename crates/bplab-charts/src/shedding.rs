//! Post 4: goodput per policy across offered load, and the hangover.

use bplab_core::models::shedding::{ShedOutcome, ShedPolicy};
use bplab_core::{ChartId, SheddingReport};
use plotters::style::RGBColor;

use crate::Focus;
use crate::common::{BLUE, GREEN, ORANGE, PURPLE, RED, fmt_tick};
use crate::legend::Corner;
use crate::plot::{Marker, Plot, Series};

const COLORS: [RGBColor; 4] = [RED, BLUE, GREEN, PURPLE];

fn color(i: usize) -> RGBColor {
    COLORS.get(i).copied().unwrap_or(ORANGE)
}

/// Policies often coincide (tail-drop, expire and LIFO below capacity):
/// descending widths and a dashed last line keep every one visible.
fn styled(s: Series, i: usize) -> Series {
    match i {
        1 => s.width(6),
        2 => s.width(4),
        3 => s.dashed(),
        _ => s,
    }
}

/// The policy of the `i`-th run list (the report keeps `ShedPolicy::ALL` order).
fn name(runs: &[ShedOutcome], i: usize) -> &'static str {
    runs.first().map(|o| o.policy).or_else(|| ShedPolicy::ALL.get(i).copied()).map_or("policy", ShedPolicy::label)
}

/// Goodput vs offered, one line per policy, with the capacity line.
pub(crate) fn sweep(r: &SheddingReport, focus: &Focus) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::SheddingSweep), "offered load (rps)", "goodput (rps)");
    plot.series = r
        .sweep
        .iter()
        .enumerate()
        .map(|(i, runs)| {
            let pts = runs.iter().map(|o| (o.offered_rps, o.goodput_rps)).collect();
            styled(Series::new(name(runs, i), color(i), pts), i)
        })
        .collect();
    let cap = 1000.0 / f64::from(r.settings.service_ms.max(1));
    plot.hlines.push(Marker::new(cap, format!("capacity {} rps", fmt_tick(cap))));
    plot.mark_offered(focus);
    plot.legend = Corner::MiddleRight;
    plot
}

/// Served p99 per window vs window start, one line per policy, deadline marked.
pub(crate) fn hangover(r: &SheddingReport) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::SheddingHangover), "window start (ms)", "served p99 (ms)");
    let w = f64::from(r.window_ms);
    plot.series = r
        .hangover
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let pts = o.window_p99_ms.iter().enumerate().map(|(k, p)| (k as f64 * w, *p as f64)).collect();
            styled(Series::new(o.policy.label(), color(i), pts), i)
        })
        .collect();
    let d = f64::from(r.settings.deadline_ms);
    plot.hlines.push(Marker::new(d, format!("deadline {} ms", fmt_tick(d))));
    plot.legend = Corner::UpperLeft;
    plot
}
