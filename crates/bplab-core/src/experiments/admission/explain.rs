//! Where the admission experiment's numbers come from, computed from the
//! report at whatever parameters produced it.

use super::AdmissionReport;
use crate::calc::{Explanation, budget, capacity_rps, fmt_num, worst_sojourn_ms};
use crate::calc::Step;
use crate::claim::equation::{mul, n};
use crate::claim::{Agg, Claim, Cmp, Equation, Fact};
use crate::experiments::{Readout, rps, argmax, step, strings};
use crate::models::admission::{AdmissionOutcome, Limit};

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

/// The tested limit above B whose served-late share is largest, if any is late.
fn cliff_row(r: &AdmissionReport) -> Option<&AdmissionOutcome> {
    r.sweep
        .iter()
        .filter(|o| o.limit.bound() > i64::from(r.budget) && o.served_late_pct > 0.0)
        .max_by(|a, b| a.served_late_pct.total_cmp(&b.served_late_pct))
}

pub(in crate::experiments) fn explanations(r: &AdmissionReport) -> Vec<Explanation> {
    vec![budget(r.settings.service_ms, r.settings.deadline_ms).1, admission(r)]
}

fn admission(r: &AdmissionReport) -> Explanation {
    let s = &r.settings;
    let capacity = capacity_rps(f64::from(s.service_ms), 1);
    let worst = worst_sojourn_ms(r.plateau_limit, s.service_ms);
    let longest = r.limited.iter().map(|o| o.max_sojourn_ms).fold(0.0f64, f64::max);
    let mut steps = vec![Step::eq(
        "worst time in the system at the plateau limit",
        "limit × service (queue wait at most (limit − 1) × service)",
        Equation::with_result(mul(n(f64::from(r.plateau_limit)), n(f64::from(s.service_ms))), worst as f64, "ms"),
        &format!(
            "in the system, at most {} ms of it waiting (deadline {} ms; longest seen in the plateau runs: {} ms)",
            worst.saturating_sub(u64::from(s.service_ms)),
            s.deadline_ms,
            fmt_num(longest)
        ),
    )];
    let b_worst = worst_sojourn_ms(r.budget, s.service_ms);
    steps.push(step(
        "B, rounded half-up, beside the deadline-safe bound",
        "B = round(capacity × deadline); safe = floor(deadline / service)",
        format!(
            "round(1000 / {} × {}); floor({} / {})",
            s.service_ms,
            crate::calc::show(f64::from(s.deadline_ms) / 1000.0),
            s.deadline_ms,
            s.service_ms
        ),
        if b_worst > u64::from(s.deadline_ms) {
            format!(
                "B = {} ({b_worst} ms in the system, past the {} ms deadline); safe = {}",
                r.budget, s.deadline_ms, r.deadline_safe
            )
        } else {
            format!("B = {} ({b_worst} ms in the system, within the deadline); safe = {}", r.budget, r.deadline_safe)
        },
    ));
    if let Some(i) = highest(r)
        && let (Some(nc), Some(lim)) = (r.no_control.get(i), r.limited.get(i))
    {
        steps.push(step(
            "plateau vs cliff at the highest offered load",
            "limited goodput / uncontrolled goodput",
            format!("{} / {} at {}", fmt_num(lim.goodput_rps), fmt_num(nc.goodput_rps), rps(nc.offered_rps)),
            if nc.goodput_rps > 0.0 {
                format!("{}×", fmt_num(lim.goodput_rps / nc.goodput_rps))
            } else {
                "∞ (no goodput without control)".into()
            },
        ));
    }
    let all = r.sweep.iter().chain(&r.no_control).chain(&r.limited);
    let top_goodput = all.map(|o| o.goodput_rps).fold(0.0f64, f64::max);
    let mut would_change = Vec::new();
    let mut claims = Vec::new();
    let best = best_limit(r);
    let b_late = u64::from(s.deadline_ms) < b_worst;
    match cliff_row(r) {
        Some(o) if b_late => would_change.push(format!(
            "B = {} is rounded up past what the deadline allows ({b_worst} ms > {} ms), so the worst time passes the deadline at B already; above it goodput falls further: at limit {} this curve has {} % served late and {} goodput.",
            r.budget,
            s.deadline_ms,
            o.limit.label(),
            fmt_num(o.served_late_pct),
            rps(o.goodput_rps)
        )),
        Some(o) => would_change.push(format!(
            "Above B = {} the worst time in the system passes the deadline and goodput falls off a cliff: at limit {} this curve has {} % served late and {} goodput.",
            r.budget,
            o.limit.label(),
            fmt_num(o.served_late_pct),
            rps(o.goodput_rps)
        )),
        None if r.sweep.iter().any(|o| o.limit.bound() > i64::from(r.budget)) => would_change.push(format!(
            "On this curve demand never fills the queue past B = {}: every tested limit above B serves 0 % late, so the cliff does not appear; it needs demand that queues more than {} requests.",
            r.budget, r.budget
        )),
        None => would_change.push(format!("No limit above B = {} was tested, so the cliff above B is not shown here.", r.budget)),
    }
    if let Some(o) = r.sweep.iter().filter(|o| o.limit.bound() < i64::from(r.budget)).max_by_key(|o| o.limit.bound()) {
        // Wasteful refusal only when it costs goodput against the best limit.
        // Compared as the sweep's table shows goodput (one decimal).
        let shown = |x: f64| crate::numerics::format_fixed(x, 1).parse::<f64>().unwrap_or(x);
        let wasteful = o.reject_pct > 0.0 && best.is_some_and(|b| shown(b.goodput_rps) > shown(o.goodput_rps));
        let text = if wasteful {
            format!(
                "Below B the door refuses traffic the server could have absorbed: at limit {} goodput is {} rps with {} % refused, below the best limit's {} rps.",
                o.limit.label(),
                crate::numerics::format_fixed(o.goodput_rps, 1),
                fmt_num(o.reject_pct),
                crate::numerics::format_fixed(best.map_or(0.0, |b| b.goodput_rps), 1)
            )
        } else {
            format!(
                "Below B refusing costs nothing on this curve: at limit {} goodput is {} with {} % refused, as high as any limit reaches.",
                o.limit.label(),
                rps(o.goodput_rps),
                fmt_num(o.reject_pct)
            )
        };
        claims.push(Claim::new(
            "comparison",
            if wasteful { "claim" } else { "no-loss-below-B" },
            text.clone(),
            Fact::Column {
                table: "bp-post2-limit-sweep.csv",
                filter: Vec::new(),
                column: "goodput_rps",
                agg: Agg::Max,
                cmp: if wasteful { Cmp::Gt } else { Cmp::Le },
                value: shown(o.goodput_rps),
                tol: 0.0,
            },
        ));
        would_change.push(text);
    }
    let chosen = r.sweep.iter().find(|o| o.limit == Limit::Finite(r.plateau_limit)).or(best);
    if let Some(o) = chosen.filter(|o| o.reject_pct > 0.0) {
        if o.served_late_pct == 0.0 {
            would_change.push(format!(
                "Rejection is the protection working, not a fault: at limit {} the door refuses {} % of arrivals while the server is {} % busy and delivers {}. A lasting fix needs more capacity or less demand.",
                o.limit.label(),
                fmt_num(o.reject_pct),
                fmt_num(o.utilization_pct),
                rps(o.goodput_rps)
            ));
        } else {
            would_change.push(format!(
                "At limit {} the door refuses {} % of arrivals, yet {} % of what it admits is served late: this limit admits more than the deadline allows, so refusing is not yet protecting.",
                o.limit.label(),
                fmt_num(o.reject_pct),
                fmt_num(o.served_late_pct)
            ));
        }
    }
    if let Some(b) = best {
        claims.push(Claim::new(
            "best",
            "claim",
            format!("best limit on this curve: {} (", b.limit.label()),
            Fact::Best {
                table: "bp-post2-limit-sweep.csv",
                filter: Vec::new(),
                key: "admission_limit",
                column: "goodput_rps",
                higher: true,
                within: None,
                tol: 0.1,
                names: vec![b.limit.label()],
            },
        ));
    }
    Explanation {
        title: "Admission limit".into(),
        answer: match best_limit(r) {
            Some(b) => format!(
                "best limit on this curve: {} ({} goodput, the smallest limit that reaches the highest); B = {}, deadline-safe {}",
                b.limit.label(),
                rps(b.goodput_rps),
                r.budget,
                r.deadline_safe
            ),
            None => format!("B = {}, deadline-safe {}", r.budget, r.deadline_safe),
        },
        steps,
        assumes: vec![
            "The door counts requests in the system (occupancy), not a token rate.".into(),
            "Rejection is immediate and free; rejected clients do not retry.".into(),
            "The limit sweep runs on the bursty curve (valleys and spikes); the plateau on flat offered loads.".into(),
            format!(
                "Admitted work that finishes after the window is still served and counted, and rates divide by the window, so goodput can read above capacity (highest here {} vs capacity {}).",
                rps(top_goodput),
                rps(capacity)
            ),
        ],
        ignores: strings(&["Service-time variance and downstream limits.", "The cost of a rejection to the caller."]),
        would_change,
        claims,
    }
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
