//! Where the shedding numbers come from: statements over the policies' runs
//! at the highest offered rate, checked against their request logs (`hooks.rs`).

use super::SheddingReport;
use super::hooks::key;
use crate::calc::Explanation;
use crate::claim::Cmp;
use crate::claim::equation::{div, mul, n, round, u};
use crate::experiments::{Readout, argmax, rps};
use crate::models::shedding::{ShedOutcome, ShedPolicy};
use crate::statement::quantity::{GOODPUT_RPS, MAX_TIME_IN_SYSTEM_MS, P99_ANSWERED_MS, SHED_PCT};
use crate::statement::{Arith, Cond, Doc, Measure, Pre, Quantity, Statement};

/// The index of the highest offered rate (the list need not be sorted).
fn top_index(r: &SheddingReport) -> Option<usize> {
    r.sweep.first().and_then(|rows| argmax(rows.iter().map(|o| o.offered_rps)))
}

/// Each policy's row at the highest offered rate.
fn at_highest(r: &SheddingReport) -> Vec<&ShedOutcome> {
    top_index(r).map_or_else(Vec::new, |i| r.sweep.iter().filter_map(|rows| rows.get(i)).collect())
}

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &SheddingReport) -> Vec<Explanation> {
    vec![explanation(r)]
}

/// A quantity on one policy's run at the `i`-th offered rate, named by its
/// setting (the flat curve's rate as given).
fn on(r: &SheddingReport, q: Quantity, o: &ShedOutcome, i: usize, value: f64) -> Measure {
    let rate = r.inputs.offered_rps.get(i).copied().unwrap_or(o.offered_rps);
    Measure::new(q, key(o.policy, i), format!("with {} at {} offered", o.policy.label(), rps(rate)), value)
}

/// A quantity on a policy's run at the `i`-th offered rate, named by the
/// rate alone (a counterfactual names the policies in its change).
fn at_rate(r: &SheddingReport, q: Quantity, run: String, i: usize, o: &ShedOutcome, value: f64) -> Measure {
    let rate = r.inputs.offered_rps.get(i).copied().unwrap_or(o.offered_rps);
    Measure::new(q, run, format!("at {} offered", rps(rate)), value)
}

fn explanation(r: &SheddingReport) -> Explanation {
    let s = &r.settings;
    let (sv, dl) = (f64::from(s.service_ms.max(1)), f64::from(s.deadline_ms));
    let mut d = Doc::new("Shedding policies");
    let b_eq = Arith::with_result(round(mul(div(n(1000.0), n(sv)), div(n(dl), n(1000.0)))), f64::from(s.bound), "");
    if b_eq.check().is_ok() {
        d.steps.push(Statement::Arith {
            label: "door bound B (tail-drop)".into(),
            formula: "round(1000 / service × deadline / 1000)".into(),
            eq: b_eq,
        });
    }
    let worst = || mul(n(f64::from(s.bound)), u(sv, "ms"));
    let over = crate::statement::arith::compare(&worst(), &n(dl)).is_gt();
    d.answer.push(Statement::Relation {
        a_label: format!("the worst time in the system behind B = {} (tail-drop)", s.bound),
        a: Arith::new(worst(), "ms"),
        cmp: if over { Cmp::Gt } else { Cmp::Le },
        b_label: "the deadline".into(),
        b: Arith::new(u(dl, "ms"), "ms"),
    });
    if let Some(i) = top_index(r) {
        let rows = at_highest(r);
        d.answer.push(Statement::Best {
            set: format!(
                "of the four policies at {} offered",
                rps(r.inputs.offered_rps.get(i).copied().unwrap_or(0.0))
            ),
            order: "first policy in the order fifo, tail-drop, expire, lifo".into(),
            items: rows
                .iter()
                .map(|o| (o.policy.label().to_owned(), on(r, GOODPUT_RPS, o, i, o.goodput_rps)))
                .collect(),
            higher: true,
            winner: {
                let top = rows.iter().map(|o| o.goodput).max().unwrap_or(0);
                rows.iter().position(|o| o.goodput == top).unwrap_or(0)
            },
        });
        // Each other policy against fifo (no shedding) at the same offered rate.
        if let Some(f) = rows.iter().find(|o| o.policy == ShedPolicy::Fifo) {
            for o in rows.iter().filter(|o| o.policy != ShedPolicy::Fifo) {
                let change = format!("with {} instead of fifo", o.policy.label());
                let versus = |q: Quantity, now: f64, then: f64, cmp: Cmp| Statement::Counterfactual {
                    change: change.clone(),
                    now: at_rate(r, q, key(f.policy, i), i, f, now),
                    then: at_rate(r, q, key(o.policy, i), i, o, then),
                    cmp,
                    same_arrivals: true,
                };
                let goodput = match o.goodput.cmp(&f.goodput) {
                    std::cmp::Ordering::Less => Cmp::Lt,
                    std::cmp::Ordering::Equal => Cmp::Eq,
                    std::cmp::Ordering::Greater => Cmp::Gt,
                };
                d.would_change.push(versus(GOODPUT_RPS, f.goodput_rps, o.goodput_rps, goodput));
                // A p99 in the histogram's top bucket is clamped at 60 s: not a
                // value to state; and a direction only where the two p99s lie
                // further apart than the histogram's rounding of each.
                let (a, b) = (f.p99_served_ms as f64, o.p99_served_ms as f64);
                let slack = |v: f64| 2.0 + v * 0.002;
                let clamp = crate::numerics::MAX_LATENCY_MS as f64;
                if a < clamp && b < clamp && (a - b).abs() > slack(a) + slack(b) {
                    d.would_change.push(versus(P99_ANSWERED_MS, a, b, if b > a { Cmp::Gt } else { Cmp::Lt }));
                }
            }
        }
        if let Some(t) = rows.iter().find(|o| o.policy == ShedPolicy::TailDrop) {
            d.answer.push(Statement::Bound {
                m: on(r, MAX_TIME_IN_SYSTEM_MS, t, i, t.max_sojourn_ms),
                what: "B service times".into(),
                bound: Arith::new(worst(), "ms"),
                pre: vec![Pre::new("a fixed service time", Cond::Given(true))],
            });
        }
        // LIFO against FIFO, only where they differ.
        let by = |p: ShedPolicy| rows.iter().find(|o| o.policy == p);
        if let (Some(l), Some(f)) = (by(ShedPolicy::Lifo), by(ShedPolicy::Fifo))
            && l.goodput != f.goodput
        {
            d.answer.push(Statement::Comparison {
                a: on(r, GOODPUT_RPS, l, i, l.goodput_rps),
                cmp: if l.goodput > f.goodput { Cmp::Gt } else { Cmp::Lt },
                b: on(r, GOODPUT_RPS, f, i, f.goodput_rps),
            });
        }
    }
    let a = |t: String| Statement::Assumption(t);
    d.assumes = vec![
        Statement::Definition(GOODPUT_RPS),
        Statement::Definition(SHED_PCT),
        a(format!(
            "fifo serves the oldest; tail-drop bounds the door at B = {}; expire drops a request whose wait plus service passes the deadline; lifo serves the newest",
            s.bound
        )),
        a("Shed requests cost nothing; served-late ones cost a full service slot".into()),
        a("The server stops taking work at the end of the window; whatever is still queued then counts as shed, with its wait so far".into()),
    ];
    d.ignores = vec![a("Retries of shed requests".into()), a("Fairness between clients".into())];
    d.explanation()
}

pub(in crate::experiments) fn readouts(r: &SheddingReport) -> Vec<Readout> {
    let goodput = at_highest(r)
        .iter()
        .map(|o| format!("{} {}", o.policy.label(), rps(o.goodput_rps)))
        .collect::<Vec<_>>()
        .join(" · ");
    let hangover = r
        .hangover
        .iter()
        .map(|o| format!("{} {} ms", o.policy.label(), o.window_p99_ms.iter().max().copied().unwrap_or(0)))
        .collect::<Vec<_>>()
        .join(" · ");
    vec![
        Readout::new("In-system bound (capacity × deadline)", format!("{} requests", r.settings.bound)),
        Readout::new("Goodput at the highest offered load", goodput),
        Readout::new("Worst served p99 in any window (hangover)", hangover),
    ]
}
