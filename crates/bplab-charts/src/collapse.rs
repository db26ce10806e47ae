//! Post 1: goodput and retry amplification against offered load.

use bplab_core::ChartId;
use bplab_core::CollapseReport;
use bplab_core::models::collapse::CollapseRow;

use crate::Focus;
use crate::common::{BLUE, GREY, RED};
use crate::legend::Corner;
use crate::plot::{Marker, Plot, Series};

fn pts(rows: &[CollapseRow], y: impl Fn(&CollapseRow) -> f64) -> Vec<(f64, f64)> {
    rows.iter().map(|r| (f64::from(r.offered_rps), y(r))).collect()
}

fn capacity_rps(r: &CollapseReport) -> f64 {
    1000.0 / f64::from(r.settings.service_ms.max(1))
}

/// Ideal, no-retry and retry goodput vs offered, with the capacity line.
pub(crate) fn goodput(r: &CollapseReport, focus: &Focus) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::CollapseGoodput), "offered load (rps)", "goodput (rps)");
    let ideal = if r.no_retry.is_empty() { &r.retry } else { &r.no_retry };
    plot.series = vec![
        Series::new("ideal (min(offered, capacity))", GREY, pts(ideal, |x| x.ideal_goodput_rps)).dashed(),
        Series::new("no retry", BLUE, pts(&r.no_retry, |x| x.goodput_rps)),
        Series::new("with retries", RED, pts(&r.retry, |x| x.goodput_rps)).dashed(),
    ];
    let cap = capacity_rps(r);
    plot.hlines.push(Marker::new(cap, format!("capacity {} rps", crate::common::fmt_tick(cap))));
    plot.mark_offered(focus);
    plot.legend = Corner::MiddleRight;
    plot
}

/// Effective (attempted) load vs offered, with and without retries, and y = x.
pub(crate) fn amplification(r: &CollapseReport, focus: &Focus) -> Plot {
    let mut plot =
        Plot::new(crate::title(ChartId::CollapseAmplification), "offered load (rps)", "effective load (rps)");
    let offered: Vec<(f64, f64)> =
        r.no_retry.iter().chain(&r.retry).map(|x| (f64::from(x.offered_rps), f64::from(x.offered_rps))).collect();
    let (lo, hi) = offered.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
    let diagonal = if lo <= hi { vec![(lo, lo), (hi, hi)] } else { Vec::new() };
    plot.series = vec![
        Series::new("offered (y = x)", GREY, diagonal).dashed(),
        Series::new("no retry", BLUE, pts(&r.no_retry, |x| x.effective_rps)),
        Series::new("with retries", RED, pts(&r.retry, |x| x.effective_rps)),
    ];
    plot.mark_offered(focus);
    plot
}
