//! Per controller: what it measures, what it assumes, how it fails; and the
//! race's outcome in numbers from the run.

use super::{AdaptiveReport, Bucket, Lane};
use crate::calc::{Explanation, fmt_num};
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

/// What the controller measures, assumes, and how it fails.
pub(crate) fn character(name: &str) -> &'static str {
    match name {
        "fixed" => {
            "fixed: measures nothing after the day it was derived; assumes the service time and worker count stay as measured; fails by the ratio when either moves (a 2× slower handler doubles every wait behind it)."
        }
        "codel" => {
            "codel: measures the minimum queue delay over each 100 ms interval; assumes a standing queue means overload; keeps the queue short but refuses whatever waited longest, not whatever is cheapest, and only acts once the interval's minimum stays above target."
        }
        "aimd" => {
            "aimd: measures only drops and timeouts; assumes loss is the congestion signal; needs drops to learn, so latency can sit near the timeout before it backs off, and it never goes below its minimum limit (20 by default)."
        }
        "vegas" => {
            "vegas: measures the RTT against the lowest seen (no-load) RTT to estimate the queue; assumes the lowest RTT is still the no-load cost; after a slowdown it must probe (every probe-multiplier × limit samples) to learn the new baseline."
        }
        "gradient2" => {
            "gradient2: measures a long-window average RTT against the short-term one; assumes latency rises before throughput falls; creeps up when latency rises slowly (the long average follows it), and its queue term keeps adding near a gradient of 0.8."
        }
        _ => {
            "gradient: measures the minimum RTT against the current RTT with periodic probes; assumes the minimum is the no-load latency; a latency with no variance (every RTT equal to a timeout) reads as no queue, so the limit grows toward its maximum."
        }
    }
}

fn lane_line(r: &AdaptiveReport, l: &Lane) -> String {
    let p = |v: Option<u64>| v.map_or_else(|| "no answers".to_owned(), |x| format!("{x} ms"));
    let rec = match l.recovery_ms {
        Some(0) => "p99 never passed the budget after the deploy".to_owned(),
        Some(ms) => format!("p99 back under {} ms {} ms after the deploy", r.budget_ms, ms),
        None => format!("p99 still over {} ms at the end of the run", r.budget_ms),
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
    let at = (u64::from(r.slowdown.0) / u64::from(r.window_ms.max(1))) as usize;
    r.lanes
        .iter()
        .filter(|l| l.controller != "codel")
        .filter_map(|l| {
            let from = l.out.buckets.get(at).or(l.out.buckets.last())?.limit;
            let to = l.out.buckets.last()?.limit;
            Some(format!("{} {from} → {to}", l.controller))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn preset_line(r: &AdaptiveReport) -> String {
    let best = r
        .lanes
        .iter()
        .filter(|l| l.p99_ms.1.is_some_and(|p| p <= u64::from(r.budget_ms)))
        .max_by(|a, b| a.ok_per_sec.1.total_cmp(&b.ok_per_sec.1));
    let copes = best.map_or_else(
        || format!("no controller kept p99 within {} ms after the change", r.budget_ms),
        |l| {
            format!(
                "{} copes best: p99 {} ms within budget at {} ok/s",
                l.controller,
                l.p99_ms.1.unwrap_or(0),
                fmt_num(l.ok_per_sec.1)
            )
        },
    );
    match r.preset.as_str() {
        "steady-overload" => format!(
            "Modest steady overload: 1.1 × capacity offered throughout, no deploy (the rate and factor settings are overridden). Limits at {} ms → at the end: {}. {copes}.",
            r.slowdown.0,
            limit_moves(r)
        ),
        "stuck-downstream" => format!(
            "Downstream stuck at the timeout: from the deploy every call takes exactly {} ms and the handler waits on I/O ({} concurrent calls allowed), so latency has no variance and nothing is dropped. Limits at the deploy → at the end: {}. A limit that grows here reads neither a queue nor a loss. {copes}.",
            r.timeout_ms,
            super::STUCK_WORKERS,
            limit_moves(r)
        ),
        "retry-storm" => format!(
            "Retry storm: every refused or abandoned caller retries up to {} times after {} ms (Post 1's amplification). {copes}.",
            r.retries,
            fmt_num(super::STORM_BACKOFF_MS)
        ),
        "deploy-2x" | "none" => format!(
            "Deploy {}× slower at {} ms: the fixed limit of {} was derived from the old service time. {copes}.",
            fmt_num(r.slowdown.1),
            r.slowdown.0,
            r.fixed_limit
        ),
        _ => copes,
    }
}

pub(super) fn explanation(r: &AdaptiveReport) -> Explanation {
    let w = f64::from(r.workers);
    let queue = f64::from(r.fixed_limit) - w;
    let steps = vec![
        step(
            "fixed limit from the service time measured before the deploy",
            "workers × (budget − service) / service + workers in service",
            format!(
                "{} × ({} − {}) / {} + {}",
                r.workers,
                r.budget_ms,
                fmt_num(r.service_mean_ms),
                fmt_num(r.service_mean_ms),
                r.workers
            ),
            format!("{} in the system ({} queued)", r.fixed_limit, fmt_num(queue)),
        ),
        step(
            "worst wait behind that limit after the deploy",
            "(queue / workers + 1) × service × factor",
            format!(
                "({} / {} + 1) × {} × {}",
                fmt_num(queue),
                r.workers,
                fmt_num(r.service_mean_ms),
                fmt_num(r.slowdown.1)
            ),
            format!(
                "{} ms against a {} ms budget",
                fmt_num((queue / w + 1.0) * r.service_mean_ms * r.slowdown.1),
                r.budget_ms
            ),
        ),
    ];
    Explanation {
        title: "When the service time moves".into(),
        answer: preset_line(r),
        steps,
        assumes: vec![
            format!(
                "Every controller sees the same Poisson arrivals ({} rps first step) and the same base service times: {}.",
                fmt_num(r.rate_rps),
                r.service_words
            ),
            format!("{} worker(s) behind one FIFO line; a caller gives up after {} ms, the server still serves it.", r.workers, r.timeout_ms),
            "Limiters are asked at each arrival (refuse when requests in the system reach the limit) and fed each completion: RTT, in flight at arrival, dropped = answered after the caller left.".into(),
            format!("CoDel (target {} ms, interval {} ms) is asked as a worker takes a request off the line, as fbthrift does.", r.codel_target_ms, super::CODEL_INTERVAL_MS),
            "Limiter settings are the reference library's defaults.".into(),
        ],
        ignores: vec![
            "Network time and the cost of a refusal to the caller.".into(),
            "Warm-up: every limiter starts from its initial limit at time 0.".into(),
        ],
        would_change: r.lanes.iter().map(|l| format!("{} — {}", lane_line(r, l), character(&l.controller))).collect(),
        claims: Vec::new(),
    }
}

pub(super) fn readouts(r: &AdaptiveReport) -> Vec<Readout> {
    let find = |n: &str| r.lanes.iter().find(|l| l.controller == n);
    let p99 = |n: &str| {
        find(n).map_or("not raced".to_owned(), |l| {
            let show = |v: Option<u64>| v.map_or_else(|| "–".to_owned(), |x| x.to_string());
            format!("{} → {} ms", show(l.p99_ms.0), show(l.p99_ms.1))
        })
    };
    vec![
        Readout::new("Fixed limit (lesson formula, before the deploy)", format!("{} in the system", r.fixed_limit)),
        Readout::new("Fixed: p99 before → after the deploy", p99("fixed")),
        Readout::new("CoDel: p99 before → after the deploy", p99("codel")),
        Readout::new("Gradient2: p99 before → after the deploy", p99("gradient2")),
        Readout::new(
            "Highest ok/s after the deploy within the budget",
            r.lanes
                .iter()
                .filter(|l| l.p99_ms.1.is_some_and(|p| p <= u64::from(r.budget_ms)))
                .max_by(|a, b| a.ok_per_sec.1.total_cmp(&b.ok_per_sec.1))
                .map_or("none".to_owned(), |l| format!("{} ({} ok/s)", l.controller, fmt_num(l.ok_per_sec.1))),
        ),
    ]
}
