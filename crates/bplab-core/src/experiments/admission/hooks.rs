//! The admission experiment's hooks into shared code: its words to avoid
//! and its request logs for the statement checker.

use super::{AdmissionReport, curve};
use crate::arrivals::Curve;
use crate::models::admission::{self, Limit};
use crate::statement::{Logs, RunLog};

/// No words of its own to avoid.
pub(in crate::experiments) fn lint(_: &str) -> Result<(), String> {
    Ok(())
}

/// The sweep's run at `limits[i]` on the bursty curve.
pub(super) fn sweep_key(i: usize) -> String {
    format!("sweep/{i}")
}

/// The plateau's run at `offered_rps[i]`, without a limit (`limited`: with the plateau limit).
pub(super) fn plateau_key(limited: bool, i: usize) -> String {
    format!("{}/{i}", if limited { "limited" } else { "no-control" })
}

/// Every run re-made with the model's log hook, from the parameters alone.
pub(in crate::experiments) fn request_logs(r: &AdmissionReport) -> Logs {
    let p = &r.inputs;
    let s = r.settings;
    let window = f64::from(s.duration_ms);
    let mut runs = Vec::new();
    let mut logged = |key: String, arrivals: &[f64], limit: Limit| {
        let mut log = RunLog::new(key, window);
        admission::run_logged(&s, arrivals, limit, &mut |q| log.reqs.push(q));
        runs.push(log);
    };
    let bursty = curve(p).arrivals(p.duration_ms);
    for (i, &l) in p.limits.iter().enumerate() {
        logged(sweep_key(i), &bursty, l);
    }
    for (i, &rate) in p.offered_rps.iter().enumerate() {
        let a = Curve::flat(rate, p.duration_ms).arrivals(p.duration_ms);
        logged(plateau_key(false, i), &a, Limit::None);
        logged(plateau_key(true, i), &a, Limit::Finite(r.plateau_limit));
    }
    Logs { runs }
}
