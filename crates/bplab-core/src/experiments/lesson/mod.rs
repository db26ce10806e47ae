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
pub(super) mod plots;
mod stats;

use serde::Serialize;

use super::{ChartSpec, Estimate, Exec, Experiment, ExperimentId, RunTally, par_map, poisson_bound};
use crate::arrivals::Curve;
use crate::error::ConfigError;
use crate::models::admission::{self, AdmissionOutcome, AdmissionSettings, Limit};
use crate::params::QueueLimit;
use crate::stochastic::{Server, ServiceTime, Setup, Summary};
use crate::table::{Row, Table, TableSpec};
pub use params::{LESSON_QUEUE_LIMIT, LessonParams};
pub use stats::{Interval, Latencies};

/// The registry entry.
pub(super) const DEF: Experiment = Experiment {
    id: ExperimentId::Lesson,
    name: "lesson",
    title: "Random arrivals",
    post: "Course lesson: Ship a number you measured",
    dir: "lesson",
    lesson: "Below capacity evenly spaced arrivals never wait; random arrivals at the same rate can, and their latency has a tail.",
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
    ChartSpec { file: "lesson-latency.png", title: "Latency at the chosen rate: random arrivals vs evenly spaced" },
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

/// One stochastic run, summarised as it goes (its memory is the requests
/// in flight, not one per request); `latencies` gets the answers'. An
/// engine refusal (checked up front, so unexpected) gives an empty row
/// and no latencies rather than a panic.
fn one(p: &LessonParams, svc: ServiceTime, rate: f64, seed: u64, latencies: Option<&mut Latencies>) -> Summary {
    let setup = Setup::poisson(rate, svc, server(p), p.seconds * 1000.0, seed);
    let cap = poisson_bound(rate * p.seconds).saturating_mul(2);
    let mut kept = Latencies::default();
    let keep = latencies.is_some();
    let row = setup.summarise(cap, rate, |v| {
        if keep {
            kept.add(v);
        }
    });
    match row {
        Ok(row) => {
            if let Some(l) = latencies {
                *l = kept;
            }
            row
        }
        Err(_) => Summary::empty(rate),
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

/// The longest time in the system the model allows an answered request:
/// the client timeout, and with a bounded service and a queue limit `q`
/// also `(ceil(q / workers) + 1)` slowest services (at most `ceil(q /
/// workers)` services ahead of it on each worker, then its own).
fn longest_ms(p: &LessonParams, svc: ServiceTime) -> f64 {
    let timeout = f64::from(p.client_timeout_ms);
    let slowest = match svc {
        ServiceTime::Fixed { ms } => ms,
        ServiceTime::Mix { base_ms, slow_pct, factor } if slow_pct > 0.0 => base_ms * factor.max(1.0),
        ServiceTime::Mix { base_ms, .. } => base_ms,
        _ => return timeout,
    };
    match p.door_limit {
        QueueLimit::N(q) => {
            let rounds = f64::from(q.div_ceil(p.workers.max(1)));
            timeout.min((rounds + 1.0) * slowest)
        }
        QueueLimit::Off => timeout,
    }
}

fn deterministic(p: &LessonParams, svc: ServiceTime, rate: f64) -> AdmissionOutcome {
    let duration_ms = (p.seconds * 1000.0).clamp(1.0, f64::from(u32::MAX)) as u32;
    let service_ms = libm::round(svc.mean_ms() / f64::from(p.workers)).clamp(1.0, f64::from(u32::MAX)) as u32;
    let s = AdmissionSettings { service_ms, deadline_ms: p.client_timeout_ms.max(service_ms), duration_ms };
    let limit =
        p.door_limit.waiting().map_or(Limit::None, |l| Limit::Finite(l.saturating_add(p.workers).min(i32::MAX as u32)));
    admission_flat(&s, rate, limit)
}

/// `admission::run(s, &Curve::flat(rate, d).arrivals(d), limit)` with
/// `d = s.duration_ms`, to the bit, without the list of arrivals: they are
/// made as the pass reaches them (`t = 0; t += 1000 / rate` while `t < d`,
/// the flat curve's one tile), so a long window costs no memory. The pass
/// is `admission::run`'s own (`run_iter`; a test holds the two equal).
fn admission_flat(s: &AdmissionSettings, rate_rps: f64, limit: Limit) -> AdmissionOutcome {
    let duration_ms = s.duration_ms.max(1);
    let end = f64::from(duration_ms);
    let gap = 1000.0 / rate_rps;
    let mut t = 0.0;
    let arrivals = std::iter::from_fn(|| {
        (rate_rps > 0.0 && t < end).then(|| {
            let now = t;
            t += gap;
            now
        })
    });
    admission::run_iter(s, arrivals, limit, &mut |_| {})
}

pub(super) fn run(p: &LessonParams, exec: &dyn Exec) -> LessonReport {
    let svc = p.service;
    // The chosen rate first (the page shows it first), then every (rate, replica).
    let mut at_latencies = Latencies::default();
    let at_row = one(p, svc, p.at_rate_rps, u64::from(p.seed), Some(&mut at_latencies));
    let jobs: Vec<(f64, u64)> =
        p.rates_rps.iter().flat_map(|&r| (0..u64::from(p.replicas)).map(move |k| (r, k))).collect();
    let rows = par_map(exec, &jobs, |&(r, k)| one(p, svc, r, u64::from(p.seed).wrapping_add(k), None));
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
                // An answered p99 lies between the fastest service and the longest
                // time the model allows: the client timeout, or the line's worst time.
                p99_ms: Interval::of(&replicas.iter().filter_map(|r| r.p99_ms).collect::<Vec<_>>())
                    .within(fastest_ms(svc), longest_ms(p, svc).max(fastest_ms(svc))),
                replicas,
                deterministic: det,
            }
        })
        .collect();
    let (width_ms, counts) = at_latencies.buckets(BUCKETS);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::admission;
    use crate::stochastic::{Abandon, Outcome};

    #[test]
    fn the_deterministic_pass_without_its_list_is_admission_run() {
        for (rate, service_ms, deadline_ms, duration_ms, limit) in [
            (80.0, 10, 2000, 62_500, Limit::None),
            (60.0, 21, 2000, 20_000, Limit::Finite(11)),
            (33.3, 40, 100, 7_777, Limit::Finite(2)),
            (1000.0, 3, 5, 1_000, Limit::Finite(1)),
            (0.7, 1, 1, 1, Limit::None),
            (0.0, 21, 2000, 20_000, Limit::None),
        ] {
            let s = AdmissionSettings { service_ms, deadline_ms, duration_ms };
            let list = Curve::flat(rate, duration_ms).arrivals(duration_ms);
            assert_eq!(admission_flat(&s, rate, limit), admission::run(&s, &list, limit), "{rate} rps, {s:?}");
        }
    }

    /// explanations-2 T1: with fixed service and a queue limit no answer takes
    /// longer than `(ceil(q / workers) + 1)` services, so the p99's interval
    /// may not reach past it (at the defaults: 11 × 21 = 231 ms, not 252.8).
    #[test]
    fn the_p99_interval_stays_within_the_longest_time_the_model_allows() {
        let base = LessonParams::default();
        let worst = |p: &LessonParams| match (p.service, p.door_limit) {
            (ServiceTime::Fixed { ms }, QueueLimit::N(q)) => {
                (f64::from(q.div_ceil(p.workers)) + 1.0) * ms
            }
            _ => f64::from(p.client_timeout_ms),
        };
        for (workers, limit) in [(base.workers, base.door_limit), (2, QueueLimit::N(5)), (1, QueueLimit::N(0))] {
            let p = LessonParams { workers, door_limit: limit, ..base.clone() };
            let bound = worst(&p).min(f64::from(p.client_timeout_ms));
            for r in run(&p, &crate::experiments::exec::Sequential).rates {
                let i = r.p99_ms;
                assert!(i.hi <= bound + 1e-9, "{workers} workers, {limit:?}, {} rps: hi {} > {bound}", r.rate_rps, i.hi);
                assert!(i.lo <= i.hi, "{i:?}");
            }
        }
    }

    /// The row and the latencies the old way: every request kept, then summarised.
    fn kept(p: &LessonParams, rate: f64, seed: u64) -> (Summary, Vec<f64>) {
        let setup = Setup::poisson(rate, p.service, server(p), p.seconds * 1000.0, seed);
        let run = setup.run(poisson_bound(rate * p.seconds).saturating_mul(2)).unwrap();
        let ok =
            run.requests.iter().filter(|r| r.outcome == Outcome::Ok).filter_map(|r| r.end_ms.map(|e| e - r.arrival_ms));
        (run.summary(rate), ok.collect())
    }

    #[test]
    fn a_summarised_run_gives_the_kept_runs_row_and_histogram() {
        let base = LessonParams::default();
        let cases = [
            ("fixed:21", 1, Some(10), 40.0),
            ("fixed:21", 1, None, 60.0),
            ("fixed:21", 2, Some(3), 120.0),
            ("exp:20", 2, None, 80.0),
            ("exp:20", 2, None, 130.0),
            ("lognormal:p50=20,p99=60", 4, Some(10), 150.0),
            ("mix:20,5%x10", 1, Some(0), 45.0),
        ];
        for (service, workers, limit, rate) in cases {
            let p = LessonParams {
                service: service.parse().unwrap(),
                workers,
                door_limit: limit.map_or(QueueLimit::Off, QueueLimit::N),
                seconds: 30.0,
                client_timeout_ms: 500,
                ..base.clone()
            };
            assert_eq!(server(&p).abandon, Abandon::Served);
            let (row, ok) = kept(&p, rate, 7);
            let mut lat = Latencies::default();
            assert_eq!(one(&p, p.service, rate, 7, Some(&mut lat)), row, "{service} {workers} w {limit:?} {rate} rps");
            // The old histogram: width from the largest latency, then each one divided.
            let top = ok.iter().copied().fold(0.0f64, f64::max);
            let width = if top > 0.0 { libm::ceil(top / BUCKETS as f64).max(1.0) } else { 1.0 };
            let mut counts = vec![0u64; BUCKETS];
            ok.iter().for_each(|&v| counts[((v / width) as usize).min(BUCKETS - 1)] += 1);
            assert_eq!(lat.buckets(BUCKETS), (width, counts), "{service} {rate} rps");
            // One count per whole ms up to the largest answer, which the timeout bounds.
            assert!(lat.cells() <= p.client_timeout_ms as usize + 1 && lat.top_ms() == top, "{}", lat.cells());
        }
    }
}
