//! Every sentence the fit, the record and the tune say, made in one
//! function ([`explain`]) from typed values, so it can move to the
//! statements framework whole. Nothing else in `fit` words a claim.

use super::estimate::{FEW_FOR_P99, OK_TOLERANCE, P99_TOLERANCE, SATURATED_P50};
use super::limit::LimitMethod;
use super::report::{Fit, Reason};
use super::service::TOLERANCE;
use super::tune::{DEPLOY_AT_MS, Pick, TuneInput, WINDOW_MS};
use crate::calc::fmt_num;

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
    /// The words.
    pub text: String,
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

fn pct(x: f64) -> String {
    format!("{} %", fmt_num(x * 100.0))
}

fn ms(x: f64) -> String {
    format!("{} ms", fmt_num(x))
}

fn at(file: &str, index: usize, fit: &Fit) -> String {
    let many = fit.rows.iter().filter(|r| r.file == file).count() > 1;
    if many { format!("{file} (load {index})") } else { file.to_owned() }
}

/// The first sentence's text of [`explain`] (for a single field).
pub fn explain_one(subject: Subject<'_>) -> String {
    explain(subject).into_iter().next().map(|s| s.text).unwrap_or_default()
}

/// The sentences about `subject`, in reading order.
pub fn explain(subject: Subject<'_>) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut say = |kind, text: String| out.push(Sentence { kind, text });
    match subject {
        Subject::Measurement(f) => {
            let mut files: Vec<&str> = f.rows.iter().map(|r| r.file.as_str()).collect();
            files.dedup();
            let tools: Vec<&str> = {
                let mut t: Vec<&str> = f.rows.iter().map(|r| r.tool.name()).collect();
                t.dedup();
                t
            };
            say(
                Kind::Estimate,
                format!(
                    "Fitted by bplab fit from {} load(s) in {} ({}): {} effective worker(s), mean service time {} ({}), capacity {}, {}; the model is within {} on answers/s and {} on p99 at {} of {} loads.",
                    f.rows.len(),
                    files.join(", "),
                    tools.join(", "),
                    f.workers,
                    ms(f.mean_service_ms),
                    f.service,
                    f.capacity_rps
                        .map_or("not measured".to_owned(), |c| format!("{} answers/s at saturation", fmt_num(c))),
                    f.queue_limit.map_or("no refusals seen".to_owned(), |q| format!("queue limit {q} seen")),
                    pct(OK_TOLERANCE),
                    pct(P99_TOLERANCE),
                    f.rows.iter().filter(|r| r.within).count(),
                    f.rows.len()
                ),
            );
        }
        Subject::Fit(f) => {
            match f.capacity_rps {
                Some(c) => {
                    let from = f
                        .rows
                        .iter()
                        .filter(|r| r.saturated)
                        .max_by(|a, b| a.measured.ok_per_sec.total_cmp(&b.measured.ok_per_sec));
                    say(
                        Kind::Estimate,
                        format!(
                            "Capacity {} answers/s: the most answers per second at a saturated load ({}; saturated: refusals, or a median at least {}× the low-load median).",
                            fmt_num(c),
                            from.map_or(String::new(), |r| at(&r.file, r.index, f)),
                            fmt_num(SATURATED_P50)
                        ),
                    );
                    say(
                        Kind::Estimate,
                        format!(
                            "Effective workers {}: capacity × low-load mean latency = {} × {} / 1000 = {}, rounded.",
                            f.workers,
                            fmt_num(c),
                            fmt_num(f.low_load.mean_ms),
                            fmt_num(f.workers_estimate)
                        ),
                    );
                    say(
                        Kind::Estimate,
                        format!(
                            "Mean service time {}: workers × 1000 / capacity; the low-load requests took {} on average, so {} of each latency is spent outside the server (network, client), added to the model's latencies.",
                            ms(f.mean_service_ms),
                            ms(f.low_load.mean_ms),
                            ms(f.overhead_ms)
                        ),
                    );
                }
                None => say(
                    Kind::Estimate,
                    format!(
                        "Mean service time {}: the low-load mean latency; with no saturated load the capacity is not measured.",
                        ms(f.mean_service_ms)
                    ),
                ),
            }
            let c = &f.choice.candidates[f.choice.chosen];
            let sample = if f.low_load.requests > 0 {
                format!(
                    "{} low-load requests (sent while no other request of the file was in flight) in {}",
                    f.low_load.requests,
                    f.low_load.files.join(", ")
                )
            } else {
                format!("the percentiles of the lowest load, in {}", f.low_load.files.join(", "))
            };
            let names: Vec<String> = f.choice.candidates.iter().map(|c| c.service.to_string()).collect();
            say(
                Kind::Estimate,
                if f.choice.within_tolerance {
                    format!(
                        "Service distribution {}: chosen from {sample} as the first of {} whose quantiles p10 to p99 all lie within {} of the sample's (largest error {} at p{}).",
                        c.service,
                        names.join(", "),
                        pct(TOLERANCE),
                        pct(c.max_error),
                        fmt_num(c.worst_p * 100.0)
                    )
                } else {
                    format!(
                        "Service distribution {}: none of {} has every quantile p10 to p99 within {} of {sample}; this one has the smallest largest error, {} at p{}.",
                        c.service,
                        names.join(", "),
                        pct(TOLERANCE),
                        pct(c.max_error),
                        fmt_num(c.worst_p * 100.0)
                    )
                },
            );
            say(
                Kind::Estimate,
                match (f.queue_limit, f.limit_method) {
                    (Some(q), Some(LimitMethod::InFlightAtRefusals)) => format!(
                        "Queue limit {q}: the most common count of answered requests in flight when a request was refused, less the {} workers.",
                        f.workers
                    ),
                    (Some(q), Some(LimitMethod::PeakLine)) => {
                        format!("Queue limit {q}: the server's own peak line at the loads with refusals.")
                    }
                    (Some(q), _) => format!(
                        "Queue limit {q}: the limit whose engine run gives the measured median at the load with the most refusals; approximate, as the files keep no per-request times."
                    ),
                    (None, _) => {
                        "No refusals seen: no queue limit measured (the model's line is unbounded).".to_owned()
                    }
                },
            );
            if f.good() {
                say(
                    Kind::Verdict,
                    format!(
                        "Model beside measurement: every load is within {} on answers/s and {} on p99.",
                        pct(OK_TOLERANCE),
                        pct(P99_TOLERANCE)
                    ),
                );
            } else {
                say(
                    Kind::Verdict,
                    format!(
                        "The fit is poor at {} of {} loads (tolerance {} on answers/s, {} on p99), for the reasons below.",
                        f.rows.iter().filter(|r| !r.within).count(),
                        f.rows.len(),
                        pct(OK_TOLERANCE),
                        pct(P99_TOLERANCE)
                    ),
                );
            }
            for r in &f.reasons {
                let text = match r {
                    Reason::NotSaturated => "No load was saturated (no refusals, no median at 1.5× the low-load one): the capacity is not measured and the worker count is only a lower bound; add a run above the capacity.".to_owned(),
                    Reason::LatencyGrowsBeforeSaturation { file, index, measured_p50_ms, model_p50_ms } => format!(
                        "{}: the measured median is {} where the model's is {} below saturation: the latency grows with the rate before saturation, so a single queue in front of identical workers does not describe this service (a shared resource, a lock or a downstream slows with load).",
                        at(file, *index, f), ms(*measured_p50_ms), ms(*model_p50_ms)
                    ),
                    Reason::ApproximateDistribution { max_error, at_p } => format!(
                        "The service distribution is approximate: off by {} at p{}.", pct(*max_error), fmt_num(at_p * 100.0)
                    ),
                    Reason::NoStatus { file } => format!(
                        "{file} records no status (ab -g): a refusal cannot be told from an answer there; find a limit with a tool that records the status."
                    ),
                    Reason::OkRate { file, index, error } => format!(
                        "{}: the model's answers/s are off by {}, more than {}.", at(file, *index, f), pct(*error), pct(OK_TOLERANCE)
                    ),
                    Reason::P99 { file, index, error, answers } => format!(
                        "{}: the model's p99 is off by {}, more than {}{}.",
                        at(file, *index, f), pct(*error), pct(P99_TOLERANCE),
                        if *answers < FEW_FOR_P99 { format!("; the measured p99 is over {answers} answers, so it is the largest of a few") } else { String::new() }
                    ),
                    Reason::WorkersNotWhole { estimate } => format!(
                        "Capacity × low-load latency is {}, far from a whole number of workers: the workers are not alike, or much of the latency is outside the server.",
                        fmt_num(*estimate)
                    ),
                    Reason::ClosedLoopAsPoisson { file } => format!(
                        "{file}: its callers waited for their answers but the file keeps no send times, so the model sends Poisson at the measured rate; near saturation its line differs."
                    ),
                };
                say(Kind::Poor, text);
            }
        }
        Subject::Tune(input, p) => {
            let cells = input.rates_rps.len() * input.factors.len();
            let factors: Vec<String> = input.factors.iter().map(|x| format!("{}×", fmt_num(*x))).collect();
            let rates: Vec<String> = input.rates_rps.iter().map(|x| fmt_num(*x)).collect();
            say(
                Kind::Choice,
                format!(
                    "Raced {} settings of 6 controllers on {} at {} rps, each through a deploy at {} s of a {} s window that multiplies the service time by {}.",
                    p.points,
                    input.service,
                    rates.join(", "),
                    fmt_num(DEPLOY_AT_MS / 1000.0),
                    fmt_num(WINDOW_MS / 1000.0),
                    factors.join(", ")
                ),
            );
            let b = &p.best;
            say(
                Kind::Choice,
                if p.feasible {
                    format!(
                        "Robust choice: {} ({}), the most goodput, {} answers/s on average over the {cells} runs, among the settings whose p99 stays within {} in every run.",
                        b.point.controller.name(),
                        settings(&b.point.settings),
                        fmt_num(b.goodput_rps),
                        ms(input.budget_ms)
                    )
                } else {
                    format!(
                        "No setting keeps the p99 within {} in every run; {} ({}) does in the most, {} of {cells}, with {} answers/s on average.",
                        ms(input.budget_ms),
                        b.point.controller.name(),
                        settings(&b.point.settings),
                        b.meets,
                        fmt_num(b.goodput_rps)
                    )
                },
            );
            if let Some(r) = &p.runner_up {
                say(
                    Kind::Choice,
                    format!(
                        "Runner-up: {} ({}), within the budget in {} of {cells} runs, {} answers/s on average ({} the choice's).",
                        r.point.controller.name(),
                        settings(&r.point.settings),
                        r.meets,
                        fmt_num(r.goodput_rps),
                        if b.goodput_rps > 0.0 {
                            format!("{} of", pct(r.goodput_rps / b.goodput_rps))
                        } else {
                            "against 0 for".to_owned()
                        }
                    ),
                );
            }
        }
    }
    out
}

fn settings(s: &[(String, String)]) -> String {
    s.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
}
