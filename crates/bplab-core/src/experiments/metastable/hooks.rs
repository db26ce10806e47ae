//! The metastability lab's hooks into shared code (its pinned case lives
//! in `mod.rs`: [`super::PINNED_EDITS`]).

use super::MetastableReport;
use crate::statement::Logs;

/// No words of its own to avoid.
pub(in crate::experiments) fn lint(_: &str) -> Result<(), String> {
    Ok(())
}

/// Every run the explanations name, re-made from the parameters the report
/// ran with, every try kept (none for a report without its parameters).
pub(in crate::experiments) fn request_logs(r: &MetastableReport) -> Logs {
    r.params.as_ref().map(|p| super::request_logs(r, p)).unwrap_or_default()
}
