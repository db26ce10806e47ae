//! What a figure shows, as plain data: series, bands, reference markers and
//! axes, each with a **style role** (a palette index, a budget line, an
//! event, a reference, the focus) instead of a colour, so that every
//! renderer (the page's canvas in light or dark colours, the CLI's PNG)
//! themes it. Each experiment builds its plots from its report, in its own
//! folder (`experiments/<name>/plots.rs`); the charts crate only renders.

mod data;
mod focus;
mod format;

pub use data::{Band, Category, Marker, Plot, RightAxis, Role, Series, Side, Stroke, XAxis};
pub use focus::{Focus, Highlight, HighlightKind};
pub use format::compact;

#[cfg(test)]
mod tests;
