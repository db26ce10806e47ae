//! The collapse experiment's hooks into shared code: its words to avoid and
//! its request logs for the statement checker.

use super::CollapseReport;
use crate::models::collapse::{self, CollapseSettings};
use crate::statement::{Logs, RunLog};

/// No words of its own to avoid.
pub(in crate::experiments) fn lint(_: &str) -> Result<(), String> {
    Ok(())
}

/// The run at the `i`-th offered rate, with or without retries.
pub(super) fn key(retry: bool, i: usize) -> String {
    format!("{}/{i}", if retry { "retry" } else { "no-retry" })
}

/// The run without retries at the highest offered rate with an admission
/// limit of B = round(capacity × deadline) requests in the system (the
/// queue capacity, which the model compares with the work in the system).
pub(super) const LIMITED: &str = "no-retry/limit-b";

/// The settings and offered rate of the [`LIMITED`] run: the report's
/// settings with the queue capacity set to B, at the sweep's highest offered
/// rate; `None` when the queue already holds at most B (setting it to B would
/// be no change, or not one change) or the sweep is empty.
pub(super) fn limited(r: &CollapseReport) -> Option<(CollapseSettings, u32)> {
    let s = r.settings;
    let b = crate::calc::budget_value(s.service_ms, s.deadline_ms);
    let rate = r.no_retry.iter().map(|x| x.offered_rps).max()?;
    (s.queue_capacity > b).then_some((CollapseSettings { queue_capacity: b, ..s }, rate))
}

/// Every row's run re-made with the model's log hook.
pub(in crate::experiments) fn request_logs(r: &CollapseReport) -> Logs {
    let s = r.settings;
    let mut runs = Vec::new();
    for (retry, rows) in [(false, &r.no_retry), (true, &r.retry)] {
        for (i, row) in rows.iter().enumerate() {
            let mut log = RunLog::new(key(retry, i), f64::from(s.duration_ms));
            collapse::run_logged(&s, row.offered_rps, retry, &mut |q| log.reqs.push(q));
            runs.push(log);
        }
    }
    if let Some((limited_settings, rate)) = limited(r) {
        let mut log = RunLog::new(LIMITED, f64::from(s.duration_ms));
        collapse::run_logged(&limited_settings, rate, false, &mut |q| log.reqs.push(q));
        runs.push(log);
    }
    Logs { runs }
}
