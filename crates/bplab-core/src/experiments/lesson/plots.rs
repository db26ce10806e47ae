//! The lesson's figures: p99 (with its 95 % band over replicas and the
//! evenly spaced model) and delivered answers vs offered rate, and the
//! latency histogram at the chosen rate beside the evenly spaced answer.

use super::{CHARTS, LessonReport, RateResult};
use crate::plot::{Band, Marker, Plot, Role, Series, compact};

/// Both figures, in the registry's order.
pub(in crate::experiments) fn plots(r: &LessonReport) -> Vec<Plot> {
    let mut sweep = Plot::new(CHARTS[0].title, "rate_rps", "offered rate (rps)", "p99 of answers (ms)")
        .with_right("ok per second", None);
    let mut rates: Vec<&RateResult> = r.rates.iter().collect();
    rates.sort_by(|a, b| a.rate_rps.total_cmp(&b.rate_rps));
    let pts = |f: &dyn Fn(&RateResult) -> f64| -> Vec<(f64, f64)> { rates.iter().map(|x| (x.rate_rps, f(x))).collect() };
    sweep.bands.push(Band {
        name: "p99 95 % interval".into(),
        role: Role::Series(5),
        points: rates.iter().map(|x| (x.rate_rps, x.p99_ms.lo, x.p99_ms.hi)).collect(),
    });
    sweep.series = vec![
        Series::new("p99, random arrivals", Role::Series(0), pts(&|x| x.p99_ms.mean)).bold(),
        Series::new("p99, evenly spaced", Role::Reference, pts(&|x| x.deterministic.p99_ms as f64)).dashed(),
        Series::new("ok per second", Role::Series(1), pts(&|x| x.ok_per_sec.mean)).right(),
    ];
    let timeout = r.client_timeout_ms;
    sweep.hlines.push(Marker::new(f64::from(timeout), format!("client timeout {timeout} ms"), Role::Budget));

    let mut latency = Plot::new(CHARTS[1].title, "latency_ms", "latency of answered requests (ms)", "answers");
    let w = r.at.width_ms;
    // A step outline: each bucket's count held across its width.
    let mut steps = Vec::with_capacity(r.at.counts.len() * 2);
    for (i, &c) in r.at.counts.iter().enumerate() {
        steps.push((i as f64 * w, c as f64));
        steps.push(((i + 1) as f64 * w, c as f64));
    }
    let name = format!("random arrivals at {} rps", compact(r.at.rate_rps));
    latency.series = vec![Series::new(name, Role::Series(0), steps).bold()];
    let det = r.at.deterministic.p99_ms as f64;
    latency.vlines.push(Marker::new(det, format!("evenly spaced: p99 {} ms", compact(det)), Role::Reference));
    if let Some(p99) = r.at.summary.p99_ms {
        let label = format!("random: p99 {} ms", compact((p99 * 10.0).round() / 10.0));
        latency.vlines.push(Marker::new(p99, label, Role::Focus));
    }
    vec![sweep, latency]
}
