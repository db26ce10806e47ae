//! Per controller: what it measures, what it assumes, how it fails; and the
//! race's outcome in numbers from the run.

use super::{AdaptiveReport, Bucket, Controller, Deploy, Lane};
use crate::calc::{Explanation, fmt_num};
use crate::claim::Cmp;
use crate::claim::equation::{add, ceil, div, mul, n, round, sub, u};
use crate::experiments::Readout;
use crate::statement::WindowFinding;
use crate::statement::quantity::{GOODPUT_RPS, LATE, P99_ON_TIME_MS, SHED};
use crate::statement::{Arith, Doc, Measure, Quantity, Statement, above_or_at_most, direction};

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
    // By the settings the run was given, whatever the preset (a flag given
    // beside a preset wins over it).
    (r.slowdown.1 != 1.0 || stuck(r)) && phases(r).1
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

/// "the deploy", or "the change point" where no deploy happens in the run.
fn change_words(r: &AdaptiveReport) -> &'static str {
    if deploy_in_run(r) { "the deploy" } else { "the change point" }
}

/// The phase a lane is judged on, as its log's key suffix and its words:
/// after the change point, or the whole run where that phase has no time.
fn judged(r: &AdaptiveReport) -> (&'static str, String) {
    match phases(r) {
        (_, true) if deploy_in_run(r) => (AFTER, "after the deploy".to_owned()),
        (true, true) => (AFTER, format!("after {} ms (no deploy in this run)", r.slowdown.0)),
        (false, _) => (AFTER, "over the whole run".to_owned()),
        // The change point at or past the run's end is stated beside (`scene`).
        (true, false) => (BEFORE, "over the whole run".to_owned()),
    }
}

/// The lanes, each controller once (a controller asked for twice runs the
/// same race twice: its second lane is the first's copy).
fn distinct(r: &AdaptiveReport) -> Vec<&Lane> {
    let mut out: Vec<&Lane> = Vec::new();
    for l in &r.lanes {
        if !out.iter().any(|o| o.controller == l.controller) {
            out.push(l);
        }
    }
    out
}

/// The log key of controller `c`'s whole run, or of one phase of it.
pub(super) fn key(c: Controller, phase: &str) -> String {
    if phase.is_empty() { c.name().to_owned() } else { format!("{}/{phase}", c.name()) }
}

/// The phase before the change point (by completion or refusal time).
pub(super) const BEFORE: &str = "before";
/// The phase from the change point to the run's end.
pub(super) const AFTER: &str = "after";
/// The whole run's window (events after its end left out).
pub(super) const RUN: &str = "run";

fn on(q: Quantity, c: Controller, phase: &str, words: &str, value: f64) -> Measure {
    let at = if words.is_empty() { format!("for {c}") } else { format!("for {c} {words}") };
    Measure::new(q, key(c, phase), at, value)
}

/// The lane's p99 against the budget in the judged phase, or its goodput
/// of 0 where it had no answer within the deadline there.
fn against_budget(r: &AdaptiveReport, l: &Lane) -> Statement {
    let (phase, words) = judged(r);
    let (p99, ok) = if phase == AFTER { (l.p99_ms.1, l.ok_per_sec.1) } else { (l.p99_ms.0, l.ok_per_sec.0) };
    let budget = f64::from(r.budget_ms);
    match p99 {
        Some(p) => Statement::Versus {
            m: on(P99_ON_TIME_MS, l.controller, phase, &words, p as f64),
            cmp: if p as f64 > budget { Cmp::Gt } else { Cmp::Le },
            what: "the budget".into(),
            level: budget,
        },
        None => Statement::Value(on(GOODPUT_RPS, l.controller, phase, &words, ok)),
    }
}

/// Of the lanes within the budget in the judged phase (and, where any kept
/// every window within it, of those: A2), the one with the most goodput.
fn best(r: &AdaptiveReport) -> Option<Statement> {
    let (phase, words) = judged(r);
    let budget = u64::from(r.budget_ms);
    let pick = |l: &Lane| if phase == AFTER { (l.p99_ms.1, l.ok_per_sec.1) } else { (l.p99_ms.0, l.ok_per_sec.0) };
    let within = |l: &&Lane| pick(l).0.is_some_and(|p| p <= budget);
    let windows = phase == AFTER;
    let clean = windows && distinct(r).iter().any(|l| within(l) && l.recovery_ms == Some(0));
    let set: Vec<&Lane> = distinct(r).into_iter().filter(within).filter(|l| !clean || l.recovery_ms == Some(0)).collect();
    if set.is_empty() {
        return None;
    }
    let items: Vec<(String, Measure)> =
        set.iter().map(|l| (l.controller.to_string(), on(GOODPUT_RPS, l.controller, phase, "", pick(l).1))).collect();
    let top = items.iter().map(|(_, m)| m.value).fold(f64::NEG_INFINITY, f64::max);
    let winner = items.iter().position(|(_, m)| m.value == top)?;
    let mut set = format!("Of the controllers raced whose p99 latency {words} was within {} ms", r.budget_ms);
    if clean {
        set.push_str(" in every window as well");
    }
    set.push_str(&format!(", counting goodput {words}"));
    Some(Statement::Best { set, order: "first in the race's order".into(), items, higher: true, winner })
}

/// Requests the server holds in service at once: the workers, or a stuck
/// downstream's concurrent calls.
fn slots(r: &AdaptiveReport) -> u32 {
    if stuck(r) { r.workers.max(super::STUCK_WORKERS) } else { r.workers.max(1) }
}

/// The offered traffic as given: "40 rps", or each step and its start.
fn offered(r: &AdaptiveReport) -> String {
    match r.params.as_ref().map(|p| p.rate_schedule.as_slice()) {
        Some([(rate, _)]) => format!("{} rps", fmt_num(*rate)),
        Some(steps) if !steps.is_empty() => {
            steps.iter().map(|(rate, at)| format!("{} rps from {at} ms", fmt_num(*rate))).collect::<Vec<_>>().join(", ")
        }
        _ => format!("{} rps", fmt_num(r.rate_rps)),
    }
}

/// The scene, from the settings the run was given (a preset is only a set
/// of them): the deploy, and the retries.
fn scene(r: &AdaptiveReport) -> Vec<Statement> {
    let mut out = Vec::new();
    let text = if stuck(r) && phases(r).1 {
        format!(
            "Downstream stuck at the timeout: from {} ms every call takes exactly {} ms in service and the handler waits on I/O ({} calls at once; beyond them calls wait in line)",
            r.slowdown.0,
            r.timeout_ms,
            slots(r)
        )
    } else if deploy_in_run(r) {
        format!(
            "Deploy {} at {} ms: the fixed limit of {} was derived from the old service time",
            if r.slowdown.1 > 1.0 {
                format!("{}× slower", fmt_num(r.slowdown.1))
            } else {
                format!("{}× the service time (faster)", fmt_num(r.slowdown.1))
            },
            r.slowdown.0,
            r.fixed_limit
        )
    } else {
        format!(
            "No deploy in this run ({} at {} ms)",
            if stuck(r) { "a stuck downstream".to_owned() } else { format!("factor {}", fmt_num(r.slowdown.1)) },
            r.slowdown.0
        )
    };
    out.push(Statement::Assumption(text));
    if r.retries > 0 {
        out.push(Statement::Assumption(format!(
            "Every refused or abandoned caller retries up to {} times, {} ms after its refusal or its give-up",
            r.retries, r.retry_backoff_ms
        )));
    }
    if !phases(r).1 {
        // A7: a change point at or past the run's end leaves no time after it.
        out.push(Statement::Relation {
            a_label: "the change point".into(),
            a: Arith::new(u(f64::from(r.slowdown.0), "ms"), "ms"),
            cmp: Cmp::Ge,
            b_label: "the run's length".into(),
            b: Arith::new(u(r.run_ms, "ms"), "ms"),
        });
    }
    out
}

/// The fixed limit's derivation, the calculator's figure beside it, and the
/// worst time behind it after the change, each as a statement.
fn derivation(r: &AdaptiveReport, d: &mut Doc) {
    let w = r.workers.max(1);
    let queue = (i64::from(r.fixed_limit) - i64::from(w)).max(0) as u64;
    let fixed_service = r.service_words.starts_with("every request takes exactly");
    let change = change_words(r);
    let (budget, svc) = (f64::from(r.budget_ms), r.service_mean_ms);
    let formula = add(
        round(div(mul(n(f64::from(r.workers)), sub(u(budget, "ms"), u(svc, "ms"))), u(svc, "ms"))),
        n(f64::from(r.workers)),
    );
    // The door clamps the formula's value to [1, the largest limit]: shown only where it did not.
    let unclamped = crate::statement::arith::value(&formula) == f64::from(r.fixed_limit);
    if budget >= svc && svc > 0.0 && unclamped {
        d.steps.push(Statement::Arith {
            label: format!("fixed limit in the system from the mean service time before {change} (the course lesson's formula, rounded half-up)"),
            formula: "round(workers × (budget − service) / service) + workers".into(),
            eq: Arith::with_result(formula, f64::from(r.fixed_limit), ""),
        });
    } else if budget < svc || svc <= 0.0 {
        d.answer.push(Statement::Assumption(format!(
            "The budget is not above the service time, so the lesson's formula gives no queue: the fixed door admits the {} worker(s) alone ({} in the system)",
            r.workers, r.fixed_limit
        )));
    } else {
        d.answer.push(Statement::Assumption(format!(
            "The fixed door admits {} in the system: the lesson's formula, clamped to the largest limit the door takes",
            r.fixed_limit
        )));
    }
    if stuck(r) {
        if i64::from(r.fixed_limit) <= i64::from(slots(r)) {
            // Up to `slots` calls run at once: the fixed door's limit is no queue.
            d.answer.push(Statement::Assumption(format!(
                "With up to {} calls at once, no request waits in a line behind the fixed door's {}: the door bounds the calls in flight, not a queue",
                slots(r),
                r.fixed_limit
            )));
        } else {
            d.steps.push(Statement::Arith {
                label: "the fixed door's queue behind the calls at once".into(),
                formula: "fixed limit − calls at once".into(),
                eq: Arith::new(sub(n(f64::from(r.fixed_limit)), n(f64::from(slots(r)))), ""),
            });
        }
        if phases(r).1 {
            d.answer.push(Statement::Assumption(format!(
                "After {change} every call takes the {} ms timeout: no service-time bound applies, the downstream sets the time",
                r.timeout_ms
            )));
        }
        return;
    }
    if i64::from(r.fixed_limit) >= i64::from(w) {
        d.steps.push(Statement::Arith {
            label: "the fixed door's queue".into(),
            formula: "fixed limit − workers".into(),
            eq: Arith::new(sub(n(f64::from(r.fixed_limit)), n(f64::from(w))), ""),
        });
    }
    if budget >= svc && svc > 0.0 {
        let safe = crate::calc::deadline_safe_queue(w, budget, svc);
        d.answer.push(Statement::SafeQueue { workers: w, budget_ms: budget, service_ms: svc, queue: safe });
        if !fixed_service {
            d.answer.push(Statement::Assumption(
                "That figure holds for a fixed service time at the mean; this run's service time varies".into(),
            ));
        }
    }
    if !phases(r).1 {
        return; // no time after the change point to bound (A7)
    }
    let eq = Arith::new(
        mul(mul(add(ceil(div(n(queue as f64), n(f64::from(w)))), n(1.0)), u(svc, "ms")), n(r.slowdown.1)),
        "ms",
    );
    d.steps.push(Statement::Arith {
        label: format!("worst time in the system behind that limit after {change}, for a fixed service time"),
        formula: "(ceil(queue / workers) + 1) × service × factor".into(),
        eq: eq.clone(),
    });
    let label = if fixed_service {
        format!("the worst time in the system behind the fixed limit after {change}")
    } else {
        format!("the worst time in the system behind the fixed limit after {change}, a bound only for a fixed service time at the mean (this run's service varies)")
    };
    d.answer.push(above_or_at_most(label, eq, "the budget", Arith::new(u(budget, "ms"), "ms")));
}

/// The service time of a request started after the change point: the
/// stuck downstream's timeout, or the mean times the factor.
fn slowed_ms(r: &AdaptiveReport) -> f64 {
    if stuck(r) { f64::from(r.timeout_ms) } else { r.service_mean_ms * r.slowdown.1 }
}

/// Whether the time after the change point is shorter than one service
/// time started after it: no such request is answered within the run.
fn after_too_short(r: &AdaptiveReport) -> bool {
    phases(r).1 && r.run_ms - f64::from(r.slowdown.0) < slowed_ms(r)
}

/// The race: the scene, each lane against the budget, the best of those
/// within it, the fixed limit's derivation; what another controller in
/// place of the first would change.
fn race(r: &AdaptiveReport) -> Doc {
    let mut d = Doc::new("When the service time moves");
    d.answer = scene(r);
    if after_too_short(r) {
        // No request started after the change point is answered within the run (M2).
        d.answer.push(Statement::Relation {
            a_label: format!("the time after {}", change_words(r)),
            a: Arith::new(sub(u(r.run_ms, "ms"), u(f64::from(r.slowdown.0), "ms")), "ms"),
            cmp: Cmp::Lt,
            b_label: "one service time started after it, so the answers after it are of requests started before it"
                .into(),
            b: if stuck(r) {
                Arith::new(u(f64::from(r.timeout_ms), "ms"), "ms")
            } else {
                Arith::new(mul(u(r.service_mean_ms, "ms"), n(r.slowdown.1)), "ms")
            },
        });
    }
    d.answer.extend(distinct(r).into_iter().map(|l| against_budget(r, l)));
    if !after_too_short(r) {
        d.answer.extend(best(r));
    }
    if deploy_in_run(r) && !stuck(r) && slowed_ms(r) > f64::from(r.timeout_ms) {
        // Most answers after the deploy come late whatever the door (R6 5).
        d.answer.push(Statement::Relation {
            a_label: "the mean service time after the deploy".into(),
            a: Arith::new(mul(u(r.service_mean_ms, "ms"), n(r.slowdown.1)), "ms"),
            cmp: Cmp::Gt,
            b_label: "the client timeout".into(),
            b: Arith::new(u(f64::from(r.timeout_ms), "ms"), "ms"),
        });
    }
    if r.retries > 0 && f64::from(r.retry_backoff_ms) >= r.run_ms {
        d.answer.push(Statement::Relation {
            a_label: "the wait before a retry".into(),
            a: Arith::new(u(f64::from(r.retry_backoff_ms), "ms"), "ms"),
            cmp: Cmp::Ge,
            b_label: "the run's length, so no retry falls within the run".into(),
            b: Arith::new(u(r.run_ms, "ms"), "ms"),
        });
    }
    if !r.lanes.iter().any(|l| l.controller == Controller::Fixed) {
        d.answer.push(Statement::Assumption(
            "The fixed door is not raced here: its limit and worst time below are for reference".into(),
        ));
    }
    derivation(r, &mut d);
    let workers = if stuck(r) {
        format!(
            "Up to {} calls at once for the whole run (the handler is modelled as waiting on I/O from the start, so no call waits for a worker)",
            slots(r)
        )
    } else {
        format!("{} worker(s) behind one FIFO line", r.workers)
    };
    let (has_before, has_after) = phases(r);
    if has_before && has_after {
        d.steps.push(Statement::Arith {
            label: format!("time after {}", change_words(r)),
            formula: "run − change point".into(),
            eq: Arith::new(sub(u(r.run_ms, "ms"), u(f64::from(r.slowdown.0), "ms")), "ms"),
        });
    }
    if r.budget_ms >= r.timeout_ms {
        // Every answer the p99 counts came within the deadline, so within the budget too.
        d.answer.push(Statement::Relation {
            a_label: "the budget".into(),
            a: Arith::new(u(f64::from(r.budget_ms), "ms"), "ms"),
            cmp: Cmp::Ge,
            b_label: "the deadline (the client timeout), which every answer the p99 latency counts came within".into(),
            b: Arith::new(u(f64::from(r.timeout_ms), "ms"), "ms"),
        });
    }
    d.assumes = vec![
        Statement::Definition(GOODPUT_RPS),
        Statement::Definition(P99_ON_TIME_MS),
        Statement::Definition(SHED),
        Statement::Assumption(
            "The p99 latency leaves out the answers that came after their caller gave up (served for nobody): they are counted apart".into(),
        ),
        Statement::Assumption(format!(
            "Every controller sees the same Poisson {}, offered at {}, and the same base service times: {}",
            if r.retries > 0 { "first tries (retries depend on each controller's refusals and give-ups)" } else { "arrivals" },
            offered(r),
            r.service_words.trim_end_matches('.')
        )),
        Statement::Assumption(format!(
            "{workers}; a caller gives up after {} ms (the deadline), the server still serves it",
            r.timeout_ms
        )),
        Statement::Assumption(
            "A phase's answers and refusals are counted by when they happen, and its rates divide by the phase's length: the answers of requests admitted before the change point that finish after it count after it, and those finishing after the run's end count in neither".into(),
        ),
        Statement::Assumption("Limiters are asked at each arrival (refuse when requests in the system reach the limit) and fed each completion: RTT, in flight at arrival, dropped = answered after the caller left".into()),
        Statement::Assumption("Limiter settings are the reference library's defaults".into()),
    ];
    if r.lanes.iter().any(|l| l.controller == Controller::Codel) {
        d.assumes.push(Statement::Assumption(format!(
            "CoDel (target {} ms, interval {} ms) is asked as a worker takes a request off the line, as fbthrift does",
            r.codel_target_ms,
            super::CODEL_INTERVAL_MS
        )));
    }
    d.ignores = vec![
        Statement::Assumption("Network time and the cost of a refusal to the caller".into()),
        Statement::Assumption("Warm-up: every limiter starts from its initial limit at time 0".into()),
    ];
    d.would_change = instead(r);
    d
}

/// Each other controller in place of the first one raced, on the same first
/// tries: its goodput and p99 in the judged phase against the first's.
fn instead(r: &AdaptiveReport) -> Vec<Statement> {
    let lanes = distinct(r);
    let Some(base) = lanes.first().copied() else { return Vec::new() };
    let (phase, words) = judged(r);
    let pick = |l: &Lane| if phase == AFTER { (l.p99_ms.1, l.ok_per_sec.1) } else { (l.p99_ms.0, l.ok_per_sec.0) };
    let mut out = Vec::new();
    for l in lanes.iter().skip(1) {
        let change = format!("with {} instead of {}", l.controller, base.controller);
        let at = words.clone();
        let measure = |q: Quantity, lane: &Lane, v: f64| Measure::new(q, key(lane.controller, phase), at.clone(), v);
        let (now, then) = (pick(base).1, pick(l).1);
        out.push(Statement::Counterfactual {
            change: change.clone(),
            now: measure(GOODPUT_RPS, base, now),
            then: measure(GOODPUT_RPS, l, then),
            cmp: direction(then, now),
            same_arrivals: true,
        });
        if let (Some(now), Some(then)) = (pick(base).0, pick(l).0) {
            let (now, then) = (now as f64, then as f64);
            out.push(Statement::Counterfactual {
                change,
                now: measure(P99_ON_TIME_MS, base, now),
                then: measure(P99_ON_TIME_MS, l, then),
                cmp: direction(then, now),
                same_arrivals: true,
            });
        }
    }
    out
}

/// One controller's run: its goodput and p99 in each phase the run has,
/// what it refused and served for nobody, and its windows after the
/// change point; what it measures and assumes.
fn lane(r: &AdaptiveReport, l: &Lane) -> Doc {
    let c = l.controller;
    let mut d = Doc::new(format!("{c}: how it fared"));
    let change = change_words(r);
    let (has_before, has_after) = phases(r);
    // The judged phase's p99 is stated once, against the budget, in the race.
    let judged_phase = judged(r).0;
    let mut phase = |phase: &str, words: String, p99: Option<u64>, ok: f64| {
        d.answer.push(Statement::Value(on(GOODPUT_RPS, c, phase, &words, ok)));
        if let Some(p) = p99.filter(|_| phase != judged_phase) {
            d.answer.push(Statement::Value(on(P99_ON_TIME_MS, c, phase, &words, p as f64)));
        }
    };
    match (has_before, has_after) {
        (true, true) => {
            phase(BEFORE, format!("before {change}"), l.p99_ms.0, l.ok_per_sec.0);
            phase(AFTER, format!("after {change}"), l.p99_ms.1, l.ok_per_sec.1);
        }
        (true, false) => phase(BEFORE, judged(r).1, l.p99_ms.0, l.ok_per_sec.0),
        _ => phase(AFTER, "over the whole run (the change point is at 0 ms)".to_owned(), l.p99_ms.1, l.ok_per_sec.1),
    }
    // Within the run: what finished or was turned away after its end counts in no window.
    let shed: u64 = l.out.buckets.iter().map(|b| b.refused).sum();
    let late: u64 = l.out.buckets.iter().map(|b| b.wasted).sum();
    d.answer.push(Statement::Value(on(SHED, c, RUN, "within the run", shed as f64)));
    d.answer.push(Statement::Value(on(LATE, c, RUN, "within the run (served for nobody)", late as f64)));
    if has_after {
        let from = f64::from(r.slowdown.0);
        let w = f64::from(r.window_ms.max(1));
        let first = libm::floor(from / w) as usize;
        let p99s: Vec<(usize, u64)> =
            l.out.buckets.iter().enumerate().skip(first).filter_map(|(i, b)| b.p99_ms.map(|p| (i, p))).collect();
        d.answer.push(Statement::WindowP99 {
            run: key(c, ""),
            at: format!("for {c}"),
            width_ms: w,
            from_ms: from,
            from_words: change.to_owned(),
            level_ms: f64::from(r.budget_ms),
            run_ms: r.run_ms,
            finding: WindowFinding::of(
                &p99s,
                l.out.buckets.len().saturating_sub(first),
                w,
                from,
                f64::from(r.budget_ms),
            ),
        });
    }
    d.assumes.push(Statement::Assumption(character(c).to_owned()));
    d
}

/// The report's explanations: the race, then one per controller.
pub(in crate::experiments) fn explanations(r: &AdaptiveReport) -> Vec<Explanation> {
    std::iter::once(race(r)).chain(distinct(r).into_iter().map(|l| lane(r, l))).map(Doc::explanation).collect()
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
