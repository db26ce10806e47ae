//! Post 5's figures: per-class success vs offered load (blind vs priority
//! door) and per window through the bursts.

use super::{CHARTS, PriorityReport};
use crate::models::priority::{ClassPolicy, PriorityOutcome, SLO_TARGET_PCT};
use crate::plot::{Marker, Plot, Role, Series, compact};

const PCT_RANGE: (f64, f64) = (0.0, 105.0);

fn slo() -> Marker {
    Marker::new(SLO_TARGET_PCT, format!("SLO {} %", compact(SLO_TARGET_PCT)), Role::Budget)
}

/// The four lines of both figures: `pts(policy, critical)`.
fn four(pts: impl Fn(ClassPolicy, bool) -> Vec<(f64, f64)>) -> Vec<Series> {
    vec![
        Series::new("priority: critical", Role::Series(0), pts(ClassPolicy::Priority, true)),
        Series::new("priority: background", Role::Series(5), pts(ClassPolicy::Priority, false)),
        Series::new("blind: critical", Role::Series(3), pts(ClassPolicy::Blind, true)).dashed(),
        Series::new("blind: background", Role::Series(1), pts(ClassPolicy::Blind, false)).dashed(),
    ]
}

/// Both figures, in the registry's order.
pub(in crate::experiments) fn plots(r: &PriorityReport) -> Vec<Plot> {
    let mut protection = Plot::new(CHARTS[0].title, "offered_rps", "offered load (rps)", "success (%)");
    protection.series = four(|policy, critical| {
        let f = if critical { PriorityOutcome::critical_success_pct } else { PriorityOutcome::background_success_pct };
        r.protection.iter().filter(|o| o.policy == policy).map(|o| (o.offered_rps(), f(o))).collect()
    });
    protection.y_range = Some(PCT_RANGE);
    protection.hlines.push(slo());
    let c = r.ceiling_rps;
    protection.vlines.push(Marker::new(c, format!("ceiling {} rps", compact((c * 10.0).round() / 10.0)), Role::Event));

    let mut burst = Plot::new(CHARTS[1].title, "time_ms", "arrival window start (ms)", "success (%)");
    let w = f64::from(r.window_ms);
    burst.series = four(|policy, critical| {
        let Some(o) = r.burst.iter().find(|o| o.policy == policy) else { return Vec::new() };
        let y = |p: &(f64, f64)| if critical { p.0 } else { p.1 };
        o.window_success_pct.iter().enumerate().map(|(k, p)| (k as f64 * w, y(p))).collect()
    });
    burst.y_range = Some(PCT_RANGE);
    burst.hlines.push(slo());
    vec![protection, burst]
}
