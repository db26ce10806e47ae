//! The admission experiment's parameters.

use crate::models::admission::Limit;
use crate::params::{
    ARTICLE_DEADLINE_MS, ARTICLE_DURATION_MS, ARTICLE_OFFERED_RPS, ARTICLE_SERVICE_MS, DEADLINE_MS,
    DURATION_MS, I32_MAX, OFFERED, ParamKind, ParamSpec, Range, SERVICE_MS, SPIKE_MS, SPIKE_RPS, VALLEY_MS,
    VALLEY_RPS, span,
};

crate::experiment_params! {
    /// Post 2's limit sweep on the bursty curve and the plateau.
    pub struct AdmissionParams {
        /// Fixed service time, ms.
        service_ms: u32 = ARTICLE_SERVICE_MS, SERVICE_MS;
        /// Client deadline, ms.
        deadline_ms: u32 = ARTICLE_DEADLINE_MS, DEADLINE_MS;
        /// Run window, ms.
        duration_ms: u32 = ARTICLE_DURATION_MS, DURATION_MS;
        /// Valley rate of the bursty curve, rps.
        valley_rps: f64 = 50.0, VALLEY_RPS;
        /// Valley length, ms.
        valley_ms: u32 = 200, VALLEY_MS;
        /// Spike rate, rps.
        spike_rps: f64 = 300.0, SPIKE_RPS;
        /// Spike length, ms.
        spike_ms: u32 = 100, SPIKE_MS;
        /// Flat offered loads of the plateau, rps.
        offered_rps: Vec<f64> = ARTICLE_OFFERED_RPS.to_vec(), OFFERED;
        /// Limits of the sweep.
        limits: Vec<Limit> =
            [1, 2, 4, 8, 12, 16, 20, 28, 40, 80, 200].into_iter().map(Limit::Finite).chain([Limit::None]).collect(),
            ParamSpec {
                name: "limits",
                label: "Admission limits",
                unit: "requests",
                kind: ParamKind::LimitList,
                range: Range::from_to(1.0, I32_MAX),
                help: "limits of the sweep, comma-separated; 'none' for no limit",
                slider: None,
            };
        /// Limit of the plateau's limited rows; `None` = B = round(capacity × deadline).
        plateau_limit: Option<u32> = None, ParamSpec {
            name: "plateau-limit",
            label: "Plateau limit",
            unit: "requests",
            kind: ParamKind::IntOrBudget,
            range: Range::from_to(1.0, I32_MAX),
            help: "limit of the admission-limited plateau; B = capacity × deadline",
            slider: span(1.0, 200.0, 1.0),
        };
    }
}
