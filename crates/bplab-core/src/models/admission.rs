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

    /// The CSV label: the number, or `none` for no limit and for
    /// `i32::MAX`, the bound that means none (the Java lab prints `none` for
    /// `Integer.MAX_VALUE`, its no-limit value).
    pub fn label(self) -> String {
        match self {
            Limit::Finite(n) if i64::from(n) < i64::from(i32::MAX) => n.to_string(),
            Limit::Finite(_) | Limit::None => "none".to_owned(),
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
    run_iter(s, arrivals.iter().copied(), limit, log)
}

/// [`run_logged`] over arrivals made as the pass reaches them (sorted, ms),
/// so a caller that can generate them (an evenly spaced curve) needs no list:
/// the same pass, the same bytes.
pub fn run_iter(
    s: &AdmissionSettings,
    arrivals: impl IntoIterator<Item = f64>,
    limit: Limit,
    log: &mut impl FnMut(crate::statement::Req),
) -> AdmissionOutcome {
    use crate::statement::Req;
    let deadline = f64::from(s.deadline_ms);
    let service = f64::from(s.service_ms);
    let bound = limit.bound();
    let mut server = FifoServer::new(s.service_ms, s.deadline_ms);
    let mut hist = LatencyHistogram::new();
    let (mut n, mut goodput, mut late, mut rejected) = (0u64, 0u64, 0u64, 0u64);
    let mut max_sojourn_ms = 0.0f64;
    for t in arrivals {
        n += 1;
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

#[cfg(test)]
mod label_tests {
    use super::*;

    // Issue 38: `--limits 2147483647` is the Java lab's Integer.MAX_VALUE,
    // printed `none` there (it was `2147483647` here).
    #[test]
    fn the_largest_limit_is_labelled_none_as_in_java() {
        assert_eq!(Limit::Finite(2_147_483_647).label(), "none");
        assert_eq!(Limit::Finite(2_147_483_646).label(), "2147483646");
        assert_eq!(Limit::Finite(1).label(), "1");
        assert_eq!(Limit::None.label(), "none");
        assert_eq!(Limit::Finite(2_147_483_647).bound(), Limit::None.bound());
    }

    // The same through the experiment: `bplab run admission --limits 2147483647`.
    #[test]
    fn the_sweep_csv_labels_the_largest_limit_none() {
        let e = crate::EXPERIMENTS.iter().find(|e| e.name == "admission").expect("admission");
        let mut p = crate::Experiment::get(e.id).defaults();
        p.apply(&[("limits", "2147483647,2147483646".to_string())]).expect("accepted limits");
        let r = crate::Scenario::new(p, crate::Caps::CLI).expect("scenario").run();
        let csv = r.tables()[0].csv();
        let labels: Vec<&str> = csv.lines().skip(1).filter_map(|l| l.split(',').next()).collect();
        assert_eq!(labels, ["none", "2147483646"], "{csv}");
    }
}
