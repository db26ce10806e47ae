//! The metastability lab's hooks into shared code (its pinned case lives
//! in `mod.rs`: [`super::PINNED_EDITS`]).

use super::MetastableReport;
use crate::statement::Logs;

/// No words of its own to avoid.
pub(in crate::experiments) fn lint(_: &str) -> Result<(), String> {
    Ok(())
}

/// No run statements yet (its explanation still states claims over its CSVs).
pub(in crate::experiments) fn request_logs(_: &MetastableReport) -> Logs {
    Logs::default()
}
