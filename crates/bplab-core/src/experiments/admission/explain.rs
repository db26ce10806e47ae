//! Where the admission experiment's numbers come from: statements over its
//! runs (the sweep on the bursty curve, the plateau on flat loads), each
//! checked against the runs' request logs (`hooks.rs`).

use super::AdmissionReport;
use super::hooks::{plateau_key, sweep_key};
use crate::calc::{Explanation, budget, fmt_num};
use crate::claim::Cmp;
use crate::claim::equation::{mul, n, u};
use crate::experiments::{Readout, argmax, rps};
use crate::models::admission::{AdmissionOutcome, Limit};
use crate::statement::quantity::{
    GOODPUT_RPS, LATE_OF_ADMITTED_PCT, MAX_TIME_IN_SYSTEM_MS, REFUSED_PCT, UTILISATION_PCT,
};
use crate::statement::{Arith, Cond, Doc, Measure, Pre, Quantity, Statement};

/// The smallest limit that reaches the sweep's highest goodput (`none` counts
/// as the largest): the cheapest limit that gives up nothing.
pub(crate) fn best_limit(r: &AdmissionReport) -> Option<&AdmissionOutcome> {
    let top = r.sweep.iter().map(|o| o.goodput).max()?;
    r.sweep.iter().filter(|o| o.goodput == top).min_by_key(|o| o.limit.bound())
}

/// Index of the highest offered load of the plateau (the list need not be sorted).
fn highest(r: &AdmissionReport) -> Option<usize> {
    argmax(r.no_control.iter().map(|o| o.offered_rps))
}

/// The sweep's index of the tested limit above B whose served-late share is
/// largest, if any is late.
fn cliff_row(r: &AdmissionReport) -> Option<usize> {
    (0..r.sweep.len()).filter(|&i| r.sweep[i].limit.bound() > i64::from(r.budget) && r.sweep[i].late > 0).max_by(
        |&a, &b| {
            let share = |o: &AdmissionOutcome| o.late as f64 / (o.goodput + o.late).max(1) as f64;
            share(&r.sweep[a]).total_cmp(&share(&r.sweep[b])).then(b.cmp(&a))
        },
    )
}

/// A quantity on the sweep's run `i`.
fn on_sweep(r: &AdmissionReport, q: Quantity, i: usize, value: f64) -> Measure {
    let at = format!("at limit {} on the bursty curve", r.sweep[i].limit.label());
    Measure::new(q, sweep_key(i), at, value)
}

fn late_of_admitted(o: &AdmissionOutcome) -> f64 {
    let admitted = o.goodput + o.late;
    if admitted == 0 { 0.0 } else { 100.0 * o.late as f64 / admitted as f64 }
}

pub(in crate::experiments) fn explanations(r: &AdmissionReport) -> Vec<Explanation> {
    vec![budget(r.settings.service_ms, r.settings.deadline_ms).1, admission(r)]
}

fn admission(r: &AdmissionReport) -> Explanation {
    let s = &r.settings;
    let service = f64::from(s.service_ms);
    let mut d = Doc::new("Admission limit");
    // The headline: the best limit of the sweep.
    let mut order: Vec<usize> = (0..r.sweep.len()).collect();
    order.sort_by_key(|&i| (r.sweep[i].limit.bound(), i));
    if let Some(b) = best_limit(r)
        && let Some(w) = order.iter().position(|&i| std::ptr::eq(&r.sweep[i], b))
    {
        d.answer.push(Statement::Best {
            set: "of the limits tried on the bursty curve".into(),
            order: "smallest limit".into(),
            items: order
                .iter()
                .map(|&i| {
                    (format!("limit {}", r.sweep[i].limit.label()), on_sweep(r, GOODPUT_RPS, i, r.sweep[i].goodput_rps))
                })
                .collect(),
            higher: true,
            winner: w,
        });
    }
    // The plateau at the highest offered load: its worst time, and the cliff.
    if let Some(i) = highest(r)
        && let (Some(nc), Some(lim)) = (r.no_control.get(i), r.limited.get(i))
    {
        // The run is named by its setting (the flat curve's rate as given).
        let rate = r.inputs.offered_rps.get(i).copied().unwrap_or(nc.offered_rps);
        let at_lim = format!("with limit {} at {} offered", r.plateau_limit, rps(rate));
        let at_nc = format!("without a limit at {} offered", rps(rate));
        d.steps.push(Statement::Arith {
            label: "worst time in the system at the plateau limit".into(),
            formula: "limit × service".into(),
            eq: Arith::new(mul(n(f64::from(r.plateau_limit)), u(service, "ms")), "ms"),
        });
        d.answer.push(Statement::Bound {
            m: Measure::new(MAX_TIME_IN_SYSTEM_MS, plateau_key(true, i), at_lim.clone(), lim.max_sojourn_ms),
            what: "the limit times the service time".into(),
            bound: Arith::new(mul(n(f64::from(r.plateau_limit)), u(service, "ms")), "ms"),
            pre: vec![Pre::new("a fixed service time", Cond::Given(true))],
        });
        let cmp = if lim.goodput > nc.goodput {
            Cmp::Gt
        } else if lim.goodput < nc.goodput {
            Cmp::Lt
        } else {
            Cmp::Eq
        };
        d.answer.push(Statement::Comparison {
            a: Measure::new(GOODPUT_RPS, plateau_key(true, i), at_lim, lim.goodput_rps),
            cmp,
            b: Measure::new(GOODPUT_RPS, plateau_key(false, i), at_nc, nc.goodput_rps),
        });
    }
    // Above B: the limit whose admitted requests are most often late.
    let best_i = best_limit(r).and_then(|b| r.sweep.iter().position(|o| std::ptr::eq(o, b)));
    if let Some(c) = cliff_row(r) {
        let o = &r.sweep[c];
        d.would_change.push(Statement::Value(on_sweep(r, LATE_OF_ADMITTED_PCT, c, late_of_admitted(o))));
        if let Some(bi) = best_i.filter(|&bi| r.sweep[bi].goodput > o.goodput) {
            d.would_change.push(Statement::Comparison {
                a: on_sweep(r, GOODPUT_RPS, c, o.goodput_rps),
                cmp: Cmp::Lt,
                b: on_sweep(r, GOODPUT_RPS, bi, r.sweep[bi].goodput_rps),
            });
        }
    }
    // Below B: the largest limit under B against the best.
    let below = (0..r.sweep.len())
        .filter(|&i| r.sweep[i].limit.bound() < i64::from(r.budget))
        .max_by_key(|&i| (r.sweep[i].limit.bound(), std::cmp::Reverse(i)));
    if let (Some(i), Some(bi)) = (below, best_i) {
        let o = &r.sweep[i];
        d.would_change.push(Statement::Value(on_sweep(r, REFUSED_PCT, i, o.reject_pct)));
        if o.goodput < r.sweep[bi].goodput {
            d.would_change.push(Statement::Comparison {
                a: on_sweep(r, GOODPUT_RPS, i, o.goodput_rps),
                cmp: Cmp::Lt,
                b: on_sweep(r, GOODPUT_RPS, bi, r.sweep[bi].goodput_rps),
            });
        }
        d.would_change.push(Statement::Value(on_sweep(r, UTILISATION_PCT, i, o.utilization_pct)));
    }
    // At the chosen limit, when it refuses: what it admits and how late.
    let chosen = r.sweep.iter().position(|o| o.limit == Limit::Finite(r.plateau_limit)).or(best_i);
    if let Some(i) = chosen.filter(|&i| r.sweep[i].rejected > 0 && Some(i) != cliff_row(r)) {
        let o = &r.sweep[i];
        d.would_change.push(Statement::Value(on_sweep(r, LATE_OF_ADMITTED_PCT, i, late_of_admitted(o))));
    }
    d.assumes = vec![
        Statement::Definition(GOODPUT_RPS),
        Statement::Definition(LATE_OF_ADMITTED_PCT),
        Statement::Assumption("The door counts requests in the system (occupancy), not a token rate".into()),
        Statement::Assumption("Rejection is immediate and free; rejected clients do not retry".into()),
        Statement::Assumption(
            "The limit sweep runs on the bursty curve (valleys and spikes); the plateau on flat offered loads".into(),
        ),
        Statement::Assumption(
            "Admitted work that finishes after the window is still served and counted, and rates divide by the window, so goodput can read above capacity".into(),
        ),
    ];
    d.ignores = vec![
        Statement::Assumption("Service-time variance and downstream limits".into()),
        Statement::Assumption("The cost of a rejection to the caller".into()),
    ];
    d.explanation()
}

pub(in crate::experiments) fn readouts(r: &AdmissionReport) -> Vec<Readout> {
    let chosen = r.sweep.iter().find(|o| o.limit == Limit::Finite(r.plateau_limit));
    let at_top = highest(r).and_then(|i| Some((r.no_control.get(i)?, r.limited.get(i)?)));
    vec![
        Readout::new("B = capacity × deadline", format!("{} requests (deadline-safe {})", r.budget, r.deadline_safe)),
        Readout::new("Chosen limit", format!("{} requests", r.plateau_limit)),
        Readout::new(
            "Goodput and utilization at the chosen limit (bursty curve)",
            chosen.map_or("not in the limit sweep".into(), |o| {
                format!("{}, {}% busy", rps(o.goodput_rps), fmt_num(o.utilization_pct))
            }),
        ),
        Readout::new(
            "Best limit on the bursty curve (smallest reaching the highest goodput)",
            best_limit(r).map_or("–".into(), |o| format!("{} ({})", o.limit.label(), rps(o.goodput_rps))),
        ),
        Readout::new(
            "Goodput at the highest offered load, no control vs limited",
            at_top.map_or("–".into(), |(a, b)| {
                format!("{} vs {} at {} offered", rps(a.goodput_rps), rps(b.goodput_rps), rps(a.offered_rps))
            }),
        ),
    ]
}
