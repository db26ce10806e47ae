//! The shaping experiment's parameters.

use crate::params::{ARTICLE_WINDOW_MS, ParamKind, ParamSpec, Range, WINDOW_MS, main, span};

crate::experiment_params! {
    /// Post 3's gates on a bursty curve: the burst sweep and the timeline.
    pub struct ShapingParams {
        article { valley_rps: 20.0, valley_ms: 1000, spike_rps: 600.0, spike_ms: 200 };
        /// Sustained release rate of both buckets, rps.
        gate_rate_rps: f64 = 100.0, main(ParamSpec {
            name: "gate-rate-rps",
            label: "Gate rate",
            unit: "rps",
            kind: ParamKind::Real,
            range: Range::above_to(0.0, 1_000_000.0),
            help: "sustained release rate of both buckets",
            slider: span(10.0, 500.0, 5.0),
        });
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
        window_burst: Option<u32> = None, main(ParamSpec {
            name: "window-burst",
            label: "Timeline burst",
            unit: "requests",
            kind: ParamKind::IntOrBudget,
            range: Range::from_to(1.0, 1_000_000.0),
            help: "burst of the timeline's gates; B = capacity × deadline",
            slider: span(1.0, 200.0, 1.0),
        });
        /// Width of the timeline's windows, ms.
        window_ms: u32 = ARTICLE_WINDOW_MS, WINDOW_MS;
    }
}
