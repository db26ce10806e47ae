//! The one error type of the crate.

use std::fmt;

use bplab_core::ConfigError;
use plotters::drawing::DrawingAreaErrorKind;

/// Why a figure could not be drawn.
#[derive(Clone, Debug, PartialEq)]
pub enum ChartError {
    /// The backend failed. The message is the backend's own. Fix: depends
    /// on the backend (canvas gone, file not writable, no font registered
    /// for bitmap text).
    Drawing(String),
    /// The calculator input is invalid (the message says what is accepted).
    Input(ConfigError),
}

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChartError::Drawing(m) => write!(f, "drawing failed: {m}"),
            ChartError::Input(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ChartError {}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for ChartError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        ChartError::Drawing(e.to_string())
    }
}

impl From<ConfigError> for ChartError {
    fn from(e: ConfigError) -> Self {
        ChartError::Input(e)
    }
}
