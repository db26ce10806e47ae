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

/// One FIFO server with a fixed service time (Posts 1–3): a request released
/// to it at `release_ms` starts when the server is free, and its sojourn
/// since arrival is floored at one service time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FifoServer {
    service_ms: f64,
    deadline_ms: f64,
    busy_until_ms: f64,
}

/// What serving one request gave.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Served {
    /// When service started, ms.
    pub start_ms: f64,
    /// `max(S, round(finish − arrival))`, ms.
    pub sojourn_ms: f64,
    /// `sojourn <= deadline`.
    pub on_time: bool,
}

impl FifoServer {
    /// An idle server.
    pub fn new(service_ms: u32, deadline_ms: u32) -> Self {
        Self { service_ms: f64::from(service_ms), deadline_ms: f64::from(deadline_ms), busy_until_ms: 0.0 }
    }

    /// Requests ahead of an arrival at `t_ms`.
    #[inline]
    pub fn occupancy_ahead(&self, t_ms: f64) -> i64 {
        occupancy_ahead(self.busy_until_ms, t_ms, self.service_ms)
    }

    /// Serves a request that arrived at `arrival_ms` and reaches the server at `release_ms`.
    #[inline]
    pub fn serve(&mut self, release_ms: f64, arrival_ms: f64) -> Served {
        let start_ms = release_ms.max(self.busy_until_ms);
        let finish = start_ms + self.service_ms;
        self.busy_until_ms = finish;
        let sojourn_ms = self.service_ms.max(crate::numerics::round_half_up(finish - arrival_ms));
        Served { start_ms, sojourn_ms, on_time: sojourn_ms <= self.deadline_ms }
    }
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
