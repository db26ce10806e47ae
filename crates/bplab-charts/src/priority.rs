//! Post 5: per-class success vs offered load (blind vs priority door) and
//! per window through the bursts.

use bplab_core::models::priority::{ClassPolicy, PriorityOutcome, SLO_TARGET_PCT};
use bplab_core::{ChartId, PriorityReport};

use crate::Focus;
use crate::common::{BLUE, ORANGE, RED, SKY, fmt_tick};
use crate::legend::Corner;
use crate::plot::{Marker, Plot, Series};

const PCT_RANGE: (f64, f64) = (0.0, 105.0);

fn slo() -> Marker {
    Marker::new(SLO_TARGET_PCT, format!("SLO {} %", fmt_tick(SLO_TARGET_PCT)))
}

/// Critical and background success vs offered, blind (dashed) vs priority (solid).
pub(crate) fn protection(r: &PriorityReport, focus: &Focus) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::PriorityProtection), "offered load (rps)", "success (%)");
    let pts = |policy: ClassPolicy, f: fn(&PriorityOutcome) -> f64| -> Vec<(f64, f64)> {
        r.protection.iter().filter(|o| o.policy == policy).map(|o| (o.offered_rps(), f(o))).collect()
    };
    let (crit, back) = (PriorityOutcome::critical_success_pct, PriorityOutcome::background_success_pct);
    plot.series = vec![
        Series::new("priority: critical", BLUE, pts(ClassPolicy::Priority, crit)),
        Series::new("priority: background", SKY, pts(ClassPolicy::Priority, back)),
        Series::new("blind: critical", RED, pts(ClassPolicy::Blind, crit)).dashed(),
        Series::new("blind: background", ORANGE, pts(ClassPolicy::Blind, back)).dashed(),
    ];
    plot.y_fixed = Some(PCT_RANGE);
    plot.hlines.push(slo());
    plot.labels_right = true;
    let c = r.ceiling_rps;
    plot.vlines.push(Marker::new(c, format!("ceiling {} rps", fmt_tick((c * 10.0).round() / 10.0))));
    plot.mark_offered(focus);
    plot.legend = Corner::LowerLeft;
    plot
}

/// Success per arrival window, per class and policy.
pub(crate) fn burst(r: &PriorityReport) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::PriorityBurst), "arrival window start (ms)", "success (%)");
    let w = f64::from(r.window_ms);
    let pts = |policy: ClassPolicy, critical: bool| -> Vec<(f64, f64)> {
        let Some(o) = r.burst.iter().find(|o| o.policy == policy) else { return Vec::new() };
        let y = |p: &(f64, f64)| if critical { p.0 } else { p.1 };
        o.window_success_pct.iter().enumerate().map(|(k, p)| (k as f64 * w, y(p))).collect()
    };
    plot.series = vec![
        Series::new("priority: critical", BLUE, pts(ClassPolicy::Priority, true)),
        Series::new("priority: background", SKY, pts(ClassPolicy::Priority, false)),
        Series::new("blind: critical", RED, pts(ClassPolicy::Blind, true)).dashed(),
        Series::new("blind: background", ORANGE, pts(ClassPolicy::Blind, false)).dashed(),
    ];
    plot.y_fixed = Some(PCT_RANGE);
    plot.hlines.push(slo());
    plot.labels_right = true;
    plot.legend = Corner::MiddleLeft;
    plot
}
