//! The shedding experiment's hooks into shared code: its words to avoid and
//! its request logs for the statement checker.

use super::SheddingReport;
use crate::arrivals::Curve;
use crate::models::shedding::{self, ShedPolicy};
use crate::statement::{Logs, RunLog};

/// No words of its own to avoid.
pub(in crate::experiments) fn lint(_: &str) -> Result<(), String> {
    Ok(())
}

/// The sweep's run of `policy` at the `i`-th offered rate.
pub(super) fn key(policy: ShedPolicy, i: usize) -> String {
    format!("{}/{i}", policy.label())
}

/// Every sweep run re-made with the model's log hook, from the parameters.
pub(in crate::experiments) fn request_logs(r: &SheddingReport) -> Logs {
    let p = &r.inputs;
    let mut runs = Vec::new();
    for (i, &rate) in p.offered_rps.iter().enumerate() {
        let a = Curve::flat(rate, p.duration_ms).arrivals(p.duration_ms);
        for pol in ShedPolicy::ALL {
            let mut log = RunLog::new(key(pol, i), f64::from(p.duration_ms));
            shedding::run_logged(&r.settings, &a, pol, p.window_ms, 0, &mut |q| log.reqs.push(q));
            runs.push(log);
        }
    }
    Logs { runs }
}
