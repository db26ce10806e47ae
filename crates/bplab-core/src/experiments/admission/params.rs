//! The admission experiment's parameters.

use crate::models::admission::Limit;
use crate::params::{ARTICLE_OFFERED_RPS, I32_MAX, OFFERED, ParamKind, ParamSpec, Range, main, span};

crate::experiment_params! {
    /// Post 2's limit sweep on the bursty curve and the plateau.
    pub struct AdmissionParams {
        article { valley_rps: 50.0, valley_ms: 200, spike_rps: 300.0, spike_ms: 100, main: ["service-ms"] };
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
        plateau_limit: Option<u32> = None, main(ParamSpec {
            name: "plateau-limit",
            label: "Plateau limit",
            unit: "requests",
            kind: ParamKind::IntOrBudget,
            range: Range::from_to(1.0, I32_MAX),
            help: "limit of the admission-limited plateau; B = capacity × deadline",
            slider: span(1.0, 200.0, 1.0),
        });
    }
}
