//! The collapse experiment's parameters.

use crate::params::{
    ARTICLE_DEADLINE_MS, ARTICLE_DURATION_MS, ARTICLE_SERVICE_MS, DEADLINE_MS, DURATION_MS, HOUR_MS, I32_MAX, OFFERED,
    ParamKind, ParamSpec, Range, SERVICE_MS, main, span,
};

/// The sweep's offered rates: Post 1's model counts whole arrivals per
/// second, so its help says what its validator accepts.
pub(super) const WHOLE_OFFERED: ParamSpec =
    ParamSpec { kind: ParamKind::IntList, range: Range::from_to(1.0, 1_000_000.0), ..OFFERED };

crate::experiment_params! {
    /// Post 1's sweep: flat offered loads into an unbounded queue, without
    /// and with retries.
    pub struct CollapseParams {
        /// Fixed service time, ms.
        service_ms: u32 = ARTICLE_SERVICE_MS, SERVICE_MS;
        /// Client deadline, ms.
        deadline_ms: u32 = ARTICLE_DEADLINE_MS, main(DEADLINE_MS);
        /// Run window, ms.
        duration_ms: u32 = ARTICLE_DURATION_MS, DURATION_MS;
        /// Flat offered loads, rps (whole numbers for this sweep).
        offered_rps: Vec<f64> = vec![25.0, 50.0, 75.0, 90.0, 100.0, 110.0, 125.0, 150.0, 200.0, 300.0], WHOLE_OFFERED;
        /// Occupancy at which an attempt is rejected.
        queue_capacity: u32 = 100_000, ParamSpec {
            name: "queue-capacity",
            label: "Queue capacity",
            unit: "requests",
            kind: ParamKind::Int,
            range: Range::from_to(1.0, I32_MAX),
            help: "occupancy at which an attempt is rejected (100000 = effectively unbounded)",
            slider: span(1.0, 100_000.0, 1.0),
        };
        /// Retries after a timed-out or rejected first attempt.
        max_retries: u32 = 3, main(ParamSpec {
            name: "max-retries",
            label: "Max retries",
            unit: "retries",
            kind: ParamKind::Int,
            range: Range::from_to(0.0, 10.0),
            help: "retries after a timed-out or rejected first attempt",
            slider: span(0.0, 10.0, 1.0),
        });
        /// Wait before a retry, after the deadline passes, ms.
        retry_backoff_ms: u32 = 50, ParamSpec {
            name: "retry-backoff-ms",
            label: "Retry backoff",
            unit: "ms",
            kind: ParamKind::Int,
            range: Range::from_to(0.0, HOUR_MS),
            help: "fixed wait before a retry, after the deadline passes",
            slider: span(0.0, 1000.0, 10.0),
        };
    }
}
