//! The queue limit, when refusals were seen: counted at the refusals,
//! read off the server's peak line, or calibrated on the engine.

use serde::Serialize;

use super::estimate::MAX_REQUESTS;
use super::level::Level;
use super::model::{self, Server};

/// The most common count of answered requests in flight (client view) at
/// each refusal of a per-request level: the server was full then.
fn full_at_refusals(level: &Level) -> Option<u64> {
    // In flight at t: answered requests started before t less those ended
    // by t, from the sorted starts and ends (n log n, not n × refusals).
    let mut starts: Vec<f64> = level.requests.iter().filter(|r| r.ok()).map(|r| r.start_ms).collect();
    let mut ends: Vec<f64> = level.requests.iter().filter(|r| r.ok()).map(|r| r.start_ms + r.latency_ms).collect();
    starts.sort_by(f64::total_cmp);
    ends.sort_by(f64::total_cmp);
    let mut counts: Vec<u64> = level
        .requests
        .iter()
        .filter(|r| r.refused())
        .map(|r| {
            let t = r.start_ms;
            let started = starts.partition_point(|&s| s < t);
            let ended = ends.partition_point(|&e| e <= t);
            started.saturating_sub(ended) as u64
        })
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

pub(crate) fn queue_limit(levels: &[Level], saturated: &[bool], server: &Server) -> Option<(u32, LimitMethod)> {
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
