//! The metastability lab's hooks into shared code (its pinned case lives
//! in `mod.rs`: [`super::PINNED_EDITS`]).

use super::MetastableReport;
use crate::statement::Logs;

/// No words of its own to avoid.
pub(in crate::experiments) fn lint(_: &str) -> Result<(), String> {
    Ok(())
}

/// No request logs: the report does not carry its seed and traffic, so
/// they cannot be re-made from it here; its explanation's run facts are
/// claims checked against its CSV tables (summary, timeline, phase) instead.
pub(in crate::experiments) fn request_logs(_: &MetastableReport) -> Logs {
    Logs::default()
}
