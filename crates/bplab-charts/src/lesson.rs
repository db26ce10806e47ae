//! The lesson's experiment: p99 and delivered answers vs offered rate (with
//! the band over replicas and the deterministic model dashed), and the
//! latency histogram at the chosen rate beside the deterministic answer.

use bplab_core::{ChartId, LessonReport};

use crate::common::{BLUE, GREY, ORANGE, SKY, fmt_tick};
use crate::legend::Corner;
use crate::plot::{Marker, Plot, Series};

/// p99 (left) and ok per second (right) vs offered rate.
pub(crate) fn sweep(r: &LessonReport) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::LessonSweep), "offered rate (rps)", "p99 of answers (ms)");
    let mut rates: Vec<_> = r.rates.iter().collect();
    rates.sort_by(|a, b| a.rate_rps.total_cmp(&b.rate_rps));
    let pts = |f: &dyn Fn(&bplab_core::RateResult) -> f64| -> Vec<(f64, f64)> {
        rates.iter().map(|x| (x.rate_rps, f(x))).collect()
    };
    plot.series = vec![
        Series::new("p99, random arrivals", BLUE, pts(&|x| x.p99_ms.mean)).width(2),
        Series::new("p99 95 % low", SKY, pts(&|x| x.p99_ms.lo)).dashed(),
        Series::new("p99 95 % high", SKY, pts(&|x| x.p99_ms.hi)).dashed(),
        Series::new("p99, evenly spaced", GREY, pts(&|x| x.deterministic.p99_ms as f64)).dashed(),
        Series::new("ok per second", ORANGE, pts(&|x| x.ok_per_sec.mean)).right(),
    ];
    plot.secondary = Some(("ok per second", None));
    plot.hlines.push(Marker::new(f64::from(r.client_timeout_ms), format!("client timeout {} ms", r.client_timeout_ms)));
    plot.legend = Corner::UpperLeft;
    plot
}

/// Answers per latency bucket at the chosen rate; the deterministic p99 marked.
pub(crate) fn latency(r: &LessonReport) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::LessonLatency), "latency of answered requests (ms)", "answers");
    let w = r.at.width_ms;
    // A step outline: each bucket's count held across its width.
    let mut pts = Vec::with_capacity(r.at.counts.len() * 2);
    for (i, &c) in r.at.counts.iter().enumerate() {
        pts.push((i as f64 * w, c as f64));
        pts.push(((i + 1) as f64 * w, c as f64));
    }
    plot.series = vec![Series::new(format!("random arrivals at {} rps", fmt_tick(r.at.rate_rps)), BLUE, pts).width(2)];
    let det = r.at.deterministic.p99_ms as f64;
    plot.vlines.push(Marker::new(det, format!("evenly spaced: p99 {} ms", fmt_tick(det))));
    if let Some(p99) = r.at.summary.p99_ms {
        plot.vlines.push(Marker::focus(p99, format!("random: p99 {} ms", fmt_tick((p99 * 10.0).round() / 10.0))));
    }
    plot.legend = Corner::UpperRight;
    plot
}
