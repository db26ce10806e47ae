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

/// The direction a count or share moved, as a comparison.
fn direction(ord: std::cmp::Ordering) -> Cmp {
    match ord {
        std::cmp::Ordering::Less => Cmp::Lt,
        std::cmp::Ordering::Equal => Cmp::Eq,
        std::cmp::Ordering::Greater => Cmp::Gt,
    }
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
    // What another limit of the sweep would give on the same bursty curve,
    // against the chosen limit (or, when it was not tried, the limit at B,
    // or the best): the limit at B, no limit, the limit above B whose
    // admitted requests are most often late, and the largest limit below.
    let best_i = best_limit(r).and_then(|b| r.sweep.iter().position(|o| std::ptr::eq(o, b)));
    let at_limit = |l: u32| r.sweep.iter().position(|o| o.limit == Limit::Finite(l));
    if let Some(bi) = at_limit(r.plateau_limit).or(at_limit(r.budget)).or(best_i) {
        let b = &r.sweep[bi];
        let none = r.sweep.iter().position(|o| o.limit == Limit::None);
        let below = (0..r.sweep.len())
            .filter(|&i| r.sweep[i].limit.bound() < b.limit.bound())
            .max_by_key(|&i| (r.sweep[i].limit.bound(), std::cmp::Reverse(i)));
        // A run with the same outcome as one already listed adds nothing.
        let same = |j: usize, i: usize| {
            let (x, y) = (&r.sweep[j], &r.sweep[i]);
            (x.goodput, x.late, x.rejected) == (y.goodput, y.late, y.rejected)
        };
        let mut others: Vec<usize> = Vec::new();
        for i in [at_limit(r.budget).or(best_i), none, cliff_row(r), below].into_iter().flatten() {
            if !same(bi, i) && !others.iter().any(|&j| same(j, i)) {
                others.push(i);
            }
        }
        let refused = |x: &AdmissionOutcome| 100.0 * x.rejected as f64 / x.arrivals.max(1) as f64;
        for i in others {
            let o = &r.sweep[i];
            let change = match o.limit {
                Limit::None => format!("without a limit instead of limit {}", b.limit.label()),
                l => format!("with limit {} instead of limit {}", l.label(), b.limit.label()),
            };
            let larger = o.limit.bound() > b.limit.bound();
            let mut items = vec![(GOODPUT_RPS, b.goodput_rps, o.goodput_rps, Some(direction(o.goodput.cmp(&b.goodput))))];
            if larger || b.late > 0 {
                let (x, y) = (late_of_admitted(b), late_of_admitted(o));
                items.push((LATE_OF_ADMITTED_PCT, x, y, Some(direction(y.total_cmp(&x)))));
            }
            if !larger {
                items.push((REFUSED_PCT, b.reject_pct, o.reject_pct, Some(direction(refused(o).total_cmp(&refused(b))))));
                // Whether the smaller limit leaves the server idle: a
                // direction only where both read 100 % or they lie clearly
                // apart (the model's busy time is a float sum).
                let (x, y) = (b.utilization_pct, o.utilization_pct);
                let dir = if x >= 100.0 && y >= 100.0 {
                    Some(Cmp::Eq)
                } else if (x - y).abs() > 0.01 {
                    Some(if y > x { Cmp::Gt } else { Cmp::Lt })
                } else {
                    None
                };
                items.push((UTILISATION_PCT, x, y, dir));
            }
            for (q, now, then, cmp) in items {
                let Some(cmp) = cmp else { continue };
                d.would_change.push(Statement::Counterfactual {
                    change: change.clone(),
                    now: Measure::new(q, sweep_key(bi), "on the bursty curve", now),
                    then: Measure::new(q, sweep_key(i), "on the bursty curve", then),
                    cmp,
                    same_arrivals: true,
                });
            }
        }
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
