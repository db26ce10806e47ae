//! Post 1's figures: goodput and retry amplification against offered load.

use super::{CHARTS, CollapseReport};
use crate::models::collapse::CollapseRow;
use crate::plot::{Marker, Plot, Role, Series, compact};

fn pts(rows: &[CollapseRow], y: impl Fn(&CollapseRow) -> f64) -> Vec<(f64, f64)> {
    rows.iter().map(|r| (f64::from(r.offered_rps), y(r))).collect()
}

fn capacity(r: &CollapseReport) -> Marker {
    let cap = 1000.0 / f64::from(r.settings.service_ms.max(1));
    Marker::new(cap, format!("capacity {} rps", compact(cap)), Role::Reference)
}

/// Both figures, in the registry's order.
pub(in crate::experiments) fn plots(r: &CollapseReport) -> Vec<Plot> {
    let ideal = if r.no_retry.is_empty() { &r.retry } else { &r.no_retry };
    let mut goodput = Plot::new(CHARTS[0].title, "offered_rps", "offered load (rps)", "goodput (rps)");
    goodput.series = vec![
        Series::new("ideal (min(offered, capacity))", Role::Reference, pts(ideal, |x| x.ideal_goodput_rps)).dashed(),
        Series::new("no retry", Role::Series(0), pts(&r.no_retry, |x| x.goodput_rps)),
        Series::new("with retries", Role::Series(3), pts(&r.retry, |x| x.goodput_rps)).dashed(),
    ];
    goodput.hlines.push(capacity(r));

    let mut amp = Plot::new(CHARTS[1].title, "offered_rps", "offered load (rps)", "effective load (rps)");
    let offered = r.no_retry.iter().chain(&r.retry).map(|x| f64::from(x.offered_rps));
    let (lo, hi) = offered.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let diagonal = if lo <= hi { vec![(lo, lo), (hi, hi)] } else { Vec::new() };
    amp.series = vec![
        Series::new("offered (y = x)", Role::Reference, diagonal).dashed(),
        Series::new("no retry", Role::Series(0), pts(&r.no_retry, |x| x.effective_rps)),
        Series::new("with retries", Role::Series(3), pts(&r.retry, |x| x.effective_rps)),
    ];
    vec![goodput, amp]
}
