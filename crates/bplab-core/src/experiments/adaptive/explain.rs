//! Per controller: what it measures, what it assumes, how it fails; and the
//! race's outcome in numbers from the run.

use super::{AdaptiveReport, Bucket, Controller, Lane, Preset};
use crate::calc::{Explanation, Step, fmt_num};
use crate::claim::equation::{add, ceil, div, mul, n};
use crate::claim::{Agg, Claim, Cmp, Equation, Fact};
use crate::experiments::{Readout, step};

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
    r.preset != Preset::SteadyOverload && r.slowdown.1 != 1.0 && f64::from(r.slowdown.0) < r.run_ms
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

fn windows_over(r: &AdaptiveReport, l: &Lane) -> (usize, usize) {
    let at = (u64::from(r.slowdown.0) / u64::from(r.window_ms.max(1))) as usize;
    let seen: Vec<u64> = l.out.buckets.iter().skip(at).filter_map(|b| b.p99_ms).collect();
    (seen.iter().filter(|&&p| p > u64::from(r.budget_ms)).count(), seen.len())
}

fn lane_line(r: &AdaptiveReport, l: &Lane) -> String {
    let p = |v: Option<u64>| v.map_or_else(|| "no answers".to_owned(), |x| format!("{x} ms"));
    let (over, seen) = windows_over(r, l);
    let rec = if f64::from(r.slowdown.0) >= r.run_ms {
        "no windows after the change point".to_owned()
    } else {
        match l.recovery_ms {
            Some(0) => format!("no window's p99 passed {} ms {}", r.budget_ms, after_words(r)),
            Some(ms) => format!(
                "window p99 over {} ms in {over} of {seen} windows, the last ending {ms} ms after the change point",
                r.budget_ms
            ),
            None => format!("p99 still over {} ms at the end of the run ({over} of {seen} windows over)", r.budget_ms),
        }
    };
    format!(
        "{}: p99 {} → {}, ok/s {} → {}, {} refused, {} served for nobody; {rec}",
        l.controller,
        p(l.p99_ms.0),
        p(l.p99_ms.1),
        fmt_num(l.ok_per_sec.0),
        fmt_num(l.ok_per_sec.1),
        l.out.refused,
        l.out.wasted
    )
}

/// "aimd 20 → 170, …" for every limiter lane: the limit at the deploy and at the end.
fn limit_moves(r: &AdaptiveReport) -> String {
    r.lanes
        .iter()
        .filter_map(|l| lane_move(r, l).map(|(a, b)| format!("{} {a} → {b}", l.controller)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn lane_move(r: &AdaptiveReport, l: &Lane) -> Option<(i32, i32)> {
    if l.controller == Controller::Codel {
        return None;
    }
    let at = (u64::from(r.slowdown.0) / u64::from(r.window_ms.max(1))) as usize;
    let from = l.out.buckets.get(at).or(l.out.buckets.last())?.limit;
    Some((from, l.out.buckets.last()?.limit))
}

fn preset_line(r: &AdaptiveReport, claims: &mut Vec<Claim>) -> String {
    let within = |l: &&Lane| l.p99_ms.1.is_some_and(|p| p <= u64::from(r.budget_ms));
    let best = r.lanes.iter().filter(within).max_by(|a, b| a.ok_per_sec.1.total_cmp(&b.ok_per_sec.1));
    let after = after_words(r);
    let copes = if f64::from(r.slowdown.0) >= r.run_ms {
        claims.push(Claim::new(
            "deploy",
            "after-run",
            format!("the deploy at {} ms falls after the run's end: no data after the change", r.slowdown.0),
            Fact::Compare { lhs: f64::from(r.slowdown.0), cmp: Cmp::Ge, rhs: r.run_ms },
        ));
        claims.last().map(|c| c.text.clone()).unwrap_or_default()
    } else {
        match best {
            None => format!("no controller kept p99 within {} ms {after}", r.budget_ms),
            Some(l) => {
                // Ties on the shown numbers are named, not decided by order.
                // Equal as the summary table shows ok/s (one decimal).
                let shown = |x: &Lane| crate::numerics::format_fixed(x.ok_per_sec.1, 1);
                let mut tied: Vec<&Lane> = r.lanes.iter().filter(within).filter(|x| shown(x) == shown(l)).collect();
                tied.dedup_by(|a, b| a.controller == b.controller);
                let mut seen_names = Vec::new();
                tied.retain(|x| {
                    let new = !seen_names.contains(&x.controller);
                    seen_names.push(x.controller);
                    new
                });
                let (over, seen) = windows_over(r, l);
                let windows = if over > 0 {
                    format!(" over the whole phase, though {over} of its {seen} windows pass {} ms", r.budget_ms)
                } else {
                    String::new()
                };
                let names: Vec<String> = tied.iter().map(|x| x.controller.to_string()).collect();
                let text = if tied.len() > 1 {
                    format!(
                        "a tie {after}: {} all deliver {} ok/s with p99 within the {} ms budget",
                        names.join(", "),
                        shown(l),
                        r.budget_ms
                    )
                } else {
                    format!(
                        "{} copes best {after}: p99 {} ms within budget{windows} at {} ok/s",
                        l.controller,
                        l.p99_ms.1.unwrap_or(0),
                        fmt_num(l.ok_per_sec.1)
                    )
                };
                claims.push(Claim::new(
                    "winner",
                    if tied.len() > 1 { "tie" } else { "claim" },
                    text.clone(),
                    Fact::Best {
                        table: "adaptive-summary.csv",
                        filter: Vec::new(),
                        key: "controller",
                        column: "ok_per_sec_after",
                        higher: true,
                        within: Some(("p99_after_ms", f64::from(r.budget_ms))),
                        tol: 0.0,
                        names,
                    },
                ));
                text
            }
        }
    };
    match r.preset {
        Preset::SteadyOverload => format!(
            "Modest steady overload: 1.1 × capacity = {} offered throughout, no deploy (the rate and factor settings are overridden). Limits at {} ms → at the end: {}. {copes}.",
            rps_of(r),
            r.slowdown.0,
            limit_moves(r)
        ),
        Preset::StuckDownstream => {
            let wasted: u64 = r.lanes.iter().map(|l| l.out.wasted).sum();
            let dropped = if wasted == 0 {
                "nothing is served for nobody".to_owned()
            } else {
                format!("yet answers come too late for some callers ({} served for nobody in all)", wasted)
            };
            claims.push(Claim::new(
                "dropped",
                if wasted == 0 { "claim" } else { "served-for-nobody" },
                dropped.clone(),
                Fact::Column {
                    table: "adaptive-summary.csv",
                    filter: Vec::new(),
                    column: "wasted",
                    agg: Agg::Sum,
                    cmp: Cmp::Eq,
                    value: wasted as f64,
                    tol: 0.0,
                },
            ));
            format!(
                "Downstream stuck at the timeout: from the deploy every call takes exactly {} ms and the handler waits on I/O ({} concurrent calls allowed), so latency has no variance; {dropped}. Limits at the deploy → at the end: {}. A limit that grows here reads neither a queue nor a loss. {copes}.",
                r.timeout_ms,
                super::STUCK_WORKERS,
                limit_moves(r)
            )
        }
        Preset::RetryStorm => format!(
            "Retry storm: every refused or abandoned caller retries up to {} times after {} ms (Post 1's amplification). {copes}.",
            r.retries,
            fmt_num(super::STORM_BACKOFF_MS)
        ),
        Preset::Deploy2x | Preset::None if deploy_in_run(r) => format!(
            "Deploy {} at {} ms: the fixed limit of {} was derived from the old service time. {copes}.",
            if r.slowdown.1 > 1.0 {
                format!("{}× slower", fmt_num(r.slowdown.1))
            } else {
                format!("{}× the service time (faster)", fmt_num(r.slowdown.1))
            },
            r.slowdown.0,
            r.fixed_limit
        ),
        Preset::Deploy2x | Preset::None => {
            format!("No deploy in this run (factor {}, at {} ms). {copes}.", fmt_num(r.slowdown.1), r.slowdown.0)
        }
    }
}

fn rps_of(r: &AdaptiveReport) -> String {
    format!("{} rps", fmt_num(1.1 * crate::calc::capacity_rps(r.service_mean_ms.max(1e-9), r.workers)))
}

/// Requests a line can hold in service at once after the change point.
fn slots(r: &AdaptiveReport) -> u32 {
    if r.preset == Preset::StuckDownstream { r.workers.max(super::STUCK_WORKERS) } else { r.workers.max(1) }
}

fn codel_note(r: &AdaptiveReport, l: &Lane, claims: &mut Vec<Claim>) -> String {
    if l.controller != Controller::Codel {
        return String::new();
    }
    let at = (u64::from(r.slowdown.0) / u64::from(r.window_ms.max(1))) as usize;
    let refused_after: u64 = l.out.buckets.iter().skip(at).map(|b| b.refused).sum();
    if refused_after != 0 || at >= l.out.buckets.len() {
        return String::new();
    }
    let most = l.out.buckets.iter().map(|b| b.in_flight_max).max().unwrap_or(0);
    // T18: say why only what the run shows: no line formed at all, or a line
    // whose delay never stayed above target for a whole interval.
    let why = if most <= slots(r) {
        let text =
            format!("no request ever waited in line (at most {most} in flight, with {} in service at once)", slots(r));
        claims.push(Claim::new(
            "no-queue",
            "claim",
            text.clone(),
            Fact::Column {
                table: "adaptive-timeline.csv",
                filter: vec![("controller", "codel".to_owned())],
                column: "in_flight_max",
                agg: Agg::Max,
                cmp: Cmp::Eq,
                value: f64::from(most),
                tol: 0.0,
            },
        ));
        text
    } else {
        format!("the interval's minimum queue delay never stayed above {} ms", r.codel_target_ms)
    };
    format!(" In this run it refused nothing {}: {why}.", after_words(r))
}

fn gradient_note(r: &AdaptiveReport, l: &Lane, claims: &mut Vec<Claim>) -> String {
    if l.controller != Controller::Gradient {
        return String::new();
    }
    let Some((a, b)) = lane_move(r, l) else { return String::new() };
    let w = u64::from(r.window_ms.max(1));
    let at = (u64::from(r.slowdown.0) / w) as usize;
    let (first, last) = (at.min(l.out.buckets.len().saturating_sub(1)), l.out.buckets.len().saturating_sub(1));
    let text = format!("Here its limit went {a} → {b}");
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
    format!(" {text} (the limit in the window of {} and in the last window).", change_words(r))
}

fn change_words(r: &AdaptiveReport) -> &'static str {
    if deploy_in_run(r) { "the deploy" } else { "the change point" }
}

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &AdaptiveReport) -> Vec<Explanation> {
    vec![explanation(r)]
}

fn explanation(r: &AdaptiveReport) -> Explanation {
    let w = r.workers.max(1);
    let queue = (i64::from(r.fixed_limit) - i64::from(w)).max(0) as u64;
    let fixed_service = r.service_words.starts_with("every request takes exactly");
    let stuck = r.preset == Preset::StuckDownstream;
    let mut claims = Vec::new();
    let change = if deploy_in_run(r) { "the deploy" } else { "the change point" };
    let mut steps = vec![step(
        &format!(
            "fixed limit from the service time measured before {change} (the course lesson's formula, rounded half-up)"
        ),
        "workers × (budget − service) / service + workers in service",
        format!(
            "{} × ({} − {}) / {} + {}",
            r.workers,
            r.budget_ms,
            fmt_num(r.service_mean_ms),
            fmt_num(r.service_mean_ms),
            r.workers
        ),
        {
            let safe = crate::calc::deadline_safe_queue(r.workers.max(1), f64::from(r.budget_ms), r.service_mean_ms);
            if safe == queue {
                format!(
                    "{} in the system ({} queued, also the calculator's deadline-safe figure)",
                    r.fixed_limit, queue
                )
            } else {
                if fixed_service {
                    format!(
                        "{} in the system ({} queued; the limit calculator would ship {safe}, whose worst time fits the budget)",
                        r.fixed_limit, queue
                    )
                } else {
                    format!(
                        "{} in the system ({} queued; the limit calculator would ship {safe}, whose worst time for a fixed service time at the mean fits the budget; this run's service varies)",
                        r.fixed_limit, queue
                    )
                }
            }
        },
    )];
    if stuck {
        steps.push(step(
            &format!("worst time in the system behind that limit after {change}"),
            "calls stuck at the timeout",
            format!("every call takes {} ms", r.timeout_ms),
            "no service-time bound applies: the downstream sets the time".to_owned(),
        ));
    } else {
        let eq = Equation::new(
            mul(mul(add(ceil(div(n(queue as f64), n(f64::from(w)))), n(1.0)), n(r.service_mean_ms)), n(r.slowdown.1)),
            "ms",
        );
        let note = if fixed_service {
            format!("against a {} ms budget (fixed-service bound)", r.budget_ms)
        } else {
            format!(
                "against a {} ms budget: a bound for a fixed service time at the mean; this run's service varies, so answers can take longer",
                r.budget_ms
            )
        };
        steps.push(Step::eq(
            &format!("worst time in the system behind that limit after {change}"),
            "(ceil(queue / workers) + 1) × service × factor",
            eq,
            &note,
        ));
    }
    let answer = preset_line(r, &mut claims);
    let workers = if stuck {
        format!(
            "{} worker(s) before the deploy, then up to {} concurrent calls waiting on the downstream",
            r.workers,
            super::STUCK_WORKERS
        )
    } else {
        format!("{} worker(s)", r.workers)
    };
    Explanation {
        title: "When the service time moves".into(),
        answer,
        steps,
        assumes: vec![
            format!(
                "Every controller sees the same Poisson {} ({} offered{}) and the same base service times: {}.",
                if r.retries > 0 { "first tries (retries depend on each controller's refusals)" } else { "arrivals" },
                if r.preset == Preset::SteadyOverload { rps_of(r) } else { format!("{} rps", fmt_num(r.rate_rps)) },
                if r.preset == Preset::SteadyOverload { "" } else { " first step" },
                r.service_words
            ),
            format!("{workers} behind one FIFO line; a caller gives up after {} ms, the server still serves it.", r.timeout_ms),
            "Limiters are asked at each arrival (refuse when requests in the system reach the limit) and fed each completion: RTT, in flight at arrival, dropped = answered after the caller left.".into(),
            format!("CoDel (target {} ms, interval {} ms) is asked as a worker takes a request off the line, as fbthrift does.", r.codel_target_ms, super::CODEL_INTERVAL_MS),
            "Limiter settings are the reference library's defaults.".into(),
        ],
        ignores: vec![
            "Network time and the cost of a refusal to the caller.".into(),
            "Warm-up: every limiter starts from its initial limit at time 0.".into(),
        ],
        would_change: r
            .lanes
            .iter()
            .map(|l| {
                let codel = codel_note(r, l, &mut claims);
                let gradient = gradient_note(r, l, &mut claims);
                format!("{} — {}{codel}{gradient}", lane_line(r, l), character(l.controller))
            })
            .collect(),
        claims,
    }
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
