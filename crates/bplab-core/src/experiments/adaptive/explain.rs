//! Per controller: what it measures, what it assumes, how it fails; and the
//! race's outcome in numbers from the run.

use super::{AdaptiveReport, Bucket, Controller, Deploy, Lane, Preset};
use crate::calc::{Explanation, Step, fmt_num};
use crate::claim::equation::{add, ceil, div, mul, n, round, sub, u};
use crate::claim::{Agg, Claim, Cmp, Fact};
use crate::experiments::Readout;
use crate::statement::{Arith, Statement};

/// ms after `at_ms` until every later window with answers has p99 within
/// `budget`: `Some(0)` if none passed it after the deploy, `None` if the last
/// window with answers is still over.
pub(super) fn recovery(buckets: &[Bucket], window_ms: u32, at_ms: u32, budget: u32) -> Option<u64> {
    let w = u64::from(window_ms.max(1));
    let first = (u64::from(at_ms) / w) as usize;
    let over: Vec<usize> = buckets
        .iter()
        .enumerate()
        .skip(first)
        .filter(|(_, b)| b.p99_ms.is_some_and(|p| p > u64::from(budget)))
        .map(|(i, _)| i)
        .collect();
    match over.last() {
        None => Some(0),
        Some(&last) if buckets.iter().skip(last + 1).any(|b| b.p99_ms.is_some()) => {
            Some(((last + 1) as u64 * w).saturating_sub(u64::from(at_ms)))
        }
        Some(_) => None,
    }
}

/// What the controller measures and what it assumes: how the algorithm
/// works, not a claim about this run (how it fared is stated from the run,
/// beside it). No failure mode is stated unless the run shows it (T2).
pub(crate) fn character(c: Controller) -> &'static str {
    match c {
        Controller::Fixed => {
            "fixed: measures nothing after the day it was derived; assumes the service time and worker count stay as measured."
        }
        Controller::Codel => {
            "codel: measures the minimum queue delay over each 100 ms interval; assumes a standing queue means overload; refuses whatever waited longest, and only once the interval's minimum stays above target."
        }
        Controller::Aimd => {
            "aimd: measures only drops and timeouts; assumes loss is the congestion signal; never goes below its minimum limit (20 by default)."
        }
        Controller::Vegas => {
            "vegas: measures the RTT against the lowest seen (no-load) RTT to estimate the queue; assumes the lowest RTT is still the no-load cost; probes (every probe-multiplier × limit samples) to learn a new baseline."
        }
        Controller::Gradient2 => {
            "gradient2: measures a long-window average RTT against the short-term one; assumes latency rises before throughput falls."
        }
        Controller::Gradient => {
            "gradient: measures the minimum RTT against the current RTT with periodic probes; assumes the minimum is the no-load latency."
        }
    }
}

/// Whether a deploy happens inside the run: a factor other than 1, at a time
/// before the run's end, and not the steady-overload preset (no deploy).
fn deploy_in_run(r: &AdaptiveReport) -> bool {
    r.preset != Preset::SteadyOverload && (r.slowdown.1 != 1.0 || stuck(r)) && phases(r).1
}

/// Whether the deploy is a stuck downstream (by the deploy the run was
/// given, whatever the preset: A3).
fn stuck(r: &AdaptiveReport) -> bool {
    r.deploy == Deploy::Stuck
}

/// Which phases the run has on either side of the change point: time
/// before it, and time after it inside the run (A7).
fn phases(r: &AdaptiveReport) -> (bool, bool) {
    (r.slowdown.0 > 0, f64::from(r.slowdown.0) < r.run_ms)
}

/// "after the deploy" or what the split point is instead.
fn after_words(r: &AdaptiveReport) -> String {
    if deploy_in_run(r) {
        "after the deploy".to_owned()
    } else if f64::from(r.slowdown.0) >= r.run_ms {
        format!("after {} ms (no deploy in this run: it would fall after the run's end)", r.slowdown.0)
    } else {
        format!("after {} ms (no deploy in this run)", r.slowdown.0)
    }
}

const SUMMARY: &str = "adaptive-summary.csv";
const TIMELINE: &str = "adaptive-timeline.csv";

/// Pushes a claim and returns its text.
fn said(claims: &mut Vec<Claim>, kind: &'static str, variant: &'static str, text: String, fact: Fact) -> String {
    claims.push(Claim::new(kind, variant, text.clone(), fact));
    text
}

/// A model description or definition, marked as such.
fn assumed(claims: &mut Vec<Claim>, kind: &'static str, text: String) -> String {
    said(claims, kind, "claim", text, Fact::Assumed)
}

/// `column` of the controller's summary row equals `v` (within the table's rounding).
fn cell(c: Controller, column: &'static str, v: f64, tol: f64) -> Fact {
    Fact::Column {
        table: SUMMARY,
        filter: vec![("controller", c.name().to_owned())],
        column,
        agg: Agg::Max,
        cmp: Cmp::Eq,
        value: v,
        tol,
    }
}

/// The controller's summary cell is empty ("–": no answers, or never back under the budget).
fn empty_cell(c: Controller, column: &'static str) -> Fact {
    Fact::Column {
        table: SUMMARY,
        filter: vec![("controller", c.name().to_owned()), (column, String::new())],
        column: "controller",
        agg: Agg::Count,
        cmp: Cmp::Ge,
        value: 1.0,
        tol: 0.0,
    }
}

fn one_decimal(x: f64) -> String {
    crate::numerics::format_fixed(x, 1)
}

fn lane_line(r: &AdaptiveReport, l: &Lane, claims: &mut Vec<Claim>) -> String {
    let c = l.controller;
    let show = |v: Option<u64>| v.map_or_else(|| "no answers".to_owned(), |x| format!("{x} ms"));
    // Only the phases the run has: no "0.0 ok/s" for a phase of no time (A7).
    let all = [
        ((l.p99_ms.0, "p99_before_ms"), (l.ok_per_sec.0, "ok_per_sec_before")),
        ((l.p99_ms.1, "p99_after_ms"), (l.ok_per_sec.1, "ok_per_sec_after")),
    ];
    let (kept, whole) = match phases(r) {
        (true, true) => (&all[..], ""),
        (true, false) => (&all[..1], " over the whole run (the change point falls after its end)"),
        _ => (&all[1..], " over the whole run (the change point is at 0 ms)"),
    };
    let p99s: Vec<String> = kept.iter().map(|((v, _), _)| show(*v)).collect();
    let oks: Vec<String> = kept.iter().map(|(_, (v, _))| one_decimal(*v)).collect();
    let pair = format!("{c}: p99 {}{whole}", p99s.join(" → "));
    let ok = format!("ok/s {}", oks.join(" → "));
    for &((v, column), _) in kept {
        let fact = v.map_or_else(|| empty_cell(c, column), |x| cell(c, column, x as f64, 0.0));
        claims.push(Claim::new("value", if v.is_some() { "claim" } else { "no-answers" }, pair.clone(), fact));
    }
    for &(_, (v, column)) in kept {
        claims.push(Claim::new("value", "claim", ok.clone(), cell(c, column, v, 0.051)));
    }
    let refused = said(
        claims,
        "value",
        "claim",
        format!("{} refused", l.out.refused),
        cell(c, "refused", l.out.refused as f64, 0.0),
    );
    let wasted = said(
        claims,
        "value",
        "claim",
        format!("{} served for nobody", l.out.wasted),
        cell(c, "wasted", l.out.wasted as f64, 0.0),
    );
    let rec = if f64::from(r.slowdown.0) >= r.run_ms {
        said(
            claims,
            "deploy",
            "after-run",
            "no windows after the change point".to_owned(),
            Fact::Compare { lhs: f64::from(r.slowdown.0), cmp: Cmp::Ge, rhs: r.run_ms },
        )
    } else {
        match l.recovery_ms {
            Some(0) => said(
                claims,
                "recovery",
                "never-over",
                format!("no window's p99 passed {} ms {}", r.budget_ms, after_words(r)),
                cell(c, "recovery_ms", 0.0, 0.0),
            ),
            Some(ms) => said(
                claims,
                "recovery",
                "claim",
                format!(
                    "window p99 over {} ms in some of its windows, the last ending {ms} ms after the change point",
                    r.budget_ms
                ),
                cell(c, "recovery_ms", ms as f64, 0.0),
            ),
            None => said(
                claims,
                "recovery",
                "still-over",
                format!("p99 still over {} ms at the end of the run", r.budget_ms),
                empty_cell(c, "recovery_ms"),
            ),
        }
    };
    format!("{pair}, {ok}, {refused}, {wasted}; {rec}")
}

/// "{prefix}aimd 20 → 170, …" for every limiter lane (the limit at the
/// change point and at the end), each number checked against its timeline row.
fn limit_moves(r: &AdaptiveReport, claims: &mut Vec<Claim>, prefix: &str) -> Option<String> {
    let w = u64::from(r.window_ms.max(1));
    let at = (u64::from(r.slowdown.0) / w) as usize;
    let mut parts = Vec::new();
    let mut facts = Vec::new();
    for l in &r.lanes {
        let Some((a, b)) = lane_move(r, l) else { continue };
        let last = l.out.buckets.len().saturating_sub(1);
        parts.push(format!("{} {a} → {b}", l.controller));
        for (i, v) in [(at.min(last), a), (last, b)] {
            facts.push(Fact::Column {
                table: TIMELINE,
                filter: vec![
                    ("controller", l.controller.name().to_owned()),
                    ("window_start_ms", (i as u64 * w).to_string()),
                ],
                column: "limit",
                agg: Agg::Max,
                cmp: Cmp::Eq,
                value: f64::from(v),
                tol: 0.0,
            });
        }
    }
    if parts.is_empty() {
        return None;
    }
    let text = format!("{prefix}{}", parts.join(", "));
    for f in facts {
        claims.push(Claim::new("limit", "claim", text.clone(), f));
    }
    Some(text)
}

fn lane_move(r: &AdaptiveReport, l: &Lane) -> Option<(i32, i32)> {
    // A change point past the run's end has no window (A7).
    if l.controller == Controller::Codel || !phases(r).1 {
        return None;
    }
    let at = (u64::from(r.slowdown.0) / u64::from(r.window_ms.max(1))) as usize;
    let from = l.out.buckets.get(at).or(l.out.buckets.last())?.limit;
    Some((from, l.out.buckets.last()?.limit))
}

fn preset_line(r: &AdaptiveReport, claims: &mut Vec<Claim>) -> String {
    let in_budget = |l: &&Lane| l.p99_ms.1.is_some_and(|p| p <= u64::from(r.budget_ms));
    // Where some lane kept every window after the change within the budget,
    // the best is ranked among those: a lane whose window passed it (draining
    // a backlog built before the deploy) does not win on that drain (A2).
    let clean = r.lanes.iter().any(|l| in_budget(&l) && l.recovery_ms == Some(0));
    let within = |l: &&Lane| in_budget(l) && (!clean || l.recovery_ms == Some(0));
    let best = r.lanes.iter().filter(within).max_by(|a, b| a.ok_per_sec.1.total_cmp(&b.ok_per_sec.1));
    let after = after_words(r);
    let copes = if f64::from(r.slowdown.0) >= r.run_ms {
        said(
            claims,
            "deploy",
            "after-run",
            format!("The deploy at {} ms falls after the run's end: no data after the change", r.slowdown.0),
            Fact::Compare { lhs: f64::from(r.slowdown.0), cmp: Cmp::Ge, rhs: r.run_ms },
        )
    } else {
        match best {
            None => {
                let text = format!("Of the controllers raced, none kept p99 within {} ms {after}", r.budget_ms);
                // Each lane: no answers after the change point, or a p99 above the budget.
                for l in &r.lanes {
                    let fact = match l.p99_ms.1 {
                        None => empty_cell(l.controller, "p99_after_ms"),
                        Some(_) => Fact::Column {
                            table: SUMMARY,
                            filter: vec![("controller", l.controller.name().to_owned())],
                            column: "p99_after_ms",
                            agg: Agg::Max,
                            cmp: Cmp::Gt,
                            value: f64::from(r.budget_ms),
                            tol: 0.0,
                        },
                    };
                    claims.push(Claim::new("winner", "none-within", text.clone(), fact));
                }
                text
            }
            Some(l) => {
                // Ties on the shown numbers are named, not decided by order.
                // Equal as the summary table shows ok/s (one decimal).
                let shown = |x: &Lane| one_decimal(x.ok_per_sec.1);
                let mut names: Vec<String> = Vec::new();
                for x in r.lanes.iter().filter(within).filter(|x| shown(x) == shown(l)) {
                    let n = x.controller.to_string();
                    if !names.contains(&n) {
                        names.push(n);
                    }
                }
                let windows = match l.recovery_ms {
                    Some(ms) if ms > 0 && names.len() == 1 => {
                        let t = format!(" over the whole phase, though some of its windows pass {} ms", r.budget_ms);
                        claims.push(Claim::new(
                            "recovery",
                            "claim",
                            t.trim().to_owned(),
                            cell(l.controller, "recovery_ms", ms as f64, 0.0),
                        ));
                        t
                    }
                    _ => String::new(),
                };
                let set = if clean {
                    format!("Of the controllers raced that kept every window's p99 within {} ms {after}", r.budget_ms)
                } else {
                    "Of the controllers raced".to_owned()
                };
                // The set already says "after the deploy" where it is ranked by windows.
                let when = if clean { String::new() } else { format!(" {after}") };
                let text = if names.len() > 1 {
                    format!(
                        "{set}, a tie{when}: {} all deliver {} ok/s with p99 within the {} ms budget",
                        names.join(", "),
                        shown(l),
                        r.budget_ms
                    )
                } else {
                    format!(
                        "{set}, {} copes best{when}: p99 {} ms within budget{windows} at {} ok/s",
                        l.controller,
                        l.p99_ms.1.unwrap_or(0),
                        shown(l)
                    )
                };
                claims.push(Claim::new(
                    "value",
                    "claim",
                    text.clone(),
                    cell(l.controller, "ok_per_sec_after", l.ok_per_sec.1, 0.051),
                ));
                claims.push(Claim::new(
                    "value",
                    "claim",
                    text.clone(),
                    cell(l.controller, "p99_after_ms", l.p99_ms.1.unwrap_or(0) as f64, 0.0),
                ));
                said(
                    claims,
                    "winner",
                    if names.len() > 1 { "tie" } else { "claim" },
                    text,
                    Fact::Best {
                        table: SUMMARY,
                        filter: if clean { vec![("recovery_ms", "0".to_owned())] } else { Vec::new() },
                        key: "controller",
                        column: "ok_per_sec_after",
                        higher: true,
                        within: Some(("p99_after_ms", f64::from(r.budget_ms))),
                        tol: 0.0,
                        names,
                    },
                )
            }
        }
    };
    let (scene, moves) = match r.preset {
        Preset::RetryStorm if r.retries == 0 => (
            assumed(
                claims,
                "assumption",
                "Retry-storm preset with retries set to 0: no caller retries, so no attempt is amplified".to_owned(),
            ),
            None,
        ),
        Preset::SteadyOverload => (
            assumed(
                claims,
                "assumption",
                format!(
                    "Modest steady overload: 1.1 × capacity = {} offered throughout, no deploy (the rate and factor settings are overridden)",
                    rps_of(r)
                ),
            ),
            limit_moves(r, claims, &format!("Limits at {} ms → at the end: ", r.slowdown.0)),
        ),
        Preset::RetryStorm => (
            assumed(
                claims,
                "assumption",
                format!(
                    "Retry storm: every refused or abandoned caller retries up to {} times after {} ms (Post 1's amplification)",
                    r.retries,
                    r.retry_backoff_ms
                ),
            ),
            None,
        ),
        _ if stuck(r) => {
            let wasted: u64 = r.lanes.iter().map(|l| l.out.wasted).sum();
            let dropped = said(
                claims,
                "dropped",
                if wasted == 0 { "claim" } else { "served-for-nobody" },
                if wasted == 0 {
                    "nothing is served for nobody".to_owned()
                } else {
                    format!("yet answers come too late for some callers ({wasted} served for nobody in all)")
                },
                Fact::Column {
                    table: SUMMARY,
                    filter: Vec::new(),
                    column: "wasted",
                    agg: Agg::Sum,
                    cmp: Cmp::Eq,
                    value: wasted as f64,
                    tol: 0.0,
                },
            );
            let scene = assumed(
                claims,
                "assumption",
                format!(
                    "Downstream stuck at the timeout: from the deploy every call takes exactly {} ms and the handler waits on I/O ({} concurrent calls allowed), so latency has no variance",
                    r.timeout_ms,
                    super::STUCK_WORKERS
                ),
            );
            (format!("{scene}; {dropped}"), limit_moves(r, claims, "Limits at the deploy → at the end: "))
        }
        Preset::Deploy2x | Preset::None | Preset::StuckDownstream if deploy_in_run(r) => (
            assumed(
                claims,
                "assumption",
                format!(
                    "Deploy {} at {} ms: the fixed limit of {} was derived from the old service time",
                    if r.slowdown.1 > 1.0 {
                        format!("{}× slower", fmt_num(r.slowdown.1))
                    } else {
                        format!("{}× the service time (faster)", fmt_num(r.slowdown.1))
                    },
                    r.slowdown.0,
                    r.fixed_limit
                ),
            ),
            None,
        ),
        Preset::Deploy2x | Preset::None | Preset::StuckDownstream => (
            assumed(
                claims,
                "assumption",
                format!("No deploy in this run (factor {}, at {} ms)", fmt_num(r.slowdown.1), r.slowdown.0),
            ),
            None,
        ),
    };
    let mut out = format!("{scene}.");
    if let Some(m) = moves {
        out.push_str(&format!(" {m}."));
    }
    out.push_str(&format!(" {copes}."));
    out
}

fn rps_of(r: &AdaptiveReport) -> String {
    format!("{} rps", fmt_num(1.1 * crate::calc::capacity_rps(r.service_mean_ms.max(1e-9), r.workers)))
}

/// Requests a line can hold in service at once after the change point.
fn slots(r: &AdaptiveReport) -> u32 {
    if stuck(r) { r.workers.max(super::STUCK_WORKERS) } else { r.workers.max(1) }
}

fn codel_note(r: &AdaptiveReport, l: &Lane, claims: &mut Vec<Claim>) -> String {
    if l.controller != Controller::Codel {
        return String::new();
    }
    let w = u64::from(r.window_ms.max(1));
    let at = (u64::from(r.slowdown.0) / w) as usize;
    let refused_after: u64 = l.out.buckets.iter().skip(at).map(|b| b.refused).sum();
    if refused_after != 0 || at >= l.out.buckets.len() {
        return String::new();
    }
    let most = l.out.buckets.iter().map(|b| b.in_flight_max).max().unwrap_or(0);
    // T18: say why only what the run shows: no line formed at all, or a line
    // whose delay never stayed above target for a whole interval.
    let why = if most <= slots(r) {
        format!("no request ever waited in line (at most {most} in flight, with {} in service at once)", slots(r))
    } else {
        format!("the interval's minimum queue delay never stayed above {} ms", r.codel_target_ms)
    };
    let text = format!("In this run it refused nothing {}: {why}", after_words(r));
    // Checked window by window on the timeline: no refusal from the change point on.
    for i in at..l.out.buckets.len() {
        claims.push(Claim::new(
            "value",
            "claim",
            text.clone(),
            Fact::Column {
                table: TIMELINE,
                filter: vec![("controller", "codel".to_owned()), ("window_start_ms", (i as u64 * w).to_string())],
                column: "refused_per_sec",
                agg: Agg::Max,
                cmp: Cmp::Eq,
                value: 0.0,
                tol: 0.0,
            },
        ));
    }
    if most <= slots(r) {
        claims.push(Claim::new(
            "no-queue",
            "claim",
            text.clone(),
            Fact::Column {
                table: TIMELINE,
                filter: vec![("controller", "codel".to_owned())],
                column: "in_flight_max",
                agg: Agg::Max,
                cmp: Cmp::Eq,
                value: f64::from(most),
                tol: 0.0,
            },
        ));
    } else {
        claims.push(Claim::new("definition", "claim", text.clone(), Fact::Assumed));
    }
    format!(" {text}.")
}

fn gradient_note(r: &AdaptiveReport, l: &Lane, claims: &mut Vec<Claim>) -> String {
    if l.controller != Controller::Gradient {
        return String::new();
    }
    let Some((a, b)) = lane_move(r, l) else { return String::new() };
    let w = u64::from(r.window_ms.max(1));
    let at = (u64::from(r.slowdown.0) / w) as usize;
    let (first, last) = (at.min(l.out.buckets.len().saturating_sub(1)), l.out.buckets.len().saturating_sub(1));
    let text = format!(
        "Here its limit went {a} → {b} (the limit in the window of {} and in the last window)",
        change_words(r)
    );
    for (i, v) in [(first, a), (last, b)] {
        claims.push(Claim::new(
            "limit",
            "claim",
            text.clone(),
            Fact::Column {
                table: "adaptive-timeline.csv",
                filter: vec![("controller", "gradient".to_owned()), ("window_start_ms", (i as u64 * w).to_string())],
                column: "limit",
                agg: Agg::Max,
                cmp: Cmp::Eq,
                value: f64::from(v),
                tol: 0.0,
            },
        ));
    }
    format!(" {text}.")
}

fn change_words(r: &AdaptiveReport) -> &'static str {
    if deploy_in_run(r) { "the deploy" } else { "the change point" }
}

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &AdaptiveReport) -> Vec<Explanation> {
    vec![explanation(r)]
}

/// A typed statement rendered by the one renderer, kept with its claim.
fn stated(claims: &mut Vec<Claim>, s: Statement) -> Option<String> {
    let text = crate::statement::render(&s)?;
    claims.push(Claim::new(s.kind(), "statement", text.clone(), Fact::Statement(Box::new(s))));
    Some(text)
}

/// Shown arithmetic as a step, its line kept with its statement.
fn arith_step(claims: &mut Vec<Claim>, label: String, formula: &str, eq: Arith) -> Step {
    let st = Step {
        label: label.clone(),
        formula: formula.into(),
        substituted: eq.substituted(),
        value: eq.shown(),
        eq: None,
    };
    claims.push(Claim::new(
        "arithmetic",
        "statement",
        st.line(),
        Fact::Statement(Box::new(Statement::Arith { label, formula: formula.into(), eq })),
    ));
    st
}

fn explanation(r: &AdaptiveReport) -> Explanation {
    let w = r.workers.max(1);
    let queue = (i64::from(r.fixed_limit) - i64::from(w)).max(0) as u64;
    let fixed_service = r.service_words.starts_with("every request takes exactly");
    let stuck = stuck(r);
    let mut claims = Vec::new();
    let change = change_words(r);
    let (budget, svc) = (f64::from(r.budget_ms), r.service_mean_ms);
    let mut steps = Vec::new();
    let mut notes = Vec::new();
    let formula = add(
        round(div(mul(n(f64::from(r.workers)), sub(u(budget, "ms"), u(svc, "ms"))), u(svc, "ms"))),
        n(f64::from(r.workers)),
    );
    // The door clamps the formula's value to [1, the largest limit]: shown only where it did not.
    let unclamped = crate::statement::arith::value(&formula) == f64::from(r.fixed_limit);
    if budget >= svc && svc > 0.0 {
        if unclamped {
            steps.push(arith_step(
                &mut claims,
                format!("fixed limit in the system from the service time measured before {change} (the course lesson's formula, rounded half-up)"),
                "round(workers × (budget − service) / service) + workers",
                Arith::with_result(formula, f64::from(r.fixed_limit), ""),
            ));
        } else {
            notes.push(assumed(
                &mut claims,
                "assumption",
                format!("The fixed door admits {} in the system: the lesson's formula, clamped to the largest limit the door takes", r.fixed_limit),
            ));
        }
        let safe = crate::calc::deadline_safe_queue(w, budget, svc);
        let worst = (safe.div_ceil(u64::from(w)) + 1) as f64 * svc;
        let words = if fixed_service { "" } else { " for a fixed service time at the mean" };
        let t = if safe == queue {
            format!(
                "From the service time before {change}, the fixed door's {queue} queued is also the limit calculator's figure, whose worst time{words} fits the budget"
            )
        } else {
            format!(
                "From the service time before {change}, the limit calculator would ship {safe} queued, whose worst time{words} fits the budget (the fixed door queues {queue})"
            )
        };
        notes.push(said(
            &mut claims,
            "limit",
            "claim",
            t,
            Fact::Limit { workers: w, budget_ms: budget, service_ms: svc, shipped: safe, worst_ms: worst },
        ));
    } else {
        notes.push(assumed(
            &mut claims,
            "assumption",
            format!("The fixed door admits {} in the system (the formula gives no queue: the budget is not above the service time)", r.fixed_limit),
        ));
    }
    if stuck {
        notes.push(assumed(
            &mut claims,
            "assumption",
            format!("After {change} every call takes the {} ms timeout: no service-time bound applies, the downstream sets the time", r.timeout_ms),
        ));
    } else {
        let eq = Arith::new(
            mul(mul(add(ceil(div(n(queue as f64), n(f64::from(w)))), n(1.0)), u(svc, "ms")), n(r.slowdown.1)),
            "ms",
        );
        let value = crate::statement::arith::value(&eq.expr);
        steps.push(arith_step(
            &mut claims,
            format!("worst time in the system behind that limit after {change}, for a fixed service time"),
            "(ceil(queue / workers) + 1) × service × factor",
            eq.clone(),
        ));
        let label = if fixed_service {
            format!("the worst time in the system behind the fixed limit after {change}")
        } else {
            format!("the worst time in the system behind the fixed limit after {change}, a bound only for a fixed service time at the mean (this run's service varies)")
        };
        notes.extend(stated(
            &mut claims,
            Statement::Relation {
                a_label: label,
                a: eq,
                cmp: if value > budget { Cmp::Gt } else { Cmp::Le },
                b_label: "the budget".into(),
                b: Arith::new(u(budget, "ms"), "ms"),
            },
        ));
    }
    let mut answer = preset_line(r, &mut claims);
    for t in &notes {
        answer.push(' ');
        answer.push_str(t);
        if !t.ends_with('.') {
            answer.push('.');
        }
    }
    let workers = if stuck {
        format!(
            "Up to {} calls at once for the whole run, not {} worker(s): the handler is modelled as waiting on I/O from the start, so before the deploy no call waits for a worker",
            super::STUCK_WORKERS,
            r.workers
        )
    } else {
        format!("{} worker(s) behind one FIFO line", r.workers)
    };
    let assumes = vec![
        format!(
            "Every controller sees the same Poisson {} ({} offered{}) and the same base service times: {}.",
            if r.retries > 0 { "first tries (retries depend on each controller's refusals)" } else { "arrivals" },
            if r.preset == Preset::SteadyOverload { rps_of(r) } else { format!("{} rps", fmt_num(r.rate_rps)) },
            if r.preset == Preset::SteadyOverload { "" } else { " first step" },
            r.service_words
        ),
        format!("{workers}; a caller gives up after {} ms, the server still serves it.", r.timeout_ms),
        "Limiters are asked at each arrival (refuse when requests in the system reach the limit) and fed each completion: RTT, in flight at arrival, dropped = answered after the caller left.".into(),
        format!("CoDel (target {} ms, interval {} ms) is asked as a worker takes a request off the line, as fbthrift does.", r.codel_target_ms, super::CODEL_INTERVAL_MS),
        "Limiter settings are the reference library's defaults.".into(),
    ]
    .into_iter()
    .map(|t| assumed(&mut claims, "assumption", t))
    .collect();
    let ignores = [
        "Network time and the cost of a refusal to the caller.",
        "Warm-up: every limiter starts from its initial limit at time 0.",
    ]
    .into_iter()
    .map(|t| assumed(&mut claims, "assumption", t.to_owned()))
    .collect();
    let would_change = r
        .lanes
        .iter()
        .map(|l| {
            let line = lane_line(r, l, &mut claims);
            let who = assumed(&mut claims, "definition", character(l.controller).to_owned());
            let codel = codel_note(r, l, &mut claims);
            let gradient = gradient_note(r, l, &mut claims);
            format!("{line} — {who}{codel}{gradient}")
        })
        .collect();
    Explanation { title: "When the service time moves".into(), answer, steps, assumes, ignores, would_change, claims }
}

pub(in crate::experiments) fn readouts(r: &AdaptiveReport) -> Vec<Readout> {
    // One p99 readout per controller raced, in the race's order (no "not raced" rows).
    let label = |c: Controller| match c {
        Controller::Fixed => "Fixed: p99 before → after the deploy",
        Controller::Codel => "CoDel: p99 before → after the deploy",
        Controller::Aimd => "AIMD: p99 before → after the deploy",
        Controller::Vegas => "Vegas: p99 before → after the deploy",
        Controller::Gradient2 => "Gradient2: p99 before → after the deploy",
        Controller::Gradient => "Gradient: p99 before → after the deploy",
    };
    let show = |v: Option<u64>| v.map_or_else(|| "–".to_owned(), |x| x.to_string());
    let mut out = vec![Readout::new(
        "Fixed limit (lesson formula, before the deploy)",
        format!("{} in the system", r.fixed_limit),
    )];
    for l in &r.lanes {
        out.push(Readout::new(label(l.controller), format!("{} → {} ms", show(l.p99_ms.0), show(l.p99_ms.1))));
    }
    out.push(Readout::new(
        "Highest ok/s after the deploy within the budget",
        r.lanes
            .iter()
            .filter(|l| l.p99_ms.1.is_some_and(|p| p <= u64::from(r.budget_ms)))
            .max_by(|a, b| a.ok_per_sec.1.total_cmp(&b.ok_per_sec.1))
            .map_or("none".to_owned(), |l| format!("{} ({} ok/s)", l.controller, fmt_num(l.ok_per_sec.1))),
    ));
    out
}
