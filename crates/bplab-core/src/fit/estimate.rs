//! The estimators: the low-load sample, saturation, capacity, workers,
//! service distribution and queue limit; then the engine at each load.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

use super::error::FitError;
use super::level::{Level, Tool};
use super::model::{self, Arrivals, Server};
use super::service::{Choice, Sample, choose};
use crate::stochastic::ServiceTime;

/// Low-load requests the service distribution needs.
pub const MIN_LOW_LOAD: usize = 30;
/// Most requests the fit reads and simulates in all.
pub const MAX_REQUESTS: u64 = 2_000_000;
/// A level is saturated when its median latency is at least this many
/// times the low-load median (or it saw refusals).
pub const SATURATED_P50: f64 = 1.5;
/// Model beside measurement: the largest relative error on answers/s …
pub const OK_TOLERANCE: f64 = 0.10;
/// … and on the p99, for the fit to call a load well described.
pub const P99_TOLERANCE: f64 = 0.20;
/// Answers below which a level's p99 is the largest of a few values.
pub const FEW_FOR_P99: u64 = 100;

/// Measured or modelled figures of one load.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    /// Answers per second.
    pub ok_per_sec: f64,
    /// Median latency of the answers, ms.
    pub p50_ms: Option<f64>,
    /// 99th percentile, ms.
    pub p99_ms: Option<f64>,
}

/// Model beside measurement at one load.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The file.
    pub file: String,
    /// The level's index in its file.
    pub index: usize,
    /// The tool.
    pub tool: Tool,
    /// Requests sent per second (measured).
    pub sent_rps: f64,
    /// Offered rate when the tool states one.
    pub offered_rps: Option<f64>,
    /// Whether it counts as saturated.
    pub saturated: bool,
    /// Measured.
    pub measured: Point,
    /// The engine's.
    pub model: Point,
    /// How the model's arrivals were made.
    pub arrivals: Arrivals,
    /// `(model − measured) / measured` of answers/s.
    pub ok_error: f64,
    /// Same for the median (`None` when either is missing).
    pub p50_error: Option<f64>,
    /// Same for the p99.
    pub p99_error: Option<f64>,
    /// Within [`OK_TOLERANCE`] and [`P99_TOLERANCE`].
    pub within: bool,
}

/// Why the fit is poor (or only approximate) somewhere: typed, so the one
/// place that words them ([`super::explain`]) can.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Reason {
    /// No load was saturated: the capacity and workers are not measured.
    NotSaturated,
    /// Latency grew with the rate before saturation: the model (one queue
    /// in front of identical workers) answers faster than measured.
    LatencyGrowsBeforeSaturation {
        /// File and level.
        file: String,
        /// Index in the file.
        index: usize,
        /// Measured median, ms.
        measured_p50_ms: f64,
        /// Model median, ms.
        model_p50_ms: f64,
    },
    /// No candidate distribution meets the tolerance at every checked quantile.
    ApproximateDistribution {
        /// The chosen one's largest relative error.
        max_error: f64,
        /// Where.
        at_p: f64,
    },
    /// A file records no status, so refusals cannot be told from answers.
    NoStatus {
        /// The file.
        file: String,
    },
    /// Answers per second off by more than the tolerance.
    OkRate {
        /// File.
        file: String,
        /// Index in the file.
        index: usize,
        /// Relative error.
        error: f64,
    },
    /// p99 off by more than the tolerance.
    P99 {
        /// File.
        file: String,
        /// Index in the file.
        index: usize,
        /// Relative error.
        error: f64,
        /// Answers the measured p99 is over.
        answers: u64,
    },
    /// capacity × low-load latency is far from a whole number of workers.
    WorkersNotWhole {
        /// The estimate before rounding.
        estimate: f64,
    },
    /// The file has no send times and its callers waited for answers: the
    /// model sends Poisson at the measured rate instead.
    ClosedLoopAsPoisson {
        /// File.
        file: String,
    },
}

/// What the low-load sample was.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LowLoad {
    /// Files it came from.
    pub files: Vec<String>,
    /// Requests in it (0: a percentile table).
    pub requests: usize,
    /// Mean latency, ms.
    pub mean_ms: f64,
    /// Median latency, ms.
    pub p50_ms: f64,
}

/// The fitted server and the model beside the measurement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// Effective workers: `round(capacity × low-load mean latency / 1000)`, at least 1.
    pub workers: u32,
    /// Mean time a request holds a worker, ms: `workers × 1000 / capacity`
    /// (the low-load mean when no load was saturated).
    pub mean_service_ms: f64,
    /// Sustained answers per second at saturation (the most over the
    /// saturated loads); `None` when none was saturated.
    pub capacity_rps: Option<f64>,
    /// Requests allowed to wait, when refusals were seen.
    pub queue_limit: Option<u32>,
    /// How it was found.
    pub limit_method: Option<LimitMethod>,
    /// The chosen distribution, in the `--service` grammar.
    #[serde(serialize_with = "as_text")]
    pub service: ServiceTime,
    /// Latency outside the server, ms: low-load mean less the service mean.
    pub overhead_ms: f64,
    /// Workers before rounding.
    pub workers_estimate: f64,
    /// The low-load sample.
    pub low_load: LowLoad,
    /// How the distribution was chosen.
    pub choice: Choice,
    /// Model beside measurement, one per load with counts.
    pub rows: Vec<Row>,
    /// Where the fit is poor, and why.
    pub reasons: Vec<Reason>,
    /// The engine's seed.
    pub seed: u64,
    /// The loads read (without their per-request lists).
    #[serde(skip)]
    pub levels: Vec<Level>,
}

fn as_text<S: serde::Serializer>(s: &ServiceTime, ser: S) -> Result<S::Ok, S::Error> {
    ser.collect_str(s)
}

/// Slack for rounded times, ms.
const ROUNDING_MS: f64 = 1.0;

/// Answered requests sent while no other request of the file was in
/// flight (as the client saw it), ms: they met an idle server.
/// An answer ending within [`ROUNDING_MS`] after a send counts as before it
/// (tools round their times: hey to 0.1 ms).
fn alone(level: &Level) -> Vec<f64> {
    let mut ends: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
    let mut out = Vec::new();
    for r in &level.requests {
        let start = ((r.start_ms + ROUNDING_MS) * 1e6) as u64;
        while ends.peek().is_some_and(|Reverse(e)| *e <= start) {
            ends.pop();
        }
        if ends.is_empty() && r.ok() {
            out.push(r.latency_ms);
        }
        ends.push(Reverse(((r.start_ms + r.latency_ms) * 1e6) as u64));
    }
    out
}

/// The low-load sample: the alone requests of the per-request files (all
/// requests of an `ab -g` file whose callers were one), else the
/// percentile table of the load with the lowest median.
fn low_load(levels: &[Level]) -> Result<(Sample, LowLoad), FitError> {
    let mut times = Vec::new();
    let mut files: Vec<String> = Vec::new();
    // The lowest loads first, until the sample is large enough: at a high
    // load a request alone at the client can still meet a busy server.
    let mut by_load: Vec<&Level> = levels.iter().filter(|l| !l.requests.is_empty()).collect();
    by_load.sort_by(|a, b| a.sent_per_sec().total_cmp(&b.sent_per_sec()));
    for l in by_load {
        if times.len() >= MIN_LOW_LOAD {
            break;
        }
        let got = if l.coarse_starts {
            let one_caller = l.mean_ms.is_some_and(|m| (l.ok_per_sec() * m / 1000.0).round() <= 1.0);
            if one_caller { l.requests.iter().filter(|r| r.ok()).map(|r| r.latency_ms).collect() } else { Vec::new() }
        } else {
            alone(l)
        };
        if !got.is_empty() && !files.contains(&l.file) {
            files.push(l.file.clone());
        }
        times.extend(got);
    }
    times.sort_by(f64::total_cmp);
    if times.len() >= MIN_LOW_LOAD {
        let s = Sample::Times(times);
        let (mean, p50) = (s.mean().unwrap_or(0.0), s.quantile(0.5).unwrap_or(0.0));
        let requests = s.len();
        return Ok((s, LowLoad { files, requests, mean_ms: mean, p50_ms: p50 }));
    }
    // The lowest load (a percentile table without counts, `ab -e`, first).
    let table = levels
        .iter()
        .filter(|l| l.requests.is_empty() && l.p50_ms.is_some())
        .min_by(|a, b| a.sent_per_sec().total_cmp(&b.sent_per_sec()));
    if let Some(l) = table {
        let points = if l.percentiles.is_empty() || (l.percentiles_include_refused && l.refused > 0) {
            [(0.5, l.p50_ms), (0.99, l.p99_ms)].into_iter().filter_map(|(p, v)| v.map(|v| (p, v))).collect()
        } else {
            l.percentiles.clone()
        };
        let s = Sample::Table { points, mean_ms: l.mean_ms };
        let (mean, p50) = (s.mean().unwrap_or(0.0), s.quantile(0.5).unwrap_or(0.0));
        return Ok((s, LowLoad { files: vec![l.file.clone()], requests: 0, mean_ms: mean, p50_ms: p50 }));
    }
    let most = levels.iter().max_by_key(|l| l.requests.len()).map_or(String::new(), |l| l.file.clone());
    Err(FitError::TooFew {
        file: most,
        have: times.len() as u64,
        need: MIN_LOW_LOAD as u64,
        what: "answered requests sent while no other was in flight (run one caller, or a low rate, longer)",
    })
}

/// The most common count of answered requests in flight (client view) at
/// each refusal of a per-request level: the server was full then.
fn full_at_refusals(level: &Level) -> Option<u64> {
    let ok: Vec<(f64, f64)> =
        level.requests.iter().filter(|r| r.ok()).map(|r| (r.start_ms, r.start_ms + r.latency_ms)).collect();
    let mut counts: Vec<u64> = level
        .requests
        .iter()
        .filter(|r| r.refused())
        .map(|r| ok.iter().filter(|(s, e)| *s < r.start_ms && *e > r.start_ms).count() as u64)
        .collect();
    counts.sort_unstable();
    let mut best: Option<(u64, usize)> = None;
    for chunk in counts.chunk_by(|a, b| a == b) {
        if best.is_none_or(|(_, n)| chunk.len() > n) {
            best = Some((chunk[0], chunk.len()));
        }
    }
    best.map(|b| b.0)
}

/// How the queue limit was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LimitMethod {
    /// The most common count of answered requests in flight at a refusal,
    /// less the workers (per-request files with statuses).
    InFlightAtRefusals,
    /// The server's own peak line at a load with refusals (`bplab load`'s `queued`).
    PeakLine,
    /// The limit whose engine run gives the measured median at the load
    /// with the most refusals (aggregates only, e.g. Locust): approximate.
    Calibrated,
}

fn queue_limit(levels: &[Level], saturated: &[bool], server: &Server) -> Option<(u32, LimitMethod)> {
    let w = u64::from(server.workers);
    let per_request = levels.iter().filter(|l| !l.coarse_starts && l.refused > 0 && !l.requests.is_empty());
    if let Some(full) = per_request.filter_map(full_at_refusals).max() {
        return Some((u32::try_from(full.saturating_sub(w)).ok()?, LimitMethod::InFlightAtRefusals));
    }
    if let Some(q) = levels.iter().filter(|l| l.refused > 0).filter_map(|l| l.peak_queue).max() {
        return Some((u32::try_from(q).ok()?, LimitMethod::PeakLine));
    }
    calibrated_limit(levels, saturated, server).map(|q| (q, LimitMethod::Calibrated))
}

/// Most limits [`calibrated_limit`] tries.
const MAX_CALIBRATED_LIMIT: u32 = 256;

/// Aggregates only (Locust): the limit whose engine run at the load with
/// the most refusals gives the median answered latency nearest the
/// measured one (the smaller on a tie): the line's length sets the wait.
fn calibrated_limit(levels: &[Level], saturated: &[bool], server: &Server) -> Option<u32> {
    let l =
        levels.iter().zip(saturated).filter(|(l, s)| **s && l.refused > 0).map(|x| x.0).max_by_key(|l| l.refused)?;
    let want = l.p50_ms?;
    // Past the limit at which the wait alone is twice the measured median, longer lines only wait longer.
    let top = ((2.0 * want / server.service.mean_ms()) * f64::from(server.workers)).ceil();
    // Each try is one engine run of the level: keep their total under the fit's cap.
    let affordable = (MAX_REQUESTS / l.sent.max(1)).saturating_sub(1).min(u64::from(MAX_CALIBRATED_LIMIT)) as u32;
    let top = (top.max(1.0) as u32).min(affordable);
    (0..=top)
        .filter_map(|q| {
            let (s, _) = model::run(l, &Server { queue_limit: Some(q), ..*server })?;
            Some((q, (s.p50_ms? - want).abs()))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|x| x.0)
}

fn rel(model: f64, measured: f64) -> f64 {
    if measured > 0.0 {
        (model - measured) / measured
    } else if model > 0.0 {
        1.0
    } else {
        0.0
    }
}

/// Fits the engine's server to `levels` (from [`super::read`], any number
/// of files) and runs the engine at each load with `seed`.
pub fn fit(levels: Vec<Level>, seed: u64) -> Result<Fit, FitError> {
    if levels.is_empty() {
        return Err(FitError::NoData);
    }
    let total: u64 = levels.iter().map(|l| l.sent.max(l.requests.len() as u64)).sum();
    if total > MAX_REQUESTS {
        return Err(FitError::TooLarge { requests: total, cap: MAX_REQUESTS });
    }
    let (sample, low) = low_load(&levels)?;
    let saturated: Vec<bool> = levels
        .iter()
        .map(|l| l.has_counts() && (l.refused > 0 || l.p50_ms.is_some_and(|p| p >= SATURATED_P50 * low.p50_ms)))
        .collect();
    let capacity = levels.iter().zip(&saturated).filter(|(_, s)| **s).map(|(l, _)| l.ok_per_sec()).reduce(f64::max);
    let mut reasons = Vec::new();
    let (workers, estimate, mean_service) = match capacity {
        Some(c) if c > 0.0 => {
            let x = c * low.mean_ms / 1000.0;
            let w = x.round().clamp(1.0, f64::from(crate::stochastic::MAX_WORKERS)) as u32;
            if (x - x.round()).abs() > 0.35 {
                reasons.push(Reason::WorkersNotWhole { estimate: x });
            }
            (w, x, (f64::from(w) * 1000.0 / c).min(low.mean_ms))
        }
        _ => {
            reasons.push(Reason::NotSaturated);
            let busy = levels.iter().map(|l| l.ok_per_sec() * low.mean_ms / 1000.0).fold(0.0, f64::max);
            (busy.ceil().max(1.0) as u32, busy, low.mean_ms)
        }
    };
    let overhead = (low.mean_ms - mean_service).max(0.0);
    let choice = choose(&sample.shifted(overhead), mean_service).ok_or_else(|| FitError::TooFew {
        file: low.files.first().cloned().unwrap_or_default(),
        have: 0,
        need: MIN_LOW_LOAD as u64,
        what: "usable low-load latencies",
    })?;
    if !choice.within_tolerance {
        let c = &choice.candidates[choice.chosen];
        reasons.push(Reason::ApproximateDistribution { max_error: c.max_error, at_p: c.worst_p });
    }
    let refusals_seen = levels.iter().any(|l| l.refused > 0);
    let server = Server { service: choice.service(), workers, queue_limit: None, overhead_ms: overhead, seed };
    let found = if refusals_seen { queue_limit(&levels, &saturated, &server) } else { None };
    let (queue_limit, limit_method) = (found.map(|x| x.0), found.map(|x| x.1));
    for l in levels.iter().filter(|l| l.tool == Tool::AbGnuplot) {
        if !reasons.contains(&Reason::NoStatus { file: l.file.clone() }) {
            reasons.push(Reason::NoStatus { file: l.file.clone() });
        }
    }
    let server = Server { queue_limit, ..server };
    let mut rows = Vec::new();
    for (l, &sat) in levels.iter().zip(&saturated) {
        let Some((s, arrivals)) = model::run(l, &server) else { continue };
        let measured = Point { ok_per_sec: l.ok_per_sec(), p50_ms: l.p50_ms, p99_ms: l.p99_ms };
        let model = Point { ok_per_sec: s.ok_per_sec, p50_ms: s.p50_ms, p99_ms: s.p99_ms };
        let both = |m: Option<f64>, x: Option<f64>| m.zip(x).map(|(m, x)| rel(m, x));
        let row = Row {
            file: l.file.clone(),
            index: l.index,
            tool: l.tool,
            sent_rps: l.sent_per_sec(),
            offered_rps: l.offered_rps,
            saturated: sat,
            measured,
            model,
            arrivals,
            ok_error: rel(model.ok_per_sec, measured.ok_per_sec),
            p50_error: both(model.p50_ms, measured.p50_ms),
            p99_error: both(model.p99_ms, measured.p99_ms),
            within: false,
        };
        let ok_fine = row.ok_error.abs() <= OK_TOLERANCE;
        let p99_fine = row.p99_error.is_none_or(|e| e.abs() <= P99_TOLERANCE);
        let row = Row { within: ok_fine && p99_fine, ..row };
        if !ok_fine {
            reasons.push(Reason::OkRate { file: l.file.clone(), index: l.index, error: row.ok_error });
        }
        if !p99_fine {
            let error = row.p99_error.unwrap_or(0.0);
            reasons.push(Reason::P99 { file: l.file.clone(), index: l.index, error, answers: l.ok });
            if let (false, Some(mp), Some(xp)) = (sat, model.p50_ms, measured.p50_ms)
                && xp > 1.2 * mp
            {
                reasons.push(Reason::LatencyGrowsBeforeSaturation {
                    file: l.file.clone(),
                    index: l.index,
                    measured_p50_ms: xp,
                    model_p50_ms: mp,
                });
            }
        }
        if !row.within && matches!(arrivals, Arrivals::Poisson { .. }) && l.closed_loop() {
            let r = Reason::ClosedLoopAsPoisson { file: l.file.clone() };
            if !reasons.contains(&r) {
                reasons.push(r);
            }
        }
        rows.push(row);
    }
    Ok(Fit {
        workers,
        mean_service_ms: mean_service,
        capacity_rps: capacity,
        queue_limit,
        limit_method,
        service: choice.service(),
        overhead_ms: overhead,
        workers_estimate: estimate,
        low_load: low,
        choice,
        rows,
        reasons,
        seed,
        levels,
    })
}

impl Fit {
    /// Whether every load's model is within the tolerances and nothing else
    /// makes the fit poor (an approximate distribution alone does not).
    pub fn good(&self) -> bool {
        self.rows.iter().all(|r| r.within)
            && !self.reasons.iter().any(|r| matches!(r, Reason::NotSaturated | Reason::WorkersNotWhole { .. }))
    }
}
