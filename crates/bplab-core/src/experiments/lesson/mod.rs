//! The course lesson's experiment (seed 003) as a model: open-loop Poisson
//! arrivals from the same seeded generator `bplab load` uses, a service-time
//! distribution, `workers` servers behind one FIFO line with a queue limit,
//! and callers that give up after a client timeout. One row per offered
//! rate with `bplab load`'s columns, a 95 % interval over replicas, the
//! deterministic model's answer beside it, and the latency histogram at one
//! chosen rate.

pub(super) mod explain;
pub mod hooks;
mod params;
mod stats;
pub(super) mod plots;

use serde::Serialize;

use super::{
    ChartSpec, Estimate, Exec, Experiment, ExperimentId, RunTally, par_map,
    poisson_bound,
};
use crate::arrivals::Curve;
use crate::error::ConfigError;
use crate::models::admission::{self, AdmissionOutcome, AdmissionSettings, Limit};
use crate::stochastic::{Outcome, Server, ServiceTime, Setup, Summary};
use crate::table::{Row, Table, TableSpec};
pub use params::{LESSON_QUEUE_LIMIT, LessonParams};
pub use stats::Interval;

/// The registry entry.
pub(super) const DEF: Experiment = Experiment {
    id: ExperimentId::Lesson,
    name: "lesson",
    title: "Random arrivals",
    post: "Course lesson: Ship a number you measured",
    dir: "lesson",
    lesson: "Random arrivals queue below capacity: the same server the evenly spaced reference model calls idle has a tail.",
    tables: &TABLES,
    charts: &CHARTS,
    params: LessonParams::SPECS,
    main_param: "limit",
    window_param: "seconds",
};

/// The chosen rate and one replica first: the widget fills the sweep and the
/// replicas in the next frame.
pub(super) fn preview(p: &LessonParams, exec: &dyn Exec) -> Option<LessonReport> {
    Some(run(&LessonParams { rates_rps: vec![p.at_rate_rps], replicas: 1, ..p.clone() }, exec))
}

static TABLES: [TableSpec; 3] = [
    TableSpec {
        file: "lesson-sweep.csv",
        golden_sha256: None,
        header: "offered,sent,ok,refused,gaveup,error,ok_per_sec,p50_ms,p99_ms,done,lost,queued,mean_ms",
        title: "bplab load's columns per offered rate, from the model (first replica: the given seed)",
    },
    TableSpec {
        file: "lesson-replicas.csv",
        golden_sha256: None,
        header: "offered,replicas,ok_per_sec_mean,ok_per_sec_lo95,ok_per_sec_hi95,p99_mean_ms,p99_lo95_ms,p99_hi95_ms,deterministic_ok_per_sec,deterministic_p99_ms",
        title: "Mean and 95 % interval over replicas, beside the deterministic model",
    },
    TableSpec {
        file: "lesson-latency.csv",
        golden_sha256: None,
        header: "latency_from_ms,latency_to_ms,answers",
        title: "Latency of answered requests at the chosen rate",
    },
];

static CHARTS: [ChartSpec; 2] = [
    ChartSpec {
        file: "lesson-sweep.png",
        title: "p99 and delivered answers vs offered rate (band: 95 % over replicas)",
    },
    ChartSpec {
        file: "lesson-latency.png",
        title: "Latency at the chosen rate: random arrivals vs evenly spaced",
    },
];

/// One offered rate: every replica's row and the deterministic model's.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct RateResult {
    /// Offered rate, rps.
    pub rate_rps: f64,
    /// One summary per replica (seed, seed + 1, …); the first is the given seed.
    pub replicas: Vec<Summary>,
    /// Mean and 95 % interval of ok per second over replicas.
    pub ok_per_sec: Interval,
    /// Mean and 95 % interval of p99 over replicas (replicas with answers).
    pub p99_ms: Interval,
    /// The deterministic model at this rate (evenly spaced arrivals, fixed
    /// service = the distribution's mean / workers, in-system limit = queue
    /// limit + workers, deadline = client timeout).
    pub deterministic: AdmissionOutcome,
}

/// The latency histogram at the chosen rate.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Histogram {
    /// The rate, rps.
    pub rate_rps: f64,
    /// Bucket width, ms.
    pub width_ms: f64,
    /// Answers per bucket, from 0 ms.
    pub counts: Vec<u64>,
    /// The run's summary.
    pub summary: Summary,
    /// The deterministic model's answer at the same rate.
    pub deterministic: AdmissionOutcome,
}

/// The whole lesson experiment.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct LessonReport {
    /// Workers.
    pub workers: u32,
    /// Service-time distribution.
    pub service: String,
    /// In words.
    pub service_words: String,
    /// Mean service time, ms.
    pub service_mean_ms: f64,
    /// Queue limit (waiting requests), `None` = off.
    pub limit: Option<u32>,
    /// Client timeout, ms.
    pub client_timeout_ms: u32,
    /// Seconds per rate.
    pub seconds: f64,
    /// First seed.
    pub seed: u32,
    /// One result per offered rate, in the order given.
    pub rates: Vec<RateResult>,
    /// The chosen rate's latency histogram.
    pub at: Histogram,
}

/// Histogram buckets.
const BUCKETS: usize = 40;

pub(super) fn check(p: &LessonParams) -> Result<(Estimate, u64), ConfigError> {
    let mut e = Estimate::default();
    let window_ms = (p.seconds * 1000.0).min(f64::from(u32::MAX));
    if window_ms < 1.0 {
        let s = crate::params::SECONDS;
        return Err(ConfigError::OutOfRange {
            param: s.name,
            value: p.seconds.to_string(),
            accepted: format!("{} (at least 0.001 s)", s.accepted()),
        });
    }
    // Every (rate, replica), the chosen rate's run, and one deterministic run per rate (and the chosen one).
    for &r in &p.rates_rps {
        e.add(poisson_bound(r * p.seconds), u64::from(p.replicas));
        e.add(Curve::flat(r, window_ms as u32).estimate_arrivals(window_ms as u32), 1);
    }
    e.add(poisson_bound(p.at_rate_rps * p.seconds), 1);
    e.add(Curve::flat(p.at_rate_rps, window_ms as u32).estimate_arrivals(window_ms as u32), 1);
    Ok((e, 0))
}

fn server(p: &LessonParams) -> Server {
    Server {
        workers: p.workers,
        line_limit: p.door_limit.waiting(),
        timeout_ms: Some(f64::from(p.client_timeout_ms)),
        ..Server::unbounded(p.workers)
    }
}

/// One stochastic run; an engine refusal (checked up front, so unexpected)
/// gives an empty row rather than a panic.
fn one(p: &LessonParams, svc: ServiceTime, rate: f64, seed: u64) -> (Summary, Vec<f64>) {
    let setup = Setup::poisson(rate, svc, server(p), p.seconds * 1000.0, seed);
    let cap = poisson_bound(rate * p.seconds).saturating_mul(2);
    match setup.run(cap) {
        Ok(run) => {
            let ok: Vec<f64> = run
                .requests
                .iter()
                .filter(|r| r.outcome == Outcome::Ok)
                .filter_map(|r| r.end_ms.map(|e| e - r.arrival_ms))
                .collect();
            (run.summary(rate), ok)
        }
        Err(_) => (Summary::empty(rate), Vec::new()),
    }
}

/// The shortest service time the distribution can draw, ms.
fn fastest_ms(svc: ServiceTime) -> f64 {
    match svc {
        ServiceTime::Fixed { ms } => ms,
        ServiceTime::Mix { base_ms, slow_pct, factor } => {
            if slow_pct >= 100.0 {
                base_ms * factor
            } else {
                base_ms
            }
        }
        _ => 0.0,
    }
}

fn deterministic(p: &LessonParams, svc: ServiceTime, rate: f64) -> AdmissionOutcome {
    let duration_ms = (p.seconds * 1000.0).clamp(1.0, f64::from(u32::MAX)) as u32;
    let service_ms = libm::round(svc.mean_ms() / f64::from(p.workers)).clamp(1.0, f64::from(u32::MAX)) as u32;
    let s = AdmissionSettings { service_ms, deadline_ms: p.client_timeout_ms.max(service_ms), duration_ms };
    let limit = p.door_limit.waiting().map_or(Limit::None, |l| Limit::Finite(l.saturating_add(p.workers).min(i32::MAX as u32)));
    admission::run(&s, &Curve::flat(rate, duration_ms).arrivals(duration_ms), limit)
}

pub(super) fn run(p: &LessonParams, exec: &dyn Exec) -> LessonReport {
    let svc = p.service;
    // The chosen rate first (the page shows it first), then every (rate, replica).
    let (at_row, at_ok) = one(p, svc, p.at_rate_rps, u64::from(p.seed));
    let jobs: Vec<(f64, u64)> =
        p.rates_rps.iter().flat_map(|&r| (0..u64::from(p.replicas)).map(move |k| (r, k))).collect();
    let rows = par_map(exec, &jobs, |&(r, k)| one(p, svc, r, u64::from(p.seed).wrapping_add(k)).0);
    let dets = par_map(exec, &p.rates_rps, |&r| deterministic(p, svc, r));
    let mut rows = rows.into_iter();
    let rates = p
        .rates_rps
        .iter()
        .zip(dets)
        .map(|(&rate, det)| {
            let replicas: Vec<Summary> = rows.by_ref().take(p.replicas as usize).collect();
            RateResult {
                rate_rps: rate,
                ok_per_sec: Interval::of(&replicas.iter().map(|r| r.ok_per_sec).collect::<Vec<_>>())
                    .within(0.0, f64::INFINITY),
                // An answered p99 lies between the fastest service and the client timeout.
                p99_ms: Interval::of(&replicas.iter().filter_map(|r| r.p99_ms).collect::<Vec<_>>())
                    .within(fastest_ms(svc), f64::from(p.client_timeout_ms).max(fastest_ms(svc))),
                replicas,
                deterministic: det,
            }
        })
        .collect();
    let top = at_ok.iter().copied().fold(0.0f64, f64::max);
    let width_ms = if top > 0.0 { libm::ceil(top / BUCKETS as f64).max(1.0) } else { 1.0 };
    let mut counts = vec![0u64; BUCKETS];
    for v in at_ok {
        let i = ((v / width_ms) as usize).min(BUCKETS - 1);
        if let Some(c) = counts.get_mut(i) {
            *c += 1;
        }
    }
    LessonReport {
        rates,
        at: Histogram {
            rate_rps: p.at_rate_rps,
            width_ms,
            counts,
            summary: at_row,
            deterministic: deterministic(p, svc, p.at_rate_rps),
        },
        ..LessonReport::empty(p)
    }
}

impl LessonReport {
    fn empty(p: &LessonParams) -> Self {
        let svc = p.service;
        LessonReport {
            workers: p.workers,
            service: svc.to_string(),
            service_words: svc.describe(),
            service_mean_ms: svc.mean_ms(),
            limit: p.door_limit.waiting(),
            client_timeout_ms: p.client_timeout_ms,
            seconds: p.seconds,
            seed: p.seed,
            rates: Vec::new(),
            at: Histogram {
                rate_rps: p.at_rate_rps,
                width_ms: 1.0,
                counts: Vec::new(),
                summary: Summary::empty(p.at_rate_rps),
                deterministic: deterministic(p, svc, 0.0),
            },
        }
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(String::new, |x| crate::numerics::format_fixed(x, 1))
}

impl super::Rows for LessonReport {
    fn tallies(&self) -> Vec<RunTally> {
        self.rates
            .iter()
            .flat_map(|r| &r.replicas)
            .chain([&self.at.summary])
            .map(|s| RunTally {
                label: format!("lesson {} rps", s.offered_rps),
                arrivals: s.sent,
                goodput: s.ok,
                late: s.gaveup,
                refused: s.refused,
                unresolved: s.error,
                pcts: Vec::new(),
                quantiles: s.p50_ms.zip(s.p99_ms).map(|(a, b)| (libm::round(a) as u64, libm::round(b) as u64)),
            })
            .collect()
    }

    fn tables(&self) -> Vec<Table> {
        let mut sweep = Table::new(&TABLES[0]);
        for r in &self.rates {
            if let Some(s) = r.replicas.first() {
                sweep.rows.push(
                    Row::new()
                        .text(crate::calc::fmt_num(s.offered_rps))
                        .int(s.sent)
                        .int(s.ok)
                        .int(s.refused)
                        .int(s.gaveup)
                        .int(s.error)
                        .f1(s.ok_per_sec)
                        .text(opt(s.p50_ms))
                        .text(opt(s.p99_ms))
                        .int(s.done)
                        .int(s.lost)
                        .int(s.queued)
                        .text(opt(s.mean_ms))
                        .done(),
                );
            }
        }
        let mut reps = Table::new(&TABLES[1]);
        for r in &self.rates {
            reps.rows.push(
                Row::new()
                    .text(crate::calc::fmt_num(r.rate_rps))
                    .int(r.replicas.len())
                    .f1(r.ok_per_sec.mean)
                    .f1(r.ok_per_sec.lo)
                    .f1(r.ok_per_sec.hi)
                    .f1(r.p99_ms.mean)
                    .f1(r.p99_ms.lo)
                    .f1(r.p99_ms.hi)
                    .f1(r.deterministic.goodput_rps)
                    .ms(r.deterministic.p99_ms)
                    .done(),
            );
        }
        let mut hist = Table::new(&TABLES[2]);
        for (i, c) in self.at.counts.iter().enumerate() {
            let from = i as f64 * self.at.width_ms;
            hist.rows.push(
                Row::new()
                    .text(crate::calc::fmt_num(from))
                    .text(crate::calc::fmt_num(from + self.at.width_ms))
                    .int(c)
                    .done(),
            );
        }
        vec![sweep, reps, hist]
    }
}
