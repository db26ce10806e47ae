//! The lesson's hooks into shared code: its words to avoid, its request
//! logs for the statement checker, and its same-bytes reference case.

use super::LessonReport;
use crate::statement::Logs;

/// A seeded random model must not be called deterministic.
pub(in crate::experiments) fn lint(lower: &str) -> Result<(), String> {
    if lower.contains("deterministic synthetic") {
        return Err("a seeded random model called deterministic".into());
    }
    Ok(())
}

/// No run statements yet (its explanation still states claims over its CSVs).
pub(in crate::experiments) fn request_logs(_: &LessonReport) -> Logs {
    Logs::default()
}

/// The same-bytes reference case: two workers, a lognormal service time,
/// seed 7. The native test and the browser test hash its CSVs (then the
/// adaptive case's: [`crate::fuzz::pinned_csv`]), so wasm32 and x86-64 must
/// produce identical bytes.
pub const PINNED_EDITS: [(&str, &str); 6] = [
    ("workers", "2"),
    ("service", "lognormal:p50=20,p99=60"),
    ("seed", "7"),
    ("rate", "50,90,140"),
    ("limit", "12"),
    ("seconds", "5"),
];
