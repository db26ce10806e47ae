//! The five deterministic models of one overloaded server.
//!
//! Each model is a pure function of its settings and its arrival times;
//! experiments (see [`crate::registry`]) sweep them and render CSV rows.

pub mod admission;
pub mod collapse;
pub mod priority;
pub mod shaping;
pub mod shedding;

mod queue_loop;

pub use queue_loop::{DoorPolicy, Pick};

/// Requests ahead of an arrival at `t` for one FIFO server busy until
/// `busy_until_ms` with fixed `service_ms`: 0 if idle, else
/// `ceil((busy - t) / S)`.
#[inline]
pub fn occupancy_ahead(busy_until_ms: f64, t_ms: f64, service_ms: f64) -> i64 {
    if busy_until_ms <= t_ms { 0 } else { ((busy_until_ms - t_ms) / service_ms).ceil() as i64 }
}

/// `100 · part / whole`, or 0 when `whole` is 0 (left-to-right, as the reference).
#[inline]
pub fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 { 0.0 } else { 100.0 * part as f64 / whole as f64 }
}

/// Like [`pct`] but 100 when `whole` is 0 (success rate of an empty class).
#[inline]
pub fn success_pct(part: u64, whole: u64) -> f64 {
    if whole == 0 { 100.0 } else { 100.0 * part as f64 / whole as f64 }
}
