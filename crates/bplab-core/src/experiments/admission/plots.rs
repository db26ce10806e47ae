//! Post 2's figures: the limit sweep (categorical limits, goodput and
//! utilization, B marked, the plateau limit ringed) and the plateau.

use super::{AdmissionReport, CHARTS};
use crate::models::admission::{AdmissionOutcome, Limit};
use crate::plot::{Category, Marker, Plot, Role, Series, XAxis, compact};

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

fn capacity(r: &AdmissionReport) -> Marker {
    let cap = 1000.0 / f64::from(r.settings.service_ms.max(1));
    Marker::new(cap, format!("capacity {} rps", compact(cap)), Role::Reference)
}

/// Both figures, in the registry's order.
pub(in crate::experiments) fn plots(r: &AdmissionReport) -> Vec<Plot> {
    let mut sweep = Plot::new(CHARTS[0].title, "limit", "admission limit (requests)", "goodput (rps)")
        .with_right("utilization (%)", Some((0.0, 105.0)));
    let limits: Vec<Limit> = r.sweep.iter().map(|o| o.limit).collect();
    sweep.x = XAxis::Categories(
        limits
            .iter()
            .map(|l| Category {
                label: l.label(),
                value: match l {
                    Limit::Finite(n) => Some(f64::from(*n)),
                    Limit::None => None,
                },
            })
            .collect(),
    );
    let at = |f: fn(&AdmissionOutcome) -> f64| -> Vec<(f64, f64)> {
        r.sweep.iter().enumerate().map(|(i, o)| (i as f64, f(o))).collect()
    };
    sweep.series = vec![
        Series::new("goodput (rps)", Role::Series(0), at(|o| o.goodput_rps)),
        Series::new("utilization (%)", Role::Series(1), at(|o| o.utilization_pct)).dashed().right(),
    ];
    sweep.hlines.push(capacity(r));
    if let Some(x) = position(&limits, r.budget) {
        sweep.vlines.push(Marker::new(x, format!("B = {}", r.budget), Role::Event));
    }
    if let Some(i) = limits.iter().position(|x| *x == Limit::Finite(r.plateau_limit))
        && let Some(o) = r.sweep.get(i)
    {
        sweep.rings.push((i as f64, o.goodput_rps));
    }

    let mut plateau = Plot::new(CHARTS[1].title, "offered_rps", "offered load (rps)", "goodput (rps)");
    let pts =
        |v: &[AdmissionOutcome]| -> Vec<(f64, f64)> { v.iter().map(|o| (o.offered_rps, o.goodput_rps)).collect() };
    plateau.series = vec![
        Series::new("no control", Role::Series(3), pts(&r.no_control)),
        Series::new(format!("admission limit {}", r.plateau_limit), Role::Series(0), pts(&r.limited)),
    ];
    plateau.hlines.push(capacity(r));
    vec![sweep, plateau]
}
