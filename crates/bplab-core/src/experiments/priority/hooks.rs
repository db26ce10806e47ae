//! This experiment's hooks into shared code: its words to avoid and its
//! request logs for the statement checker.

use super::PriorityReport;
use crate::statement::Logs;

/// No words of its own to avoid.
pub(in crate::experiments) fn lint(_: &str) -> Result<(), String> {
    Ok(())
}

/// No run statements yet.
pub(in crate::experiments) fn request_logs(_: &PriorityReport) -> Logs {
    Logs::default()
}
