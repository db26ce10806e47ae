//! The adaptive race's hooks into shared code: its words to avoid, its
//! request logs for the statement checker, and its same-bytes reference case.

use super::AdaptiveReport;
use crate::statement::Logs;

/// A seeded random model must not be called deterministic.
pub(in crate::experiments) fn lint(lower: &str) -> Result<(), String> {
    if lower.contains("deterministic synthetic") {
        return Err("a seeded random model called deterministic".into());
    }
    Ok(())
}

/// Every lane re-run from the parameters the report ran with, each request
/// kept: each lane's whole run and its phases before and after the change
/// point (none for a report that does not carry its parameters).
pub(in crate::experiments) fn request_logs(r: &AdaptiveReport) -> Logs {
    r.params.as_ref().map(super::request_logs).unwrap_or_default()
}

/// The race's reference case: a load step, a 3× deploy, every controller
/// (their seeded draws included), seed 11; hashed after the lesson's
/// ([`crate::fuzz::pinned_csv`]).
pub const PINNED_EDITS: [(&str, &str); 5] = [
    ("rate-schedule", "30@0,60@4000"),
    ("slowdown-factor", "3"),
    ("slowdown-at-ms", "3000"),
    ("seconds", "8"),
    ("seed", "11"),
];
