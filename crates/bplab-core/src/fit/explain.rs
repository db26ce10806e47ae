//! Every sentence the fit, the record and the tune say about the user's
//! data: typed statements ([`super::said::Said`]) built from the fit's
//! values, rendered by one renderer, and checked against the evidence
//! ([`super::evidence`]: the per-request records the readers produced, the
//! engine's runs with every request logged, the tune's runs). A statement
//! that does not check is not printed.

use super::estimate::{FEW_FOR_P99, OK_TOLERANCE, P99_TOLERANCE, SATURATED_P50};
use super::evidence::{self, FitLogs, measured_key, model_key};
use super::limit::LimitMethod;
use super::report::{Fit, Reason, Row};
use super::said::{OK_RPS, P50_MS, P99_MS, Said, Side, beside};
use super::tune::{DEPLOY_AT_MS, Pick, TuneInput, WINDOW_MS};
use crate::calc::fmt_num;
use crate::claim::Cmp;
use crate::claim::equation::{ceil, div, mul, n, round, sub};
use crate::statement::quantity::{MAX_QUEUE_WAIT_MS, REFUSED};
use crate::statement::{Arith, Cond, Measure, Pre, Statement};
use crate::stochastic::ServiceTime;

/// What a sentence does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// An estimate and how it was made.
    Estimate,
    /// The verdict on model beside measurement.
    Verdict,
    /// Where and why the fit is poor or approximate.
    Poor,
    /// The tune's choice.
    Choice,
}

/// One sentence.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Sentence {
    /// What it does.
    pub kind: Kind,
    /// The words: the statement's rendering.
    pub text: String,
    /// The statement it renders.
    #[serde(skip)]
    pub said: Said,
}

/// What to explain.
#[derive(Clone, Copy, Debug)]
pub enum Subject<'a> {
    /// The fit's estimates, verdict and reasons.
    Fit(&'a Fit),
    /// The record's measurement field: what was measured, from which files.
    Measurement(&'a Fit),
    /// The tune's choice.
    Tune(&'a TuneInput, &'a Pick),
}

fn at(file: &str, index: usize, fit: &Fit) -> String {
    let many = fit.rows.iter().filter(|r| r.file == file).count() > 1;
    if many { format!("{file} (load {index})") } else { file.to_owned() }
}

/// A number as shown (2 decimals, trimmed), read back: the operand a
/// derivation shows, exactly as it is shown.
pub(super) fn as_shown(x: f64) -> f64 {
    fmt_num(x).parse().unwrap_or(x)
}

/// `x` to `d` decimals, read back: an operand shown with `d` decimals.
fn to(x: f64, d: usize) -> f64 {
    crate::numerics::format_fixed(x, d).parse().unwrap_or(x)
}

/// The arithmetic `make(d)` builds on operands shown to `d` decimals, with
/// the fewest (2 at least, 6 at most) whose result, rounded as the table
/// prints, is `want` as the table prints it: one value per quantity. `None`
/// when none does (then it is not said).
fn agreeing(want: f64, make: impl Fn(usize) -> Arith) -> Option<Arith> {
    (2..=6).map(make).find(|a| fmt_num(a.result) == fmt_num(want))
}

/// The measured side of `q` at `row`: its per-request log, else its table.
fn measured(row: &Row, ev: &FitLogs, q: crate::statement::Quantity, value: Option<f64>, fit: &Fit) -> Option<Side> {
    let value = value?;
    let key = measured_key(&row.file, row.index);
    if ev.logs.get(&key).is_some() {
        Some(Side::Log(Measure::new(q, key, format!("at {}", at(&row.file, row.index, fit)), value)))
    } else {
        ev.table(&row.file, row.index).map(|_| Side::Table { q, file: row.file.clone(), index: row.index, value })
    }
}

/// The number of answered requests.
const ANSWERED: crate::statement::Quantity = crate::statement::Quantity {
    short: None,
    rule: crate::statement::quantity::Rule::Count(crate::statement::quantity::Count::Answered),
    unit: crate::statement::Unit::Requests,
};

fn within_loads(f: &Fit) -> Vec<(String, usize)> {
    f.rows.iter().map(|r| (r.file.clone(), r.index)).collect()
}

fn fit_statements(f: &Fit, ev: &FitLogs) -> Vec<(Kind, Said)> {
    let mut out: Vec<(Kind, Said)> = Vec::new();
    let mut say = |k: Kind, s: Said| out.push((k, s));
    say(
        Kind::Estimate,
        Said::Assume(format!(
            "the model is a single queue in front of {} identical worker(s), each request holding one for a service time drawn from {}, with one fixed time outside the server (network, client) added to every answer",
            f.workers, f.service
        )),
    );
    let low_mean = as_shown(f.low_load.mean_ms);
    if f.low_load.requests > 0 {
        say(
            Kind::Estimate,
            Said::Mean {
                run: evidence::LOW_LOAD.to_owned(),
                what: format!(
                    "the {} low-load requests (answered while no other request of their file was in flight, in {})",
                    f.low_load.requests,
                    f.low_load.files.join(", ")
                ),
                value: f.low_load.mean_ms,
            },
        );
    }
    if let Some(c) = f.capacity_rps {
        let sat: Vec<&Row> = f.rows.iter().filter(|r| r.saturated).collect();
        let items: Option<Vec<(String, Side)>> = sat
            .iter()
            .map(|r| Some((at(&r.file, r.index, f), measured(r, ev, OK_RPS, Some(r.measured.ok_per_sec), f)?)))
            .collect();
        if let Some(items) = items.filter(|i| !i.is_empty()) {
            let winner = sat
                .iter()
                .enumerate()
                .fold(0, |b, (i, r)| if r.measured.ok_per_sec > sat[b].measured.ok_per_sec { i } else { b });
            say(
                Kind::Estimate,
                Said::Most {
                    what: "the capacity".into(),
                    set: format!(
                        "the {} saturated load(s) (refusals, or a median at least {}× the low-load median)",
                        items.len(),
                        fmt_num(SATURATED_P50)
                    ),
                    items,
                    winner,
                },
            );
        }
        let c2 = as_shown(c);
        let workers = Arith::new(round(div(mul(n(c2), n(low_mean)), n(1000.0))), "");
        if f.low_load.requests > 0 && crate::statement::arith::value(&workers.expr) == f64::from(f.workers) {
            say(
                Kind::Estimate,
                Said::S(Statement::Arith {
                    label: "effective workers".into(),
                    formula: "round(capacity × low-load mean latency / 1000)".into(),
                    eq: workers,
                }),
            );
        }
        let w = f64::from(f.workers);
        let by_capacity = w * 1000.0 / c;
        let service = agreeing(f.mean_service_ms, |d| Arith::new(div(mul(n(w), n(1000.0)), n(to(c, d))), "ms"));
        if (by_capacity - f.mean_service_ms).abs() <= 1e-9 * by_capacity
            && let Some(service) = service
        {
            say(
                Kind::Estimate,
                Said::S(Statement::Arith {
                    label: "mean service time".into(),
                    formula: "workers × 1000 / capacity".into(),
                    eq: service,
                }),
            );
            let outside = agreeing(f.overhead_ms, |d| {
                Arith::new(sub(n(to(f.low_load.mean_ms, d)), n(to(f.mean_service_ms, d))), "ms")
            });
            if f.low_load.requests > 0
                && f.overhead_ms > 0.0
                && let Some(eq) = outside
            {
                say(
                    Kind::Estimate,
                    Said::S(Statement::Arith {
                        label: "time outside the server".into(),
                        formula: "low-load mean latency − mean service time".into(),
                        eq,
                    }),
                );
            }
        }
    }
    if f.low_load.requests > 0 {
        let c = &f.choice.candidates[f.choice.chosen];
        say(
            Kind::Estimate,
            Said::Distribution {
                candidates: f.choice.candidates.iter().map(|c| c.service).collect(),
                chosen: f.choice.chosen,
                overhead_ms: f.overhead_ms,
                max_error: c.max_error,
                worst_p: c.worst_p,
            },
        );
    } else {
        say(
            Kind::Estimate,
            Said::Assume(format!(
                "the service time's distribution, {}, is the first candidate whose quantiles p10 to p99 lie within {} % of {} (docs/fit.md gives the criterion), or the closest when none does",
                f.service,
                fmt_num(super::service::TOLERANCE * 100.0),
                if f.low_load.requests > 0 { "the low-load requests'" } else { "the lowest load's percentiles" }
            )),
        );
    }
    if let (Some(q), Some(LimitMethod::InFlightAtRefusals)) = (f.queue_limit, f.limit_method) {
        let runs: Vec<String> = f
            .levels
            .iter()
            .filter(|l| !l.coarse_starts && l.refused > 0 && !l.requests.is_empty())
            .map(|l| measured_key(&l.file, l.index))
            .collect();
        say(
            Kind::Estimate,
            Said::InFlight { runs, full: u64::from(q) + u64::from(f.workers), workers: f.workers, limit: q },
        );
    } else {
        say(
            Kind::Estimate,
            Said::Assume(match (f.queue_limit, f.limit_method) {
                (Some(q), Some(LimitMethod::PeakLine)) => {
                    format!(
                        "the model's line holds at most {q} waiting request(s), the server's own peak line at the loads with refusals"
                    )
                }
                (Some(q), _) => format!(
                    "the model's line holds at most {q} waiting request(s), the limit whose engine run gives the file's median at the load with the most refusals; approximate, as the files keep no per-request times"
                ),
                (None, _) => "no refusal is recorded in the files, so the model's line is unbounded".to_owned(),
            }),
        );
    }
    for r in &f.rows {
        let place = format!("at {}", at(&r.file, r.index, f));
        let mk = model_key(&r.file, r.index);
        for (q, m, x, tol) in [
            (OK_RPS, Some(r.model.ok_per_sec), Some(r.measured.ok_per_sec), OK_TOLERANCE),
            (P50_MS, r.model.p50_ms, r.measured.p50_ms, f64::INFINITY),
            (P99_MS, r.model.p99_ms, r.measured.p99_ms, P99_TOLERANCE),
        ] {
            let (Some(m), Some(side)) = (m, measured(r, ev, q, x, f)) else { continue };
            let model = Measure::new(q, mk.clone(), format!("in the model {place}"), m);
            let s = beside(place.clone(), model, side, tol);
            // The median has no tolerance: state the error alone.
            let s = match s {
                Said::Beside { at, model, measured, error_pct, .. } if q == P50_MS => {
                    Said::Beside { at, model, measured, error_pct, tolerance_pct: f64::INFINITY }
                }
                s => s,
            };
            say(Kind::Verdict, s);
        }
    }
    // The model's worst queue wait at the load with the most refusals, within
    // the line's bound: only for a fixed service time and a finite line.
    if let (Some(q), ServiceTime::Fixed { ms }) = (f.queue_limit, f.service)
        && let Some(l) = f.levels.iter().filter(|l| l.refused > 0).max_by_key(|l| l.refused)
        && ev.logs.get(&model_key(&l.file, l.index)).is_some()
    {
        let key = model_key(&l.file, l.index);
        let worst = ev.logs.get(&key).map_or(0.0, |log| log.eval(&MAX_QUEUE_WAIT_MS));
        say(
            Kind::Verdict,
            Said::S(Statement::Bound {
                m: Measure::new(MAX_QUEUE_WAIT_MS, key, format!("in the model at {}", at(&l.file, l.index, f)), worst),
                what: "ceil(queue limit / workers) × service time".into(),
                bound: Arith::new(mul(ceil(div(n(f64::from(q)), n(f64::from(f.workers)))), n(ms)), "ms"),
                pre: vec![
                    Pre::new(format!("a fixed service time of {} ms", crate::statement::given(ms)), Cond::Given(true)),
                    Pre::new("a first-come first-served line", Cond::Given(true)),
                ],
            }),
        );
    }
    let within = f.rows.iter().filter(|r| r.within).count();
    if !f.rows.is_empty() {
        say(
            Kind::Verdict,
            Said::Within {
                loads: within_loads(f),
                within,
                ok_pct: OK_TOLERANCE * 100.0,
                p99_pct: P99_TOLERANCE * 100.0,
                lead: if within == f.rows.len() { "Model beside measurement".into() } else { "The fit is poor".into() },
            },
        );
    }
    for reason in &f.reasons {
        match reason {
            Reason::NotSaturated => {
                let loads = format!("the {} load(s)", f.rows.len());
                let refused: Option<Vec<(String, Side)>> = f
                    .rows
                    .iter()
                    .map(|r| {
                        let l = f.levels.iter().find(|l| l.file == r.file && l.index == r.index)?;
                        Some((at(&r.file, r.index, f), measured(r, ev, REFUSED, Some(l.refused as f64), f)?))
                    })
                    .collect();
                if let Some(items) = refused.filter(|i| !i.is_empty()) {
                    let winner = items.iter().enumerate().fold(
                        0,
                        |b, (i, (_, s))| {
                            if s.value() > items[b].1.value() { i } else { b }
                        },
                    );
                    say(Kind::Poor, Said::Most { what: String::new(), set: loads.clone(), items, winner });
                }
                let medians: Option<Vec<(String, Side)>> = f
                    .rows
                    .iter()
                    .map(|r| Some((at(&r.file, r.index, f), measured(r, ev, P50_MS, r.measured.p50_ms, f)?)))
                    .collect();
                if let Some(items) = medians.filter(|i| !i.is_empty()) {
                    let winner = items.iter().enumerate().fold(
                        0,
                        |b, (i, (_, s))| {
                            if s.value() > items[b].1.value() { i } else { b }
                        },
                    );
                    if let Some((_, Side::Log(m))) = items.get(winner) {
                        say(
                            Kind::Poor,
                            Said::S(Statement::Versus {
                                m: m.clone(),
                                cmp: Cmp::Lt,
                                what: format!(
                                    "{}× the low-load median, the saturation threshold",
                                    fmt_num(SATURATED_P50)
                                ),
                                level: SATURATED_P50 * f.low_load.p50_ms,
                            }),
                        );
                    }
                    say(Kind::Poor, Said::Most { what: String::new(), set: loads, items, winner });
                }
                say(
                    Kind::Poor,
                    Said::Assume(
                        "without a saturated load the capacity is not measured and the worker count is only a lower bound; add a run above the capacity".into(),
                    ),
                );
            }
            Reason::LowLoadSaturated { file, index } => {
                let place = at(file, *index, f);
                say(
                    Kind::Poor,
                    Said::Assume(format!(
                        "the low-load sample comes from a saturated load, {place} (refusals, or a median at least {}× the low-load median): no unsaturated load gave it, so the fitted service time, workers and distribution include queueing; run one caller or a low rate and fit again",
                        fmt_num(SATURATED_P50)
                    )),
                );
            }
            Reason::LowLoadClientBehind { file, index, send_lag_p99_ms } => say(
                Kind::Poor,
                Said::Assume(format!(
                    "the client that measured {} fell behind its schedule, as bplab load noted (send lag p99 {} ms): the low-load latencies, timed from each request's due time, include the client's own delay, so the fitted service time, workers and distribution may be the client's; run the load where the client is not starved of CPU and fit again",
                    at(file, *index, f),
                    fmt_num(*send_lag_p99_ms)
                )),
            ),
            Reason::LatencyGrowsBeforeSaturation { file, index, measured_p50_ms, model_p50_ms } => {
                let key = measured_key(file, *index);
                let place = format!("at {}", at(file, *index, f));
                if ev.logs.get(&key).is_some() {
                    let m = Measure::new(P50_MS, key, place.clone(), *measured_p50_ms);
                    if f.low_load.requests > 0 {
                        let low =
                            Measure::new(P50_MS, evidence::LOW_LOAD, "of the low-load requests", f.low_load.p50_ms);
                        say(Kind::Poor, Said::S(Statement::Comparison { a: m.clone(), cmp: Cmp::Gt, b: low }));
                    }
                    say(
                        Kind::Poor,
                        Said::S(Statement::Versus {
                            m: m.clone(),
                            cmp: Cmp::Lt,
                            what: format!("{}× the low-load median, the saturation threshold", fmt_num(SATURATED_P50)),
                            level: SATURATED_P50 * f.low_load.p50_ms,
                        }),
                    );
                    let model =
                        Measure::new(P50_MS, model_key(file, *index), format!("in the model {place}"), *model_p50_ms);
                    say(Kind::Poor, Said::S(Statement::Comparison { a: m, cmp: Cmp::Gt, b: model }));
                }
                say(
                    Kind::Poor,
                    Said::Assume(format!(
                        "at {}, the latency grows with the rate before saturation, so a single queue in front of identical workers does not describe this service (a shared resource, a lock or a downstream slows with load)",
                        at(file, *index, f)
                    )),
                );
            }
            // Said with its numbers, checked, where the low-load requests are records.
            Reason::ApproximateDistribution { .. } if f.low_load.requests > 0 => {}
            Reason::ApproximateDistribution { .. } => say(
                Kind::Poor,
                Said::Assume(format!(
                    "the service distribution is approximate: no candidate matches every quantile p10 to p99 of the low-load requests within {} %",
                    fmt_num(super::service::TOLERANCE * 100.0)
                )),
            ),
            Reason::NoStatus { file } => say(
                Kind::Poor,
                Said::Assume(format!(
                    "the file {file} records no status (ab -g): every request in it counts as answered, so a refusal cannot be told from an answer there; find a limit with a tool that records the status"
                )),
            ),
            Reason::OkRate { .. } => {}
            Reason::P99 { file, index, answers, .. } => {
                let key = measured_key(file, *index);
                if *answers < FEW_FOR_P99 {
                    if ev.logs.get(&key).is_none() {
                        continue;
                    }
                    let m = Measure::new(ANSWERED, key, format!("at {}", at(file, *index, f)), *answers as f64);
                    say(Kind::Poor, too_few_for_p99(m));
                } else {
                    // Enough answers for the measured p99: the miss is in
                    // the model's tail, which the service distribution
                    // fitted at low load sets.
                    if f.low_load.requests > 0 && (f.low_load.requests as u64) < FEW_FOR_P99 {
                        let m = Measure::new(
                            ANSWERED,
                            evidence::LOW_LOAD,
                            "of the low-load requests",
                            f.low_load.requests as f64,
                        );
                        say(Kind::Poor, too_few_for_p99(m));
                    }
                    say(
                        Kind::Poor,
                        Said::Assume(format!(
                            "at {}, the model's p99 comes from the tail of the service time fitted at low load, {}; a server whose tail under load differs from its tail at low load (a queue limit that cuts the wait, a pause that grows with load) has a different p99, and more low-load requests fix the fitted tail better",
                            at(file, *index, f),
                            f.service
                        )),
                    );
                }
            }
            Reason::WorkersNotWhole { .. } => {
                if let Some(c) = f.capacity_rps {
                    say(
                        Kind::Poor,
                        Said::S(Statement::Arith {
                            label: "workers before rounding".into(),
                            formula: "capacity × low-load mean latency / 1000".into(),
                            eq: Arith::new(div(mul(n(as_shown(c)), n(low_mean)), n(1000.0)), ""),
                        }),
                    );
                }
                say(
                    Kind::Poor,
                    Said::Assume("a worker count far from whole means the workers are not alike, or much of the latency is outside the server".into()),
                );
            }
            Reason::ClosedLoopAsPoisson { file } => say(
                Kind::Poor,
                Said::Assume(format!(
                    "the file {file} keeps no send times though its callers waited for their answers, so the model sends Poisson at the file's rate; near saturation its line differs"
                )),
            ),
        }
    }
    out
}

/// Every file read, in order, with its tool and what it gave the fit: its
/// loads beside the model, the low-load sample, the capacity.
fn files_and_roles(f: &Fit) -> String {
    let mut files: Vec<(&str, &'static str)> = Vec::new();
    for l in &f.levels {
        if !files.iter().any(|(x, _)| *x == l.file) {
            files.push((&l.file, l.tool.name()));
        }
    }
    let capacity = f.capacity_rps.and_then(|c| f.rows.iter().find(|r| r.saturated && r.measured.ok_per_sec == c));
    let parts: Vec<String> = files
        .iter()
        .map(|(file, tool)| {
            let mut roles = Vec::new();
            let loads = f.rows.iter().filter(|r| r.file == *file).count();
            if loads > 0 {
                roles.push(format!("{loads} load(s)"));
            }
            if f.low_load.files.iter().any(|x| x == file) {
                let what = if f.low_load.requests > 0 { "requests" } else { "percentiles" };
                roles.push(format!("the low-load {what}"));
            }
            if capacity.is_some_and(|r| r.file == *file) {
                roles.push("the capacity".to_owned());
            }
            if roles.is_empty() { format!("{file} ({tool})") } else { format!("{file} ({tool}: {})", roles.join(", ")) }
        })
        .collect();
    match parts.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => parts.join(""),
    }
}

fn measurement_statement(f: &Fit) -> Said {
    Said::Within {
        loads: within_loads(f),
        within: f.rows.iter().filter(|r| r.within).count(),
        ok_pct: OK_TOLERANCE * 100.0,
        p99_pct: P99_TOLERANCE * 100.0,
        lead: format!(
            "Fitted by bplab fit from {}: {} effective worker(s), mean service time {} ms ({}), {}, {}; model beside measurement",
            files_and_roles(f),
            f.workers,
            fmt_num(f.mean_service_ms),
            f.service,
            f.capacity_rps.map_or("capacity not measured".to_owned(), |c| format!(
                "capacity {} answers/s at saturation",
                fmt_num(c)
            )),
            f.queue_limit.map_or("no refusals seen".to_owned(), |q| format!("queue limit {q}")),
        ),
    }
}

fn tune_statements(input: &TuneInput, p: &Pick) -> Vec<(Kind, Said)> {
    let factors: Vec<String> = input.factors.iter().map(|x| format!("{}×", fmt_num(*x))).collect();
    let rates: Vec<String> = input.rates_rps.iter().map(|x| fmt_num(*x)).collect();
    let mut out = vec![(
        Kind::Choice,
        Said::Assume(format!(
            "raced {} settings of 6 controllers on {} at {} rps, each through a deploy at {} s of a {} s window that multiplies the service time by {}",
            p.points,
            input.service,
            rates.join(", "),
            fmt_num(DEPLOY_AT_MS / 1000.0),
            fmt_num(WINDOW_MS / 1000.0),
            factors.join(", ")
        )),
    )];
    out.push((Kind::Choice, Said::Choice { pick: Box::new(p.clone()), budget_ms: input.budget_ms, runner_up: false }));
    if p.runner_up.is_some() {
        out.push((
            Kind::Choice,
            Said::Choice { pick: Box::new(p.clone()), budget_ms: input.budget_ms, runner_up: true },
        ));
    }
    out
}

/// The evidence `subject`'s statements are checked against (the fit's
/// request logs; none for the tune, whose evidence is in its runs).
pub fn evidence_for(subject: Subject<'_>) -> FitLogs {
    match subject {
        Subject::Fit(f) | Subject::Measurement(f) => evidence::logs(f),
        Subject::Tune(..) => FitLogs::default(),
    }
}

/// Every statement about `subject`, checked or not, in reading order.
pub fn statements(subject: Subject<'_>, ev: &FitLogs) -> Vec<(Kind, Said)> {
    match subject {
        Subject::Fit(f) => fit_statements(f, ev),
        Subject::Measurement(f) => vec![(Kind::Estimate, measurement_statement(f))],
        Subject::Tune(i, p) => tune_statements(i, p),
    }
}

/// The sentences about `subject` whose statements check, and those that do
/// not with why (a test's concern: they are never printed).
pub fn explain_checked(subject: Subject<'_>) -> (Vec<Sentence>, Vec<(Sentence, String)>) {
    let ev = evidence_for(subject);
    let (mut kept, mut rejected) = (Vec::new(), Vec::new());
    for (kind, said) in statements(subject, &ev) {
        let Some(text) = said.render() else { continue };
        let s = Sentence { kind, text, said };
        match s.said.check(&ev) {
            Ok(()) => kept.push(s),
            Err(why) => rejected.push((s, why)),
        }
    }
    (kept, rejected)
}

/// The first sentence's text of [`explain`] (for a single field).
pub fn explain_one(subject: Subject<'_>) -> String {
    explain(subject).into_iter().next().map(|s| s.text).unwrap_or_default()
}

/// The sentences about `subject` that check, in reading order.
pub fn explain(subject: Subject<'_>) -> Vec<Sentence> {
    explain_checked(subject).0
}

/// A count of answers below what a p99 needs to be more than the largest of
/// a few.
fn too_few_for_p99(m: Measure) -> Said {
    Said::S(Statement::Versus {
        m,
        cmp: Cmp::Lt,
        what: "the count a p99 needs to be more than the largest of a few".into(),
        level: FEW_FOR_P99 as f64,
    })
}
