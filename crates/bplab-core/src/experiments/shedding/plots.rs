//! Post 4's figures: goodput per policy across offered load, and the hangover.
//! Policies often coincide (tail-drop, expire and LIFO below capacity): the
//! renderer tells coinciding lines apart.

use super::{CHARTS, SheddingReport};
use crate::models::shedding::{ShedOutcome, ShedPolicy};
use crate::plot::{Marker, Plot, Role, Series, compact};

/// The colour of the `i`-th policy (the report keeps `ShedPolicy::ALL` order).
fn role(i: usize) -> Role {
    Role::Series([3u8, 0, 2, 4].get(i).copied().unwrap_or(1))
}

/// The policy of the `i`-th run list.
fn name(runs: &[ShedOutcome], i: usize) -> &'static str {
    runs.first().map(|o| o.policy).or_else(|| ShedPolicy::ALL.get(i).copied()).map_or("policy", ShedPolicy::label)
}

/// Both figures, in the registry's order.
pub(in crate::experiments) fn plots(r: &SheddingReport) -> Vec<Plot> {
    let mut sweep = Plot::new(CHARTS[0].title, "offered_rps", "offered load (rps)", "goodput (rps)");
    sweep.series = r
        .sweep
        .iter()
        .enumerate()
        .map(|(i, runs)| Series::new(name(runs, i), role(i), runs.iter().map(|o| (o.offered_rps, o.goodput_rps)).collect()))
        .collect();
    let cap = 1000.0 / f64::from(r.settings.service_ms.max(1));
    sweep.hlines.push(Marker::new(cap, format!("capacity {} rps", compact(cap)), Role::Reference));

    let mut hangover = Plot::new(CHARTS[1].title, "time_ms", "window start (ms)", "served p99 (ms)");
    let w = f64::from(r.window_ms);
    hangover.series = r
        .hangover
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let pts = o.window_p99_ms.iter().enumerate().map(|(k, p)| (k as f64 * w, *p as f64)).collect();
            Series::new(o.policy.label(), role(i), pts)
        })
        .collect();
    let d = f64::from(r.settings.deadline_ms);
    hangover.hlines.push(Marker::new(d, format!("deadline {} ms", compact(d)), Role::Budget));
    vec![sweep, hangover]
}
