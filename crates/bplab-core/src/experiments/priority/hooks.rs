//! The priority experiment's hooks into shared code: its words to avoid and
//! its request logs for the statement checker.

use super::PriorityReport;
use crate::arrivals::Curve;
use crate::models::priority;
use crate::statement::{Logs, RunLog};

/// No words of its own to avoid.
pub(in crate::experiments) fn lint(_: &str) -> Result<(), String> {
    Ok(())
}

/// The protection table's `j`-th run (blind rows, then priority rows).
pub(super) fn key(j: usize) -> String {
    format!("protection/{j}")
}

/// Every protection run re-made with the model's log hook, from the parameters.
pub(in crate::experiments) fn request_logs(r: &PriorityReport) -> Logs {
    let p = &r.inputs;
    let flats: Vec<Vec<f64>> =
        p.offered_rps.iter().map(|&rate| Curve::flat(rate, p.duration_ms).arrivals(p.duration_ms)).collect();
    let mut runs = Vec::new();
    for (j, o) in r.protection.iter().enumerate() {
        let Some(a) = flats.get(j % flats.len().max(1)) else { continue };
        let mut log = RunLog::new(key(j), f64::from(p.duration_ms));
        priority::run_logged(&r.settings, a, o.policy, p.window_ms, 0, &mut |q| log.reqs.push(q));
        runs.push(log);
    }
    Logs { runs }
}
