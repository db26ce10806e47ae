//! The priority experiment's parameters.

use crate::params::{
    ARTICLE_DEADLINE_MS, ARTICLE_DURATION_MS, ARTICLE_SERVICE_MS, ARTICLE_WINDOW_MS, DEADLINE_MS, DURATION_MS,
    OFFERED, ParamKind, ParamSpec, Range, SERVICE_MS, SPIKE_MS, SPIKE_RPS, VALLEY_MS, VALLEY_RPS, WINDOW_MS, span,
};

crate::experiment_params! {
    /// Post 5's class policies at flat loads and through a burst.
    pub struct PriorityParams {
        /// Fixed service time, ms.
        service_ms: u32 = ARTICLE_SERVICE_MS, SERVICE_MS;
        /// Client deadline, ms.
        deadline_ms: u32 = ARTICLE_DEADLINE_MS, DEADLINE_MS;
        /// Run window, ms.
        duration_ms: u32 = ARTICLE_DURATION_MS, DURATION_MS;
        /// Valley rate of the bursty curve, rps.
        valley_rps: f64 = 80.0, VALLEY_RPS;
        /// Valley length, ms.
        valley_ms: u32 = 1000, VALLEY_MS;
        /// Spike rate, rps.
        spike_rps: f64 = 360.0, SPIKE_RPS;
        /// Spike length, ms.
        spike_ms: u32 = 500, SPIKE_MS;
        /// Flat offered loads, rps.
        offered_rps: Vec<f64> = vec![50.0, 100.0, 150.0, 200.0, 300.0, 400.0, 500.0], OFFERED;
        /// Width of the burst table's windows, ms.
        window_ms: u32 = ARTICLE_WINDOW_MS, WINDOW_MS;
        /// Share of arrivals classified critical, in (0, 1).
        critical_share: f64 = 0.25, ParamSpec {
            name: "critical-share",
            label: "Critical share",
            unit: "fraction",
            kind: ParamKind::Real,
            range: Range::between(0.0, 1.0),
            help: "share of arrivals classified critical",
            slider: span(0.01, 0.99, 0.01),
        };
    }
}
