//! The shedding experiment's parameters.

use crate::params::{
    ARTICLE_DEADLINE_MS, ARTICLE_DURATION_MS, ARTICLE_OFFERED_RPS, ARTICLE_SERVICE_MS, ARTICLE_WINDOW_MS, DEADLINE_MS,
    DURATION_MS, OFFERED, SERVICE_MS, SPIKE_MS, SPIKE_RPS, VALLEY_MS, VALLEY_RPS, WINDOW_MS,
};

crate::experiment_params! {
    /// Post 4's policies at flat loads and through a bursty hangover.
    pub struct SheddingParams {
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
        spike_rps: f64 = 600.0, SPIKE_RPS;
        /// Spike length, ms.
        spike_ms: u32 = 500, SPIKE_MS;
        /// Flat offered loads, rps.
        offered_rps: Vec<f64> = ARTICLE_OFFERED_RPS.to_vec(), OFFERED;
        /// Width of the hangover's windows, ms.
        window_ms: u32 = ARTICLE_WINDOW_MS, WINDOW_MS;
    }
}
