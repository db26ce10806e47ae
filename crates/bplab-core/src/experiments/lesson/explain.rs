//! What randomness adds, in numbers from the run.

use super::LessonReport;
use crate::calc::{Explanation, capacity_rps, fmt_num};
use crate::experiments::{Readout, step, strings};

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "no answers".to_owned(), |x| format!("{} ms", fmt_num(x)))
}

pub(super) fn explanation(r: &LessonReport) -> Explanation {
    let cap = if r.service_mean_ms > 0.0 { capacity_rps(r.service_mean_ms, r.workers) } else { 0.0 };
    let at = &r.at;
    let rho = if cap > 0.0 { at.rate_rps / cap } else { 0.0 };
    let mut steps = vec![step(
        "capacity",
        "workers × 1000 / mean service time",
        format!("{} × 1000 / {}", r.workers, fmt_num(r.service_mean_ms)),
        format!("{} rps", fmt_num(cap)),
    )];
    steps.push(step(
        "load at the chosen rate",
        "ρ = offered / capacity",
        format!("{} / {}", fmt_num(at.rate_rps), fmt_num(cap)),
        if rho < 1.0 {
            format!("{} (below 1: a line forms only when arrivals bunch)", fmt_num(rho))
        } else {
            format!("{} (1 or more: the line grows until the limit or the timeout stops it)", fmt_num(rho))
        },
    ));
    steps.push(step(
        "p99 at the chosen rate: random vs evenly spaced arrivals",
        "model with Poisson arrivals vs the deterministic model",
        format!("{} answered of {} sent", at.summary.ok, at.summary.sent),
        format!("{} vs {} ms", ms(at.summary.p99_ms), at.deterministic.p99_ms),
    ));
    if let Some(top) = r.rates.iter().max_by(|a, b| a.rate_rps.total_cmp(&b.rate_rps)) {
        steps.push(step(
            "delivered answers at the highest offered rate (95 % over replicas)",
            "mean ± t × sd / √replicas",
            format!("{} replicas at {} rps", top.ok_per_sec.n, fmt_num(top.rate_rps)),
            format!(
                "{} rps ({} to {}); deterministic {} rps",
                fmt_num(top.ok_per_sec.mean),
                fmt_num(top.ok_per_sec.lo),
                fmt_num(top.ok_per_sec.hi),
                fmt_num(top.deterministic.goodput_rps)
            ),
        ));
    }
    let below: Vec<String> = r
        .rates
        .iter()
        .filter(|x| x.rate_rps < cap)
        .filter_map(|x| {
            let s = x.replicas.first()?;
            Some(format!(
                "at {} rps ({} % busy) p99 is {} where evenly spaced arrivals give {} ms",
                fmt_num(x.rate_rps),
                fmt_num(100.0 * x.rate_rps / cap),
                ms(s.p99_ms),
                x.deterministic.p99_ms
            ))
        })
        .collect();
    let answer = if below.is_empty() {
        format!(
            "every offered rate is at or above capacity {} rps: the line fills whatever the arrival pattern",
            fmt_num(cap)
        )
    } else {
        format!("random arrivals queue below capacity: {}", below.join("; "))
    };
    let limit =
        r.limit.map_or_else(|| "no queue limit".to_owned(), |l| format!("a queue limit of {l} waiting requests"));
    Explanation {
        title: "What random arrivals add".into(),
        answer,
        steps,
        assumes: vec![
            format!(
                "Open-loop Poisson arrivals from seed {} (the same draws bplab load sends), {} s per rate.",
                r.seed,
                fmt_num(r.seconds)
            ),
            format!("Service time: {}.", r.service_words),
            format!("{} worker(s) behind one FIFO line with {limit}; refusals are immediate.", r.workers),
            format!(
                "A caller gives up after {} ms; the server still serves its queued request (done but not ok).",
                r.client_timeout_ms
            ),
        ],
        ignores: strings(&[
            "Network time, connection set-up and the load tool's own scheduling jitter.",
            "Retries: a refused or abandoned caller does not come back.",
            "Service times that depend on load (contention, GC, caches): each draw is independent.",
        ]),
        would_change: vec![
            "More spread in the service time (exp, lognormal, mix) lengthens the tail at the same mean.".into(),
            "More workers behind one line shorten the wait at the same utilisation (pooling).".into(),
            "A queue limit bounds the wait at limit / workers + 1 service times; off, it grows until callers give up."
                .into(),
        ],
        claims: Vec::new(),
    }
}

pub(super) fn readouts(r: &LessonReport) -> Vec<Readout> {
    let cap = if r.service_mean_ms > 0.0 { capacity_rps(r.service_mean_ms, r.workers) } else { 0.0 };
    let at = &r.at;
    vec![
        Readout::new("Capacity (workers × 1000 / mean service)", format!("{} rps", fmt_num(cap))),
        Readout::new(
            "At the chosen rate: ok per second and p99",
            format!("{} rps, p99 {}", fmt_num(at.summary.ok_per_sec), ms(at.summary.p99_ms)),
        ),
        Readout::new("Evenly spaced arrivals at the chosen rate: p99", format!("{} ms", at.deterministic.p99_ms)),
        Readout::new(
            "At the chosen rate: refused, gave up, work done for nobody",
            format!("{} refused, {} gave up, {} wasted", at.summary.refused, at.summary.gaveup, at.summary.wasted),
        ),
    ]
}
