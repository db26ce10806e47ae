//! The shedding experiment's parameters.

use crate::params::{ARTICLE_OFFERED_RPS, ARTICLE_WINDOW_MS, OFFERED, WINDOW_MS};

crate::experiment_params! {
    /// Post 4's policies at flat loads and through a bursty hangover.
    pub struct SheddingParams {
        article { valley_rps: 80.0, valley_ms: 1000, spike_rps: 600.0, spike_ms: 500, main: ["deadline-ms"] };
        /// Flat offered loads, rps.
        offered_rps: Vec<f64> = ARTICLE_OFFERED_RPS.to_vec(), OFFERED;
        /// Width of the hangover's windows, ms.
        window_ms: u32 = ARTICLE_WINDOW_MS, WINDOW_MS;
    }
}
