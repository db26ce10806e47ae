//! Post 3's figures: the release timeline and the burst sweep of both gates
//! (the timeline's burst marked).

use super::{CHARTS, ShapingReport};
use crate::models::shaping::GateKind;
use crate::plot::{Category, Marker, Plot, Role, Series, XAxis, compact};

/// Both figures, in the registry's order.
pub(in crate::experiments) fn plots(r: &ShapingReport) -> Vec<Plot> {
    let mut timeline = Plot::new(CHARTS[0].title, "time_ms", "window start (ms)", "rate (rps)");
    let t = &r.timeline;
    let w = f64::from(t.window_ms);
    let pts = |v: &[f64]| -> Vec<(f64, f64)> { v.iter().enumerate().map(|(i, y)| (i as f64 * w, *y)).collect() };
    timeline.series = vec![
        Series::new("offered", Role::Reference, pts(&t.offered_rps)),
        Series::new(format!("token bucket (burst {})", t.burst), Role::Series(3), pts(&t.token_rps)),
        Series::new(format!("leaky bucket (depth {})", t.burst), Role::Series(0), pts(&t.leaky_rps)).dashed(),
    ];
    let rate = r.settings.gate_rate_rps;
    timeline.hlines.push(Marker::new(rate, format!("gate rate {} rps", compact(rate)), Role::Reference));

    let mut sweep = Plot::new(CHARTS[1].title, "burst", "burst size (tokens / queue depth)", "rate (rps)");
    let mut bursts: Vec<u32> = Vec::new();
    for row in &r.sweep {
        if !bursts.contains(&row.burst) {
            bursts.push(row.burst);
        }
    }
    let index = |b: u32| bursts.iter().position(|x| *x == b).unwrap_or(0) as f64;
    let pts = |gate: GateKind, peak: bool| -> Vec<(f64, f64)> {
        let rows = r.sweep.iter().filter(|row| row.gate == gate);
        rows.map(|row| (index(row.burst), if peak { row.downstream_peak_rps } else { row.goodput_rps })).collect()
    };
    sweep.series = vec![
        Series::new("token goodput", Role::Series(3), pts(GateKind::TokenBucket, false)).bold(),
        Series::new("leaky goodput", Role::Series(0), pts(GateKind::LeakyBucket, false)),
        Series::new("token downstream peak", Role::Series(1), pts(GateKind::TokenBucket, true)).dashed(),
        Series::new("leaky downstream peak", Role::Series(5), pts(GateKind::LeakyBucket, true)).dashed(),
    ];
    let cap = 1000.0 / f64::from(r.settings.service_ms.max(1));
    sweep.hlines.push(Marker::new(cap, format!("capacity {} rps", compact(cap)), Role::Reference));
    if let Some(i) = bursts.iter().position(|x| *x == t.burst) {
        sweep.vlines.push(Marker::new(i as f64, format!("burst {}", t.burst), Role::Focus));
    }
    sweep.x = XAxis::Categories(
        bursts.iter().map(|b| Category { label: b.to_string(), value: Some(f64::from(*b)) }).collect(),
    );
    vec![timeline, sweep]
}
