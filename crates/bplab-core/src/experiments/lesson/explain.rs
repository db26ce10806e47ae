//! What randomness adds, as statements over two runs at the chosen rate:
//! the model's Poisson run and the evenly spaced reference model, both
//! re-made with every request kept (`explain/runs.rs`), so each sentence is
//! checked against per-request records.

pub(in crate::experiments) mod runs;

use super::LessonReport;
use crate::calc::{Explanation, capacity_rps, fmt_num};
use crate::claim::Cmp;
use crate::claim::equation::{add, ceil, div, mul, n, round, u};
use crate::experiments::Readout;
use crate::statement::quantity::{
    Count, GOODPUT_RPS, LATE, MAX_QUEUE_WAIT_MS, MAX_TIME_IN_SYSTEM_MS, P99_WAIT_MS, REFUSED, Rule, Time,
};
use crate::statement::{Arith, Cond, Doc, Measure, Pre, Quantity, RunLog, Statement, Unit};
use crate::stochastic::ServiceTime;

/// The p99 time in the system of the answers callers received in time (the
/// lesson's `p99_ms` column).
pub const P99_ON_TIME_MS: Quantity =
    Quantity { short: None, rule: Rule::Percentile(Time::InSystem, Count::OnTime, 99), unit: Unit::Ms };

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "no answers".to_owned(), |x| format!("{} ms", fmt_num(x)))
}

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &LessonReport) -> Vec<Explanation> {
    vec![explanation(r, runs::poisson(r).as_ref(), &runs::even(r))]
}

/// The fixed service time, ms, when the distribution is fixed.
fn fixed_ms(r: &LessonReport) -> Option<f64> {
    match ServiceTime::parse(&r.service) {
        Ok(ServiceTime::Fixed { ms }) => Some(ms),
        _ => None,
    }
}

/// The statements, from the report and (for the times the report keeps no
/// column of: waits, the longest time) the chosen rate's request records.
pub(in crate::experiments) fn doc(r: &LessonReport, poisson: Option<&RunLog>, even: &RunLog) -> Doc {
    let at = &r.at;
    let rate = at.rate_rps;
    let mut d = Doc::new("What random arrivals add");
    let cap_eq = Arith::new(div(mul(n(f64::from(r.workers)), n(1000.0)), n(r.service_mean_ms)), "rps");
    let cap = if r.service_mean_ms > 0.0 { capacity_rps(r.service_mean_ms, r.workers) } else { 0.0 };
    if r.service_mean_ms > 0.0 {
        d.steps.push(Statement::Arith {
            label: "capacity".into(),
            formula: "workers × 1000 / mean service time (ms)".into(),
            eq: cap_eq.clone(),
        });
        // T31: the rate against the capacity, compared exactly, not through a rounded ρ.
        d.answer.push(Statement::Relation {
            a_label: "the chosen rate".into(),
            a: Arith::new(u(rate, "rps"), "rps"),
            cmp: if rate < cap { Cmp::Lt } else { Cmp::Ge },
            b_label: "the capacity".into(),
            b: cap_eq,
        });
    }
    let ref_ms = runs::reference_service_ms(r);
    let unrounded = r.service_mean_ms / f64::from(r.workers.max(1));
    if unrounded >= 0.5 {
        // T7: the reference model's server as it runs, not as the mean / workers.
        d.steps.push(Statement::Arith {
            label: "the reference model's service time".into(),
            formula: "round(mean service time / workers)".into(),
            eq: Arith::new(round(div(n(r.service_mean_ms), n(f64::from(r.workers)))), "ms"),
        });
    }
    let poisson_at = format!("at {} rps with Poisson arrivals", fmt_num(rate));
    let even_at = format!("at {} rps with evenly spaced arrivals (the reference model)", fmt_num(rate));
    d.answer.push(Statement::Value(Measure::new(
        GOODPUT_RPS,
        runs::POISSON,
        poisson_at.clone(),
        at.summary.ok_per_sec,
    )));
    let p99 = at.summary.p99_ms;
    let ref_p99 = at.deterministic.p99_ms as f64;
    let ref_all_on_time = at.deterministic.late == 0 && at.deterministic.goodput > 0;
    // The lesson's thesis as a checked cause, only where the reference model
    // is this server with evenly spaced arrivals (one worker, the same fixed
    // service time in whole ms), so arrival randomness is the one difference.
    let same_server =
        r.workers == 1 && fixed_ms(r).is_some_and(|s| s == f64::from(ref_ms)) && r.client_timeout_ms >= ref_ms;
    let wait_p99 = poisson.map(|l| l.eval(&P99_WAIT_MS));
    let ref_wait = even.eval(&MAX_QUEUE_WAIT_MS);
    let clear = |a: f64, b: f64| (a - b).abs() > 2.0 + 0.01 * a.abs().max(b.abs());
    // The histogram keeps latencies up to 60 s: a p99 at its clamp is not a time.
    let in_range = |v: f64| v < crate::numerics::MAX_LATENCY_MS as f64;
    if let Some(p) = p99.filter(|&p| ref_all_on_time && in_range(p) && in_range(ref_p99)) {
        let effect = Statement::Comparison {
            a: Measure::new(P99_ON_TIME_MS, runs::POISSON, poisson_at.clone(), p),
            cmp: if p > ref_p99 { Cmp::Gt } else { Cmp::Lt },
            b: Measure::new(P99_ON_TIME_MS, runs::EVEN, even_at.clone(), ref_p99),
        };
        if clear(p, ref_p99) {
            match wait_p99 {
                // T8: "random arrivals queue" only when the Poisson run queued and the reference did not.
                Some(w) if same_server && rate < cap && p > ref_p99 && w > 0.0 && ref_wait == 0.0 => {
                    d.answer.push(Statement::Cause {
                        effect: Box::new(effect),
                        cause: Box::new(Statement::Value(Measure::new(
                            P99_WAIT_MS,
                            runs::POISSON,
                            poisson_at.clone(),
                            w,
                        ))),
                        without: Some(Box::new(Statement::Value(Measure::new(
                            MAX_QUEUE_WAIT_MS,
                            runs::EVEN,
                            even_at.clone(),
                            ref_wait,
                        )))),
                    });
                }
                _ => d.answer.push(effect),
            }
        }
    }
    if let Some(p) = poisson {
        // T1, T20: the bound a queue limit gives, only for a fixed service time and a finite limit.
        if let (Some(l), Some(s)) = (r.limit, fixed_ms(r)) {
            let w = f64::from(r.workers.max(1));
            d.answer.push(Statement::Bound {
                m: Measure::new(
                    MAX_TIME_IN_SYSTEM_MS,
                    runs::POISSON,
                    poisson_at.clone(),
                    p.eval(&MAX_TIME_IN_SYSTEM_MS),
                ),
                what: "(ceil(queue limit / workers) + 1) × service time".into(),
                bound: Arith::new(mul(add(ceil(div(n(f64::from(l)), n(w))), n(1.0)), u(s, "ms")), "ms"),
                pre: vec![
                    Pre::new(format!("a fixed service time of {} ms", fmt_num(s)), Cond::Given(true)),
                    Pre::new(format!("a queue limit of {l}"), Cond::Given(true)),
                ],
            });
        }
    }
    d.answer.push(Statement::Value(Measure::new(
        REFUSED,
        runs::POISSON,
        poisson_at.clone(),
        at.summary.refused as f64,
    )));
    d.answer.push(Statement::Value(Measure::new(LATE, runs::POISSON, poisson_at, at.summary.gaveup as f64)));
    // Evenly spaced arrivals in place of Poisson ones, only where the
    // reference model is this server (so the arrivals are the one change).
    if let Some(p) = poisson.filter(|_| same_server) {
        let at = format!("at {} rps", fmt_num(rate));
        for q in [GOODPUT_RPS, REFUSED, LATE, P99_WAIT_MS] {
            let (now, then) = (p.eval(&q), even.eval(&q));
            // No late count where neither run had one; a p99 direction only
            // where the two lie further apart than the histogram's rounding.
            let close = q == P99_WAIT_MS && (now - then).abs() <= 2.0 + 0.002 * now.max(then);
            if (q == LATE && now == 0.0 && then == 0.0) || close {
                continue;
            }
            d.would_change.push(Statement::Counterfactual {
                change: "with evenly spaced arrivals (the reference model) instead of Poisson arrivals".into(),
                now: Measure::new(q, runs::POISSON, at.clone(), now),
                then: Measure::new(q, runs::EVEN, at.clone(), then),
                cmp: crate::statement::direction(then, now),
                same_arrivals: false,
            });
        }
    }
    let limit =
        r.limit.map_or_else(|| "no queue limit".to_owned(), |l| format!("a queue limit of {l} waiting requests"));
    d.assumes = vec![
        Statement::Definition(GOODPUT_RPS),
        Statement::Definition(P99_ON_TIME_MS),
        Statement::Assumption(format!(
            "Open-loop Poisson arrivals from seed {} (the same draws bplab load sends), {} s per rate",
            r.seed,
            fmt_num(r.seconds)
        )),
        Statement::Assumption(format!("Service time: {}", r.service_words.trim_end_matches('.'))),
        Statement::Assumption(format!(
            "{} worker(s) behind one FIFO line with {limit}; refusals are immediate",
            r.workers
        )),
        Statement::Assumption(format!(
            "A caller gives up after {} ms (the deadline); the server still serves its queued request, for nobody",
            r.client_timeout_ms
        )),
        Statement::Assumption(format!(
            "The reference model sends evenly spaced arrivals at the same rate to one server at {ref_ms} ms (the mean / workers rounded to whole ms, at least 1), admits at most the queue limit + workers, and its p99 is of every answer (late answers included), where the Poisson run's p99 is of answers received in time (answers only)"
        )),
        Statement::Assumption(
            "Rates divide by the window; the line still queued at its end drains after it and is counted".into(),
        ),
        Statement::Assumption(match r.rates.iter().map(|x| x.replicas.len()).max().unwrap_or(0) {
            0 | 1 => "The replicas table has one replica: no interval".to_owned(),
            k => format!(
                "The replicas table gives the mean and a 95 % interval over {k} replicas (seeds from {})",
                r.seed
            ),
        }),
    ];
    d.ignores = vec![
        Statement::Assumption("Network time, connection set-up and the load tool's own scheduling jitter".into()),
        Statement::Assumption("Retries: a refused or abandoned caller does not come back".into()),
        Statement::Assumption(
            "Service times that depend on load (contention, GC, caches): each draw is independent".into(),
        ),
    ];
    d
}

fn explanation(r: &LessonReport, poisson: Option<&RunLog>, even: &RunLog) -> Explanation {
    doc(r, poisson, even).explanation()
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
