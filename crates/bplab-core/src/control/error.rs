//! Why a controller setting cannot be used. Messages name the setting as the
//! CLI flag spells it (without `--`), the value, and what is accepted, with
//! the range text built from the same constants that enforce it.

use std::fmt;

/// A controller setting that cannot be used.
#[derive(Clone, Debug, PartialEq)]
pub enum ControlError {
    /// A value outside its accepted range. Fix: pick a value in `accepted`.
    OutOfRange {
        /// Setting name as the CLI flag spells it (without `--`), e.g. `backoff-ratio`.
        param: &'static str,
        /// The offending value, formatted.
        value: String,
        /// Human-readable accepted range, e.g. "a number from 0.5 (inclusive) to 1.0 (exclusive)".
        accepted: String,
    },
    /// CoDel `set` (folly's `setOptions`) needs `interval > target > 0`; the
    /// controller is left unchanged. Fix: a target below the interval, both above 0.
    CodelOptions {
        /// Requested target delay, ms.
        target_ms: i64,
        /// Requested interval, ms.
        interval_ms: i64,
    },
}

impl ControlError {
    /// An [`ControlError::OutOfRange`] for `param`.
    pub(crate) fn range(param: &'static str, value: impl fmt::Display, accepted: impl Into<String>) -> Self {
        Self::OutOfRange { param, value: value.to_string(), accepted: accepted.into() }
    }

    /// The setting this error is about (`None` for a CoDel `set`).
    pub fn param(&self) -> Option<&'static str> {
        match self {
            Self::OutOfRange { param, .. } => Some(param),
            Self::CodelOptions { .. } => None,
        }
    }
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutOfRange { param, value, accepted } => {
                write!(f, "{param}: '{value}' is not accepted; expected {accepted}")
            }
            Self::CodelOptions { target_ms, interval_ms } => write!(
                f,
                "set: target {target_ms} ms with interval {interval_ms} ms is not accepted; expected interval > target > 0 (ms)"
            ),
        }
    }
}

impl std::error::Error for ControlError {}
