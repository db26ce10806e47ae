//! When the service time moves: limit, p99 (against the budget) and
//! delivered answers over time, one line per controller, the deploy marked.

use bplab_core::{AdaptiveReport, ChartId, Controller};

use crate::common::{BLUE, GREEN, GREY, ORANGE, PURPLE, SKY, fmt_tick};
use crate::legend::Corner;
use crate::plot::{Marker, Plot, Series};

fn color(c: Controller) -> plotters::style::RGBColor {
    match c {
        Controller::Fixed => GREY,
        Controller::Codel => GREEN,
        Controller::Aimd => ORANGE,
        Controller::Vegas => PURPLE,
        Controller::Gradient2 => BLUE,
        Controller::Gradient => SKY,
    }
}

fn lines(r: &AdaptiveReport, f: impl Fn(&bplab_core::Bucket) -> Option<f64>) -> Vec<Series> {
    let w = f64::from(r.window_ms);
    r.lanes
        .iter()
        .map(|l| {
            let pts = l.out.buckets.iter().enumerate().filter_map(|(i, b)| f(b).map(|y| (i as f64 * w, y))).collect();
            Series::new(l.controller.name(), color(l.controller), pts)
        })
        .collect()
}

fn deploy(plot: &mut Plot, r: &AdaptiveReport) {
    let (at, k) = r.slowdown;
    plot.vlines.push(Marker::new(f64::from(at), format!("deploy ×{}", fmt_tick(k))));
}

/// The limit each limiter holds (CoDel has none and is left out).
pub(crate) fn limit(r: &AdaptiveReport) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::AdaptiveLimit), "time (ms)", "limit (requests in the system)");
    plot.series = lines(r, |b| (b.limit >= 0).then_some(f64::from(b.limit)));
    plot.series.retain(|s| !s.points.is_empty());
    deploy(&mut plot, r);
    plot.legend = Corner::UpperLeft;
    plot
}

/// p99 of answers per window against the budget.
pub(crate) fn p99(r: &AdaptiveReport) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::AdaptiveP99), "time (ms)", "p99 of answers (ms)");
    plot.series = lines(r, |b| b.p99_ms.map(|p| p as f64));
    plot.hlines.push(Marker::new(f64::from(r.budget_ms), format!("budget {} ms", r.budget_ms)));
    deploy(&mut plot, r);
    plot.legend = Corner::UpperLeft;
    plot
}

/// Answers within the client timeout per second, per window.
pub(crate) fn ok(r: &AdaptiveReport) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::AdaptiveOk), "time (ms)", "answers per second");
    let per_s = 1000.0 / f64::from(r.window_ms.max(1));
    plot.series = lines(r, |b| Some(b.ok as f64 * per_s));
    deploy(&mut plot, r);
    plot.legend = Corner::LowerLeft;
    plot
}
