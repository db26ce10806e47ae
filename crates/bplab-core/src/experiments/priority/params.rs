//! The priority experiment's parameters.

use crate::params::{ARTICLE_WINDOW_MS, OFFERED, ParamKind, ParamSpec, Range, WINDOW_MS, main, span};

crate::experiment_params! {
    /// Post 5's class policies at flat loads and through a burst.
    pub struct PriorityParams {
        article { valley_rps: 80.0, valley_ms: 1000, spike_rps: 360.0, spike_ms: 500 };
        /// Flat offered loads, rps.
        offered_rps: Vec<f64> = vec![50.0, 100.0, 150.0, 200.0, 300.0, 400.0, 500.0], OFFERED;
        /// Width of the burst table's windows, ms.
        window_ms: u32 = ARTICLE_WINDOW_MS, WINDOW_MS;
        /// Share of arrivals classified critical, in (0, 1).
        critical_share: f64 = 0.25, main(ParamSpec {
            name: "critical-share",
            label: "Critical share",
            unit: "fraction",
            kind: ParamKind::Real,
            range: Range::between(0.0, 1.0),
            help: "share of arrivals classified critical",
            slider: span(0.01, 0.99, 0.01),
        });
    }
}
