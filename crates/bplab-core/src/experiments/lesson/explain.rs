//! What randomness adds, in numbers from the run.

use super::LessonReport;
use crate::calc::{Explanation, Step, capacity_rps, fmt_num};
use crate::claim::Equation;
use crate::claim::equation::{div, mul, n};
use crate::claim::{Agg, Claim, Cmp, Fact};
use crate::experiments::{Readout, step, strings};

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "no answers".to_owned(), |x| format!("{} ms", fmt_num(x)))
}

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &LessonReport) -> Vec<Explanation> {
    vec![explanation(r)]
}

fn explanation(r: &LessonReport) -> Explanation {
    let cap = if r.service_mean_ms > 0.0 { capacity_rps(r.service_mean_ms, r.workers) } else { 0.0 };
    let at = &r.at;
    let rho = if cap > 0.0 { at.rate_rps / cap } else { 0.0 };
    let mut claims = Vec::new();
    let mut steps = vec![if r.service_mean_ms > 0.0 {
        Step::eq(
            "capacity",
            "workers × 1000 / mean service time",
            Equation::with_result(
                div(mul(n(f64::from(r.workers)), n(1000.0)), n(r.service_mean_ms)),
                cap,
                "rps",
            ),
            "",
        )
    } else {
        step("capacity", "workers × 1000 / mean service time", "no service time".into(), "0 rps".into())
    }];
    steps.push(step(
        "load at the chosen rate",
        "ρ = offered / capacity",
        format!("{} / {}", fmt_num(at.rate_rps), fmt_num(cap)),
        if rho < 1.0 {
            format!("{} (below 1: a line forms only when arrivals bunch)", fmt_num(rho))
        } else {
            if r.limit == Some(0) {
                format!("{} (1 or more, but with a queue limit of 0 no line forms: the excess is refused)", fmt_num(rho))
            } else {
                format!("{} (1 or more: the line grows until the limit or the timeout stops it)", fmt_num(rho))
            }
        },
    ));
    let one_server = r.service_mean_ms / f64::from(r.workers.max(1));
    let reference = format!(
        "the course lesson's reference model (evenly spaced arrivals to one server at {} ms, the mean / workers, late answers included)",
        fmt_num(one_server)
    );
    steps.push(step(
        "p99 at the chosen rate: answered requests vs the reference model",
        "Poisson arrivals on the configured server (answers only) vs the reference model",
        format!("{} answered of {} sent", at.summary.ok, at.summary.sent),
        format!("{} vs {} ms ({reference})", ms(at.summary.p99_ms), at.deterministic.p99_ms),
    ));
    if let Some(top) = r.rates.iter().max_by(|a, b| a.rate_rps.total_cmp(&b.rate_rps)) {
        let vals: Vec<f64> = top.replicas.iter().map(|x| x.ok_per_sec).collect();
        let (lo, hi) = vals.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        claims.push(Claim::new(
            "interval",
            if vals.len() < 2 { "one-replica" } else { "claim" },
            format!("{} replica(s) at", vals.len()),
            Fact::Column {
                table: "lesson-replicas.csv",
                filter: vec![("offered", crate::numerics::format_fixed(top.rate_rps, 1))],
                column: "replicas",
                agg: Agg::Max,
                cmp: Cmp::Eq,
                value: vals.len() as f64,
                tol: 0.0,
            },
        ));
        let spread = if vals.len() < 2 {
            "one replica: no interval".to_owned()
        } else {
            format!("range over the {} replicas {} to {}", vals.len(), fmt_num(lo), fmt_num(hi))
        };
        steps.push(step(
            "delivered answers at the highest offered rate",
            "mean over replicas (lowest to highest replica)",
            format!("{} replica(s) at {} rps", vals.len(), fmt_num(top.rate_rps)),
            format!(
                "{} rps ({spread}); the reference model {} rps",
                fmt_num(top.ok_per_sec.mean),
                fmt_num(top.deterministic.goodput_rps)
            ),
        ));
        if top.ok_per_sec.mean > cap && cap > 0.0 {
            claims.push(Claim::new(
                "comparison",
                "above-capacity",
                format!("delivered vs capacity {} rps", fmt_num(cap)),
                // The mean over replicas at that rate, as the replicas table shows it.
                Fact::Column {
                    table: "lesson-replicas.csv",
                    filter: vec![("offered", fmt_num(top.rate_rps))],
                    column: "ok_per_sec_mean",
                    agg: Agg::Max,
                    cmp: Cmp::Gt,
                    value: cap,
                    tol: 0.051,
                },
            ));
            steps.push(step(
                "why delivered can read above capacity",
                "answers in the window / window",
                format!("{} rps delivered vs capacity {} rps", fmt_num(top.ok_per_sec.mean), fmt_num(cap)),
                "the line still queued at the window's end drains after it and is counted, while rates divide by the window".to_owned(),
            ));
        }
    }
    let below: Vec<String> = r
        .rates
        .iter()
        .filter(|x| x.rate_rps < cap)
        .filter_map(|x| {
            let s = x.replicas.first()?;
            Some(format!(
                "at {} rps ({} % busy) the answered p99 is {} where the lesson's one-server reference model gives {} ms",
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
            match r.limit {
                Some(0) => "A queue limit of 0 lets no line form: a request finding every worker busy is refused.".into(),
                Some(l) => format!(
                    "A queue limit of {l} bounds the time in the system at (ceil({l} / {}) + 1) service times for a fixed service time ({} ms at the mean); a varying service time can pass it.",
                    r.workers,
                    fmt_num(crate::calc::worst_time_ms(u64::from(l), r.workers, r.service_mean_ms))
                ),
                None => "With no queue limit the line grows until callers give up.".into(),
            },
        ],
        claims,
    }
}

pub(in crate::experiments) fn readouts(r: &LessonReport) -> Vec<Readout> {
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
