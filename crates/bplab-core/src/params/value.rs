//! Domain value types shared by several experiments, and the helper every
//! named value (controllers, presets, …) parses with.

use serde::Serialize;

use super::{ParamSpec, ParamValue};
use crate::error::ConfigError;

/// A limit on the requests waiting in the line (beyond the workers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum QueueLimit {
    /// No limit: the line grows until callers give up (`off`).
    Off,
    /// At most this many wait.
    N(u32),
}

impl QueueLimit {
    /// The limit as the engine takes it (`None` = no limit).
    pub fn waiting(self) -> Option<u32> {
        match self {
            QueueLimit::Off => None,
            QueueLimit::N(n) => Some(n),
        }
    }
}

impl ParamValue for QueueLimit {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        if text.trim().eq_ignore_ascii_case("off") {
            Ok(QueueLimit::Off)
        } else {
            spec.int(text, text).map(QueueLimit::N)
        }
    }
    fn show(&self) -> String {
        match self {
            QueueLimit::Off => "off".to_owned(),
            QueueLimit::N(n) => n.to_string(),
        }
    }
}

/// A value with a fixed set of names (a controller, a preset): parsing
/// finds the exact name, printing gives it back. No catch-all: an unknown
/// name is refused with the accepted set.
pub trait Named: Copy + Sized + 'static {
    /// Every value, in the order the names are listed.
    const ALL: &'static [Self];
    /// The value's name.
    fn name(self) -> &'static str;

    /// The value named `name` (exact, as listed).
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.name() == name)
    }

    /// Reads one name; a refusal quotes `text` with `spec`'s accepted set.
    fn parse_named(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        Self::from_name(text.trim()).ok_or_else(|| spec.refuse(text))
    }
}
