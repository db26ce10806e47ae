//! The estimators: the low-load sample, saturation, capacity, workers,
//! service distribution and queue limit; then the engine at each load.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::error::FitError;
use super::level::{Level, Tool};
use super::limit::queue_limit;
use super::model::{self, Arrivals, Server};
use super::report::{Fit, LowLoad, Point, Reason, Row};
use super::service::{Sample, choose};

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

/// Slack for rounded times, ms.
const ROUNDING_MS: f64 = 1.0;

/// Answered requests sent while no other request of the file was in
/// flight (as the client saw it), ms: they met an idle server.
/// An answer ending within [`ROUNDING_MS`] after a send counts as before it
/// (tools round their times: hey to 0.1 ms).
pub(super) fn alone(level: &Level) -> Vec<f64> {
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
/// Also the indices in `levels` of the loads the sample came from.
fn low_load(levels: &[Level]) -> Result<(Sample, LowLoad, Vec<usize>), FitError> {
    let mut times = Vec::new();
    let mut files: Vec<String> = Vec::new();
    let mut from = Vec::new();
    // The lowest loads first, until the sample is large enough: at a high
    // load a request alone at the client can still meet a busy server.
    let mut by_load: Vec<(usize, &Level)> = levels.iter().enumerate().filter(|(_, l)| !l.requests.is_empty()).collect();
    by_load.sort_by(|a, b| a.1.sent_per_sec().total_cmp(&b.1.sent_per_sec()));
    for (i, l) in by_load {
        if times.len() >= MIN_LOW_LOAD {
            break;
        }
        let got = if l.coarse_starts {
            let one_caller = l.mean_ms.is_some_and(|m| (l.ok_per_sec() * m / 1000.0).round() <= 1.0);
            if one_caller { l.requests.iter().filter(|r| r.ok()).map(|r| r.latency_ms).collect() } else { Vec::new() }
        } else {
            alone(l)
        };
        if !got.is_empty() {
            from.push(i);
            if !files.contains(&l.file) {
                files.push(l.file.clone());
            }
        }
        times.extend(got);
    }
    times.sort_by(f64::total_cmp);
    if times.len() >= MIN_LOW_LOAD {
        let s = Sample::Times(times);
        let (mean, p50) = (s.mean().unwrap_or(0.0), s.quantile(0.5).unwrap_or(0.0));
        let requests = s.len();
        return Ok((s, LowLoad { files, requests, mean_ms: mean, p50_ms: p50 }, from));
    }
    // The lowest load (a percentile table without counts, `ab -e`, first).
    let table = levels
        .iter()
        .enumerate()
        .filter(|(_, l)| l.requests.is_empty() && l.p50_ms.is_some())
        .min_by(|a, b| a.1.sent_per_sec().total_cmp(&b.1.sent_per_sec()));
    if let Some((i, l)) = table {
        let points = if l.percentiles.is_empty() || (l.percentiles_include_refused && l.refused > 0) {
            [(0.5, l.p50_ms), (0.99, l.p99_ms)].into_iter().filter_map(|(p, v)| v.map(|v| (p, v))).collect()
        } else {
            l.percentiles.clone()
        };
        let s = Sample::Table { points, mean_ms: l.mean_ms };
        let (mean, p50) = (s.mean().unwrap_or(0.0), s.quantile(0.5).unwrap_or(0.0));
        return Ok((s, LowLoad { files: vec![l.file.clone()], requests: 0, mean_ms: mean, p50_ms: p50 }, vec![i]));
    }
    let most = levels.iter().max_by_key(|l| l.requests.len()).map_or(String::new(), |l| l.file.clone());
    Err(FitError::TooFew {
        file: most,
        have: times.len() as u64,
        need: MIN_LOW_LOAD as u64,
        what: "answered requests sent while no other was in flight (run one caller, or a low rate, longer)",
    })
}

/// The model's error relative to the measurement (1 when only the
/// measurement is zero, 0 when both are).
pub(super) fn rel(model: f64, measured: f64) -> f64 {
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
    let (sample, low, from) = low_load(&levels)?;
    let mut reasons = Vec::new();
    let saturated: Vec<bool> = levels
        .iter()
        .map(|l| l.has_counts() && (l.refused > 0 || l.p50_ms.is_some_and(|p| p >= SATURATED_P50 * low.p50_ms)))
        .collect();
    // Every load the low-load sample came from saturated: its times include queueing.
    if let Some(&first) = from.first()
        && from.iter().all(|&i| saturated[i])
    {
        reasons.push(Reason::LowLoadSaturated { file: levels[first].file.clone(), index: levels[first].index });
    }
    // The client fell behind while it measured the sample: its own delay is in it.
    for &i in &from {
        if let Some(lag) = levels[i].client_lag_p99_ms {
            let (file, index) = (levels[i].file.clone(), levels[i].index);
            reasons.push(Reason::LowLoadClientBehind { file, index, send_lag_p99_ms: lag });
        }
    }
    let capacity = levels.iter().zip(&saturated).filter(|(_, s)| **s).map(|(l, _)| l.ok_per_sec()).reduce(f64::max);
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
