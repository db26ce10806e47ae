//! The collapse experiment's hooks into shared code: its words to avoid and
//! its request logs for the statement checker.

use super::CollapseReport;
use crate::models::collapse;
use crate::statement::{Logs, RunLog};

/// No words of its own to avoid.
pub(in crate::experiments) fn lint(_: &str) -> Result<(), String> {
    Ok(())
}

/// The run at the `i`-th offered rate, with or without retries.
pub(super) fn key(retry: bool, i: usize) -> String {
    format!("{}/{i}", if retry { "retry" } else { "no-retry" })
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
    Logs { runs }
}
