//! Goodput (with the presets' 20 % / 80 % of capacity lines) and tries sent
//! (with capacity) over time per policy, the trigger marked, and the phase
//! diagram's boundary per policy.

use super::{CHARTS, MetastableReport, Policy, Window, phase};
use crate::params::Named;
use crate::plot::{Marker, Plot, Role, Series};

fn role(policy: Policy) -> Role {
    Role::Series(policy as u8)
}

fn lines(r: &MetastableReport, f: impl Fn(&Window) -> u64) -> Vec<Series> {
    let w = f64::from(r.window_ms.max(1));
    r.lanes
        .iter()
        .map(|l| {
            let pts = l
                .ticks
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let start = i as f64 * w;
                    (start, f(t) as f64 * 1000.0 / w.min(r.run_ms - start).max(1e-9))
                })
                .collect();
            Series::new(l.policy.name(), role(l.policy), pts)
        })
        .collect()
}

fn with_trigger(mut plot: Plot, r: &MetastableReport) -> Plot {
    let at = f64::from(r.trigger_at_ms);
    plot.vlines.push(Marker::new(at, format!("{} starts", r.trigger.name()), Role::Event));
    plot.vlines.push(Marker::new(at + f64::from(r.trigger_ms), format!("{} ends", r.trigger.name()), Role::Event));
    plot
}

/// The three figures, in the registry's order.
pub(in crate::experiments) fn plots(r: &MetastableReport) -> Vec<Plot> {
    let mut good = Plot::new(CHARTS[0].title, "time_ms", "time (ms)", "goodput (answers in time per second)");
    good.series = lines(r, |t| t.ok);
    good.hlines.push(Marker::new(0.8 * r.capacity_rps, "80 % of capacity", Role::Budget));
    good.hlines.push(Marker::new(0.2 * r.capacity_rps, "20 % of capacity", Role::Budget));

    let mut sent = Plot::new(CHARTS[1].title, "time_ms", "time (ms)", "tries per second");
    sent.series = lines(r, |t| t.first_tries + t.retries);
    sent.hlines.push(Marker::new(r.capacity_rps, "capacity", Role::Reference));

    let mut ph = Plot::new(CHARTS[2].title, "trigger_ms", "trigger length (ms)", "smallest stuck trigger size (×)");
    ph.pending = r.phase.is_none();
    for &policy in Policy::ALL {
        let pts: Vec<(f64, f64)> = r
            .lengths_ms
            .iter()
            .filter_map(|&len| phase::boundary(r.cells(), policy, len).map(|s| (f64::from(len), s)))
            .collect();
        if !pts.is_empty() {
            ph.series.push(Series::new(policy.name(), role(policy), pts));
        }
    }
    if let (Some(lo), Some(hi)) = (
        r.sizes.iter().copied().reduce(f64::min),
        r.sizes.iter().copied().reduce(f64::max),
    ) {
        ph.y_range = Some((lo.min(hi) - 0.5, hi + 0.5));
    }
    ph.hlines.push(Marker::new(r.trigger_size, "trigger given", Role::Focus));
    vec![with_trigger(good, r), with_trigger(sent, r), ph]
}
