//! The shaping experiment's hooks into shared code: its words to avoid and
//! its request logs for the statement checker.

use super::{ShapingReport, curve};
use crate::models::shaping;
use crate::statement::{Logs, RunLog};

/// No words of its own to avoid.
pub(in crate::experiments) fn lint(_: &str) -> Result<(), String> {
    Ok(())
}

/// The sweep's `i`-th row's run.
pub(super) fn sweep_key(i: usize) -> String {
    format!("sweep/{i}")
}

/// The run of the timeline's burst, `i`-th gate.
pub(super) fn burst_key(i: usize) -> String {
    format!("burst/{i}")
}

/// Every run re-made with the model's log hook, from the parameters.
pub(in crate::experiments) fn request_logs(r: &ShapingReport) -> Logs {
    let arrivals = curve(&r.inputs).arrivals(r.settings.duration_ms);
    let window = f64::from(r.settings.duration_ms);
    let mut runs = Vec::new();
    for (key, row) in r
        .sweep
        .iter()
        .enumerate()
        .map(|(i, x)| (sweep_key(i), x))
        .chain(r.at_burst.iter().enumerate().map(|(i, x)| (burst_key(i), x)))
    {
        let mut log = RunLog::new(key, window);
        shaping::run_logged(&r.settings, &arrivals, row.gate, row.burst, &mut |q| log.reqs.push(q));
        runs.push(log);
    }
    Logs { runs }
}
