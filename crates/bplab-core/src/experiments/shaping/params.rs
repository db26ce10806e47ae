//! The shaping experiment's parameters.

use crate::params::{
    ARTICLE_DEADLINE_MS, ARTICLE_DURATION_MS, ARTICLE_SERVICE_MS, ARTICLE_WINDOW_MS, DEADLINE_MS, DURATION_MS,
    ParamKind, ParamSpec, Range, SERVICE_MS, SPIKE_MS, SPIKE_RPS, VALLEY_MS, VALLEY_RPS, WINDOW_MS, span,
};

crate::experiment_params! {
    /// Post 3's gates on a bursty curve: the burst sweep and the timeline.
    pub struct ShapingParams {
        /// Fixed service time, ms.
        service_ms: u32 = ARTICLE_SERVICE_MS, SERVICE_MS;
        /// Client deadline, ms.
        deadline_ms: u32 = ARTICLE_DEADLINE_MS, DEADLINE_MS;
        /// Run window, ms.
        duration_ms: u32 = ARTICLE_DURATION_MS, DURATION_MS;
        /// Valley rate of the bursty curve, rps.
        valley_rps: f64 = 20.0, VALLEY_RPS;
        /// Valley length, ms.
        valley_ms: u32 = 1000, VALLEY_MS;
        /// Spike rate, rps.
        spike_rps: f64 = 600.0, SPIKE_RPS;
        /// Spike length, ms.
        spike_ms: u32 = 200, SPIKE_MS;
        /// Sustained release rate of both buckets, rps.
        gate_rate_rps: f64 = 100.0, ParamSpec {
            name: "gate-rate-rps",
            label: "Gate rate",
            unit: "rps",
            kind: ParamKind::Real,
            range: Range::above_to(0.0, 1_000_000.0),
            help: "sustained release rate of both buckets",
            slider: span(10.0, 500.0, 5.0),
        };
        /// Burst sizes of the sweep.
        bursts: Vec<u32> = vec![1, 2, 4, 8, 12, 16, 20, 28, 40, 80], ParamSpec {
            name: "bursts",
            label: "Burst sizes",
            unit: "requests",
            kind: ParamKind::IntList,
            range: Range::from_to(1.0, 1_000_000.0),
            help: "token bucket sizes / leaky queue depths of the sweep",
            slider: None,
        };
        /// Burst of the timeline's gates; `None` = B = round(capacity × deadline).
        window_burst: Option<u32> = None, ParamSpec {
            name: "window-burst",
            label: "Timeline burst",
            unit: "requests",
            kind: ParamKind::IntOrBudget,
            range: Range::from_to(1.0, 1_000_000.0),
            help: "burst of the timeline's gates; B = capacity × deadline",
            slider: span(1.0, 200.0, 1.0),
        };
        /// Width of the timeline's windows, ms.
        window_ms: u32 = ARTICLE_WINDOW_MS, WINDOW_MS;
    }
}
