//! What happened, as statements over every try of every run: the
//! per-policy verdicts (the windows re-formed from the records), the wasted
//! work, the arithmetic of the loop, the phase diagram and the sizing; what
//! another policy in place of naive retries would change.

use super::{Knob, Lane, MetastableReport, POLICIES, Policy, Trigger, Verdict, cell_key, lane_key, policy, run_key, sizing_key};
use crate::calc::{Explanation, fmt_num};
use crate::claim::Cmp;
use crate::claim::equation::{add, ceil, div, mul, n, sub, u};
use crate::experiments::{Readout, rps};
use crate::params::Named;
use crate::statement::quantity::{GOODPUT_RPS, LATE, THROTTLED};
use crate::statement::{Arith, Doc, Measure, Quantity, Statement, above_or_at_most, direction};

fn trigger_words(r: &MetastableReport) -> String {
    let what = if r.trigger == Trigger::Spike {
        format!("a spike to {}× the first tries' rate", fmt_num(r.trigger_size))
    } else {
        format!("a slowdown to {}× the service time", fmt_num(r.trigger_size))
    };
    format!("{what} from {} ms for {} ms", r.trigger_at_ms, r.trigger_ms)
}

/// Whether the lane's last window shows the loop that keeps it down: it
/// sends retries, and its tries (first tries and retries) pass the capacity.
fn sustained(r: &MetastableReport, l: &Lane) -> bool {
    let Some((i, w)) = l.ticks.iter().enumerate().next_back() else { return false };
    let start = i as f64 * r.rule.window_ms;
    let span = r.rule.window_ms.min(r.run_ms - start);
    l.policy != Policy::None
        && w.retries > 0
        && span == r.rule.window_ms
        && (w.first_tries + w.retries) as f64 * 1000.0 / span > r.capacity_rps
}

/// The start of the first whole window before the trigger's start that is
/// not healthy, if any: the policy was failing before the trigger.
fn unhealthy_before(r: &MetastableReport, l: &Lane) -> Option<f64> {
    let w = r.rule.window_ms;
    (0..l.ticks.len())
        .take_while(|&i| (i as f64 + 1.0) * w <= f64::from(r.trigger_at_ms))
        .find(|&i| !r.rule.healthy(&l.ticks, i))
        .map(|i| i as f64 * w)
}

fn verdict(r: &MetastableReport, l: &Lane) -> Statement {
    Statement::Recovery {
        run: lane_key(l.policy),
        who: l.policy.name().to_owned(),
        rule: r.rule,
        verdict: l.verdict,
        // T19: "stays stuck" only where the last window shows retries keeping the tries above capacity.
        sustained_over: (l.verdict == Verdict::Stuck && sustained(r, l)).then_some(r.capacity_rps),
        unhealthy_before: unhealthy_before(r, l),
        trigger_at_ms: f64::from(r.trigger_at_ms),
    }
}

fn phase_line(r: &MetastableReport, policy: Policy) -> Statement {
    // One cell per size and length: a size or a length given twice ran twice, the same run.
    let mut cells: Vec<&super::Cell> = Vec::new();
    for c in r.cells().iter().filter(|c| c.policy == policy) {
        if !cells.iter().any(|d| d.size == c.size && d.len_ms == c.len_ms) {
            cells.push(c);
        }
    }
    let mut rows: Vec<(u32, Vec<f64>)> = Vec::new();
    for c in &cells {
        if rows.iter().any(|r| r.0 == c.len_ms) {
            continue;
        }
        let mut sizes: Vec<f64> =
            cells.iter().filter(|d| d.len_ms == c.len_ms && d.verdict == Verdict::Stuck).map(|d| d.size).collect();
        sizes.sort_by(f64::total_cmp);
        if !sizes.is_empty() {
            rows.push((c.len_ms, sizes));
        }
    }
    let rule = |len: u32| crate::stochastic::Rule { end_ms: f64::from(r.trigger_at_ms) + f64::from(len), ..r.rule };
    Statement::Phase {
        who: policy.name().to_owned(),
        cells: cells.iter().map(|c| (cell_key(policy, c.size, c.len_ms), c.size, c.len_ms, rule(c.len_ms))).collect(),
        stuck: cells.iter().filter(|c| c.verdict == Verdict::Stuck).count(),
        rows,
    }
}

fn search(r: &MetastableReport, knob: Knob, what: String) -> Option<Statement> {
    let s = r.sizing.as_ref()?;
    let tried: Vec<(f64, String, crate::stochastic::Rule)> =
        s.runs.iter().filter(|x| x.0 == knob).map(|x| (x.1, sizing_key(knob, x.1), r.rule)).collect();
    if tried.is_empty() {
        return None;
    }
    let (answer, stuck_at) = match knob {
        Knob::Retries => (s.retries.map(f64::from), s.retries_stuck_at.map(f64::from)),
        Knob::BudgetRatio => (s.ratio, s.ratio_stuck_at),
    };
    Some(Statement::Search { what, tried, answer, stuck_at })
}

/// The diagram and the sizing: what other triggers and settings do.
fn grid(r: &MetastableReport) -> Doc {
    let mut d = Doc::new("Where each policy stays stuck");
    match &r.phase {
        Some(_) => d.answer.extend(POLICIES.iter().map(|&p| phase_line(r, p))),
        None => d.answer.push(Statement::Assumption(format!(
            "The phase diagram ({} trigger sizes × {} lengths per policy) has not run yet: it runs after the chosen point is shown",
            r.sizes.len(),
            r.lengths_ms.len()
        ))),
    }
    if r.sizing.is_none() {
        d.answer.push(Statement::Assumption(
            "The sizing search (naive retry counts, then budget ratios, at this trigger) has not run yet: it runs after the chosen point is shown".into(),
        ));
        return d;
    }
    d.answer.extend(search(r, Knob::Retries, "naive retry count".into()));
    if r.retries == 0 {
        d.answer.push(Statement::Assumption("With 0 retries there is nothing for a budget to limit".into()));
    } else {
        d.answer.extend(search(r, Knob::BudgetRatio, format!("budget ratio with {} retries", r.retries)));
    }
    d.assumes.push(Statement::Assumption(format!(
        "Each cell and each search step is the chosen run with one setting changed: the trigger's size and length, or the naive retry count, or the budget ratio; the same base first tries (a spike adds its own), service times and {} ms windows",
        r.window_ms
    )));
    d
}

fn race(r: &MetastableReport) -> Doc {
    let mut d = Doc::new("A failure that outlives its trigger");
    let p = r.params.as_ref();
    let w = f64::from(r.workers);
    let cap = || div(mul(n(w), n(1000.0)), n(r.service_mean_ms));
    d.steps.push(Statement::Arith {
        label: "capacity".into(),
        formula: "workers × 1000 / mean service (ms)".into(),
        eq: Arith::new(cap(), "rps"),
    });
    if let Some(p) = p {
        d.answer.push(Statement::Relation {
            a_label: "the first tries' rate outside the trigger (load × capacity)".into(),
            a: Arith::new(mul(n(p.load), cap()), "rps"),
            cmp: if p.load < 1.0 { Cmp::Lt } else { Cmp::Ge },
            b_label: "the capacity".into(),
            b: Arith::new(cap(), "rps"),
        });
    }
    d.answer.push(Statement::Assumption(format!("The trigger: {}", trigger_words(r))));
    let left = (r.run_ms - r.rule.end_ms).max(0.0);
    for (wait, what) in [(r.backoff_ms, "the wait before a naive retry"), (r.retry_after_ms, "a refusal's Retry-After")] {
        if r.retries > 0 && f64::from(wait) >= left {
            // A failure after the trigger is then never retried within the run.
            d.answer.push(Statement::Relation {
                a_label: what.into(),
                a: Arith::new(u(f64::from(wait), "ms"), "ms"),
                cmp: Cmp::Ge,
                b_label: "the time the run lasts after the trigger's end, so no failure after the trigger is retried that way within the run".into(),
                b: Arith::new(sub(u(r.run_ms, "ms"), u(r.rule.end_ms, "ms")), "ms"),
            });
        }
    }
    if r.service_mean_ms > f64::from(r.timeout_ms) {
        // Then no try is on time on average, trigger or not (M4).
        d.answer.push(Statement::Relation {
            a_label: "the mean service time, with or without the trigger".into(),
            a: Arith::new(u(r.service_mean_ms, "ms"), "ms"),
            cmp: Cmp::Gt,
            b_label: "the client timeout".into(),
            b: Arith::new(u(f64::from(r.timeout_ms), "ms"), "ms"),
        });
    }
    d.answer.extend(r.lanes.iter().map(|l| verdict(r, l)));
    // Within the run: what finished after its end counts in no window.
    let sum = |l: &Lane, f: fn(&super::Window) -> u64| l.ticks.iter().map(f).sum::<u64>() as f64;
    if let Some(l) = r.lane(Policy::Naive) {
        let late = sum(l, |t| t.late);
        d.answer.push(Statement::Value(Measure::new(LATE, run_key(l.policy), "under naive retries within the run", late)));
    }
    if let Some(l) = r.lane(Policy::Throttle) {
        let throttled = sum(l, |t| t.throttled);
        d.answer.push(Statement::Value(Measure::new(
            THROTTLED,
            run_key(l.policy),
            "under client throttling within the run",
            throttled,
        )));
    }
    // T11: the full-line time is a bound only for a fixed service time.
    let fixed = r.service_words.starts_with("every request takes exactly");
    if let Some(limit) = r.line_limit.filter(|_| fixed) {
        let full = Arith::new(mul(add(ceil(div(n(f64::from(limit)), n(w.max(1.0)))), n(1.0)), u(r.service_mean_ms, "ms")), "ms");
        d.steps.push(Statement::Arith {
            label: "time in the system behind a full line".into(),
            formula: "(ceil(line limit / workers) + 1) × service".into(),
            eq: full.clone(),
        });
        let timeout = Arith::new(u(f64::from(r.timeout_ms), "ms"), "ms");
        d.answer.push(above_or_at_most("the time in the system behind a full line", full, "the client timeout", timeout));
    }
    if let Some(p) = p {
        let tries = Arith::new(mul(add(n(1.0), n(f64::from(r.retries))), mul(n(p.load), cap())), "rps");
        d.steps.push(Statement::Arith {
            label: "tries per second when every try fails (naive)".into(),
            formula: "(1 + retries) × load × capacity".into(),
            eq: tries.clone(),
        });
        let capacity = Arith::new(cap(), "rps");
        d.answer.push(above_or_at_most("the tries per second when every try fails (naive)", tries, "the capacity", capacity));
    }
    d.assumes = vec![
        Statement::Definition(GOODPUT_RPS),
        Statement::Assumption(format!(
            "Poisson first tries, the same for every policy (common random numbers); {}, {} worker(s), a line of {} behind them",
            r.service_words.trim_end_matches('.'),
            r.workers,
            r.line_limit.map_or("any length".to_owned(), |l| format!("at most {l} waiting"))
        )),
        Statement::Assumption(format!(
            "A caller gives up {} ms after sending (the deadline); the server still serves what it queued, for nobody; a refusal carries Retry-After {} ms",
            r.timeout_ms, r.retry_after_ms
        )),
        Statement::Assumption(format!(
            "Recovered: from some window on, every window to the end of the run has goodput of at least {} % of min(the first tries' rate, capacity) = {}, or no failed try (late, refused or rejected locally); the recovery time is from the trigger's end to the start of the first such window ({} ms windows, events counted by when they happen)",
            fmt_num(super::HEALTHY_SHARE * 100.0),
            rps(r.rule.healthy_rps),
            r.window_ms
        )),
    ];
    d.assumes.extend(POLICIES.iter().map(|&p| {
        Statement::Assumption(policy::describe(p, r.retries, f64::from(r.backoff_ms), r.budget_ratio, r.throttle_k))
    }));
    d.ignores = vec![
        Statement::Assumption("Network time, connection limits and what a refusal costs the caller".into()),
        Statement::Assumption(
            "Callers' correlation beyond the shared server: each first try is an independent caller".into(),
        ),
    ];
    d.would_change = instead(r);
    d
}

/// Each other policy in place of naive retries, on the same first tries:
/// its goodput over the run, and the work it served for nobody.
fn instead(r: &MetastableReport) -> Vec<Statement> {
    let Some(base) = r.lane(Policy::Naive) else { return Vec::new() };
    let secs = r.run_ms / 1000.0;
    let mut out = Vec::new();
    // Within the run: what finished after its end counts in no window.
    let sum = |l: &Lane, f: fn(&super::Window) -> u64| l.ticks.iter().map(f).sum::<u64>() as f64;
    for l in r.lanes.iter().filter(|l| l.policy != Policy::Naive) {
        let change = format!("with {} instead of naive retries", l.policy.name());
        let m = |q: Quantity, lane: &Lane, v: f64| Measure::new(q, run_key(lane.policy), "within the run", v);
        let (now, then) = (sum(base, |t| t.ok) / secs, sum(l, |t| t.ok) / secs);
        out.push(Statement::Counterfactual {
            change: change.clone(),
            now: m(GOODPUT_RPS, base, now),
            then: m(GOODPUT_RPS, l, then),
            cmp: direction(then, now),
            same_arrivals: true,
        });
        let (now, then) = (sum(base, |t| t.late), sum(l, |t| t.late));
        if now > 0.0 || then > 0.0 {
            out.push(Statement::Counterfactual {
                change,
                now: m(LATE, base, now),
                then: m(LATE, l, then),
                cmp: direction(then, now),
                same_arrivals: true,
            });
        }
    }
    out
}

/// The report's explanations: the race, then the diagram and the sizing.
pub(in crate::experiments) fn explanations(r: &MetastableReport) -> Vec<Explanation> {
    vec![race(r).explanation(), grid(r).explanation()]
}

/// What a readout about the sizing search says before it has run.
const SIZING_PENDING: &str = "pending: the sizing search runs after the chosen point";

/// One readout name per policy (names are stable).
const RECOVERY_NAMES: [&str; 6] = [
    "none: recovery after the trigger",
    "naive: recovery after the trigger",
    "backoff: recovery after the trigger",
    "budget: recovery after the trigger",
    "throttle: recovery after the trigger",
    "retry-after: recovery after the trigger",
];

pub(in crate::experiments) fn readouts(r: &MetastableReport) -> Vec<Readout> {
    let mut v = vec![Readout::new("Capacity", rps(r.capacity_rps))];
    for (name, l) in RECOVERY_NAMES.iter().zip(&r.lanes) {
        let text = match l.verdict {
            Verdict::Recovered { after_ms } => format!("{after_ms} ms"),
            Verdict::Stuck => "did not recover within the run".to_owned(),
            Verdict::NoWindow => "no window after the trigger".to_owned(),
        };
        v.push(Readout::new(name, text));
    }
    let (retries, ratio) = match &r.sizing {
        Some(s) => (s.retries.map_or("none".to_owned(), |k| k.to_string()), s.ratio.map_or("none".to_owned(), fmt_num)),
        None => (SIZING_PENDING.to_owned(), SIZING_PENDING.to_owned()),
    };
    v.push(Readout::new("Largest naive retry count that recovers", retries));
    v.push(Readout::new("Largest budget ratio that recovers", ratio));
    v
}
