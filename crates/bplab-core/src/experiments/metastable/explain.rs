//! What happened, as checked claims: the per-policy verdicts, the wasted
//! work, why the loop sustains itself, the phase diagram and the sizing.

use super::{Knob, Lane, MetastableReport, POLICIES, Policy, Trigger, Verdict, phase, policy};
use crate::calc::{Explanation, Step, fmt_num};
use crate::claim::equation::{add, ceil, div, mul, n};
use crate::claim::{Agg, Claim, Cmp, Equation, Fact};
use crate::experiments::{Readout, rps};
use crate::params::Named;

const SUMMARY: &str = "metastable-summary.csv";
const PHASE: &str = "metastable-phase.csv";
const SIZING: &str = "metastable-sizing.csv";

fn said(claims: &mut Vec<Claim>, kind: &'static str, variant: &'static str, text: String, fact: Fact) -> String {
    claims.push(Claim::new(kind, variant, text.clone(), fact));
    text
}

fn count(table: &'static str, filter: Vec<(&'static str, String)>, value: usize) -> Fact {
    let column = if table == SIZING { "knob" } else { "policy" };
    Fact::Column { table, filter, column, agg: Agg::Count, cmp: Cmp::Eq, value: value as f64, tol: 0.0 }
}

fn column(table: &'static str, filter: Vec<(&'static str, String)>, column: &'static str, agg: Agg, v: f64) -> Fact {
    Fact::Column { table, filter, column, agg, cmp: Cmp::Eq, value: v, tol: 0.0 }
}

fn trigger_words(r: &MetastableReport) -> String {
    let what = if r.trigger == Trigger::Spike {
        format!("a spike to {}× the first tries", fmt_num(r.trigger_size))
    } else {
        format!("a slowdown to {}× the service time", fmt_num(r.trigger_size))
    };
    format!("{what} from {} ms for {} ms", r.trigger_at_ms, r.trigger_ms)
}

/// The time the run lasts after the trigger's end, ms: every verdict's horizon.
fn remaining_ms(r: &MetastableReport) -> f64 {
    (r.run_ms - r.rule.end_ms).max(0.0)
}

/// Whether the lane's last window shows the loop that keeps it down: it
/// sends retries, and its tries (first tries and retries) pass the capacity.
fn sustained(r: &MetastableReport, l: &Lane) -> bool {
    let Some((i, w)) = l.ticks.iter().enumerate().next_back() else { return false };
    let start = i as f64 * r.rule.window_ms;
    let span = r.rule.window_ms.min(r.run_ms - start);
    l.policy != Policy::None
        && w.retries > 0
        && span > 0.0
        && (w.first_tries + w.retries) as f64 * 1000.0 / span > r.capacity_rps
}

fn verdict_line(r: &MetastableReport, l: &Lane, claims: &mut Vec<Claim>) -> String {
    let by = |v: &str| vec![("policy", l.policy.name().to_owned()), ("verdict", v.to_owned())];
    let horizon = format!("within the {} ms the run lasts after the trigger's end", fmt_num(remaining_ms(r)));
    match l.verdict {
        Verdict::Recovered { after_ms } => {
            // T28: from the first whole window on, nothing was ever unhealthy: no recovery to time.
            let first = (r.rule.first_after() as f64 * r.rule.window_ms - r.rule.end_ms).max(0.0).round() as u64;
            if after_ms == first {
                said(
                    claims,
                    "verdict",
                    "never-unhealthy",
                    format!(
                        "{}: every {} ms window after the trigger's end is healthy, {horizon}",
                        l.policy.name(),
                        r.window_ms
                    ),
                    column(SUMMARY, by("recovered"), "recovery_ms", Agg::Max, after_ms as f64),
                )
            } else {
                said(
                    claims,
                    "verdict",
                    "recovered",
                    format!(
                        "{} recovered {after_ms} ms after the trigger's end (the start of the first {} ms window from which every window is healthy), {horizon}",
                        l.policy.name(),
                        r.window_ms
                    ),
                    column(SUMMARY, by("recovered"), "recovery_ms", Agg::Max, after_ms as f64),
                )
            }
        }
        Verdict::Stuck => {
            // T19: "stays stuck" only where the last window shows retries keeping the tries above capacity.
            let loop_words = if sustained(r, l) {
                format!(
                    "; it stays stuck: its last window's tries, retries included, exceed the capacity of {}",
                    rps(r.capacity_rps)
                )
            } else {
                String::new()
            };
            said(
                claims,
                "verdict",
                if loop_words.is_empty() { "not-recovered" } else { "stuck" },
                format!(
                    "{} did not recover {horizon} (goodput under {} and failed tries in the last window){loop_words}",
                    l.policy.name(),
                    rps(r.rule.healthy_rps)
                ),
                count(SUMMARY, by("stuck"), 1),
            )
        }
        Verdict::NoWindow => said(
            claims,
            "verdict",
            "no-window",
            format!("{}: no whole window after the trigger's end to judge", l.policy.name()),
            count(SUMMARY, by("no-window"), 1),
        ),
    }
}

fn phase_line(r: &MetastableReport, cells: &[phase::Cell], policy: Policy, claims: &mut Vec<Claim>) -> String {
    let name = policy.name();
    let stuck = cells.iter().filter(|c| c.policy == policy && c.verdict == Verdict::Stuck).count();
    let all = cells.iter().filter(|c| c.policy == policy).count();
    let mut text = said(
        claims,
        "phase",
        if stuck == 0 { "never-stuck" } else { "claim" },
        format!("{name} did not recover by the end of the run in {stuck} of {all} cells"),
        count(PHASE, vec![("policy", name.to_owned()), ("verdict", "stuck".to_owned())], stuck),
    );
    let edges: Vec<String> = r
        .lengths_ms
        .iter()
        .filter_map(|&len| phase::boundary(cells, policy, len).map(|s| format!("{}× at {len} ms", fmt_num(s))))
        .collect();
    if stuck > 0 && !edges.is_empty() {
        let t = format!("(from {})", edges.join(", "));
        // Each edge: the smallest size that does not recover at that length.
        for &len in &r.lengths_ms {
            if let Some(size) = phase::boundary(cells, policy, len) {
                claims.push(Claim::new(
                    "phase",
                    "edge",
                    t.clone(),
                    Fact::Column {
                        table: PHASE,
                        filter: vec![
                            ("policy", name.to_owned()),
                            ("trigger_ms", len.to_string()),
                            ("verdict", "stuck".to_owned()),
                        ],
                        column: "trigger_size",
                        agg: Agg::Min,
                        cmp: Cmp::Eq,
                        value: size,
                        // The table shows sizes to 2 decimals.
                        tol: 0.0051,
                    },
                ));
            }
        }
        text.push_str(&format!(" {t}"));
    }
    text
}

/// What a readout or a sentence about the sizing search says before it has run.
const SIZING_PENDING: &str = "pending: the sizing search runs after the chosen point";

fn sizing_lines(r: &MetastableReport, claims: &mut Vec<Claim>) -> Vec<String> {
    let Some(s) = &r.sizing else {
        return vec![said(
            claims,
            "sizing",
            "pending",
            "The sizing search (naive retry counts, then budget ratios, at this trigger) has not run yet: it runs after the chosen point is shown".to_owned(),
            count(SIZING, Vec::new(), 0),
        )];
    };
    let tried = |knob: Knob| s.runs.iter().filter(|x| x.0 == knob).map(|x| fmt_num(x.1)).collect::<Vec<_>>().join(", ");
    let by = |knob: Knob, v: &str| vec![("knob", knob.name().to_owned()), ("verdict", v.to_owned())];
    let mut out = Vec::new();
    let retries = match (s.retries, s.retries_stuck_at) {
        (Some(k), Some(stuck)) => {
            said(
                claims,
                "sizing",
                "claim",
                format!("At this load and trigger the largest naive retry count that recovers is {k}"),
                column(SIZING, by(Knob::Retries, "recovered"), "value", Agg::Max, f64::from(k)),
            ) + &said(
                claims,
                "sizing",
                "next-stuck",
                format!("; {stuck} does not recover by the end of the run (tried {})", tried(Knob::Retries)),
                column(SIZING, by(Knob::Retries, "stuck"), "value", Agg::Min, f64::from(stuck)),
            )
        }
        (Some(k), None) => said(
            claims,
            "sizing",
            "all-recover",
            format!("Every naive retry count tried recovers, up to {k} (tried {})", tried(Knob::Retries)),
            column(SIZING, by(Knob::Retries, "recovered"), "value", Agg::Max, f64::from(k)),
        ),
        (None, _) => said(
            claims,
            "sizing",
            "none-recovers",
            "Even without retries the server does not recover within the run".to_owned(),
            count(SIZING, by(Knob::Retries, "stuck"), 1),
        ),
    };
    out.push(retries);
    if r.retries == 0 {
        out.push(said(
            claims,
            "sizing",
            "no-retries",
            "With 0 retries there is nothing for a budget to limit".to_owned(),
            Fact::Compare { lhs: f64::from(r.retries), cmp: Cmp::Eq, rhs: 0.0 },
        ));
        return out;
    }
    let ratio = match (s.ratio, s.ratio_stuck_at) {
        (Some(x), Some(stuck)) => {
            said(
                claims,
                "sizing",
                "claim",
                format!("with {} retries, the largest budget ratio that recovers is {}", r.retries, fmt_num(x)),
                column(SIZING, by(Knob::BudgetRatio, "recovered"), "value", Agg::Max, x),
            ) + &said(
                claims,
                "sizing",
                "next-stuck",
                format!(
                    "; {} does not recover by the end of the run (tried {})",
                    fmt_num(stuck),
                    tried(Knob::BudgetRatio)
                ),
                column(SIZING, by(Knob::BudgetRatio, "stuck"), "value", Agg::Min, stuck),
            )
        }
        (Some(x), None) => said(
            claims,
            "sizing",
            "all-recover",
            format!(
                "with {} retries every budget ratio tried recovers, up to {} (tried {}): while nothing succeeds only the {} held tokens and the clock's {} per second pay for retries",
                r.retries,
                fmt_num(x),
                tried(Knob::BudgetRatio),
                fmt_num(policy::BUDGET_MAX_TOKENS),
                fmt_num(policy::BUDGET_FLOOR_RPS)
            ),
            column(SIZING, by(Knob::BudgetRatio, "recovered"), "value", Agg::Max, x),
        ),
        (None, _) => said(
            claims,
            "sizing",
            "none-recovers",
            format!(
                "with {} retries even the smallest budget ratio tried does not recover by the end of the run",
                r.retries
            ),
            count(SIZING, by(Knob::BudgetRatio, "stuck"), 1),
        ),
    };
    out.push(ratio);
    out
}

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &MetastableReport) -> Vec<Explanation> {
    vec![explanation(r)]
}

fn explanation(r: &MetastableReport) -> Explanation {
    let mut claims = Vec::new();
    let stable = said(
        &mut claims,
        "stable",
        "claim",
        format!(
            "{} of first tries is below the capacity of {}, so without a trigger the server keeps up",
            rps(r.load_rps),
            rps(r.capacity_rps)
        ),
        Fact::Compare { lhs: r.load_rps, cmp: Cmp::Lt, rhs: r.capacity_rps },
    );
    let verdicts: Vec<String> = r.lanes.iter().map(|l| verdict_line(r, l, &mut claims)).collect();
    let trigger = said(&mut claims, "assumption", "claim", format!("After {}", trigger_words(r)), Fact::Assumed);
    let mut answer = format!("{trigger}: {}.", verdicts.join("; "));
    if let Some(l) = r.lane(Policy::Naive) {
        let t = said(
            &mut claims,
            "wasted",
            if l.totals.late == 0 { "none" } else { "claim" },
            format!(
                "Under naive retries the server served {} requests for callers who had already left",
                l.totals.late
            ),
            column(SUMMARY, vec![("policy", "naive".to_owned())], "late", Agg::Sum, l.totals.late as f64),
        );
        answer.push_str(&format!(" {t}."));
    }
    if let Some(l) = r.lane(Policy::Throttle) {
        let t = said(
            &mut claims,
            "throttled",
            if l.totals.throttled == 0 { "none" } else { "claim" },
            format!("Throttling rejected {} tries locally", l.totals.throttled),
            column(SUMMARY, vec![("policy", "throttle".to_owned())], "throttled", Agg::Sum, l.totals.throttled as f64),
        );
        answer.push_str(&format!(" {t}."));
    }
    let cap_eq = Equation::new(div(mul(n(f64::from(r.workers)), n(1000.0)), n(r.service_mean_ms)), "rps");
    let mut steps = vec![Step::eq("capacity", "workers × 1000 / mean service (ms)", cap_eq, "")];
    // T11: the full-line time is a bound only for a fixed service time.
    let fixed = r.service_words.starts_with("every request takes exactly");
    if let Some(limit) = r.line_limit.filter(|_| fixed) {
        let w = f64::from(r.workers.max(1));
        let wait = Equation::new(mul(add(ceil(div(n(f64::from(limit)), n(w))), n(1.0)), n(r.service_mean_ms)), "ms");
        let full = (libm::ceil(f64::from(limit) / w) + 1.0) * r.service_mean_ms;
        let versus = said(
            &mut claims,
            "line",
            if full > f64::from(r.timeout_ms) { "past-timeout" } else { "within-timeout" },
            if full > f64::from(r.timeout_ms) {
                format!("past the {} ms timeout: a caller behind a full line gives up before its answer", r.timeout_ms)
            } else {
                format!("within the {} ms timeout: a full line still answers in time", r.timeout_ms)
            },
            Fact::Compare {
                lhs: full,
                cmp: if full > f64::from(r.timeout_ms) { Cmp::Gt } else { Cmp::Le },
                rhs: f64::from(r.timeout_ms),
            },
        );
        steps.push(Step::eq(
            "time in the system behind a full line",
            "(ceil(line limit / workers) + 1) × service",
            wait,
            &versus,
        ));
    }
    let amp = Equation::new(mul(add(n(1.0), n(f64::from(r.retries))), n(r.load_rps)), "rps");
    let tries = (1.0 + f64::from(r.retries)) * r.load_rps;
    let over = said(
        &mut claims,
        "amplification",
        if tries > r.capacity_rps { "over" } else { "under" },
        if tries > r.capacity_rps {
            format!(
                "above the capacity of {}: once every try fails, the retries alone keep the line {}",
                rps(r.capacity_rps),
                // A line of any length is never full: it grows (M2).
                if r.line_limit.is_some() { "full" } else { "growing" }
            )
        } else {
            format!("within the capacity of {}: even when every try fails the line drains", rps(r.capacity_rps))
        },
        Fact::Compare { lhs: tries, cmp: if tries > r.capacity_rps { Cmp::Gt } else { Cmp::Le }, rhs: r.capacity_rps },
    );
    steps.push(Step::eq("tries per second when every try fails (naive)", "(1 + retries) × first tries", amp, &over));
    let mut would_change: Vec<String> = match &r.phase {
        Some(cells) => POLICIES.iter().map(|&p| phase_line(r, cells, p, &mut claims)).collect(),
        None => vec![said(
            &mut claims,
            "phase",
            "pending",
            format!(
                "The phase diagram ({} trigger sizes × {} lengths per policy) has not run yet: it runs after the chosen point is shown",
                r.sizes.len(),
                r.lengths_ms.len()
            ),
            count(PHASE, Vec::new(), 0),
        )],
    };
    would_change.extend(sizing_lines(r, &mut claims));
    let described: Vec<String> = vec![
            format!(
                "Poisson first tries, the same for every policy (common random numbers); {}, {} worker(s), a line of {} behind them.",
                r.service_words,
                r.workers,
                r.line_limit.map_or("any length".to_owned(), |l| format!("at most {l} waiting"))
            ),
            format!(
                "A caller gives up {} ms after sending; the server still serves what it queued, for nobody. A refusal carries Retry-After {} ms.",
                r.timeout_ms, r.retry_after_ms
            ),
            format!(
                "Recovered: from some window on, every window to the end of the run has goodput of at least {} % of min(first tries, capacity) = {}, or no failed try (late, refused or rejected locally); the recovery time is from the trigger's end to the start of the first such window ({} ms windows).",
                fmt_num(super::HEALTHY_SHARE * 100.0),
                rps(r.rule.healthy_rps),
                r.window_ms
            ),
        ]
        .into_iter()
        .chain(POLICIES.iter().map(|&p| {
            policy::describe(p, r.retries, f64::from(r.backoff_ms), r.budget_ratio, r.throttle_k) + "."
        }))
        .collect();
    let mut assumes = vec![stable];
    for t in described {
        assumes.push(said(&mut claims, "assumption", "claim", t, Fact::Assumed));
    }
    let ignores = [
        "Network time, connection limits and what a refusal costs the caller.",
        "Callers' correlation beyond the shared server: each first try is an independent caller.",
    ]
    .into_iter()
    .map(|t| said(&mut claims, "assumption", "claim", t.to_owned(), Fact::Assumed))
    .collect();
    Explanation {
        title: "A failure that outlives its trigger".into(),
        answer,
        steps,
        assumes,
        ignores,
        would_change,
        claims,
    }
}

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
