//! Post 2: a concurrency limit at the door of one FIFO server.
//!
//! One forward pass: an arrival is rejected when the occupancy ahead of it
//! is at least the limit; otherwise it is served FIFO and its sojourn
//! (floored at one service time) is judged against the deadline.

use serde::{Deserialize, Serialize};

use super::{FifoServer, pct};
use crate::numerics::LatencyHistogram;

/// An admission limit: a whole number of requests in the system, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Limit {
    /// Admit while fewer than this many are ahead (>= 1).
    Finite(u32),
    /// No limit (the reference uses the largest i32).
    None,
}

impl Limit {
    /// The occupancy bound the door compares against.
    pub fn bound(self) -> i64 {
        match self {
            Limit::Finite(n) => i64::from(n),
            Limit::None => i64::from(i32::MAX),
        }
    }

    /// The CSV label: the number, or `none`.
    pub fn label(self) -> String {
        match self {
            Limit::Finite(n) => n.to_string(),
            Limit::None => "none".to_owned(),
        }
    }
}

/// Settings of one admission run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct AdmissionSettings {
    /// Fixed service time, ms.
    pub service_ms: u32,
    /// Client deadline, ms.
    pub deadline_ms: u32,
    /// Window the rates are normalised by, ms.
    pub duration_ms: u32,
}

/// What one admission run produced.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct AdmissionOutcome {
    /// The limit applied.
    pub limit: Limit,
    /// Arrivals per second of the window.
    pub offered_rps: f64,
    /// On-time completions per second of the window.
    pub goodput_rps: f64,
    /// Rejected arrivals, % of arrivals.
    pub reject_pct: f64,
    /// Arrivals served after the deadline, % of arrivals.
    pub served_late_pct: f64,
    /// Sojourn p50 of served requests, ms.
    pub p50_ms: u64,
    /// Sojourn p99 of served requests, ms.
    pub p99_ms: u64,
    /// `min(100, 100 · served · S / T)`.
    pub utilization_pct: f64,
    /// Arrivals.
    pub arrivals: u64,
    /// Served within the deadline.
    pub goodput: u64,
    /// Served after the deadline.
    pub late: u64,
    /// Rejected at the door.
    pub rejected: u64,
    /// Longest time in the system of any served request, ms (not in the CSV).
    pub max_sojourn_ms: f64,
}

/// Runs the admission model over `arrivals` (sorted, ms).
pub fn run(s: &AdmissionSettings, arrivals: &[f64], limit: Limit) -> AdmissionOutcome {
    run_logged(s, arrivals, limit, &mut |_| {})
}

/// [`run`], handing every request's record to `log` as the model visits it
/// (the statement checker's evidence; the outcome is the same).
pub fn run_logged(
    s: &AdmissionSettings,
    arrivals: &[f64],
    limit: Limit,
    log: &mut impl FnMut(crate::statement::Req),
) -> AdmissionOutcome {
    use crate::statement::Req;
    let deadline = f64::from(s.deadline_ms);
    let service = f64::from(s.service_ms);
    let bound = limit.bound();
    let mut server = FifoServer::new(s.service_ms, s.deadline_ms);
    let mut hist = LatencyHistogram::new();
    let (mut goodput, mut late, mut rejected) = (0u64, 0u64, 0u64);
    let mut max_sojourn_ms = 0.0f64;
    for &t in arrivals {
        if server.occupancy_ahead(t) >= bound {
            rejected += 1;
            log(Req::refused(t, deadline, 0));
            continue;
        }
        let done = server.serve(t, t);
        log(Req::answered(t, done.start_ms, done.start_ms + service, done.sojourn_ms, deadline));
        hist.record_ms(done.sojourn_ms);
        max_sojourn_ms = max_sojourn_ms.max(done.sojourn_ms);
        if done.on_time {
            goodput += 1;
        } else {
            late += 1;
        }
    }
    let n = arrivals.len() as u64;
    let secs = f64::from(s.duration_ms) / 1000.0;
    let served = goodput + late;
    let utilization =
        if n == 0 { 0.0 } else { (100.0 * served as f64 * service / f64::from(s.duration_ms)).min(100.0) };
    AdmissionOutcome {
        limit,
        offered_rps: n as f64 / secs,
        goodput_rps: goodput as f64 / secs,
        reject_pct: pct(rejected, n),
        served_late_pct: pct(late, n),
        p50_ms: hist.value_at_percentile(50.0),
        p99_ms: hist.value_at_percentile(99.0),
        utilization_pct: utilization,
        arrivals: n,
        goodput,
        late,
        rejected,
        max_sojourn_ms,
    }
}
