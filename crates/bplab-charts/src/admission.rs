//! Post 2: the limit sweep (categorical limits, goodput and utilization)
//! and the plateau (goodput vs offered, without and with the limit).

use bplab_core::models::admission::{AdmissionOutcome, Limit};
use bplab_core::{AdmissionReport, ChartId};

use crate::Focus;
use crate::common::{BLUE, ORANGE, RED, fmt_tick};
use crate::legend::Corner;
use crate::plot::{Marker, Plot, Series, XAxis};

/// Where `b` falls on the categorical axis of `limits`: its index if
/// listed, else interpolated between the neighbouring finite limits
/// (`None` when the list does not bracket it).
fn position(limits: &[Limit], b: u32) -> Option<f64> {
    if let Some(i) = limits.iter().position(|l| *l == Limit::Finite(b)) {
        return Some(i as f64);
    }
    limits.windows(2).enumerate().find_map(|(i, w)| match (w[0], w[1]) {
        (Limit::Finite(a), Limit::Finite(c)) if a.min(c) < b && b < a.max(c) => {
            Some(i as f64 + (f64::from(b) - f64::from(a)) / (f64::from(c) - f64::from(a)))
        }
        _ => None,
    })
}

/// Goodput (left axis) and utilization (right axis) per limit, B marked.
pub(crate) fn limit_sweep(r: &AdmissionReport, focus: &Focus) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::AdmissionLimitSweep), "admission limit (requests)", "goodput (rps)");
    let limits: Vec<Limit> = r.sweep.iter().map(|o| o.limit).collect();
    plot.x = XAxis::Categories(limits.iter().map(|l| l.label()).collect());
    let at = |f: fn(&AdmissionOutcome) -> f64| -> Vec<(f64, f64)> {
        r.sweep.iter().enumerate().map(|(i, o)| (i as f64, f(o))).collect()
    };
    plot.series = vec![
        Series::new("goodput (rps)", BLUE, at(|o| o.goodput_rps)),
        Series::new("utilization (%)", ORANGE, at(|o| o.utilization_pct)).dashed().right(),
    ];
    plot.secondary = Some(("utilization (%)", Some((0.0, 105.0))));
    let cap = 1000.0 / f64::from(r.settings.service_ms.max(1));
    plot.hlines.push(Marker::new(cap, format!("capacity {} rps", fmt_tick(cap))));
    if let Some(x) = position(&limits, r.budget) {
        plot.vlines.push(Marker::new(x, format!("B = {}", r.budget)));
    }
    if let Some(l) = focus.admission_limit
        && let Some(i) = limits.iter().position(|x| *x == Limit::Finite(l))
        && let Some(o) = r.sweep.get(i)
    {
        plot.rings.push((i as f64, o.goodput_rps));
    }
    plot.legend = Corner::LowerLeft;
    plot
}

/// Goodput vs offered without control and with the plateau limit.
pub(crate) fn plateau(r: &AdmissionReport, focus: &Focus) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::AdmissionPlateau), "offered load (rps)", "goodput (rps)");
    let pts =
        |v: &[AdmissionOutcome]| -> Vec<(f64, f64)> { v.iter().map(|o| (o.offered_rps, o.goodput_rps)).collect() };
    plot.series = vec![
        Series::new("no control", RED, pts(&r.no_control)),
        Series::new(format!("admission limit {}", r.plateau_limit), BLUE, pts(&r.limited)),
    ];
    let cap = 1000.0 / f64::from(r.settings.service_ms.max(1));
    plot.hlines.push(Marker::new(cap, format!("capacity {} rps", fmt_tick(cap))));
    plot.mark_offered(focus);
    plot.legend = Corner::MiddleRight;
    plot
}
